import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { AppError, CATALOGUE, type ErrorCode } from '../errors';
import { call, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../test-support/app';
import { cardBody, createMerchant, postCard, registerUser, setTier } from '../../test-support/world';
import { recoverCollections } from '../modules/bcards/sweep';
import { VendorUnavailableError, type PaymentVendor } from '../vendors/types';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS, REPLAY_HEADER, runIdempotent } from './idempotency';

/*
 * Idempotency-Key on the three money-moving POSTs. A replay answers what the first request answered (marked with
 * the idempotent-replayed header) and moves no money; the key is bound to its first body, path and owner; it
 * lives 24 hours. Money is checked through the API's own balances and lists, and the rows behind them.
 */

const VC = '/api/virtual-cards';
const FS = '/api/funding-sources';
const PP = '/api/process-payment';

function expectError(res: CallResult, status: number, code: ErrorCode): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
}

const post = (ctx: TestContext, path: string, cookie: string, body: unknown, key?: string) =>
  call(ctx, path, { method: 'POST', body, cookie, headers: key === undefined ? undefined : { 'idempotency-key': key } });

async function balances(ctx: TestContext, cookie: string): Promise<Record<string, string>> {
  const res = await call(ctx, FS, { cookie });
  return Object.fromEntries((res.body as Array<{ id: string; balance: string }>).map((s) => [s.id, s.balance]));
}

const count = async (ctx: TestContext, table: 'collections' | 'bcards' | 'fundingSources' | 'simHolds', userId?: string) => {
  const t = schema[table];
  const rows = await ctx.handle.db
    .select({ n: sql<number>`count(*)` })
    .from(t)
    .where(userId && 'userId' in t ? eq(t.userId, userId) : undefined);
  return Number(rows[0]!.n);
};

let ctx: TestContext;
let alice: { cookie: string; id: string };
let bob: { cookie: string; id: string };
let a1: string;
let a2: string;
let b1: string;
let keyN = 0;
const newKey = () => `key-${++keyN}-${crypto.randomUUID()}`;

beforeAll(async () => {
  ctx = await makeTestApp();
  const a = await registerUser(ctx);
  const b = await registerUser(ctx);
  alice = { cookie: a.cookie, id: a.user.id };
  bob = { cookie: b.cookie, id: b.user.id };
  await setTier(ctx, alice.id, 'tier_premium');
  await setTier(ctx, bob.id, 'tier_premium');
  a1 = (await postCard(ctx, alice.cookie, '4242424242424242')).body.id;
  a2 = (await postCard(ctx, alice.cookie, '5555555555554444')).body.id;
  b1 = (await postCard(ctx, bob.cookie, '4242424242424242')).body.id;
});
afterAll(() => {
  ctx.close();
});

const bcardBody = (over: Record<string, unknown> = {}) => ({
  name: 'Groceries',
  balance: '100.00',
  fundingSources: [
    { fundingSourceId: a1, percentage: 50 },
    { fundingSourceId: a2, percentage: 50 },
  ],
  ...over,
});

