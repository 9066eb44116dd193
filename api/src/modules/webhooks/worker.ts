import { and, asc, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { unseal } from '../../lib/crypto';
import { systemNow } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { eventPayload } from '../events/service';
import { AUTO_DISABLED_REASON, failPendingDeliveries, signingSecretsSealed } from './service';
import { SIGNATURE_HEADER, signatureHeader, STRIPE_SIGNATURE_HEADER, USER_AGENT } from './signature';

export { USER_AGENT };
import { resolveWebhookTarget, type WebhookTarget } from './url-policy';
import { sendToTarget } from './pinned';
import { startPollWorker, type PollWorker } from '../../lib/poll-worker';

/*
 * The delivery worker: sends the outbox (webhook_deliveries) after commit. A delivery is claimed with one guarded
 * UPDATE of locked_until, so two workers (two timers, two processes) never send the same delivery at once; a worker
 * that dies mid-send leaves a lock that simply runs out, and the delivery is sent again (at-least-once: receivers
 * deduplicate by event id, as with Stripe).
 */

/** Retries stop this long after a delivery was queued; the delivery is then failed. */
export const RETRY_WINDOW_MS = 3 * 24 * 3600_000;
/** An endpoint whose every delivery has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_CAP_MS = 6 * 3600_000;
export const SNIPPET_CHARS = 500;

/** How long a claim lasts: well past the receiver's timeout, so a live worker never loses its delivery. */
export const lockMs = (timeoutMs: number) => Math.max(60_000, timeoutMs * 3);

/**
 * The wait after the `attempts`-th failed attempt: 30 s, 1 min, 2 min, 4 min … doubling up to 6 hours, each
 * shortened by up to 20 % at random (jitter) so endpoints that failed together do not all retry together.
 */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.2 * random()));
}

/** Up to SNIPPET_CHARS of the answer; stops reading after 64 KiB so a huge or endless answer cannot hold us. */
async function readSnippet(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (text.length < SNIPPET_CHARS && bytes < 64 * 1024) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return text.slice(0, SNIPPET_CHARS);
}

function describeFailure(e: unknown, timeoutMs: number): string {
  if (e instanceof AppError) return `${e.code}: ${e.message}`;
  const err = e as { name?: string; message?: string } | null;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `Timed out after ${timeoutMs} ms.`;
  return String(err?.message ?? e).slice(0, SNIPPET_CHARS) || 'The request failed.';
}

interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  snippet: string | null;
  error: string | null;
}

type Row = {
  delivery: typeof schema.webhookDeliveries.$inferSelect;
  event: typeof schema.events.$inferSelect;
  endpoint: typeof schema.webhookEndpoints.$inferSelect;
};

/**
 * One signed POST of the event. Production URLs (and sandbox ones, when this server refuses local targets) are
 * checked again first, the name resolved once: the name may resolve elsewhere now. The POST then goes to the
 * addresses that check passed and nowhere else (pinned.ts), so DNS that changes between the check and the
 * connection (rebinding) cannot move it.
 */
async function attempt(deps: AppDeps, row: Row): Promise<AttemptResult> {
  const { timeoutMs } = deps.webhooks;
  try {
    const target: WebhookTarget =
      row.endpoint.livemode || !deps.webhooks.sandboxLocal
        ? await resolveWebhookTarget(row.endpoint.url, {
            production: row.endpoint.livemode,
            sandboxLocal: deps.webhooks.sandboxLocal,
            resolveHost: deps.webhooks.resolveHost,
          })
        : { url: row.endpoint.url, addresses: [] };
    const body = eventPayload(row.event);
    let secrets: string[];
    try {
      // The current secret, and the one a roll replaced while its grace lasts: one v1= each, the new one first.
      secrets = signingSecretsSealed(row.endpoint, deps.clock.now()).map((sealed) => unseal(deps.webhookKey, sealed));
    } catch {
      throw new Error('The signing secret cannot be read (was the session secret changed?). Roll the secret.');
    }
    // The receiver checks it against its own clock: the system clock as it is, not bpay's steady one (lib/clock.ts).
    const timestamp = Math.floor(systemNow(deps.clock).getTime() / 1000);
    const signature = signatureHeader(secrets, body, timestamp);
    const res = await sendToTarget(deps.webhooks.fetch, target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER]: signature,
        [STRIPE_SIGNATURE_HEADER]: signature,
      },
      body,
      // A redirect is an answer, not a success: following it could lead anywhere (an internal address, too).
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const snippet = await readSnippet(res).catch(() => '');
    return { ok: res.status >= 200 && res.status < 300, statusCode: res.status, snippet, error: null };
  } catch (e) {
    return { ok: false, statusCode: null, snippet: null, error: describeFailure(e, timeoutMs) };
  }
}

type Outcome = 'succeeded' | 'retrying' | 'failed' | 'skipped';

