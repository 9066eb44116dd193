import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { call, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { merchantWorld, testBcardCard, type TestMerchant } from '../../../test-support/world';
import { resetRateWindows } from '../merchants/usage';
import type { ErrorCode } from '../../errors';

/*
 * POST /api/v1/payment_intents/:id (Stripe's update): amount, currency, description, metadata and capture_method
 * before a payment starts; Stripe's metadata merge; the same limits as create; refused (with the status) once a
 * payment started; safe against a concurrent confirm and a concurrent update; Idempotency-Key; no event.
 */

let ctx: TestContext;
let merchant: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const w = await merchantWorld(ctx);
  merchant = w.sandbox;
  other = w.live;
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const create = async (body: Record<string, unknown> = {}) => {
  const res = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', ...body } });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as { id: string; [k: string]: unknown };
};
const update = (id: string, body: unknown, headers: Record<string, string> = {}, m: TestMerchant = merchant) =>
  merchantCall(ctx, m.secretKey, `/payment_intents/${id}`, { method: 'POST', body, headers });
const confirmWithTestCard = async (id: string, amount: number) => {
  const { card } = await testBcardCard(ctx, merchant.secretKey, amount);
  return merchantCall(ctx, merchant.secretKey, `/payment_intents/${id}/confirm`, { method: 'POST', body: { payment_method_data: { type: 'card', card } } });
};
const eventCount = async (id: string) => Number((await q("SELECT count(*) AS n FROM events WHERE json_extract(data, '$.id') = ?", [id]))[0]!.n);

function expectError(res: CallResult, status: number, code: string, param?: string) {
  expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({ status, code, param });
}

describe('what an update changes', () => {
  test('amount, description, capture_method and metadata; the answer is the updated intent; no event', async () => {
    const pi = await create({ description: 'Order 42', metadata: { order: '42', coupon: 'SPRING' } });
    const events = await eventCount(pi.id);
    const res = await update(pi.id, { amount: 6000, description: 'Order 42 (2 items)', capture_method: 'manual', metadata: { gift: 'yes' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: pi.id,
      amount: 6000,
      description: 'Order 42 (2 items)',
      capture_method: 'manual',
      metadata: { order: '42', coupon: 'SPRING', gift: 'yes' },
      status: 'requires_payment_method',
      currency: 'usd',
    });
    expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body).toEqual(res.body);
    expect(await eventCount(pi.id)).toBe(events);
  });

  const metadataRows: Array<{ name: string; before: Record<string, string>; patch: unknown; after: Record<string, string> }> = [
    { name: 'keys are merged', before: { a: '1' }, patch: { b: '2' }, after: { a: '1', b: '2' } },
    { name: 'a key is overwritten', before: { a: '1' }, patch: { a: '9' }, after: { a: '9' } },
    { name: 'a key set to "" is removed', before: { a: '1', b: '2' }, patch: { b: '', c: '3' }, after: { a: '1', c: '3' } },
    { name: 'removing a key that is not there is no error', before: { a: '1' }, patch: { zz: '' }, after: { a: '1' } },
    { name: 'metadata "" removes every key', before: { a: '1', b: '2' }, patch: '', after: {} },
    { name: 'metadata null removes every key', before: { a: '1' }, patch: null, after: {} },
    { name: 'an empty object changes nothing', before: { a: '1' }, patch: {}, after: { a: '1' } },
  ];
  for (const row of metadataRows) {
    test(`metadata: ${row.name}`, async () => {
      const pi = await create({ metadata: row.before });
      const res = await update(pi.id, { metadata: row.patch });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual(row.after);
    });
  }

  test('description "" or null removes it; leaving a field out keeps it; an empty body changes nothing', async () => {
    const pi = await create({ description: 'Order 1', metadata: { a: '1' } });
    expect((await update(pi.id, {})).body).toMatchObject({ description: 'Order 1', amount: 2500, metadata: { a: '1' } });
    expect((await update(pi.id, { description: '' })).body.description).toBeNull();
    await update(pi.id, { description: 'Order 2' });
    expect((await update(pi.id, { description: null })).body.description).toBeNull();
    expect((await update(pi.id, { amount: 700 })).body).toMatchObject({ amount: 700, metadata: { a: '1' }, capture_method: 'automatic' });
  });
});

describe('the limits of create hold', () => {
  const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  const rows: Array<{ name: string; body: unknown; param: string; code?: ErrorCode }> = [
    { name: 'amount 49', body: { amount: 49 }, param: 'amount' },
    { name: 'amount 100000000', body: { amount: 100_000_000 }, param: 'amount' },
    { name: 'amount 1.5', body: { amount: 1.5 }, param: 'amount' },
    { name: "amount '100'", body: { amount: '100' }, param: 'amount' },
    { name: 'currency eur', body: { currency: 'eur' }, param: 'currency' },
    { name: 'description of 1001 characters', body: { description: 'd'.repeat(1001) }, param: 'description' },
    { name: 'metadata with 51 keys', body: { metadata: fiftyOne }, param: 'metadata' },
    { name: 'a metadata key of 41 characters', body: { metadata: { ['k'.repeat(41)]: 'v' } }, param: `metadata[${'k'.repeat(41)}]` },
    { name: 'a metadata value of 501 characters', body: { metadata: { note: 'v'.repeat(501) } }, param: 'metadata' },
    { name: 'a metadata value a number', body: { metadata: { n: 3 } }, param: 'metadata' },
    { name: "capture_method 'later'", body: { capture_method: 'later' }, param: 'capture_method' },
    { name: 'a field update does not take', body: { status: 'succeeded' }, param: 'status', code: 'parameter_unknown' },
  ];
  for (const row of rows) {
    test(`${row.name} -> 400 ${row.code ?? 'validation_error'} (${row.param}); the intent is unchanged`, async () => {
      const pi = await create({ metadata: { keep: 'me' } });
      const res = await update(pi.id, row.body);
      expectError(res, 400, row.code ?? 'validation_error', row.param);
      expect(res.body.error.message).not.toContain('Expected');
      expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body).toEqual(pi);
    });
  }

  test('a merge that would leave more than 50 keys -> 400 naming metadata and the count; 50 exactly is fine', async () => {
    const forty = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a${i}`, 'v']));
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`b${i}`, 'v']));
    const pi = await create({ metadata: forty });
    expect(Object.keys((await update(pi.id, { metadata: ten })).body.metadata)).toHaveLength(50);
    const res = await update(pi.id, { metadata: { one: 'more' } });
    expectError(res, 400, 'validation_error', 'metadata');
    expect(res.body.error.message).toBe('metadata can have at most 50 keys; this update would leave it with 51.');
    // Removing one in the same update makes room.
    expect(Object.keys((await update(pi.id, { metadata: { one: 'more', a0: '' } })).body.metadata)).toHaveLength(50);
  });
});

describe('only before a payment starts', () => {
  test('succeeded, canceled, requires_capture -> 400 payment_intent_unexpected_state saying which status; nothing changes', async () => {
    const paid = await create();
    expect((await confirmWithTestCard(paid.id, 2500)).body.status).toBe('succeeded');
    const canceled = await create();
    await merchantCall(ctx, merchant.secretKey, `/payment_intents/${canceled.id}/cancel`, { method: 'POST', body: {} });
    const held = await create({ capture_method: 'manual' });
    expect((await confirmWithTestCard(held.id, 2500)).body.status).toBe('requires_capture');
    const cases: Array<[string, string, RegExp]> = [
      [paid.id, 'succeeded', /^This PaymentIntent has already succeeded; it can no longer be updated\.$/],
      [canceled.id, 'canceled', /^This PaymentIntent has been canceled; it can no longer be updated\.$/],
      [held.id, 'requires_capture', /status is requires_capture; it can be updated only before a payment starts/],
    ];
    for (const [id, status, says] of cases) {
      const before = (await merchantCall(ctx, merchant.secretKey, `/payment_intents/${id}`)).body;
      const res = await update(id, { amount: 9999, metadata: { late: 'yes' } });
      expectError(res, 400, 'payment_intent_unexpected_state');
      expect(res.body.error.message).toMatch(says);
      expect(res.body.error.payment_intent).toEqual({ id, status });
      expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${id}`)).body).toEqual(before);
    }
    await merchantCall(ctx, merchant.secretKey, `/payment_intents/${held.id}/cancel`, { method: 'POST', body: {} });
  });

  test("an unknown id, or another merchant's intent -> 404 naming the id (param intent)", async () => {
    const res = await update('pi_nope', { amount: 100 });
    expectError(res, 404, 'resource_missing', 'intent');
    expect(res.body.error.message).toBe("No such payment_intent: 'pi_nope'.");
    const theirs = await merchantCall(ctx, other.secretKey, '/payment_intents', { method: 'POST', body: { amount: 100, currency: 'usd' } });
    expectError(await update(theirs.body.id, { amount: 200 }), 404, 'resource_missing', 'intent');
  });

  test('an update racing a confirm: either it lands before the payment (which then takes the new amount) or it is refused', async () => {
    for (let i = 0; i < 8; i++) {
      resetRateWindows();
      const pi = await create({ amount: 1000 });
      const { card } = await testBcardCard(ctx, merchant.secretKey, 5000);
      const [u, c] = await Promise.all([
        update(pi.id, { amount: 3000 }),
        merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}/confirm`, { method: 'POST', body: { payment_method_data: { type: 'card', card } } }),
      ]);
      expect(c.status).toBe(200);
      const after = (await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body;
      expect(after.status).toBe('succeeded');
      // What was paid is always the intent's amount: never the old amount under a new one.
      expect(after.amount_received).toBe(after.amount);
      if (u.status === 200) expect(after.amount).toBe(3000);
      else {
        expectError(u, 400, 'payment_intent_unexpected_state');
        expect(after.amount).toBe(1000);
      }
    }
  });

  test('20 metadata updates at once each keep the others\' keys', async () => {
    const pi = await create({ metadata: { base: '0' } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => update(pi.id, { metadata: { [`k${i}`]: String(i) } })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const after = (await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body;
    expect(Object.keys(after.metadata).sort()).toEqual(['base', ...Array.from({ length: 20 }, (_, i) => `k${i}`)].sort());
  });
});

describe('an update that loses to a payment holding the intent for a moment', () => {
  /**
   * Runs updateIntent with a checkout's claim landing right before its UPDATE and released (collection failed) right
   * after it, before the update reads why nothing changed: the window a claim-and-release can fall into.
   */
  async function updateAcrossClaim(id: string, input: Record<string, unknown>) {
    const { updateIntent } = await import('./update');
    const { schema, firstRow } = await import('@bpay/db');
    const { eq } = await import('drizzle-orm');
    const merchantRow = (await firstRow(ctx.deps.db, schema.merchants, eq(schema.merchants.id, merchant.id)))!;
    const client = ctx.handle.client as unknown as { execute: (...a: unknown[]) => Promise<unknown> };
    const original = client.execute.bind(client);
    let claimed = false;
    client.execute = async (...a: unknown[]) => {
      const stmt = a[0] as { sql?: string } | string;
      const sql = typeof stmt === 'string' ? stmt : (stmt.sql ?? '');
      if (!claimed && /^update "payment_intents" set /i.test(sql)) {
        claimed = true;
        await original({ sql: "UPDATE payment_intents SET status = 'processing' WHERE id = ?", args: [id] });
        const out = await original(...a);
        await original({ sql: "UPDATE payment_intents SET status = 'requires_payment_method' WHERE id = ?", args: [id] });
        return out;
      }
      return original(...a);
    };
    try {
      await updateIntent(ctx.deps.db, ctx.deps, merchantRow, false, id, input);
    } catch (e) {
      return e as { code?: string; message?: string; param?: string; details?: Record<string, unknown> };
    } finally {
      client.execute = original;
      expect(claimed).toBe(true);
    }
    throw new Error('the update was expected to lose to the claim');
  }

  const rows: Array<[string, Record<string, unknown>]> = [
    ['description only', { description: 'Order 42' }],
    ['amount only', { amount: 4000 }],
    ['a few metadata keys', { metadata: { order: '42' } }],
    ['metadata cleared', { metadata: '' }],
  ];
  for (const [name, input] of rows) {
    test(`${name}: payment_intent_unexpected_state with the status now, never a metadata error; nothing changed`, async () => {
      const pi = await create({ description: 'before', metadata: { keep: 'me' } });
      const e = await updateAcrossClaim(pi.id, input);
      expect({ code: e.code, param: e.param }).toEqual({ code: 'payment_intent_unexpected_state', param: undefined });
      expect(e.message).toBe(
        'A payment was in progress on this PaymentIntent when the update ran, so nothing was changed. Its status is now requires_payment_method: send the update again.',
      );
      expect(e.details).toEqual({ payment_intent: { id: pi.id, status: 'requires_payment_method' } });
      expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body).toMatchObject({
        description: 'before',
        metadata: { keep: 'me' },
        amount: 2500,
      });
    });
  }

  test('metadata that really would pass 50 keys is still blamed, by name and count', async () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`a${i}`, 'v']));
    const pi = await create({ metadata: fifty });
    const e = await updateAcrossClaim(pi.id, { metadata: { one: 'more' } });
    expect({ code: e.code, param: e.param }).toEqual({ code: 'validation_error', param: 'metadata' });
    expect(e.message).toBe('metadata can have at most 50 keys; this update would leave it with 51.');
  });
});

describe('what a refused update echoes of the request', () => {
  const big = 'k'.repeat(200_000);
  test('a 200 000-character unknown field: named cut to 80 characters (message and param)', async () => {
    const pi = await create();
    const res = await update(pi.id, { [big]: 1 });
    expectError(res, 400, 'parameter_unknown', `${'k'.repeat(80)}…`);
    expect(res.body.error.message).toBe(`${'k'.repeat(80)}… is not an allowed field.`);
    expect(res.text.length).toBeLessThan(1000);
  });

  test('a 200 000-character metadata key, in JSON and in a form body: named cut to 80 characters', async () => {
    const pi = await create();
    const json = await update(pi.id, { metadata: { [big]: 'x' } });
    expectError(json, 400, 'validation_error', `metadata[${'k'.repeat(80)}…]`);
    expect(json.text.length).toBeLessThan(1000);
    resetRateWindows();
    const form = await call(ctx, `/api/v1/payment_intents/${pi.id}`, {
      method: 'POST',
      origin: null,
      rawBody: `metadata[${big}]=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${merchant.secretKey}` },
    });
    expectError(form, 400, 'validation_error', `metadata[${'k'.repeat(80)}…]`);
    expect(form.text.length).toBeLessThan(1000);
  });

  test('a malformed form key of 200 000 characters: named cut to 80 characters', async () => {
    const pi = await create();
    const res = await call(ctx, `/api/v1/payment_intents/${pi.id}`, {
      method: 'POST',
      origin: null,
      rawBody: `metadata[${big}=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${merchant.secretKey}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(`metadata[${'k'.repeat(71)}…`);
    expect(res.text.length).toBeLessThan(1000);
  });
});

describe('Idempotency-Key', () => {
  test('a retry replays the first answer (a later change is not undone); another body under the key -> idempotency_error', async () => {
    const pi = await create();
    const key = `upd-${crypto.randomUUID()}`;
    const first = await update(pi.id, { amount: 4000 }, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect((await update(pi.id, { amount: 4500 })).body.amount).toBe(4500);
    const replay = await update(pi.id, { amount: 4000 }, { 'idempotency-key': key });
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body.amount).toBe(4500);
    const misuse = await update(pi.id, { amount: 4100 }, { 'idempotency-key': key });
    expect({ status: misuse.status, type: misuse.body.error.type }).toEqual({ status: 400, type: 'idempotency_error' });
  });
});