describe('a replay answers the first response and moves no money twice', () => {
  test('POST /api/virtual-cards: one bcard, one collection, each source charged once', async () => {
    const key = newKey();
    const before = await balances(ctx, alice.cookie);
    const bcardsBefore = await count(ctx, 'bcards', alice.id);
    const first = await post(ctx, VC, alice.cookie, bcardBody(), key);
    expect(first.status).toBe(201);
    expect(first.headers.get(REPLAY_HEADER)).toBeNull();
    const afterFirst = await balances(ctx, alice.cookie);

    const replay = await post(ctx, VC, alice.cookie, bcardBody(), key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replay.body).toEqual(first.body);

    expect(await count(ctx, 'bcards', alice.id)).toBe(bcardsBefore + 1);
    expect(await balances(ctx, alice.cookie)).toEqual(afterFirst);
    // 100.00 at 1.9 % (premium) is 101.90, split 50.95 / 50.95.
    expect(Number(before[a1]) - Number(afterFirst[a1])).toBeCloseTo(50.95, 2);
    expect(Number(before[a2]) - Number(afterFirst[a2])).toBeCloseTo(50.95, 2);
    const listed = (await call(ctx, VC, { cookie: alice.cookie })).body as Array<{ id: string }>;
    expect(listed.filter((b) => b.id === first.body.id)).toHaveLength(1);
  });

  test('POST /api/funding-sources: one source, one verification hold', async () => {
    const key = newKey();
    const sourcesBefore = (await call(ctx, FS, { cookie: alice.cookie })).body.length;
    const holdsBefore = await count(ctx, 'simHolds');
    const body = cardBody('4000056655665556');
    const first = await post(ctx, FS, alice.cookie, body, key);
    expect(first.status).toBe(201);
    const replay = await post(ctx, FS, alice.cookie, body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await call(ctx, FS, { cookie: alice.cookie })).body.length).toBe(sourcesBefore + 1);
    expect(await count(ctx, 'simHolds')).toBe(holdsBefore + 1);
    await call(ctx, `${FS}/${first.body.id}`, { method: 'DELETE', cookie: alice.cookie });
  });

  test('POST /api/funding-sources: a 3-D Secure 202 is replayed with the same verification', async () => {
    const key = newKey();
    const body = cardBody('4000002760003184');
    const first = await post(ctx, FS, alice.cookie, body, key);
    expect(first.status).toBe(202);
    const replay = await post(ctx, FS, alice.cookie, body, key);
    expect(replay.status).toBe(202);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replay.body).toEqual(first.body);
    const rows = await ctx.handle.db.select().from(schema.cardVerifications).where(eq(schema.cardVerifications.userId, alice.id));
    expect(rows).toHaveLength(1);
  });

  test('POST /api/process-payment: one purchase, each source charged once', async () => {
    const key = newKey();
    const body = { amount: '40.00', merchant: 'Replay Books', splits: [{ fundingSourceId: a1, percentage: 100 }] };
    const before = await balances(ctx, alice.cookie);
    const first = await post(ctx, PP, alice.cookie, body, key);
    expect(first.status).toBe(200);
    const replay = await post(ctx, PP, alice.cookie, body, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replay.body).toEqual(first.body);
    const after = await balances(ctx, alice.cookie);
    // 40.00 + 1.9 % = 40.76, once.
    expect(Math.round((Number(before[a1]) - Number(after[a1])) * 100)).toBe(4076);
    const purchases = await ctx.handle.db.select().from(schema.collections).where(eq(schema.collections.merchant, 'Replay Books'));
    expect(purchases).toHaveLength(1);
  });

  test('POST /api/virtual-cards/:id/cancel: a retried cancel answers the first 200, refunded once', async () => {
    const made = await post(ctx, VC, alice.cookie, { name: 'Cancel me', balance: '15.00', fundingSources: [{ fundingSourceId: a1, percentage: 100 }] });
    expect(made.status).toBe(201);
    const before = await balances(ctx, alice.cookie);
    const key = newKey();
    const first = await post(ctx, `${VC}/${made.body.id}/cancel`, alice.cookie, {}, key);
    expect(first.status).toBe(200);
    const replay = await post(ctx, `${VC}/${made.body.id}/cancel`, alice.cookie, {}, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replay.body).toEqual(first.body);
    const after = await balances(ctx, alice.cookie);
    // Every share, fee included, came back once.
    expect(Math.round((Number(after[a1]) - Number(before[a1])) * 100)).toBe(Math.round(Number(made.body.totalCharged) * 100));
    // Without the key, a second cancel is the plain answer for a bcard that is no longer active.
    expect((await post(ctx, `${VC}/${made.body.id}/cancel`, alice.cookie, {})).status).toBe(409);
  });

  test('a failed request (402 insufficient funds) is replayed as the same 402, and tried only once', async () => {
    const key = newKey();
    const body = bcardBody({ balance: '9900.00', fundingSources: [{ fundingSourceId: a1, percentage: 100 }] });
    const collectionsBefore = await count(ctx, 'collections', alice.id);
    const first = await post(ctx, VC, alice.cookie, body, key);
    expectError(first, 402, 'insufficient_funds');
    expect(first.body.error.details.insufficientSources).toHaveLength(1);
    const replay = await post(ctx, VC, alice.cookie, body, key);
    expect(replay.status).toBe(402);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    const { request_id: _a, ...firstError } = first.body.error;
    const { request_id: _b, ...replayError } = replay.body.error;
    expect(replayError).toEqual(firstError);
    expect(await count(ctx, 'collections', alice.id)).toBe(collectionsBefore + 1);
  });

  test('without a key, the same request twice makes two bcards', async () => {
    const before = await count(ctx, 'bcards', alice.id);
    expect((await post(ctx, VC, alice.cookie, bcardBody({ balance: '1.00' }))).status).toBe(201);
    const again = await post(ctx, VC, alice.cookie, bcardBody({ balance: '1.00' }));
    expect(again.status).toBe(201);
    expect(again.headers.get(REPLAY_HEADER)).toBeNull();
    expect(await count(ctx, 'bcards', alice.id)).toBe(before + 2);
  });
});

