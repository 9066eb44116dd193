import { Elysia } from 'elysia';
import { AppError } from '../errors';
import type { Clock } from '../lib/clock';
import { sha256Hex } from '../lib/crypto';
import { addressKey } from '../lib/address-key';
import { clientAddress } from '../lib/request-context';
import { readSessionToken } from '../modules/auth/sessions';

/**
 * The request-rate limit of the cookie-authenticated consumer API: every /api/ path except the bearer-authenticated
 * prefixes (/api/v1/, /api/admin/), which have limits of their own. Public GETs (/api/subscription/tiers, the
 * checkout widget's /api/checkout reads) are consumer browser traffic and are limited too.
 */
export interface ConsumerRateLimit {
  /** The sliding window the allowances are counted over. */
  windowMs: number;
  /**
   * Requests one session may make per window. Requests without a session cookie are one "session" per address:
   * they share one such allowance.
   */
  perSession: number;
  /** Requests from one address (an IPv6 /64) per window, all its sessions and cookie-less requests together. */
  perAddress: number;
}

/**
 * A browser session is far below these: the dashboard fires under ten requests at once on load and nothing polls;
 * a person clicking as fast as they can makes a few a second. 1,000 requests at once are not.
 */
export const CONSUMER_RATE_WINDOW_MS = 10_000;
export const CONSUMER_REQUESTS_PER_SESSION = 120;
/** Room for several busy sessions behind one address (an office, a carrier's NAT), and for the e2e suite. */
export const CONSUMER_REQUESTS_PER_ADDRESS = 600;

export const DEFAULT_CONSUMER_RATE_LIMIT: ConsumerRateLimit = {
  windowMs: CONSUMER_RATE_WINDOW_MS,
  perSession: CONSUMER_REQUESTS_PER_SESSION,
  perAddress: CONSUMER_REQUESTS_PER_ADDRESS,
};

/**
 * Past this many tracked keys (a flood from that many addresses within one window), idle ones are swept and, if
 * still too many, the least recently admitted are dropped. About 100 bytes a key plus 8 a request in the window.
 */
export const MAX_TRACKED_KEYS = 100_000;

/** Bearer-authenticated prefixes with their own limits; the consumer limit leaves them alone. */
// The card network's calls (a shop's server on the simulated network, Stripe's webhook) are not a consumer's: a
// shop or Stripe sends many from one address, and the simulated network has its own per-address and per-card limits.
export const EXEMPT_PREFIXES = ['/api/v1/', '/api/admin/', '/api/simulator/', '/api/stripe/'];

/**
 * Sliding-window logs in memory, per process (like the merchant API's per-second limit). A key's log holds the
 * times of its admitted requests inside the window, so it never grows past its limit; a refused request records
 * nothing. Logs with nothing left in the window are swept once per window, so memory follows the traffic admitted
 * in the last window, and a hard cap on keys bounds it whatever happens.
 */
export class SlidingWindows {
  private readonly logs = new Map<string, number[]>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = MAX_TRACKED_KEYS,
  ) {}

  /** Seconds until one more request fits under `limit` for `key`, or null when it fits now. Records nothing. */
  wait(key: string, limit: number, nowMs: number): number | null {
    const log = this.logs.get(key);
    if (!log) return limit > 0 ? null : Math.ceil(this.windowMs / 1000);
    while (log.length > 0 && log[0]! <= nowMs - this.windowMs) log.shift();
    if (log.length < limit) return null;
    // The entry that has to leave the window for one more request to fit.
    const pivot = log[log.length - limit]!;
    return Math.max(1, Math.ceil((pivot + this.windowMs - nowMs) / 1000));
  }

  record(key: string, nowMs: number): void {
    const log = this.logs.get(key);
    if (log) {
      log.push(nowMs);
      // Moved to the end: the Map's order is least recently admitted first, for the cap below.
      this.logs.delete(key);
      this.logs.set(key, log);
      return;
    }
    this.logs.set(key, [nowMs]);
    if (this.logs.size > this.maxKeys) {
      // A sweep walks every key: at most once a second, so a flood of new keys cannot make each request pay for one.
      if (nowMs - this.lastSweepMs >= 1000) this.sweep(nowMs);
      for (const k of this.logs.keys()) {
        if (this.logs.size <= this.maxKeys) break;
        this.logs.delete(k);
      }
    }
  }

  /** Forgets every key with nothing left in the window. Runs by itself at most once per window. */
  sweep(nowMs: number): void {
    this.lastSweepMs = nowMs;
    for (const [k, log] of this.logs) {
      if (log.length === 0 || log[log.length - 1]! <= nowMs - this.windowMs) this.logs.delete(k);
    }
  }

  maybeSweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs >= this.windowMs) this.sweep(nowMs);
  }

  /** How many keys are tracked (for tests of the memory bound). */
  get size(): number {
    return this.logs.size;
  }
}

