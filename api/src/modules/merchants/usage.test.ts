import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { CATALOGUE } from '../../errors';
import { makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, setTier } from '../../../test-support/world';
import { LEASE_MAX_CALLS, leaseSize, REQUESTS_PER_SECOND, resetRateWindows, settleApiLeases } from './usage';

/*
 * The merchant API's limits: REQUESTS_PER_SECOND a merchant (a sliding one-second window) and the owner's plan's
 * apiCallsPerMonth, both answered with 429 rate_limit_error and Retry-After. Requests are counted per merchant
 * and UTC day. The clock is frozen on 2026-01-15 12:00 UTC unless a test moves it.
 */

let ctx: TestContext;
let free: { cookie: string; id: string };
let pro: { cookie: string; id: string };
let premium: { cookie: string; id: string };

beforeAll(async () => {
  ctx = await makeTestApp();
  const f = await registerUser(ctx);
  const p = await registerUser(ctx);
  const x = await registerUser(ctx);
  free = { cookie: f.cookie, id: f.user.id };
  pro = { cookie: p.cookie, id: p.user.id };
  premium = { cookie: x.cookie, id: x.user.id };
  await setTier(ctx, pro.id, 'tier_pro');
  await setTier(ctx, premium.id, 'tier_premium');
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

/** Seconds from the test clock's now to 2026-02-01 00:00 UTC, the start of the next month. */
const untilFebruary = () => Math.ceil((Date.UTC(2026, 1, 1) - ctx.clock.now().getTime()) / 1000);
const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
/** The day's row once this process has given back its leases' unused calls (the rows count leased calls as made). */
const requestsOn = async (merchantId: string, day: string) =>
  (await settleApiLeases(ctx.deps.db)) ??
  Number((await q('SELECT coalesce(sum(requests), 0) AS n FROM merchant_usage WHERE merchant_id = ? AND day = ?', [merchantId, day]))[0]!.n);

function expect429(res: CallResult, code: 'api_rate_limited' | 'monthly_quota_exceeded', retryAfter: number): void {
  expect({ status: res.status, type: res.body?.error?.type, code: res.body?.error?.code }).toEqual({
    status: 429,
    type: CATALOGUE[code].type,
    code,
  });
  expect(res.body.error.type).toBe('rate_limit_error');
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
}

describe('per second', () => {
  test(`${REQUESTS_PER_SECOND} requests in one instant pass, the next -> 429 with Retry-After; a second later it passes again`, async () => {
    const m = await createMerchant(ctx, premium.cookie);
    const results: number[] = [];
    for (let i = 0; i < REQUESTS_PER_SECOND; i++) results.push((await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1')).status);
    expect(results).toEqual(Array(REQUESTS_PER_SECOND).fill(200));

    const refused = await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1');
    expect429(refused, 'api_rate_limited', 1);
    // Every endpoint shares the window, writes included, and nothing is created.
    expect429(await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 5000, currency: 'usd' } }), 'api_rate_limited', 1);
    expect(await q('SELECT id FROM payment_intents WHERE merchant_id = ?', [m.id])).toEqual([]);
    // Refused requests are not counted.
    expect(await requestsOn(m.id, '2026-01-15')).toBe(REQUESTS_PER_SECOND);

    // Another merchant has its own window.
    const other = await createMerchant(ctx, premium.cookie);
    expect((await merchantCall(ctx, other.secretKey, '/payment_intents?limit=1')).status).toBe(200);

    // The window slides: 999 ms later the first requests still count, at 1000 ms they have left it.
    ctx.clock.advance(999);
    expect429(await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1'), 'api_rate_limited', 1);
    ctx.clock.advance(1);
    expect((await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1')).status).toBe(200);
    expect(await requestsOn(m.id, '2026-01-15')).toBe(REQUESTS_PER_SECOND + 1);
  });

  test('malformed requests count too, and a request without a valid key is 401 before its body is looked at', async () => {
    const m = await createMerchant(ctx, premium.cookie);
    const bad = { method: 'POST', body: { amount: 'lots', currency: 'usd' } };
    const first = await merchantCall(ctx, m.secretKey, '/payment_intents', bad);
    expect(first.status).toBe(400);
    expect(first.body.error.code).toBe('validation_error');
    for (let i = 1; i < REQUESTS_PER_SECOND; i++) await merchantCall(ctx, m.secretKey, '/payment_intents', bad);
    expect429(await merchantCall(ctx, m.secretKey, '/payment_intents', bad), 'api_rate_limited', 1);
    expect(await requestsOn(m.id, '2026-01-15')).toBe(REQUESTS_PER_SECOND);

    // No key, or a wrong one: the answer is about the key, not the parameters.
    for (const key of [null, 'sk_test_000000000000000000000000']) {
      const res = await merchantCall(ctx, key, '/payment_intents', bad);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
  });

  test('requests spread over time are never refused', async () => {
    const m = await createMerchant(ctx, premium.cookie);
    const statuses = new Set<number>();
    // Twice the per-second limit, evenly over two seconds.
    for (let i = 0; i < 2 * REQUESTS_PER_SECOND; i++) {
      statuses.add((await merchantCall(ctx, m.secretKey, '/merchant/usage')).status);
      ctx.clock.advance(Math.ceil(1000 / REQUESTS_PER_SECOND));
    }
    expect([...statuses]).toEqual([200]);
  });
});

/** `n` reads by the merchant, 50 ms apart (inside the per-second limit); their statuses. */
async function reads(key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push((await merchantCall(ctx, key, '/payment_intents?limit=1')).status);
    ctx.clock.advance(50);
  }
  return out;
}
const rawMonth = async (merchantId: string) =>
  Number((await q("SELECT coalesce(sum(requests), 0) AS n FROM merchant_usage WHERE merchant_id = ? AND day LIKE '2026-01-%'", [merchantId]))[0]!.n);

describe('leases (issue 29 part 4): a block of calls reserved in one commit, counted in memory', () => {
  test('the size: at most LEASE_MAX_CALLS and 1 % of the plan, a quarter of what is left, never under 1', () => {
    expect(LEASE_MAX_CALLS).toBe(100);
    expect(leaseSize(-1, Infinity)).toBe(100);
    expect(leaseSize(100_000, 100_000)).toBe(100);
    expect(leaseSize(10_000, 9_000)).toBe(100);
    expect(leaseSize(1_000, 1_000)).toBe(10);
    expect(leaseSize(1_000, 39)).toBe(9);
    expect(leaseSize(1_000, 5)).toBe(1);
    expect(leaseSize(1_000, 1)).toBe(1);
  });

  test('a premium merchant\'s 30 reads cost one commit, the row holds the block, the dashboard shows the reads; the rest is given back', async () => {
    const m = await createMerchant(ctx, premium.cookie);
    const before = ctx.handle.stats.commits;
    expect(await reads(m.secretKey, 30)).toEqual(Array(30).fill(200));
    expect(ctx.handle.stats.commits - before).toBe(1);
    // The row counts the whole block as made; the dashboard (this process) subtracts what is unused.
    expect(await rawMonth(m.id)).toBe(100);
    const usage = await merchantCall(ctx, m.secretKey, '/merchant/usage');
    expect(usage.body).toEqual({ object: 'usage', totalRequests: 31, totalRequestsToday: 31, totalRequestsThisMonth: 31 });
    // Given back: the row is the requests made.
    await settleApiLeases(ctx.deps.db);
    expect(await rawMonth(m.id)).toBe(31);
    // A block spent takes the next one: 100 more reads, one more commit, then the 132nd read leases again.
    ctx.clock.advance(1000);
    const at = ctx.handle.stats.commits;
    expect(await reads(m.secretKey, 100)).toEqual(Array(100).fill(200));
    expect(ctx.handle.stats.commits - at).toBe(1);
    expect(await reads(m.secretKey, 1)).toEqual([200]);
    expect(ctx.handle.stats.commits - at).toBe(2);
  });

  test('near the limit the blocks shrink: a free owner with 960 used gets 30 one at a time, then exactly 10 of 15 at once', async () => {
    const owner = await registerUser(ctx);
    const m = await createMerchant(ctx, owner.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [m.id, '2026-01-02', 960]);
    // 40 left: blocks of min(10, 40 / 4) = 10, then 7, 5, 4, ... as what is left shrinks.
    expect(await reads(m.secretKey, 30)).toEqual([...Array(30).fill(200)]);
    expect(await rawMonth(m.id)).toBeGreaterThan(990);
    await settleApiLeases(ctx.deps.db);
    expect(await rawMonth(m.id)).toBe(990);
    ctx.clock.advance(1000);
    const statuses = await Promise.all(Array.from({ length: 15 }, () => merchantCall(ctx, m.secretKey, '/payment_intents?limit=1').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(await rawMonth(m.id)).toBe(1000);
    await settleApiLeases(ctx.deps.db);
    expect(await rawMonth(m.id)).toBe(1000);
  });

  test('a plan changed under a block takes effect at the next request: pro -> free at 999 used is refused at once', async () => {
    const owner = await registerUser(ctx);
    await setTier(ctx, owner.user.id, 'tier_pro');
    const m = await createMerchant(ctx, owner.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [m.id, '2026-01-02', 999]);
    expect(await reads(m.secretKey, 1)).toEqual([200]);
    expect(await rawMonth(m.id)).toBe(1099);
    await setTier(ctx, owner.user.id, 'tier_free');
    expect429(await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1'), 'monthly_quota_exceeded', untilFebruary());
    // The pro block's 99 unused calls were given back before the free plan's count was read.
    expect(await rawMonth(m.id)).toBe(1000);
  });
});

describe('per month', () => {
  test("a free owner's merchant at 1,000 requests this month -> 429 monthly_quota_exceeded until the 1st", async () => {
    const m = await createMerchant(ctx, free.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [m.id, '2026-01-03', 999]);
    // The 1,000th request of the month passes and is counted...
    const last = await merchantCall(ctx, m.secretKey, '/merchant/usage');
    expect(last.status).toBe(200);
    expect(last.body).toEqual({ object: 'usage', totalRequests: 1, totalRequestsToday: 1, totalRequestsThisMonth: 1000 });
    // ...the 1,001st is refused until 2026-02-01 00:00 UTC (about 16.5 days from now).
    const refused = await merchantCall(ctx, m.secretKey, '/payment_intents');
    expect(untilFebruary()).toBeGreaterThan(16.4 * 24 * 3600);
    expect429(refused, 'monthly_quota_exceeded', untilFebruary());
    expect(refused.body.error.message).toContain('1000');
    expect429(await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 5000, currency: 'usd' } }), 'monthly_quota_exceeded', untilFebruary());
    expect(await q('SELECT id FROM payment_intents WHERE merchant_id = ?', [m.id])).toEqual([]);
    expect(await requestsOn(m.id, '2026-01-15')).toBe(1);
    // Last month's requests do not count against this one (another free owner, whose allowance is untouched).
    const other = await registerUser(ctx);
    const fresh = await createMerchant(ctx, other.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [fresh.id, '2025-12-31', 5000]);
    expect((await merchantCall(ctx, fresh.secretKey, '/payment_intents')).status).toBe(200);
  });

  test('20 requests at once with 5 left this month: exactly 5 pass, and the month counts 1,000', async () => {
    const owner = await registerUser(ctx);
    const m = await createMerchant(ctx, owner.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [m.id, '2026-01-02', 995]);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => merchantCall(ctx, m.secretKey, '/payment_intents?limit=1').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(Number((await q('SELECT sum(requests) AS n FROM merchant_usage WHERE merchant_id = ?', [m.id]))[0]!.n)).toBe(1000);
  });

  test("the allowance is the owner's: a second merchant account does not get a second 1,000", async () => {
    const owner = await registerUser(ctx);
    const shopA = await createMerchant(ctx, owner.cookie);
    const shopB = await createMerchant(ctx, owner.cookie, 'sandbox', { businessName: 'Second shop' });
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [shopA.id, '2026-01-02', 600]);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [shopB.id, '2026-01-03', 399]);
    expect((await merchantCall(ctx, shopB.secretKey, '/payment_intents')).status).toBe(200);
    expect429(await merchantCall(ctx, shopA.secretKey, '/payment_intents'), 'monthly_quota_exceeded', untilFebruary());
    expect429(await merchantCall(ctx, shopB.secretKey, '/payment_intents'), 'monthly_quota_exceeded', untilFebruary());
    // Another owner is not affected.
    const stranger = await registerUser(ctx);
    expect((await merchantCall(ctx, (await createMerchant(ctx, stranger.cookie)).secretKey, '/payment_intents')).status).toBe(200);
  });

  test('the allowance is per plan: pro allows 10,000, premium 100,000, -1 is unlimited', async () => {
    const proM = await createMerchant(ctx, pro.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [proM.id, '2026-01-10', 1000]);
    expect((await merchantCall(ctx, proM.secretKey, '/payment_intents')).status).toBe(200);
    await q('UPDATE merchant_usage SET requests = 10000 WHERE merchant_id = ? AND day = ?', [proM.id, '2026-01-10']);
    // The row was raised behind the process's back, so its lease (a block taken at 1,000) is given back first: the
    // process reads the month again at its next lease.
    await settleApiLeases(ctx.deps.db);
    expect((await merchantCall(ctx, proM.secretKey, '/payment_intents')).status).toBe(429);

    // A premium owner whose other accounts have made no requests (the allowance is shared by an owner's accounts).
    const fresh = await registerUser(ctx);
    await setTier(ctx, fresh.user.id, 'tier_premium');
    const premiumM = await createMerchant(ctx, fresh.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [premiumM.id, '2026-01-10', 99_999]);
    expect((await merchantCall(ctx, premiumM.secretKey, '/payment_intents')).status).toBe(200);
    expect((await merchantCall(ctx, premiumM.secretKey, '/payment_intents')).status).toBe(429);
    await q("UPDATE subscription_tiers SET api_calls_per_month = -1 WHERE id = 'tier_premium'");
    try {
      expect((await merchantCall(ctx, premiumM.secretKey, '/payment_intents')).status).toBe(200);
    } finally {
      await q("UPDATE subscription_tiers SET api_calls_per_month = 100000 WHERE id = 'tier_premium'");
    }
  });

  test('(moves the clock a day) a new day gives the old block\'s unused calls back in the same commit as the new block', async () => {
    const m = await createMerchant(ctx, premium.cookie);
    await reads(m.secretKey, 3);
    expect(await rawMonth(m.id)).toBe(100);
    const now = ctx.clock.now();
    const today = now.toISOString().slice(0, 10);
    ctx.clock.advance(24 * 3600 * 1000);
    const tomorrow = ctx.clock.now().toISOString().slice(0, 10);
    const before = ctx.handle.stats.commits;
    await reads(m.secretKey, 2);
    expect(ctx.handle.stats.commits - before).toBe(1);
    const day = async (d: string) => Number((await q('SELECT coalesce(sum(requests), 0) AS n FROM merchant_usage WHERE merchant_id = ? AND day = ?', [m.id, d]))[0]!.n);
    expect(await day(today)).toBe(3);
    expect(await day(tomorrow)).toBe(100);
    expect(await requestsOn(m.id, tomorrow)).toBe(2);
  });

  test('a new month starts a new allowance (last of this file: the clock moves to February)', async () => {
    const m = await createMerchant(ctx, free.cookie);
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [m.id, '2026-01-15', 1000]);
    expect429(await merchantCall(ctx, m.secretKey, '/merchant/usage'), 'monthly_quota_exceeded', untilFebruary());
    ctx.clock.advance(untilFebruary() * 1000 - 1000);
    expect429(await merchantCall(ctx, m.secretKey, '/merchant/usage'), 'monthly_quota_exceeded', 1);
    ctx.clock.advance(1000);
    const res = await merchantCall(ctx, m.secretKey, '/merchant/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'usage', totalRequests: 1, totalRequestsToday: 1, totalRequestsThisMonth: 1 });
    expect(await requestsOn(m.id, '2026-02-01')).toBe(1);
  });
});