describe('a key is bound to its first request', () => {
  test('the same key with a different body is 400 idempotency_error naming the field; nothing runs', async () => {
    const key = newKey();
    expect((await post(ctx, VC, alice.cookie, bcardBody(), key)).status).toBe(201);
    const bcards = await count(ctx, 'bcards', alice.id);
    const res = await post(ctx, VC, alice.cookie, bcardBody({ balance: '100.01' }), key);
    expectError(res, 400, 'idempotency_error');
    expect(res.body.error.message).toContain('balance');
    expect(res.body.error.message).not.toContain('name');
    expect(res.body.error.param).toBe('balance');
    const two = await post(ctx, VC, alice.cookie, bcardBody({ balance: '5.00', name: 'Other' }), key);
    expectError(two, 400, 'idempotency_error');
    expect(two.body.error.message).toContain('balance, name');
    const added = await post(ctx, VC, alice.cookie, bcardBody({ description: undefined, interval: 'monthly' }), key);
    expectError(added, 400, 'idempotency_error');
    expect(added.body.error.message).toContain('interval');
    expect(await count(ctx, 'bcards', alice.id)).toBe(bcards);
  });

  test('a different CVV on a card is named, never shown', async () => {
    const key = newKey();
    const first = await post(ctx, FS, alice.cookie, cardBody('4000056655665556', { cvv: '917' }), key);
    expect(first.status).toBe(201);
    const res = await post(ctx, FS, alice.cookie, cardBody('4000056655665556', { cvv: '918' }), key);
    expectError(res, 400, 'idempotency_error');
    expect(res.body.error.message).toContain('cvv');
    expect(res.text).not.toContain('917');
    expect(res.text).not.toContain('918');
    await call(ctx, `${FS}/${first.body.id}`, { method: 'DELETE', cookie: alice.cookie });
  });

  test('keys are scoped per user: two users may use the same key', async () => {
    const key = `shared-${crypto.randomUUID()}`;
    const a = await post(ctx, VC, alice.cookie, bcardBody({ balance: '3.00' }), key);
    const b = await post(ctx, VC, bob.cookie, { name: 'Bob', balance: '4.00', fundingSources: [{ fundingSourceId: b1, percentage: 100 }] }, key);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get(REPLAY_HEADER)).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.amount).toBe('4.00');
    expect(b.body.fundingSources[0].fundingSourceId).toBe(b1);
    // And each replays their own.
    const again = await post(ctx, VC, bob.cookie, { name: 'Bob', balance: '4.00', fundingSources: [{ fundingSourceId: b1, percentage: 100 }] }, key);
    expect(again.body.id).toBe(b.body.id);
  });

  test('a key used on another path is an idempotency_error', async () => {
    const key = newKey();
    expect((await post(ctx, VC, alice.cookie, bcardBody({ balance: '2.00' }), key)).status).toBe(201);
    const res = await post(ctx, PP, alice.cookie, { amount: '2.00', merchant: 'Elsewhere', splits: [{ fundingSourceId: a1, percentage: 100 }] }, key);
    expectError(res, 400, 'idempotency_error');
    expect(res.body.error.message).toContain('/api/virtual-cards');
    const fs = await post(ctx, FS, alice.cookie, cardBody(), key);
    expectError(fs, 400, 'idempotency_error');
    const purchases = await ctx.handle.db.select().from(schema.collections).where(eq(schema.collections.merchant, 'Elsewhere'));
    expect(purchases).toEqual([]);
  });

  const invalidKeys: Array<[string, string]> = [
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'my key'],
    ['a tab', 'my\tkey'],
    ['empty', ''],
    ['a non-ASCII letter', 'clé'],
  ];
  for (const [what, key] of invalidKeys) {
    test(`a key with ${what} is 400 invalid_idempotency_key, and nothing runs`, async () => {
      const before = await count(ctx, 'collections', alice.id);
      const res = await post(ctx, VC, alice.cookie, bcardBody(), key);
      expectError(res, 400, 'invalid_idempotency_key');
      expect(await count(ctx, 'collections', alice.id)).toBe(before);
    });
  }

  test('a key of 255 printable characters is accepted', async () => {
    const key = `${'k'.repeat(250)}-${String(++keyN).padStart(4, '0')}`;
    expect(key).toHaveLength(255);
    expect((await post(ctx, VC, alice.cookie, bcardBody({ balance: '1.50' }), key)).status).toBe(201);
    expect((await post(ctx, VC, alice.cookie, bcardBody({ balance: '1.50' }), key)).headers.get(REPLAY_HEADER)).toBe('true');
  });
});

