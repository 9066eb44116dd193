import { afterEach, describe, expect, test } from 'bun:test';
import { addressKey } from '../lib/address-key';
import { TestClock } from '../lib/clock';
import { setPeerAddress } from '../lib/request-context';
import { call, makeTestApp, type CallResult, type TestContext } from '../../test-support/app';
import { registerUser } from '../../test-support/world';
import {
  CONSUMER_RATE_WINDOW_MS,
  CONSUMER_REQUESTS_PER_ADDRESS,
  CONSUMER_REQUESTS_PER_SESSION,
  createConsumerRateLimiter,
  DEFAULT_CONSUMER_RATE_LIMIT,
} from './consumer-rate-limit';

/*
 * The consumer API's request rate (issue 11 §5): per session and per address, 429 api_rate_limited with
 * Retry-After, the merchant and admin APIs left to their own limits. Production numbers throughout.
 */

const HOME = '198.51.100.10';
const ELSEWHERE = '198.51.100.99';
const WINDOW_S = CONSUMER_RATE_WINDOW_MS / 1000;

let ctx: TestContext;
afterEach(() => ctx?.close());
const app = async () => {
  ctx = await makeTestApp({ consumerRateLimit: DEFAULT_CONSUMER_RATE_LIMIT });
  return ctx;
};

const count = (answers: CallResult[], status: number) => answers.filter((a) => a.status === status).length;

function expectLimited(res: CallResult): number {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    error: { type: 'rate_limit_error', code: 'api_rate_limited', message: expect.any(String), request_id: expect.any(String) },
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_S).toBe(true);
  return retryAfter;
}

/** A well-formed session cookie no session has (a malformed one is treated as no cookie at all). */
const fakeCookie = (i: number) => `bpay_session=made-up-session-token-${String(i).padStart(6, '0')}`;

const burst = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

