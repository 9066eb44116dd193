import { desc, sql } from 'drizzle-orm';
import { schema, prepared, type Db, type DbOrTx, type EmailKind } from '@bpay/db';
import { deriveKey, seal, unseal } from '../../lib/crypto';
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

/*
 * One-time links (a password reset, a sign-in link, an e-mail change's confirm and revert links) are never stored
 * usable: the bodies keep ONE_TIME_TOKEN_PLACEHOLDER where the token was, the token itself is sealed in sealed_token,
 * the mail worker puts it back into the message only as it sends it, and the same UPDATE that marks the message sent
 * (or failed for good) clears sealed_token. A database copy, a backup or an admin reading the outbox sees no live link.
 */

/** What the stored bodies hold in place of a one-time token (no character escapeHtml changes, never a token). */
export const ONE_TIME_TOKEN_PLACEHOLDER = '[one-time token, not kept]';

/** The key sealing outbox tokens, derived from the session secret for this purpose only. */
export const outboxTokenKey = (sessionSecret: string) => deriveKey(sessionSecret, 'email-outbox-tokens');

/** The bodies with the placeholder replaced by the token (the mail as sent). */
export function withToken<T extends { text: string; html: string | null }>(bodies: T, token: string): T {
  return {
    ...bodies,
    text: bodies.text.replaceAll(ONE_TIME_TOKEN_PLACEHOLDER, token),
    html: bodies.html?.replaceAll(ONE_TIME_TOKEN_PLACEHOLDER, token) ?? null,
  };
}

/** The sealed token of a row, opened. Throws when it cannot be opened (the session secret changed). */
export const openSealedToken = (sessionSecret: string, sealed: string) => unseal(outboxTokenKey(sessionSecret), sealed);

/**
 * Queues one message in the caller's transaction; returns its id. `oneTime` (a mail carrying a one-time link): its
 * token is taken out of the bodies and stored sealed with a key from `sessionSecret` (see above).
 */
/** The outbox's one insert, built once (db/prepared.ts): every notice mailed and every account mail runs it. */
const insertMessage = prepared((db) => {
  const ph = sql.placeholder;
  return db
    .insert(schema.emailOutbox)
    .values({
      id: ph('id'),
      userId: ph('userId'),
      kind: ph('kind'),
      toAddress: ph('toAddress'),
      subject: ph('subject'),
      textBody: ph('textBody'),
      htmlBody: ph('htmlBody'),
      sealedToken: ph('sealedToken'),
      status: 'pending',
      attempts: 0,
      nextAttemptAt: ph('nextAttemptAt'),
      createdAt: ph('createdAt'),
    })
    .prepare();
});

export async function enqueueEmail(
  tx: DbOrTx,
  at: Date,
  mail: OutgoingEmail,
  oneTime?: { token: string; sessionSecret: string },
): Promise<string> {
  const id = newId('em');
  let text = mail.text;
  let html = mail.html ?? null;
  let sealedToken: string | null = null;
  if (oneTime) {
    if (oneTime.token.length < 16 || !text.includes(oneTime.token)) throw new Error('a one-time mail must carry its token');
    text = text.replaceAll(oneTime.token, ONE_TIME_TOKEN_PLACEHOLDER);
    html = html?.replaceAll(oneTime.token, ONE_TIME_TOKEN_PLACEHOLDER) ?? null;
    sealedToken = seal(outboxTokenKey(oneTime.sessionSecret), oneTime.token);
  }
  await insertMessage(tx).run({
    id,
    userId: mail.userId,
    kind: mail.kind,
    toAddress: mail.to,
    subject: mail.subject,
    textBody: text,
    htmlBody: html,
    sealedToken,
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

/**
 * The newest `limit` messages, newest first (the outbox page), one-time tokens as the placeholder. `revealTo` (only a
 * local install's own browser: no SMTP server, so the outbox is where its mail goes) puts the tokens of messages not
 * yet sent back into their text; an admin never gets them.
 */
export async function listOutbox(db: Db, limit: number, revealTo?: { sessionSecret: string }): Promise<OutboxMessage[]> {
  const o = schema.emailOutbox;
  const rows = await db.select().from(o).orderBy(desc(o.createdAt), desc(o.id)).limit(limit);
  const textOf = (r: (typeof rows)[number]) => {
    if (!revealTo || r.sealedToken === null) return r.textBody;
    try {
      return withToken({ text: r.textBody, html: null }, openSealedToken(revealTo.sessionSecret, r.sealedToken)).text;
    } catch {
      return r.textBody;
    }
  };
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    to: r.toAddress,
    subject: r.subject,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    text: textOf(r),
    createdAt: r.createdAt.toISOString(),
    sentAt: r.sentAt?.toISOString() ?? null,
    nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt.toISOString() : null,
  }));
}