describe('the life of a key', () => {
  test('after 24 hours a key can be used again, for a new request', async () => {
    const local = await makeTestApp();
    try {
      const u = await registerUser(local);
      await setTier(local, u.user.id, 'tier_premium');
      const s = (await postCard(local, u.cookie)).body.id as string;
      const body = (balance: string) => ({ name: 'Daily', balance, fundingSources: [{ fundingSourceId: s, percentage: 100 }] });
      const key = 'daily-key';
      const first = await post(local, VC, u.cookie, body('10.00'), key);
      expect(first.status).toBe(201);
      local.clock.advance(IDEMPOTENCY_TTL_MS - 1000);
      expectError(await post(local, VC, u.cookie, body('20.00'), key), 400, 'idempotency_error');
      local.clock.advance(2000);
      const second = await post(local, VC, u.cookie, body('20.00'), key);
      expect(second.status).toBe(201);
      expect(second.headers.get(REPLAY_HEADER)).toBeNull();
      expect(second.body.id).not.toBe(first.body.id);
      expect(second.body.amount).toBe('20.00');
      // 10.19 + 20.38 taken, both bcards listed.
      expect((await balances(local, u.cookie))[s]).toBe('9969.43');
      expect(((await call(local, VC, { cookie: u.cookie })).body as unknown[]).length).toBe(2);
      // The new request's answer is what a replay now gives.
      const replay = await post(local, VC, u.cookie, body('20.00'), key);
      expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
      expect(replay.body.id).toBe(second.body.id);

      // The same for a card: a day later the key adds the card it is sent now.
      const cardKey = 'card-key';
      const visa = await post(local, FS, u.cookie, cardBody('4242424242424242'), cardKey);
      expect(visa.body.last4).toBe('4242');
      local.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
      const mc = await post(local, FS, u.cookie, cardBody('5555555555554444'), cardKey);
      expect(mc.status).toBe(201);
      expect(mc.body).toMatchObject({ last4: '4444', brand: 'mastercard' });
      expect(mc.body.id).not.toBe(visa.body.id);
    } finally {
      local.close();
    }
  });

  test('a key whose first request is still in progress is 409 idempotency_key_in_use; the lock lapses after a crash', async () => {
    const key = newKey();
    const first = await post(ctx, VC, alice.cookie, bcardBody({ balance: '6.00' }), key);
    expect(first.status).toBe(201);
    // As if the first request were still running.
    const where = and(eq(schema.idempotencyKeys.scope, `user:${alice.id}`), eq(schema.idempotencyKeys.key, key));
    await ctx.handle.db
      .update(schema.idempotencyKeys)
      .set({ status: 'in_progress', responseStatus: null, responseBody: null, lockedUntil: new Date(ctx.clock.now().getTime() + IDEMPOTENCY_LOCK_MS) })
      .where(where);
    const bcards = await count(ctx, 'bcards', alice.id);
    const res = await post(ctx, VC, alice.cookie, bcardBody({ balance: '6.00' }), key);
    expectError(res, 409, 'idempotency_key_in_use');
    expect(res.headers.get(REPLAY_HEADER)).toBeNull();
    // The body is still checked first.
    expectError(await post(ctx, VC, alice.cookie, bcardBody({ balance: '7.00' }), key), 400, 'idempotency_error');

    // Its process died: once the lock lapses, a retry takes over and answers the first request's bcard.
    ctx.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const retried = await post(ctx, VC, alice.cookie, bcardBody({ balance: '6.00' }), key);
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(first.body.id);
    expect(await count(ctx, 'bcards', alice.id)).toBe(bcards);
  });

  test('the stored row holds no card number or CVV: field digests are keyed HMACs', async () => {
    const key = newKey();
    const number = '4000056655665556';
    const res = await post(ctx, FS, alice.cookie, cardBody(number, { cvv: '917' }), key);
    expect(res.status).toBe(201);
    const row = await ctx.handle.db.query.idempotencyKeys.findFirst({
      where: and(eq(schema.idempotencyKeys.scope, `user:${alice.id}`), eq(schema.idempotencyKeys.key, key)),
    });
    expect(row).toBeDefined();
    const text = JSON.stringify(row);
    expect(text).not.toContain(number);
    expect(text).not.toContain('4000 0566 5566 5556');
    expect(text).not.toContain('"917"');
    expect(text).not.toMatch(/cardNumber"?\s*:\s*"\d/);
    expect(Object.keys(row!.fieldDigests).sort()).toEqual(Object.keys(cardBody(number)).sort());
    for (const digest of Object.values(row!.fieldDigests)) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    // Not a plain hash anyone could brute-force over the 1,000 possible CVVs.
    const plain = (v: string) => createHash('sha256').update(`idem:cvv:${JSON.stringify(v)}`).digest('hex');
    expect(row!.fieldDigests.cvv).not.toBe(plain('917'));
    expect(JSON.parse(row!.responseBody!)).toEqual(res.body);
    expect(row!.responseBody).not.toMatch(/cvv|cardNumber/);
    await call(ctx, `${FS}/${res.body.id}`, { method: 'DELETE', cookie: alice.cookie });
  });
});