describe('the consumer API limit', () => {
  test(`1,000 GETs at once from one session: exactly ${CONSUMER_REQUESTS_PER_SESSION} answered, the rest 429 with Retry-After; another session and another address are unaffected`, async () => {
    await app();
    const a = await registerUser(ctx);
    const b = await registerUser(ctx);
    const [flood, otherSession, otherAddress] = await Promise.all([
      burst(1000, () => call(ctx, '/api/auth/user', { cookie: a.cookie, ip: HOME })),
      burst(20, () => call(ctx, '/api/funding-sources', { cookie: b.cookie, ip: HOME })),
      burst(20, () => call(ctx, '/api/subscription/tiers', { ip: ELSEWHERE })),
    ]);
    expect(count(flood, 200)).toBe(CONSUMER_REQUESTS_PER_SESSION);
    expect(count(flood, 429)).toBe(1000 - CONSUMER_REQUESTS_PER_SESSION);
    for (const r of flood.filter((x) => x.status === 429)) expectLimited(r);
    expect(flood.find((x) => x.status === 429)!.body.error.message).toContain(
      `from this session: at most ${CONSUMER_REQUESTS_PER_SESSION} every ${WINDOW_S} seconds`,
    );
    expect(otherSession.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(otherAddress.map((r) => r.status)).toEqual(Array(20).fill(200));

    // Writes count too; the window slides: once it has passed, the session is answered again.
    expectLimited(await call(ctx, '/api/auth/logout', { method: 'POST', cookie: a.cookie, ip: HOME }));
    ctx.clock.advance(CONSUMER_RATE_WINDOW_MS - 1000);
    expect(expectLimited(await call(ctx, '/api/auth/user', { cookie: a.cookie, ip: HOME }))).toBe(1);
    ctx.clock.advance(1000);
    expect((await call(ctx, '/api/auth/user', { cookie: a.cookie, ip: HOME })).status).toBe(200);
  }, 30_000);

  test(`without a session cookie, one address shares one allowance: 1,000 public GETs at once get exactly ${CONSUMER_REQUESTS_PER_SESSION} answers`, async () => {
    await app();
    const signedIn = await registerUser(ctx);
    const flood = await burst(1000, () => call(ctx, '/api/subscription/tiers', { ip: HOME }));
    expect(count(flood, 200)).toBe(CONSUMER_REQUESTS_PER_SESSION);
    for (const r of flood.filter((x) => x.status !== 200)) expectLimited(r);
    // A signed-in session at that address, and anyone elsewhere, are unaffected.
    expect((await call(ctx, '/api/subscription/tiers', { cookie: signedIn.cookie, ip: HOME })).status).toBe(200);
    expect((await call(ctx, '/api/subscription/tiers', { ip: ELSEWHERE })).status).toBe(200);
  }, 30_000);

  test(`per address: 1,000 requests at once, each with its own made-up session cookie, get exactly ${CONSUMER_REQUESTS_PER_ADDRESS} answers`, async () => {
    await app();
    const flood = await burst(1000, (i) => call(ctx, '/api/auth/user', { cookie: fakeCookie(i), ip: HOME }));
    expect(count(flood, 401)).toBe(CONSUMER_REQUESTS_PER_ADDRESS);
    for (const r of flood.filter((x) => x.status !== 401)) expectLimited(r);
    expect(flood.find((x) => x.status === 429)!.body.error.message).toContain(`from this address: at most ${CONSUMER_REQUESTS_PER_ADDRESS}`);
    // Everyone at that address waits, a real session included; another address does not.
    const real = await registerUser(ctx);
    expectLimited(await call(ctx, '/api/auth/user', { cookie: real.cookie, ip: HOME }));
    expect((await call(ctx, '/api/auth/user', { cookie: real.cookie, ip: ELSEWHERE })).status).toBe(200);
  }, 30_000);

  test('the merchant and admin APIs are left to their own limits; the checkout widget can read its 429', async () => {
    await app();
    await burst(CONSUMER_REQUESTS_PER_SESSION, () => call(ctx, '/api/subscription/tiers', { ip: HOME }));
    expectLimited(await call(ctx, '/api/subscription/tiers', { ip: HOME }));
    expect((await call(ctx, '/api/v1/payment_intents', { ip: HOME, origin: null })).body.error.code).toBe('invalid_api_key');
    expect((await call(ctx, '/api/admin/users', { ip: HOME })).body.error.code).toBe('invalid_admin_token');
    const widget = await call(ctx, '/api/checkout/payment_intents/pi_x?client_secret=pi_x_secret_y', { ip: HOME, origin: 'https://shop.example' });
    expectLimited(widget);
    expect(widget.headers.get('access-control-allow-origin')).toBe('*');
  }, 30_000);
});

describe('the limiter', () => {
  const request = (ip: string, cookie?: string) => {
    const r = new Request('http://localhost/api/auth/user', { headers: cookie ? { cookie } : {} });
    setPeerAddress(r, ip);
    return r;
  };
  const tryCheck = (limiter: ReturnType<typeof createConsumerRateLimiter>, r: Request) => {
    try {
      limiter.check(r, '/api/auth/user');
      return true;
    } catch {
      return false;
    }
  };

  test('memory stays bounded: made-up cookies are held to their address; idle keys are swept; a hard cap holds', () => {
    const clock = new TestClock();
    const limiter = createConsumerRateLimiter(DEFAULT_CONSUMER_RATE_LIMIT, clock, false, 2_000);
    for (let i = 0; i < 5_000; i++) tryCheck(limiter, request(HOME, fakeCookie(i)));
    // One log for the address, one per cookie it had room for.
    expect(limiter.windows.size).toBe(CONSUMER_REQUESTS_PER_ADDRESS + 1);
    // 8,000 addresses: never more than the cap.
    for (let i = 0; i < 8_000; i++) tryCheck(limiter, request(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
    expect(limiter.windows.size).toBeLessThanOrEqual(2_000);
    // A window later, the next request sweeps every idle log away.
    clock.advance(CONSUMER_RATE_WINDOW_MS);
    expect(tryCheck(limiter, request(ELSEWHERE))).toBe(true);
    expect(limiter.windows.size).toBe(2);
  });

  test('the session key is a hash: the token is kept nowhere in the limiter', () => {
    const limiter = createConsumerRateLimiter(DEFAULT_CONSUMER_RATE_LIMIT, new TestClock(), false);
    tryCheck(limiter, request(HOME, 'bpay_session=secret-token-value-0123456789'));
    expect(JSON.stringify([...(limiter.windows as unknown as { logs: Map<string, number[]> }).logs.keys()])).not.toContain('secret-token-value');
    expect(limiter.windows.size).toBe(2);
  });

  test('an IPv6 subscriber is its /64; an IPv4-mapped address is its IPv4 address', () => {
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });
});

test("the card network's calls are not a consumer's: Stripe's webhook and the simulated network are left to their own limits", async () => {
  const { isConsumerApiPath } = await import('./consumer-rate-limit');
  expect(isConsumerApiPath('/api/stripe/webhook')).toBe(false);
  expect(isConsumerApiPath('/api/simulator/authorizations')).toBe(false);
  expect(isConsumerApiPath('/api/extension/me')).toBe(true);
  expect(isConsumerApiPath('/api/virtual-cards')).toBe(true);
});