async function deliverOne(deps: AppDeps, id: string, lockedUntil: Date): Promise<Outcome> {
  const d = schema.webhookDeliveries;
  const ep = schema.webhookEndpoints;
  const [row] = await deps.db
    .select({ delivery: d, event: schema.events, endpoint: ep })
    .from(d)
    .innerJoin(schema.events, eq(schema.events.id, d.eventId))
    .innerJoin(ep, eq(ep.id, d.endpointId))
    .where(eq(d.id, id));
  if (!row) return 'skipped';
  if (row.endpoint.status !== 'enabled') {
    await deps.db.update(d).set({ status: 'failed', lockedUntil: null }).where(and(eq(d.id, id), eq(d.status, 'pending')));
    return 'failed';
  }

  const at = deps.clock.now();
  const started = performance.now();
  const result = await attempt(deps, row);
  const durationMs = Math.max(0, Math.round(performance.now() - started));

  return deps.db.transaction(async (tx): Promise<Outcome> => {
    const now = deps.clock.now();
    // Its endpoint may have been deleted meanwhile (the delivery with it): nothing left to record.
    if (!(await tx.query.webhookDeliveries.findFirst({ columns: { id: true }, where: eq(d.id, id) }))) return 'skipped';
    await tx.insert(schema.webhookAttempts).values({
      id: newId('wha'),
      deliveryId: id,
      at,
      statusCode: result.statusCode,
      durationMs,
      responseSnippet: result.snippet,
      error: result.error,
    });
    const mine = and(eq(d.id, id), eq(d.status, 'pending'), eq(d.lockedUntil, lockedUntil));
    const counted = { attempts: sql`${d.attempts} + 1`, lastAttemptAt: at, lockedUntil: null };
    if (result.ok) {
      await tx.update(d).set({ ...counted, status: 'succeeded' }).where(mine);
      await tx.update(ep).set({ failingSince: null }).where(eq(ep.id, row.endpoint.id));
      return 'succeeded';
    }
    const expired = now.getTime() - row.delivery.createdAt.getTime() >= RETRY_WINDOW_MS;
    await tx
      .update(d)
      .set(
        expired
          ? { ...counted, status: 'failed' }
          : { ...counted, nextAttemptAt: new Date(now.getTime() + backoffMs(row.delivery.attempts + 1)) },
      )
      .where(mine);
    await tx
      .update(ep)
      .set({ failingSince: sql`coalesce(${ep.failingSince}, ${at.getTime()})` })
      .where(eq(ep.id, row.endpoint.id));
    const endpoint = await firstRow(tx, schema.webhookEndpoints, eq(ep.id, row.endpoint.id));
    if (!endpoint) return 'failed';
    if (endpoint.status === 'enabled' && endpoint.failingSince && now.getTime() - endpoint.failingSince.getTime() >= DISABLE_AFTER_MS) {
      await tx
        .update(ep)
        .set({ status: 'disabled', disabledReason: AUTO_DISABLED_REASON, updatedAt: now })
        .where(and(eq(ep.id, endpoint.id), eq(ep.status, 'enabled')));
      endpoint.status = 'disabled';
      deps.log.warn('webhook endpoint disabled', { endpointId: endpoint.id, failingSince: endpoint.failingSince.toISOString() });
    }
    if (endpoint.status !== 'enabled') {
      // Disabled now or while this attempt ran: this delivery (no longer claimed) and the rest of the queue end here.
      await failPendingDeliveries(tx, endpoint.id, now);
      return 'failed';
    }
    return expired ? 'failed' : 'retrying';
  });
}

export interface DeliveryRun {
  /** Deliveries this run claimed and handled. */
  claimed: number;
  succeeded: number;
  /** Failed attempts that will be retried. */
  retrying: number;
  /** Deliveries that ended as failed (out of time, or their endpoint was disabled). */
  failed: number;
}

/**
 * Sends the deliveries that are due (pending, next_attempt_at ≤ now, not claimed by a live worker), at most
 * `limit` of them, concurrently. Each attempt is recorded; a 2xx ends the delivery as succeeded, anything else
 * (another status, a redirect, a timeout, a network error, a production URL that now resolves to a private address)
 * schedules a retry with backoff until RETRY_WINDOW_MS after the delivery was queued, then fails it.
 */
export async function deliverDueWebhooks(deps: AppDeps, opts: { limit?: number } = {}): Promise<DeliveryRun> {
  const limit = opts.limit ?? 20;
  const d = schema.webhookDeliveries;
  const now = deps.clock.now();
  const due = and(eq(d.status, 'pending'), lte(d.nextAttemptAt, now), or(isNull(d.lockedUntil), lte(d.lockedUntil, now)));
  const candidates = await deps.db.select({ id: d.id }).from(d).where(due).orderBy(asc(d.nextAttemptAt)).limit(limit);
  const lockedUntil = new Date(now.getTime() + lockMs(deps.webhooks.timeoutMs));
  const claimed: string[] = [];
  for (const { id } of candidates) {
    const res = await deps.db.update(d).set({ lockedUntil }).where(and(eq(d.id, id), due));
    if (res.rowsAffected === 1) claimed.push(id);
  }
  const outcomes = await Promise.all(
    claimed.map((id) =>
      deliverOne(deps, id, lockedUntil).catch((error) => {
        // The claim runs out and another run tries again.
        deps.log.error('webhook delivery failed to run', { deliveryId: id, error });
        return 'skipped' as const;
      }),
    ),
  );
  return {
    claimed: claimed.length,
    succeeded: outcomes.filter((o) => o === 'succeeded').length,
    retrying: outcomes.filter((o) => o === 'retrying').length,
    failed: outcomes.filter((o) => o === 'failed').length,
  };
}

export type WebhookWorker = PollWorker;

/** Runs deliverDueWebhooks every `intervalMs` (never two runs at once; lib/poll-worker.ts), until stopped. */
export function startWebhookWorker(deps: AppDeps, opts: { intervalMs?: number; limit?: number } = {}): WebhookWorker {
  return startPollWorker({
    name: 'webhook worker',
    log: deps.log,
    // Its back-off after a failed run (a full disk) is timed on the app's clock.
    now: () => deps.clock.now().getTime(),
    limit: opts.limit ?? 20,
    intervalMs: opts.intervalMs ?? 1000,
    runBatch: (limit) => deliverDueWebhooks(deps, { limit }),
  });
}
