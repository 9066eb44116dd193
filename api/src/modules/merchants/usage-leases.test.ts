import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, setTier } from '../../../test-support/world';
import { closeApiLeases, dailyRequests, monthlyRequests, resetRateWindows, settleApiLeases } from './usage';

/*
 * The hostile audit of the usage leases (issue 29 part 4, merchants/usage.ts): what a lease must never do. The rows
 * count a leased call as made until it is given back; these tests read them raw. The clock is frozen on
 * 2026-01-15 12:00 UTC unless a test moves it.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp();
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const rawMonth = async (merchantId: string) =>
  Number((await q("SELECT coalesce(sum(requests), 0) AS n FROM merchant_usage WHERE merchant_id = ? AND day LIKE '2026-01-%'", [merchantId]))[0]!.n);
const rawDay = async (merchantId: string, day: string) =>
  Number((await q('SELECT coalesce(sum(requests), 0) AS n FROM merchant_usage WHERE merchant_id = ? AND day = ?', [merchantId, day]))[0]!.n);
const read = (key: string) => merchantCall(ctx, key, '/payment_intents?limit=1').then((r) => r.status);

/** `n` reads by the merchant, 50 ms apart (inside the per-second limit); their statuses. */
async function reads(key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await read(key));
    ctx.clock.advance(50);
  }
  return out;
}

/** Holds the database's write lock (an open unit) until the returned function is called. */
async function holdWriteLock(): Promise<{ release: () => Promise<void> }> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const unit = ctx.deps.db.transaction(async () => {
    entered();
    await gate;
  });
  await inside;
  return {
    release: async () => {
      open();
      await unit;
    },
  };
}

describe('the allowance is the owner\'s: one account\'s unused block never refuses another', () => {
  test('a free owner: shop A holds 9 unused calls, shop B gets every call the owner has left (19), then both are refused', async () => {
    const owner = await registerUser(ctx);
    const shopA = await createMerchant(ctx, owner.cookie);
    const shopB = await createMerchant(ctx, owner.cookie, 'sandbox', { businessName: 'Second shop' });
    // A's one call leases a block of 10 (1 % of the free plan's 1,000): 9 unused, held by this process.
    expect(await reads(shopA.secretKey, 1)).toEqual([200]);
    expect(await rawMonth(shopA.id)).toBe(10);
    // B made 980 calls earlier this month: the owner has made 981, and 19 are left.
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?)', [shopB.id, '2026-01-02', 980]);
    const statuses = await reads(shopB.secretKey, 25);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect(statuses.slice(19)).toEqual(Array(6).fill(429));
    // The owner's month is used up: A's unused calls went to B, A is refused too.
    expect(await reads(shopA.secretKey, 1)).toEqual([429]);
    await settleApiLeases(ctx.deps.db);
    expect((await rawMonth(shopA.id)) + (await rawMonth(shopB.id))).toBe(1000);
    expect(await rawMonth(shopA.id)).toBe(1);
  });
});

