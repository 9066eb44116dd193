import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  BACKOFF_BASE_MS,
  Bpay,
  BpayAPIError,
  BpayConnectionError,
  BpayInvalidRequestError,
  BpayRateLimitError,
  BpayTimeoutError,
} from './index';
import { newMerchantAccount, startLiveServer, type LiveServer } from '../test-support/live-server';
import { parseRetryAfter, retryDelayMs } from './transport';

/*
 * Retries, timeouts and idempotency keys. Injected fetches stand between the SDK and the real server to fail the
 * way networks do; an injected sleep records the waits instead of taking them, so nothing here sleeps for real.
 */

let live: LiveServer;
let secretKey: string;
let merchantId: string;

beforeAll(async () => {
  live = await startLiveServer();
  const account = await newMerchantAccount(live.ctx);
  secretKey = account.secretKey;
  merchantId = account.merchantId;
});
afterAll(() => live.close());

/** Records every wait the SDK asks for, without waiting. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const countIntents = async () =>
  Number(
    (await live.ctx.handle.client.execute({ sql: 'SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', args: [merchantId] })).rows[0]?.n,
  );

describe('idempotent retries', () => {
  test('the server answered but the answer was lost: the retry reuses the key and gets the same intent', async () => {
    const keys: Array<string | null> = [];
    let attempts = 0;
    const { waits, sleep } = recordingSleep();
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      sleep,
      fetch: async (req) => {
        keys.push(req.headers.get('idempotency-key'));
        const res = await fetch(req);
        if (++attempts === 1) {
          await res.text(); // The server did the work and answered…
          throw new TypeError('socket hang up'); // …but the connection died before the answer arrived.
        }
        return res;
      },
    });
    const before = await countIntents();
    const pi = await bpay.paymentIntents.create({ amount: 4200, currency: 'usd' });
    expect(attempts).toBe(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]!);
    expect(waits).toHaveLength(1);
    // Only one intent exists, and it is the one the first attempt created.
    expect(await countIntents()).toBe(before + 1);
    const page = await new Bpay(secretKey, { baseUrl: live.baseUrl }).paymentIntents.list({ limit: 1 }).firstPage();
    expect(page.data[0]!.id).toBe(pi.id);
  });

  test('network errors: maxRetries retries with full-jitter backoff, then BpayConnectionError', async () => {
    const { waits, sleep } = recordingSleep();
    let attempts = 0;
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      maxRetries: 3,
      sleep,
      random: () => 0.5,
      fetch: async () => {
        attempts++;
        throw new TypeError('connect ECONNREFUSED');
      },
    });
    const err = await bpay.usage.retrieve().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayConnectionError);
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(attempts).toBe(4);
    // random() * min(cap, base * 2^attempt)
    expect(waits).toEqual([0.5 * BACKOFF_BASE_MS, 0.5 * BACKOFF_BASE_MS * 2, 0.5 * BACKOFF_BASE_MS * 4]);
  });

  test('5xx and 409 idempotency_key_in_use are retried; 400 and business 409s are not', async () => {
    const answers = [
      json(503, { error: { type: 'api_error', code: 'vendor_unavailable', message: 'x' } }),
      json(409, { error: { type: 'idempotency_error', code: 'idempotency_key_in_use', message: 'x' } }),
    ];
    let attempts = 0;
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      sleep: recordingSleep().sleep,
      fetch: async (req) => (attempts++ < answers.length ? answers[attempts - 1]! : fetch(req)),
    });
    expect((await bpay.paymentIntents.create({ amount: 100, currency: 'usd' })).object).toBe('payment_intent');
    expect(attempts).toBe(3);

    for (const [status, type] of [
      [400, 'invalid_request_error'],
      [409, 'invalid_request_error'],
    ] as const) {
      let n = 0;
      const once = new Bpay(secretKey, {
        baseUrl: live.baseUrl,
        sleep: recordingSleep().sleep,
        fetch: async () => (n++, json(status, { error: { type, code: 'some_conflict', message: 'no' } })),
      });
      const err = await once.usage.retrieve().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BpayInvalidRequestError);
      expect(n).toBe(1);
    }

    let n = 0;
    const always500 = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      sleep: recordingSleep().sleep,
      fetch: async () => (n++, json(500, { error: { type: 'api_error', code: 'internal_error', message: 'boom' } }, { 'request-id': 'req_x' })),
    });
    const err = await always500.usage.retrieve().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayAPIError);
    expect(err).toMatchObject({ code: 'internal_error', statusCode: 500, requestId: 'req_x' });
    expect(n).toBe(3);
  });

  test('a timeout aborts the attempt and is retried; in the end BpayTimeoutError', async () => {
    let attempts = 0;
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      timeoutMs: 30,
      maxRetries: 1,
      sleep: recordingSleep().sleep,
      // Never answers; honours the abort like fetch does.
      fetch: (req) =>
        new Promise<Response>((_, reject) => {
          attempts++;
          req.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    });
    const err = await bpay.usage.retrieve().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayTimeoutError);
    expect(err).toBeInstanceOf(BpayConnectionError);
    expect(attempts).toBe(2);

    // A slow first attempt times out; the retry (same key) succeeds.
    let n = 0;
    const keys: Array<string | null> = [];
    const slowOnce = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      timeoutMs: 200,
      sleep: recordingSleep().sleep,
      fetch: (req) => {
        keys.push(req.headers.get('idempotency-key'));
        return n++ === 0 ? new Promise<Response>((_, reject) => req.signal.addEventListener('abort', () => reject(new Error('aborted')))) : fetch(req);
      },
    });
    expect((await slowOnce.paymentIntents.create({ amount: 100, currency: 'usd' })).status).toBe('requires_payment_method');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]!);
  });

  test("the caller's signal aborts without retrying", async () => {
    let attempts = 0;
    const controller = new AbortController();
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      sleep: recordingSleep().sleep,
      fetch: (req) =>
        new Promise<Response>((_, reject) => {
          attempts++;
          req.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          controller.abort();
        }),
    });
    const err = await bpay.usage.retrieve({ signal: controller.signal }).catch((e: unknown) => e);
    expect((err as DOMException).name).toBe('AbortError');
    expect(attempts).toBe(1);
  });

  test('a signal aborted before the call: nothing is sent', async () => {
    let attempts = 0;
    const bpay = new Bpay(secretKey, { baseUrl: live.baseUrl, fetch: async (req) => (attempts++, fetch(req)) });
    const err = await bpay.usage.retrieve({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect((err as DOMException).name).toBe('AbortError');
    expect(attempts).toBe(0);
  });

  test('an abort during the backoff after a network error ends the wait at once, even if the sleep ignores it', async () => {
    let attempts = 0;
    const controller = new AbortController();
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      // A wait that never ends on its own: only the abort can end the call.
      sleep: () => {
        setTimeout(() => controller.abort(), 10);
        return new Promise<void>(() => {});
      },
      fetch: async () => {
        attempts++;
        throw new TypeError('socket hang up');
      },
    });
    const err = await bpay.usage.retrieve({ signal: controller.signal }).catch((e: unknown) => e);
    expect((err as DOMException).name).toBe('AbortError');
    expect(attempts).toBe(1);
  });
});

describe('Retry-After', () => {
  test('an injected 429 with Retry-After: 1 makes the SDK wait 1000 ms, then succeed', async () => {
    const { waits, sleep } = recordingSleep();
    let attempts = 0;
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      sleep,
      fetch: async (req) =>
        attempts++ === 0
          ? json(429, { error: { type: 'rate_limit_error', code: 'api_rate_limited', message: 'slow down' } }, { 'retry-after': '1' })
          : fetch(req),
    });
    expect((await bpay.usage.retrieve()).object).toBe('usage');
    expect(waits).toEqual([1000]);
  });

  test("the real server's per-second limit: the SDK waits what Retry-After says (the test clock moves instead)", async () => {
    live.resetRateLimits = false;
    live.ctx.clock.advance(1000); // a fresh one-second window
    try {
      const waits: number[] = [];
      const bpay = new Bpay(secretKey, {
        baseUrl: live.baseUrl,
        sleep: async (ms) => {
          waits.push(ms);
          live.ctx.clock.advance(ms);
        },
      });
      // The API allows 25 requests a second per merchant; the test clock stands still, so the 26th is refused.
      for (let i = 0; i < 25; i++) await bpay.usage.retrieve({ maxRetries: 0 });
      const refused = await bpay.usage.retrieve({ maxRetries: 0 }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BpayRateLimitError);
      expect(refused).toMatchObject({ code: 'api_rate_limited', statusCode: 429 });
      expect((refused as BpayRateLimitError).headers?.get('retry-after')).toBe('1');
      expect((refused as BpayRateLimitError).requestId).toMatch(/^req_/);

      expect((await bpay.usage.retrieve()).object).toBe('usage');
      expect(waits).toEqual([1000]);
    } finally {
      live.resetRateLimits = true;
    }
  });

  test('an abort during a Retry-After wait rejects at once, not when the wait ends (real timer)', async () => {
    let attempts = 0;
    const controller = new AbortController();
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      // No injected sleep: the SDK's own setTimeout wait of 30 s.
      fetch: async () => (
        attempts++, json(429, { error: { type: 'rate_limit_error', code: 'api_rate_limited', message: 'slow down' } }, { 'retry-after': '30' })
      ),
    });
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    const err = await bpay.usage.retrieve({ signal: controller.signal }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect((err as DOMException).name).toBe('AbortError');
    expect(attempts).toBe(1);
    expect(elapsed).toBeLessThan(2_000);
  });

  test('a Retry-After longer than a minute (a monthly quota) is not waited for', async () => {
    const { waits, sleep } = recordingSleep();
    let attempts = 0;
    const bpay = new Bpay(secretKey, {
      baseUrl: live.baseUrl,
      sleep,
      fetch: async () => (
        attempts++, json(429, { error: { type: 'rate_limit_error', code: 'monthly_quota_exceeded', message: 'quota' } }, { 'retry-after': '86400' })
      ),
    });
    const err = await bpay.usage.retrieve().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayRateLimitError);
    expect(err).toMatchObject({ code: 'monthly_quota_exceeded' });
    expect(attempts).toBe(1);
    expect(waits).toEqual([]);
  });

  test('Retry-After as seconds or an HTTP date; backoff caps', () => {
    expect(parseRetryAfter('3')).toBe(3);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10);
    expect(retryDelayMs(0, '2', () => 0.9)).toBe(2000);
    expect(retryDelayMs(0, '61', () => 0.9)).toBeNull();
    expect(retryDelayMs(10, null, () => 0.999)).toBeLessThanOrEqual(8000);
    expect(retryDelayMs(1, null, () => 0)).toBe(0);
  });
});