describe('a server error frees the key', () => {
  test('503 from the processor is not stored: a retry with the same key runs again and succeeds', async () => {
    let failHolds = true;
    const local = await makeTestApp({
      wrapVendor: (v: PaymentVendor): PaymentVendor => ({
        ...v,
        hold: async (...args) => {
          if (failHolds) throw new VendorUnavailableError('processor timed out');
          return v.hold(...args);
        },
      }),
    });
    try {
      const u = await registerUser(local);
      const s = (await postCard(local, u.cookie)).body.id as string;
      const body = { name: 'Retry', balance: '10.00', fundingSources: [{ fundingSourceId: s, percentage: 100 }] };
      const key = 'retry-key';
      expectError(await post(local, VC, u.cookie, body, key), 503, 'vendor_unavailable');
      expect((await balances(local, u.cookie))[s]).toBe('10000.00');
      failHolds = false;
      const retry = await post(local, VC, u.cookie, body, key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get(REPLAY_HEADER)).toBeNull();
      expect((await balances(local, u.cookie))[s]).toBe('9989.71');
      const replay = await post(local, VC, u.cookie, body, key);
      expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
      expect(replay.body.id).toBe(retry.body.id);
    } finally {
      local.close();
    }
  });
});

describe('a retry that takes over a crashed request', () => {
  test('while the first attempt is unfinished the retry is 409, not remembered: once recovery settles it, the outcome is answered', async () => {
    // Holds never answer: the first request stays in the middle of its collection, as if its process had died.
    const stuck = new Promise<never>(() => {});
    let hang = true;
    const local = await makeTestApp({
      wrapVendor: (v: PaymentVendor): PaymentVendor => ({ ...v, hold: (...args) => (hang ? stuck : v.hold(...args)) }),
    });
    try {
      const u = await registerUser(local);
      const s = (await postCard(local, u.cookie)).body.id as string;
      const body = { name: 'Crash', balance: '10.00', fundingSources: [{ fundingSourceId: s, percentage: 100 }] };
      const key = 'crash-key';
      void post(local, VC, u.cookie, body, key);
      // Let the first request reach the processor.
      for (let i = 0; i < 50 && (await count(local, 'collections', u.user.id)) === 0; i++) await Bun.sleep(5);
      expect(await count(local, 'collections', u.user.id)).toBe(1);
      expectError(await post(local, VC, u.cookie, body, key), 409, 'idempotency_key_in_use');

      // The lock lapses; the retry takes the key over but finds the collection still unfinished.
      local.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
      expectError(await post(local, VC, u.cookie, body, key), 409, 'idempotency_key_in_use');

      // The recovery sweep undoes the interrupted collection; nothing was charged.
      hang = false;
      expect(await recoverCollections(local.deps, local.deps.bcardTtlMs)).toBe(1);
      expect((await balances(local, u.cookie))[s]).toBe('10000.00');

      // The next retry after the lock gets the real outcome, not a remembered "still being processed".
      local.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
      const after = await post(local, VC, u.cookie, body, key);
      expect(after.status).toBe(402);
      expect(after.body.error.code).toBe('processing_error');
      expect(await count(local, 'bcards', u.user.id)).toBe(0);
    } finally {
      local.close();
    }
  });
});