describe('a lease that fails to commit', () => {
  test('(moves the clock a day) the old block\'s unused calls stay the process\'s to give back, not counted as made', async () => {
    const owner = await registerUser(ctx);
    await setTier(ctx, owner.user.id, 'tier_premium');
    const m = await createMerchant(ctx, owner.cookie);
    const today = ctx.clock.now().toISOString().slice(0, 10);
    expect(await reads(m.secretKey, 3)).toEqual([200, 200, 200]);
    expect(await rawDay(m.id, today)).toBe(100);
    ctx.clock.advance(24 * 3600_000);
    // The next day's block cannot be written (a full disk): the unit that would also give yesterday's 97 back fails.
    await q("CREATE TRIGGER usage_full BEFORE INSERT ON merchant_usage BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
    try {
      // A full disk lets the read through uncounted (issue 27), as before leases.
      expect(await read(m.secretKey)).toBe(200);
    } finally {
      await q('DROP TRIGGER usage_full');
    }
    await settleApiLeases(ctx.deps.db);
    expect(await rawDay(m.id, today)).toBe(3);
  });
});

describe('giving back at shutdown while requests are in flight', () => {
  test('a block being taken when settleApiLeases starts is given back with the others', async () => {
    const owner = await registerUser(ctx);
    const m = await createMerchant(ctx, owner.cookie);
    // A free owner's block is 10 calls: spent by 10 reads, so the 11th takes a new one.
    expect(await reads(m.secretKey, 10)).toEqual(Array(10).fill(200));
    expect(await rawMonth(m.id)).toBe(10);
    const lock = await holdWriteLock();
    const eleventh = read(m.secretKey);
    // The 11th request is by now waiting for the write lock to take its block.
    await Bun.sleep(30);
    const settled = settleApiLeases(ctx.deps.db);
    await lock.release();
    await settled;
    expect(await eleventh).toBe(200);
    // Nothing unused is left counted: the rows are the 11 calls made.
    expect(await rawMonth(m.id)).toBe(11);
  });

  test('after closeApiLeases (SIGTERM) a request in flight leases only its own call', async () => {
    const fresh = await makeTestApp();
    try {
      const owner = await registerUser(fresh);
      await setTier(fresh, owner.user.id, 'tier_premium');
      const m = await createMerchant(fresh, owner.cookie);
      expect((await merchantCall(fresh, m.secretKey, '/payment_intents?limit=1')).status).toBe(200);
      await closeApiLeases(fresh.deps.db);
      const month = async () =>
        Number((await fresh.handle.client.execute({ sql: 'SELECT sum(requests) AS n FROM merchant_usage WHERE merchant_id = ?', args: [m.id] })).rows[0]!.n);
      expect(await month()).toBe(1);
      expect((await merchantCall(fresh, m.secretKey, '/payment_intents?limit=1')).status).toBe(200);
      expect((await merchantCall(fresh, m.secretKey, '/payment_intents?limit=1')).status).toBe(200);
      // The process exits right after: no call may be left leased and unmade.
      expect(await month()).toBe(3);
    } finally {
      fresh.close();
    }
  });
});

describe('what the dashboard shows', () => {
  test('while a plan change gives a block back, the count is the calls made, not the block', async () => {
    const owner = await registerUser(ctx);
    await setTier(ctx, owner.user.id, 'tier_premium');
    const m = await createMerchant(ctx, owner.cookie);
    expect(await reads(m.secretKey, 3)).toEqual([200, 200, 200]);
    expect(await rawMonth(m.id)).toBe(100);
    await setTier(ctx, owner.user.id, 'tier_pro');
    const lock = await holdWriteLock();
    // The 4th call finds its block taken under another plan: it gives the 97 back and takes a new one, in a unit
    // that waits for the lock.
    const fourth = read(m.secretKey);
    await Bun.sleep(30);
    const at = ctx.clock.now();
    const shown = Promise.all([dailyRequests(ctx.deps.db, m.id, at), monthlyRequests(ctx.deps.db, m.id, at)]);
    await Bun.sleep(10);
    await lock.release();
    expect(await fourth).toBe(200);
    const [today, month] = await shown;
    for (const n of [today, month]) {
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(4);
    }
  });

  test('a give-back that begins while the count is being read: the count is read again, not shown with the block', async () => {
    const owner = await registerUser(ctx);
    await setTier(ctx, owner.user.id, 'tier_premium');
    const m = await createMerchant(ctx, owner.cookie);
    expect(await reads(m.secretKey, 3)).toEqual([200, 200, 200]);
    const at = ctx.clock.now();
    // The reads start first (their rows hold the block of 100); the give-back empties the lease before they end.
    const shown = Promise.all([dailyRequests(ctx.deps.db, m.id, at), monthlyRequests(ctx.deps.db, m.id, at)]);
    const settled = settleApiLeases(ctx.deps.db);
    expect(await shown).toEqual([3, 3]);
    await settled;
    expect(await rawMonth(m.id)).toBe(3);
  });
});
