import { schema } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { type AppError, errorBody, invalid } from '../../errors';
import { polledStream, type StreamIo } from '../../lib/polled-stream';
import { broadcastSeqOf, broadcastsAfter, latestBroadcastSeq, onBroadcast } from './broadcast';
import { EVENT_TYPES } from './emit';
import { eventPayload } from './service';

type MerchantRow = typeof schema.merchants.$inferSelect;
type EventRow = typeof schema.events.$inferSelect;

/**
 * The `events` query parameter: comma-separated event types, or `*` (the default) for all. Returns null for all.
 * Fails with: validation_error (param events) naming an unknown type.
 */
export function parseEventFilter(raw: string | undefined): ReadonlySet<string> | null {
  if (raw === undefined || raw.trim() === '') return null;
  const types = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (types.includes('*')) return null;
  for (const type of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw invalid('events', `Unknown event type '${type.slice(0, 80)}'. Use * or some of: ${EVENT_TYPES.join(', ')}.`);
    }
  }
  return new Set(types);
}

/** One server-sent event: the event JSON exactly as GET /api/v1/events/{id} answers it. */
export function sseFrame(e: EventRow): string {
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${eventPayload(e)}\n\n`;
}

export const EVENT_STREAM_PATH = '/api/v1/events/stream';

/**
 * The last message of a stream whose key stopped authenticating: the error a new request would get, then the end.
 * `status` beside it is the HTTP status that request would get (401, 403): the stream itself was answered 200 when
 * it opened, so a client (the SDK, `bpay listen`) reports this one instead.
 */
export function sseErrorFrame(error: AppError): string {
  return `event: error\ndata: ${JSON.stringify({ ...errorBody(error), status: error.status })}\n\n`;
}

/**
 * Whether a stream's credential (a merchant's key, a consumer's session) still authenticates: `recheck` answers the
 * error a new request would get, or null. When refused, the stream gets that error as its last frame and ends; a
 * check that throws is reported to `onFailure` and keeps nothing open (false). Shared by every polled stream.
 */
export function credentialCheck(recheck: () => Promise<AppError | null>, onFailure: (error: unknown) => void) {
  return async (io: StreamIo): Promise<boolean> => {
    let refusal: AppError | null;
    try {
      refusal = await recheck();
    } catch (error) {
      onFailure(error);
      return false;
    }
    if (io.closed) return false;
    if (refusal === null) return true;
    io.send(sseErrorFrame(refusal));
    io.end();
    return false;
  };
}

export interface EventStreamOptions {
  /** The event types to send; null for all. */
  filter: ReadonlySet<string> | null;
  /** The request's: the stream ends when the client goes away. */
  signal: AbortSignal;
  /** Last-Event-ID: also send what was broadcast since that event. */
  lastEventId?: string | null;
  /**
   * Whether the credential the stream was opened with still authenticates (plugins/merchant-auth.ts,
   * secretKeyRecheck): null while it does, else the error a new request would get.
   */
  recheck: () => Promise<AppError | null>;
}

/**
 * A text/event-stream of the merchant's events (this mode only) recorded after the call: created or resent. It
 * polls the broadcast feed every `deps.eventStream.pollMs` (so events written by other processes arrive too),
 * and at once when this process records one; a `: ping` comment goes out every `pingMs`. Everything stops when
 * the client goes away (the request's abort signal, or the body being canceled): no timer outlives the stream.
 *
 * The key is checked again before every batch of events is sent and every `recheckMs` while idle: once it no
 * longer authenticates (rolled "now", its grace over, rolled again, the merchant deactivated), the stream sends one
 * `event: error` message whose data is the error a new request would get ({"error":{...},"status":401}: the API's
 * JSON error and that request's HTTP status) and ends. Nothing more is sent to it.
 */
export async function openEventStream(
  deps: Pick<AppDeps, 'db' | 'log' | 'eventStream'>,
  merchant: MerchantRow,
  livemode: boolean,
  { filter, signal, lastEventId = null, recheck }: EventStreamOptions,
): Promise<Response> {
  // Taken before answering: anything recorded from here on is sent, nothing before (no backlog), unless the client
  // says which event it received last (Last-Event-ID, as an EventSource does when it reconnects): then it also gets
  // what was broadcast since that one, within the retention.
  const resumeAt = lastEventId ? await broadcastSeqOf(deps.db, merchant.id, livemode, lastEventId) : null;
  let cursor = resumeAt ?? (await latestBroadcastSeq(deps.db));
  const { pollMs, pingMs, recheckMs } = deps.eventStream;
  /**
   * Whether the stream may go on sending: false once the key no longer authenticates (the stream then ends with
   * why), and false without ending when the check itself failed (nothing is sent; the next poll tries again).
   */
  const stillAuthenticated = credentialCheck(recheck, (error) => deps.log.error('events stream key check failed', { merchantId: merchant.id, error }));
  return polledStream({
    signal,
    pollMs,
    pingMs,
    subscribe: onBroadcast,
    async poll(io) {
      const rows = await broadcastsAfter(deps.db, merchant.id, livemode, cursor);
      // Nothing goes to a key that stopped working, however recently: checked before each batch is sent.
      if (rows.length > 0 && !(await stillAuthenticated(io))) return false;
      for (const row of rows) {
        if (io.closed) return false;
        cursor = row.seq;
        if (filter === null || filter.has(row.event.type)) io.send(sseFrame(row.event));
      }
      return rows.length === 100;
    },
    check: { everyMs: recheckMs, run: (io) => void stillAuthenticated(io) },
    onPollError: (error) => deps.log.error('events stream poll failed', { merchantId: merchant.id, error }),
  });
}
