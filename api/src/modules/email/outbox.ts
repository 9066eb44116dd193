import { desc } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, type EmailKind } from '@bpay/db';
import { newId } from '../../lib/ids';

/*
 * The e-mail outbox: a message is written in the same transaction as what causes it (a reset requested, a plan
 * charged), so it is sent if and only if that happened, and a crash before sending loses nothing. The mail worker
 * (this module's worker) sends due messages and retries failures with backoff; with no SMTP server configured they
 * stay here for the outbox page.
 */

export interface OutgoingEmail {
  kind: EmailKind;
  /** The account it concerns, if any (the outbox page and erasure find messages by it). */
  userId: string | null;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
}

/** Queues one message in the caller's transaction; returns its id. */
export async function enqueueEmail(tx: DbOrTx, at: Date, mail: OutgoingEmail): Promise<string> {
  const id = newId('em');
  await tx.insert(schema.emailOutbox).values({
    id,
    userId: mail.userId,
    kind: mail.kind,
    toAddress: mail.to,
    subject: mail.subject,
    textBody: mail.text,
    htmlBody: mail.html ?? null,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: at,
    createdAt: at,
  });
  return id;
}

export interface OutboxMessage {
  id: string;
  kind: EmailKind;
  to: string;
  subject: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
  text: string;
  createdAt: string;
  sentAt: string | null;
  nextAttemptAt: string | null;
}

/** The newest `limit` messages, newest first (the outbox page). */
export async function listOutbox(db: Db, limit: number): Promise<OutboxMessage[]> {
  const o = schema.emailOutbox;
  const rows = await db.select().from(o).orderBy(desc(o.createdAt), desc(o.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    to: r.toAddress,
    subject: r.subject,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    text: r.textBody,
    createdAt: r.createdAt.toISOString(),
    sentAt: r.sentAt?.toISOString() ?? null,
    nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt.toISOString() : null,
  }));
}
