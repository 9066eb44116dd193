/*
 * The one place requests leave the SDK: openapi-fetch hands every Request to `send` (as its `fetch`), which adds
 * the Idempotency-Key, applies the per-attempt timeout and retries. Invariants:
 *  - a POST carries exactly one Idempotency-Key for all its attempts (the caller's, or one crypto.randomUUID()),
 *    so a retry after the server acted replays the stored answer instead of acting twice;
 *  - at most `maxRetries` retries, only for answers a retry can change: no answer (network error, timeout), 409
 *    other than a business-state conflict, 429 and 5xx;
 *  - a Retry-After (seconds or an HTTP date) of at most MAX_RETRY_AFTER_SECONDS is waited for exactly; a longer one
 *    (a monthly quota, a locked admin sign-in) is not retried at all — the error goes to the caller at once;
 *  - otherwise the wait is exponential backoff with full jitter: random() * min(cap, base * 2^attempt);
 *  - the answer's body is read inside the timeout and handed on buffered, so a stalled body cannot hang a call
 *    (except streams, whose timeout covers only the arrival of the headers).
 */
import { BpayConnectionError, BpayTimeoutError, errorObjectOf } from './errors';

export type FetchLike = (input: Request) => Promise<Response>;
/** Waits `ms`. The signal, when given, may end the wait early (the SDK races it against the signal anyway). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface TransportConfig {
  fetch: FetchLike;
  timeoutMs: number;
  maxRetries: number;
  sleep: Sleep;
  random: () => number;
}

/** Per-call options, the last argument of every resource method. */
export interface RequestOptions {
  /** The Idempotency-Key for this POST (default: a fresh UUID, reused across the SDK's retries). */
  idempotencyKey?: string;
  /** Overrides the client's timeoutMs for this call (per attempt). */
  timeoutMs?: number;
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
  /** Aborts the call (and any wait between retries). */
  signal?: AbortSignal;
}

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;
export const MAX_RETRY_AFTER_SECONDS = 60;

/** Resolves after `ms`, or at once when `signal` aborts (its timer cleared, so an aborted wait keeps no process alive). */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, (at - nowMs) / 1000);
}

/** The wait before retry number `attempt + 1` (attempt counts from 0), or null when the server asked for too long. */
export function retryDelayMs(attempt: number, retryAfter: string | null, random: () => number): number | null {
  const seconds = parseRetryAfter(retryAfter);
  if (seconds !== null) return seconds > MAX_RETRY_AFTER_SECONDS ? null : Math.ceil(seconds * 1000);
  return Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt));
}

/** Whether an answer with this status (and parsed body) is worth another attempt. */
export function isRetryableStatus(status: number, body: unknown): boolean {
  if (status === 429 || status >= 500) return true;
  if (status === 409) {
    // bpay's 409s of type invalid_request_error are business-state conflicts (tier_in_use, email_taken …) that a
    // retry cannot change; the rest (idempotency_key_in_use: "retry after it completes") are transient.
    return errorObjectOf(body)?.type !== 'invalid_request_error';
  }
  return false;
}

function parseJson(bytes: ArrayBuffer): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

const idempotencyMethods = new Set(['POST']);

export interface SendOptions extends RequestOptions {
  /** Keep the body open (server-sent events): the timeout covers only the arrival of the headers. */
  stream?: boolean;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * The wait between attempts, cut short by the caller's signal: it rejects with the abort error as soon as the signal
 * aborts, whether or not the injected sleep listens to the signal itself.
 */
async function wait(sleep: Sleep, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) throw abortError(signal);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) throw abortError(signal);
}

/** Sends `request` with the SDK's idempotency, timeout and retry rules; answers the final Response (any status). */
export async function send(cfg: TransportConfig, request: Request, opts: SendOptions = {}): Promise<Response> {
  const callerSignal = opts.signal;
  if (callerSignal?.aborted) throw abortError(callerSignal);
  const timeoutMs = opts.timeoutMs ?? cfg.timeoutMs;
  const maxRetries = Math.max(0, opts.maxRetries ?? cfg.maxRetries);
  const headers = new Headers(request.headers);
  if (idempotencyMethods.has(request.method) && !headers.has('idempotency-key')) {
    headers.set('idempotency-key', opts.idempotencyKey ?? crypto.randomUUID());
  }
  // Read once: every attempt sends the same bytes.
  const body = request.body !== null ? await request.arrayBuffer() : undefined;

  for (let attempt = 0; ; attempt++) {
    if (callerSignal?.aborted) throw abortError(callerSignal);
    const controller = new AbortController();
    const onAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let keepListener = false;
    let retryAfter: string | null = null;
    let failure: BpayConnectionError;
    try {
      const res = await cfg.fetch(new Request(request.url, { method: request.method, headers, body, signal: controller.signal }));
      if (opts.stream && res.ok) {
        // The caller's signal must still be able to end the stream; the timeout no longer applies.
        keepListener = true;
        return res;
      }
      const bytes = await res.arrayBuffer();
      const out = new Headers(res.headers);
      out.delete('content-encoding');
      out.delete('content-length');
      const buffered = new Response(res.status === 204 ? null : bytes, { status: res.status, statusText: res.statusText, headers: out });
      if (!isRetryableStatus(res.status, res.ok ? null : parseJson(bytes)) || attempt >= maxRetries) return buffered;
      retryAfter = res.headers.get('retry-after');
      const delay = retryDelayMs(attempt, retryAfter, cfg.random);
      if (delay === null) return buffered;
      clearTimeout(timer);
      await wait(cfg.sleep, delay, callerSignal);
      continue;
    } catch (e) {
      if (callerSignal?.aborted) throw abortError(callerSignal);
      failure = timedOut
        ? new BpayTimeoutError(`No answer from ${new URL(request.url).origin} within ${timeoutMs} ms (${request.method} ${new URL(request.url).pathname})`, e)
        : new BpayConnectionError(
            `Could not reach ${new URL(request.url).origin} (${request.method} ${new URL(request.url).pathname}): ${e instanceof Error ? e.message : String(e)}`,
            e,
          );
    } finally {
      clearTimeout(timer);
      if (!keepListener) callerSignal?.removeEventListener('abort', onAbort);
    }
    if (attempt >= maxRetries) throw failure;
    await wait(cfg.sleep, retryDelayMs(attempt, null, cfg.random) ?? 0, callerSignal);
  }
}
