import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { MailSendError, type MailTransport } from './transport';
import { startPollWorker, type PollWorker } from '../../lib/poll-worker';
import { openSealedToken, withToken } from './outbox';

/*
 * The mail worker: sends the e-mail outbox after commit. A message is claimed with one guarded UPDATE of lease_until,
 * so two workers (two timers, two processes) never send the same message at once; a worker that dies mid-send
 * leaves a lease that simply runs out, and the message is sent again (at-least-once, as SMTP itself is).
 * With no SMTP server configured nothing runs: the messages stay pending for the outbox page.
 */

/** The waits after the 1st, 2nd … failed attempt. After MAX_ATTEMPTS failures the message is failed. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** How long a claim lasts: well past the transport's timeouts (transport.ts), so a live worker never loses its message. */
export const LEASE_MS = 5 * 60_000;

/** The wait after the `attempts`-th failure (1-based). */
export function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1]!;
}

export interface MailRun {
  claimed: number;
  sent: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Messages that ended as failed (refused for good by the server, or out of attempts). */
  failed: number;
}

type Outcome = 'sent' | 'retrying' | 'failed' | 'skipped';

/**
 * The Message-ID of an outbox row: fixed by the row, so every send of it (a resend after a crash between the server's
 * acceptance and bpay's record of it: at-least-once) names the same message.
 */
export const outboxMessageId = (id: string, publicUrl: URL) => `<${id}@${publicUrl.hostname}>`;

async function sendOne(deps: AppDeps, transport: MailTransport, id: string, leaseUntil: Date): Promise<Outcome> {
  const o = schema.emailOutbox;
  const row = await deps.db.query.emailOutbox.findFirst({ where: eq(o.id, id) });
  if (!row) return 'skipped';
  const mine = and(eq(o.id, id), eq(o.status, 'pending'), eq(o.leaseUntil, leaseUntil));
  try {
    // A one-time link's token goes back into the message here only (outbox.ts): the stored bodies never hold it.
    let bodies = { text: row.textBody, html: row.htmlBody };
    if (row.sealedToken !== null) {
      let token: string;
      try {
        token = openSealedToken(deps.session.secret, row.sealedToken);
      } catch {
        throw new MailSendError('its one-time link could not be opened (the session secret changed): not sent', true);
      }
      bodies = withToken(bodies, token);
    }
    await transport.send({
      from: deps.mail.from,
      to: row.toAddress,
      subject: row.subject,
      text: bodies.text,
      html: bodies.html,
      messageId: outboxMessageId(row.id, deps.publicUrl),
    });
  } catch (e) {
    const error = e instanceof MailSendError ? e : new MailSendError(String((e as Error)?.message ?? e).slice(0, 500), false);
    const attempts = row.attempts + 1;
    const giveUp = error.permanent || attempts >= MAX_ATTEMPTS;
    const now = deps.clock.now();
    await deps.db
      .update(o)
      .set({
        attempts: sql`${o.attempts} + 1`,
        lastError: error.message,
        leaseUntil: null,
        // A message that will never be sent keeps no token either.
        ...(giveUp ? { status: 'failed' as const, sealedToken: null } : { nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)) }),
      })
      .where(mine);
    deps.log.warn('e-mail not sent', { emailId: id, kind: row.kind, attempts, error: error.message, willRetry: !giveUp });
    return giveUp ? 'failed' : 'retrying';
  }
  await deps.db
    .update(o)
    // The one write that records the send also drops the one-time token: a sent link lives only in the recipient's mail.
    .set({ status: 'sent', attempts: sql`${o.attempts} + 1`, sentAt: deps.clock.now(), lastError: null, leaseUntil: null, sealedToken: null })
    .where(mine);
  return 'sent';
}

/**
 * Sends the messages that are due (pending, next_attempt_at ≤ now, not leased by a live worker), at most `limit`,
 * concurrently. A message the server accepts is sent; a 4xx answer, a timeout or a network error is retried after
 * RETRY_DELAYS_MS; a 5xx answer (the server refuses it for good) or the MAX_ATTEMPTS-th failure fails it. Without a
 * transport (no SMTP server configured) nothing is claimed.
 */
export async function sendDueEmails(deps: AppDeps, opts: { limit?: number } = {}): Promise<MailRun> {
  const transport = deps.mail.transport;
  const run: MailRun = { claimed: 0, sent: 0, retrying: 0, failed: 0 };
  if (!transport) return run;
  const limit = opts.limit ?? 10;
  const o = schema.emailOutbox;
  const now = deps.clock.now();
  const due = and(eq(o.status, 'pending'), lte(o.nextAttemptAt, now), or(isNull(o.leaseUntil), lte(o.leaseUntil, now)));
  const candidates = await deps.db.select({ id: o.id }).from(o).where(due).orderBy(asc(o.nextAttemptAt)).limit(limit);
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const claimed: string[] = [];
  for (const { id } of candidates) {
    // The claim: only one worker's UPDATE finds the message still due.
    const res = await deps.db.update(o).set({ leaseUntil }).where(and(eq(o.id, id), due));
    if (res.rowsAffected === 1) claimed.push(id);
  }
  const outcomes = await Promise.all(
    claimed.map((id) =>
      sendOne(deps, transport, id, leaseUntil).catch((error) => {
        // The lease runs out and another run tries again.
        deps.log.error('e-mail send failed to run', { emailId: id, error });
        return 'skipped' as const;
      }),
    ),
  );
  run.claimed = claimed.length;
  for (const out of outcomes) if (out !== 'skipped') run[out]++;
  return run;
}

export type MailWorker = PollWorker;

/** Runs sendDueEmails every `intervalMs` (never two runs at once; lib/poll-worker.ts), until stopped. */
export function startMailWorker(deps: AppDeps, opts: { intervalMs?: number; limit?: number } = {}): MailWorker {
  return startPollWorker({
    name: 'mail worker',
    log: deps.log,
    // Its back-off after a failed run (a full disk) is timed on the app's clock.
    now: () => deps.clock.now().getTime(),
    limit: opts.limit ?? 10,
    intervalMs: opts.intervalMs ?? 2000,
    runBatch: (limit) => sendDueEmails(deps, { limit }),
  });
}