export interface ConsumerRateLimiter {
  /** Counts the request, or throws 429 api_rate_limited with Retry-After. Synchronous: parallel requests cannot race. */
  check(request: Request, path: string): void;
  readonly windows: SlidingWindows;
}

export function createConsumerRateLimiter(
  cfg: ConsumerRateLimit,
  clock: Clock,
  trustProxy: boolean,
  maxKeys = MAX_TRACKED_KEYS,
): ConsumerRateLimiter {
  const windows = new SlidingWindows(cfg.windowMs, maxKeys);
  const seconds = Math.round(cfg.windowMs / 1000);
  return {
    windows,
    check(request, path) {
      const nowMs = clock.now().getTime();
      windows.maybeSweep(nowMs);
      const address = addressKey(clientAddress(request, trustProxy));
      const token = readSessionToken(request.headers.get('cookie'));
      // Never the token itself: a memory dump of the limiter signs no one in. Unvalidated on purpose (no database
      // read per request): a made-up cookie only gets its own log once its address has room, so a flood of them
      // is held to the address's allowance.
      const sessionKey = token ? `session:${sha256Hex(token)}` : `anonymous:${address}`;
      const addrKey = `address:${address}`;
      const addressWait = windows.wait(addrKey, cfg.perAddress, nowMs);
      const sessionWait = addressWait === null ? windows.wait(sessionKey, cfg.perSession, nowMs) : null;
      const wait = addressWait ?? sessionWait;
      if (wait !== null) {
        const who =
          addressWait !== null
            ? `from this address: at most ${cfg.perAddress}`
            : token
              ? `from this session: at most ${cfg.perSession}`
              : `without signing in from this address: at most ${cfg.perSession}`;
        throw new AppError(
          'api_rate_limited',
          `Too many requests ${who} every ${seconds} seconds. Retry after ${wait} second${wait === 1 ? '' : 's'}.`,
          undefined,
          {
            'retry-after': String(wait),
            // The checkout widget reads intents cross-origin: let it see the 429 rather than a CORS failure.
            ...(path.startsWith('/api/checkout/') ? { 'access-control-allow-origin': '*' } : {}),
          },
        );
      }
      windows.record(addrKey, nowMs);
      windows.record(sessionKey, nowMs);
    },
  };
}

export const isConsumerApiPath = (path: string) => path.startsWith('/api/') && !EXEMPT_PREFIXES.some((p) => path.startsWith(p));

/**
 * Applies the consumer limit to every request of the app, before its body is read; nothing at all when the
 * request-rate limits are off (BPAY_RATE_LIMITS=off, loopback installs only).
 */
export function consumerRateLimitPlugin(deps: { rateLimits: boolean; consumerRateLimit: ConsumerRateLimit; clock: Clock; trustProxy: boolean }) {
  if (!deps.rateLimits) return new Elysia();
  const limiter = createConsumerRateLimiter(deps.consumerRateLimit, deps.clock, deps.trustProxy);
  // Unnamed: each app gets its own limiter (a named plugin is deduplicated).
  return new Elysia().onRequest(({ request }) => {
    const path = new URL(request.url).pathname;
    if (isConsumerApiPath(path)) limiter.check(request, path);
  });
}