describe('runIdempotent after an unexpected server error', () => {
  test('the retry takes the record over with the same handler key, so it finds the first attempt’s work', async () => {
    const local = await makeTestApp();
    try {
      const deps = { db: local.handle.db, clock: local.clock, secret: 'test' };
      const req = { scope: 'user:u1', key: 'boom-key', method: 'POST', path: '/api/x', body: { a: 1 } };
      const seen: Array<string | null> = [];
      // The first attempt moves money (as far as it knows), then fails in a way nobody planned for.
      await expect(
        runIdempotent(deps, req, async (k) => {
          seen.push(k);
          throw new TypeError('undefined is not an object');
        }),
      ).rejects.toThrow(TypeError);
      const retry = await runIdempotent(deps, req, async (k) => {
        seen.push(k);
        return { status: 200, body: { ok: true } };
      });
      expect(retry).toEqual({ status: 200, body: { ok: true }, replayed: false });
      expect(seen).toHaveLength(2);
      expect(seen[1]).toBe(seen[0]!);
      // A deliberate 5xx (everything undone) frees the key instead: the next attempt is a new request.
      const req2 = { ...req, key: 'unavailable-key' };
      const keys: Array<string | null> = [];
      await expect(
        runIdempotent(deps, req2, async (k) => {
          keys.push(k);
          throw new AppError('vendor_unavailable');
        }),
      ).rejects.toThrow(AppError);
      await runIdempotent(deps, req2, async (k) => {
        keys.push(k);
        return { status: 200, body: {} };
      });
      expect(keys[1]).not.toBe(keys[0]!);
    } finally {
      local.close();
    }
  });
});

test('a payment intent (the key recorded with the intent, in one transaction): after 24 hours the key makes a new intent', async () => {
  const local = await makeTestApp();
  try {
    const u = await registerUser(local);
    const { secretKey } = await createMerchant(local, u.cookie);
    const create = (amount: number) =>
      merchantCall(local, secretKey, '/payment_intents', { method: 'POST', headers: { 'idempotency-key': 'intent-key' }, body: { amount, currency: 'usd' } });
    const first = await create(1000);
    expect(first.status).toBe(200);
    local.clock.advance(IDEMPOTENCY_TTL_MS);
    const replay = await create(1000);
    expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    local.clock.advance(1);
    const second = await create(2000);
    expect(second.status).toBe(200);
    expect(second.headers.get(REPLAY_HEADER)).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect((await create(2000)).body.id).toBe(second.body.id);
  } finally {
    local.close();
  }
});
