import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { bcardCard, createMerchant, type TestCardDetails, type TestMerchant, merchantWorld } from '../../../test-support/world';
import { moneyReport, moneyViolations, ledgerBalance } from '../../../test-support/money-invariants';
import { resetRateWindows } from '../merchants/usage';

/*
 * The merchant API under /api/v1 (Authorization: Bearer sk_…): every endpoint's validation and errors, confirm
 * with a bcard (by its card details, or by id when it was issued for this merchant), manual capture, cancel,
 * usage, and authentication. Errors are Stripe-shaped: { error: { type, code, message, param?, decline_code? } }.
 * The merchants are production ones: a consumer's bcard pays only production intents (a sandbox intent declines it
 * with test_mode_live_card; see isolation.test.ts). The clock starts on 2026-01-15 12:00 UTC and moves only when a
 * test moves it.
 */

/** toMatchObject on a copy: Bun 1.3's toMatchObject writes its asymmetric matchers into the object it checks. */
const matches = (value: unknown, shape: Record<string, unknown>) => expect(structuredClone(value)).toMatchObject(shape);

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({
    status,
    code,
    param: param ?? res.body?.error?.param,
  });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  expect(typeof res.body.error.message).toBe('string');
}

let ctx: TestContext;
let owner: { cookie: string; id: string };
let consumer: { cookie: string; id: string };
let sourceId: string;
let merchant: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  // Premium: no monthly bcard limits for the consumer (1.9 % fee); the owner's premium plan allows 100,000 calls.
  ({ owner, consumer, sourceId, live: merchant } = await merchantWorld(ctx));
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const ledger = (account: string) => ledgerBalance(ctx, account);
const bcardRow = async (id: string) => (await q('SELECT status, spent_cents, limit_cents FROM bcards WHERE id = ?', [id]))[0]!;
const eventTypes = async (piId: string) =>
  (await q("SELECT type FROM events WHERE json_extract(data, '$.id') = ? ORDER BY seq", [piId])).map((r) => String(r.type));

const create = async (body: Record<string, unknown> = {}, m: TestMerchant = merchant) => {
  const res = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', ...body } });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as Record<string, any> & { id: string };
};
const retrieve = (id: string, m: TestMerchant = merchant) => merchantCall(ctx, m.secretKey, `/payment_intents/${id}`);
const confirm = (id: string, body: unknown, m: TestMerchant = merchant) =>
  merchantCall(ctx, m.secretKey, `/payment_intents/${id}/confirm`, { method: 'POST', body });
const withCard = (card: TestCardDetails) => ({ payment_method_data: { type: 'card', card } });
const capture = (id: string, body: unknown = {}, m: TestMerchant = merchant) =>
  merchantCall(ctx, m.secretKey, `/payment_intents/${id}/capture`, { method: 'POST', body });
const cancel = (id: string, body: unknown = {}, m: TestMerchant = merchant) =>
  merchantCall(ctx, m.secretKey, `/payment_intents/${id}/cancel`, { method: 'POST', body });
const newBcard = (amount = '25.00') => bcardCard(ctx, consumer.cookie, sourceId, amount);

describe('POST /api/v1/payment_intents', () => {
  test('200: a payment intent in requires_payment_method, and payment_intent.created', async () => {
    const res = await merchantCall(ctx, merchant.secretKey, '/payment_intents', {
      method: 'POST',
      body: { amount: 2500, currency: 'USD', description: 'Order 42', metadata: { order: '42' }, capture_method: 'manual' },
    });
    expect(res.status).toBe(200);
    const id: string = res.body.id;
    expect(id).toMatch(/^pi_/);
    expect(res.body).toEqual({
      id,
      object: 'payment_intent',
      amount: 2500,
      amount_capturable: 0,
      amount_received: 0,
      amount_refunded: 0,
      currency: 'usd',
      status: 'requires_payment_method',
      capture_method: 'manual',
      client_secret: expect.stringMatching(new RegExp(`^${id}_secret_[A-Za-z0-9_-]{20,}$`)),
      created: Math.floor(ctx.clock.now().getTime() / 1000),
      description: 'Order 42',
      metadata: { order: '42' },
      livemode: true,
      payment_method: null,
      last_payment_error: null,
      canceled_at: null,
      cancellation_reason: null,
      customer: null,
      receipt_email: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      automatic_payment_methods: null,
      payment_method_types: ['bcard'],
      latest_charge: null,
    });
    expect(await eventTypes(id)).toEqual(['payment_intent.created']);
    const defaults = await create({ amount: 50 });
    matches(defaults, { amount: 50, capture_method: 'automatic', description: null, metadata: {} });
    expect((await create({ amount: 99_999_999 })).amount).toBe(99_999_999);
  });

  const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(500)]));
  const longKey = 'k'.repeat(41);
  const rows: Array<{ name: string; body?: Record<string, unknown>; raw?: { body: string; type: string }; expectStatus?: number; expectCode?: ErrorCode; expectParam?: string }> = [
    { name: 'amount 49', body: { amount: 49 }, expectParam: 'amount' },
    { name: 'amount 0', body: { amount: 0 }, expectParam: 'amount' },
    { name: 'amount -100', body: { amount: -100 }, expectParam: 'amount' },
    { name: 'amount 100000000', body: { amount: 100_000_000 }, expectParam: 'amount' },
    { name: 'amount 1.5', body: { amount: 1.5 }, expectParam: 'amount' },
    { name: "amount '100' (a string)", body: { amount: '100' }, expectParam: 'amount' },
    { name: "amount '10.00' (dollars)", body: { amount: '10.00' }, expectParam: 'amount' },
    { name: 'amount missing', body: { amount: undefined }, expectCode: 'parameter_missing', expectParam: 'amount' },
    { name: 'amount null', body: { amount: null }, expectParam: 'amount' },
    { name: 'currency eur', body: { currency: 'eur' }, expectParam: 'currency' },
    { name: 'currency missing', body: { currency: undefined }, expectCode: 'parameter_missing', expectParam: 'currency' },
    { name: 'metadata with 51 keys', body: { metadata: fiftyOne }, expectParam: 'metadata' },
    { name: 'metadata key of 41 characters', body: { metadata: { [longKey]: 'v' } }, expectParam: `metadata[${longKey}]` },
    { name: 'metadata value of 501 characters', body: { metadata: { note: 'v'.repeat(501) } }, expectParam: 'metadata.note' },
    { name: 'metadata value a number', body: { metadata: { count: 3 } }, expectParam: 'metadata.count' },
    { name: 'metadata value an object', body: { metadata: { nested: { a: 'b' } } }, expectParam: 'metadata.nested' },
    { name: 'metadata an array', body: { metadata: ['a'] }, expectParam: 'metadata' },
    { name: "capture_method 'delayed'", body: { capture_method: 'delayed' }, expectParam: 'capture_method' },
    { name: 'description of 1001 characters', body: { description: 'd'.repeat(1001) }, expectParam: 'description' },
    { name: 'unknown field', body: { invoice: 'in_1' }, expectCode: 'parameter_unknown', expectParam: 'invoice' },
    { name: 'body is not JSON', raw: { body: '{"amount":', type: 'application/json' }, expectCode: 'invalid_json' },
    // Form bodies (Stripe's encoding) are taken since issue 15: stripe-compat.test.ts. Their bad values fail as JSON's do.
    { name: 'form-encoded body with amount below 50', raw: { body: 'amount=10&currency=usd', type: 'application/x-www-form-urlencoded' }, expectParam: 'amount' },
    { name: 'form-encoded body with a malformed key', raw: { body: 'amount=2500&currency=usd&metadata[a=1', type: 'application/x-www-form-urlencoded' }, expectParam: 'metadata[a' },
    { name: 'text/plain body', raw: { body: '{"amount":2500,"currency":"usd"}', type: 'text/plain' }, expectStatus: 415, expectCode: 'unsupported_media_type' },
  ];
  for (const row of rows) {
    test(`${row.name} -> ${row.expectStatus ?? 400} ${row.expectCode ?? 'validation_error'}${row.expectParam ? ` (${row.expectParam})` : ''}`, async () => {
      const before = await q('SELECT count(*) AS n FROM payment_intents');
      const res = row.raw
        ? await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', rawBody: row.raw.body, headers: { 'content-type': row.raw.type } })
        : await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', ...row.body } });
      expectError(res, row.expectStatus ?? 400, row.expectCode ?? 'validation_error', row.expectParam);
      expect(await q('SELECT count(*) AS n FROM payment_intents')).toEqual(before);
    });
  }

  test('the limits themselves are allowed: 50 metadata keys of 40 characters with 500-character values', async () => {
    const keys40 = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${i}`.padStart(40, 'k'), 'v'.repeat(500)]));
    expect((await create({ metadata: keys40 })).metadata).toEqual(keys40);
    expect(Object.keys((await create({ metadata: fifty })).metadata)).toHaveLength(50);
  });
});

describe('GET /api/v1/payment_intents', () => {
  let pager: TestMerchant;
  const made: string[] = [];
  beforeAll(async () => {
    pager = await createMerchant(ctx, owner.cookie, 'production');
    for (let i = 0; i < 25; i++) made.push((await create({ amount: 100 + i }, pager)).id);
    resetRateWindows();
  });
  const list = (query: string, m: TestMerchant = pager) => merchantCall(ctx, m.secretKey, `/payment_intents${query}`);
  const ids = (r: CallResult) => r.body.data.map((p: { id: string }) => p.id);
  const newestFirst = () => [...made].reverse();

  test('newest first, 10 by default', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    matches(res.body, { object: 'list', url: '/api/v1/payment_intents', has_more: true });
    expect(ids(res)).toEqual(newestFirst().slice(0, 10));
    expect(ids(await list('?limit=100'))).toEqual(newestFirst());
    expect((await list('?limit=100')).body.has_more).toBe(false);
    expect((await list('?limit=25')).body.has_more).toBe(false);
    expect((await list('?limit=24')).body.has_more).toBe(true);
  });

  test('starting_after pages forwards through 25 intents 10 at a time; ending_before pages back', async () => {
    const all = newestFirst();
    const p1 = await list('?limit=10');
    expect({ ids: ids(p1), more: p1.body.has_more }).toEqual({ ids: all.slice(0, 10), more: true });
    const p2 = await list(`?limit=10&starting_after=${all[9]}`);
    expect({ ids: ids(p2), more: p2.body.has_more }).toEqual({ ids: all.slice(10, 20), more: true });
    const p3 = await list(`?limit=10&starting_after=${all[19]}`);
    expect({ ids: ids(p3), more: p3.body.has_more }).toEqual({ ids: all.slice(20, 25), more: false });
    const past = await list(`?limit=10&starting_after=${all[24]}`);
    expect({ ids: ids(past), more: past.body.has_more }).toEqual({ ids: [], more: false });

    // Backwards from the last page: has_more says whether newer ones remain.
    const b2 = await list(`?limit=10&ending_before=${all[20]}`);
    expect({ ids: ids(b2), more: b2.body.has_more }).toEqual({ ids: all.slice(10, 20), more: true });
    const b1 = await list(`?limit=10&ending_before=${all[10]}`);
    expect({ ids: ids(b1), more: b1.body.has_more }).toEqual({ ids: all.slice(0, 10), more: false });
    const b0 = await list(`?limit=10&ending_before=${all[0]}`);
    expect({ ids: ids(b0), more: b0.body.has_more }).toEqual({ ids: [], more: false });
    const near = await list(`?limit=3&ending_before=${all[4]}`);
    expect({ ids: ids(near), more: near.body.has_more }).toEqual({ ids: all.slice(1, 4), more: true });
  });

  const rows: Array<{ name: string; query: () => string; expectParam: string }> = [
    { name: 'limit 0', query: () => '?limit=0', expectParam: 'limit' },
    { name: 'limit 101', query: () => '?limit=101', expectParam: 'limit' },
    { name: 'limit -1', query: () => '?limit=-1', expectParam: 'limit' },
    { name: 'limit 1.5', query: () => '?limit=1.5', expectParam: 'limit' },
    { name: "limit 'ten'", query: () => '?limit=ten', expectParam: 'limit' },
    { name: 'starting_after of no intent', query: () => '?starting_after=pi_nope', expectParam: 'starting_after' },
    { name: 'ending_before of no intent', query: () => '?ending_before=pi_nope', expectParam: 'ending_before' },
    { name: 'starting_after and ending_before', query: () => `?starting_after=${made[3]}&ending_before=${made[5]}`, expectParam: 'ending_before' },
    { name: "starting_after: another merchant's intent", query: () => `?starting_after=${othersIntent}`, expectParam: 'starting_after' },
    { name: "ending_before: another merchant's intent", query: () => `?ending_before=${othersIntent}`, expectParam: 'ending_before' },
  ];
  let othersIntent = '';
  beforeAll(async () => {
    othersIntent = (await create({}, merchant)).id;
  });
  for (const row of rows) {
    test(`${row.name} -> 400 validation_error (${row.expectParam})`, async () => {
      expectError(await list(row.query()), 400, 'validation_error', row.expectParam);
    });
  }

  test('lists only its own intents', async () => {
    const mine = await list('?limit=100');
    expect(ids(mine)).not.toContain(othersIntent);
    expect(ids(mine)).toHaveLength(25);
    expect(ids(await list('?limit=100', merchant))).not.toContain(made[0]);
  });
});

describe('GET /api/v1/payment_intents/:id', () => {
  test('200 with the same object; an unknown id -> 404', async () => {
    const made = await create({ description: 'read me' });
    const res = await retrieve(made.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(made);
    expectError(await retrieve('pi_000000000000000000000000'), 404, 'resource_missing');
    expectError(await retrieve('x'.repeat(65)), 400, 'validation_error', 'id');
  });
});

describe('POST /api/v1/payment_intents/:id/confirm', () => {
  test('with the card details of a bcard: 200 succeeded, the bcard is spent and the ledger pays the merchant', async () => {
    const pi = await create({ amount: 2500, description: 'Two books' });
    const bcard = await newBcard('25.00');
    const before = await ledger(`merchant:${merchant.id}`);
    const res = await confirm(pi.id, withCard(bcard.card));
    expect(res.status).toBe(200);
    matches(res.body, { id: pi.id, status: 'succeeded', amount_received: 2500, amount_capturable: 0, payment_method: bcard.id, last_payment_error: null });
    expect(res.text).not.toContain(bcard.card.number);
    expect(res.text).not.toContain(`"${bcard.card.cvc}"`);
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 2500 });
    expect((await ledger(`merchant:${merchant.id}`)) - before).toBe(2500);
    expect(await ledger(`bcard:${bcard.id}`)).toBe(0);
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    expect((await retrieve(pi.id)).body.status).toBe('succeeded');
    // The merchant's dashboard volume counts it.
    const merchants = await call(ctx, '/api/merchants', { cookie: owner.cookie });
    expect(merchants.body.find((m: { id: string }) => m.id === merchant.id).totalVolume).toBe(((before + 2500) / 100).toFixed(2));
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('a bcard holding more than the amount pays it and the remainder goes back to the source', async () => {
    const pi = await create({ amount: 1500 });
    const bcard = await newBcard('25.00');
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    expect((await confirm(pi.id, withCard(bcard.card))).body.status).toBe('succeeded');
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 1500 });
    // $10.00 left, and its part of the $0.48 fee (1.9 % of $25.00): floor(48 × 1000 / 2500) = 19.
    expect((await ledger(`funding_source:${sourceId}`)) - sourceBefore).toBe(1000 + 19);
    expect(await ledger(`bcard:${bcard.id}`)).toBe(0);
  });

  test('no payment method -> 400 (payment_method), the intent is left as it was', async () => {
    const pi = await create();
    expectError(await confirm(pi.id, {}), 400, 'validation_error', 'payment_method');
    const after = (await retrieve(pi.id)).body;
    matches(after, { status: 'requires_payment_method', last_payment_error: null });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created']);
  });

  const shapeRows: Array<{ name: string; body: (c: TestCardDetails) => unknown; expectParam: string; expectCode?: ErrorCode }> = [
    { name: 'cvc of letters', body: (c) => withCard({ ...c, cvc: 'abc' }), expectParam: 'payment_method_data.card.cvc' },
    { name: 'number of 8 digits', body: (c) => withCard({ ...c, number: '42424242' }), expectParam: 'payment_method_data.card.number' },
    { name: 'exp_month 13', body: (c) => withCard({ ...c, exp_month: 13 }), expectParam: 'payment_method_data.card.exp_month' },
    { name: 'card without cvc', body: (c) => ({ payment_method_data: { type: 'card', card: { number: c.number, exp_month: c.exp_month, exp_year: c.exp_year } } }), expectCode: 'parameter_missing', expectParam: 'payment_method_data.card.cvc' },
    { name: "type 'bank'", body: (c) => ({ payment_method_data: { type: 'bank', card: c } }), expectParam: 'payment_method_data.type' },
    { name: 'unknown field', body: (c) => ({ ...withCard(c), customer: 'cus_1' }), expectCode: 'parameter_unknown', expectParam: 'customer' },
  ];
  for (const row of shapeRows) {
    test(`${row.name} -> 400 ${row.expectCode ?? 'validation_error'} (${row.expectParam})`, async () => {
      const pi = await create();
      const card: TestCardDetails = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };
      const res = await confirm(pi.id, row.body(card));
      expectError(res, 400, row.expectCode ?? 'validation_error', row.expectParam);
      expect(res.text).not.toContain('4242424242424242');
      expect((await retrieve(pi.id)).body.status).toBe('requires_payment_method');
    });
  }

  const declines: Array<{ name: string; card: (c: TestCardDetails) => TestCardDetails }> = [
    { name: 'a wrong cvc', card: (c) => ({ ...c, cvc: c.cvc === '999' ? '998' : '999' }) },
    { name: 'a wrong number', card: (c) => ({ ...c, number: c.number.slice(0, -1) + ((Number(c.number.slice(-1)) + 1) % 10) }) },
    { name: 'a wrong expiry month', card: (c) => ({ ...c, exp_month: (c.exp_month % 12) + 1 }) },
    { name: 'a wrong expiry year', card: (c) => ({ ...c, exp_year: c.exp_year + 1 }) },
  ];
  for (const d of declines) {
    test(`${d.name} -> 402 card_error (incorrect_number); the intent returns to requires_payment_method with last_payment_error`, async () => {
      const pi = await create();
      const bcard = await newBcard('25.00');
      const res = await confirm(pi.id, withCard(d.card(bcard.card)));
      expectError(res, 402, 'card_declined', 'payment_method');
      expect(res.body.error).toMatchObject({ type: 'card_error', decline_code: 'incorrect_number', payment_intent: { id: pi.id, status: 'requires_payment_method' } });
      expect(res.text).not.toContain(bcard.card.number);
      const after = (await retrieve(pi.id)).body;
      expect(after.status).toBe('requires_payment_method');
      expect(after.last_payment_error).toEqual({ type: 'card_error', code: 'card_declined', decline_code: 'incorrect_number', message: expect.any(String) });
      // Under bpay's name and Stripe's (events/emit.ts EVENT_TWINS).
      expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.failed', 'payment_intent.payment_failed']);
      // Nothing was spent; with the right details the same bcard pays, and last_payment_error clears.
      expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
      const ok = await confirm(pi.id, withCard(bcard.card));
      expect(ok.status).toBe(200);
      matches(ok.body, { status: 'succeeded', last_payment_error: null, payment_method: bcard.id });
    });
  }

  test('a used bcard -> 402 card_declined (card_not_active), nothing moves', async () => {
    const bcard = await newBcard('25.00');
    const first = await create();
    expect((await confirm(first.id, withCard(bcard.card))).body.status).toBe('succeeded');
    const before = await ledger(`merchant:${merchant.id}`);
    const second = await create();
    const res = await confirm(second.id, withCard(bcard.card));
    expectError(res, 402, 'card_declined');
    expect(res.body.error.decline_code).toBe('card_not_active');
    expect(await ledger(`merchant:${merchant.id}`)).toBe(before);
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 2500 });
    matches((await retrieve(second.id)).body, { status: 'requires_payment_method', last_payment_error: { decline_code: 'card_not_active' } });
  });

  test('a bcard holding less than the amount -> 402 with decline_code insufficient_funds', async () => {
    const pi = await create({ amount: 2500 });
    const bcard = await newBcard('10.00');
    const res = await confirm(pi.id, withCard(bcard.card));
    expectError(res, 402, 'card_declined');
    expect(res.body.error.decline_code).toBe('insufficient_funds');
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    matches((await retrieve(pi.id)).body, { status: 'requires_payment_method', last_payment_error: { decline_code: 'insufficient_funds' } });
  });

  test('a bcard locked to another merchant -> 402 merchant_not_allowed (by card details), 400 (by id)', async () => {
    const elsewhere = await createMerchant(ctx, owner.cookie, 'production');
    const bcard = await newBcard('25.00');
    await q('UPDATE bcards SET locked_merchant_id = ? WHERE id = ?', [elsewhere.id, bcard.id]);
    const pi = await create();
    const res = await confirm(pi.id, withCard(bcard.card));
    expectError(res, 402, 'card_declined');
    expect(res.body.error.decline_code).toBe('merchant_not_allowed');
    expectError(await confirm(pi.id, { payment_method: bcard.id }), 400, 'validation_error', 'payment_method');
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    // The merchant it is locked to can charge it.
    const theirs = await create({}, elsewhere);
    expect((await confirm(theirs.id, withCard(bcard.card), elsewhere)).body.status).toBe('succeeded');
  });

  test('by bcard id: only a bcard locked to this merchant (400 otherwise, the intent left as it was)', async () => {
    const bcard = await newBcard('25.00');
    const pi = await create();
    const res = await confirm(pi.id, { payment_method: bcard.id });
    expectError(res, 400, 'validation_error', 'payment_method');
    matches((await retrieve(pi.id)).body, { status: 'requires_payment_method', last_payment_error: null });
    expectError(await confirm(pi.id, { payment_method: 'bc_000000000000000000000000' }), 400, 'validation_error', 'payment_method');
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created']);

    await q('UPDATE bcards SET locked_merchant_id = ? WHERE id = ?', [merchant.id, bcard.id]);
    const ok = await confirm(pi.id, { payment_method: bcard.id });
    expect(ok.status).toBe(200);
    matches(ok.body, { status: 'succeeded', payment_method: bcard.id, amount_received: 2500 });
  });

  test('confirming a succeeded intent -> 400 payment_intent_unexpected_state; the second bcard is not touched', async () => {
    const pi = await create();
    expect((await confirm(pi.id, withCard((await newBcard()).card))).body.status).toBe('succeeded');
    const second = await newBcard();
    const again = await confirm(pi.id, withCard(second.card));
    expectError(again, 400, 'payment_intent_unexpected_state');
    // Said in words, with the intent's id and status in the error (as Stripe's error carries its payment_intent).
    expect(again.body.error.message).toBe('This PaymentIntent has already succeeded; it cannot be confirmed again.');
    expect(again.body.error.payment_intent).toEqual({ id: pi.id, status: 'succeeded' });
    expect(await bcardRow(second.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    expect((await retrieve(pi.id)).body.status).toBe('succeeded');
    const missing = await confirm('pi_000000000000000000000000', withCard(second.card));
    expectError(missing, 404, 'resource_missing', 'intent');
    expect(missing.body.error.message).toBe("No such payment_intent: 'pi_000000000000000000000000'.");
  });

  test('confirming a canceled or an authorized intent says why in words, with its status', async () => {
    const canceled = await create();
    expect((await cancel(canceled.id)).status).toBe(200);
    const bcard = await newBcard();
    const c = await confirm(canceled.id, withCard(bcard.card));
    expectError(c, 400, 'payment_intent_unexpected_state');
    expect(c.body.error.message).toStartWith('This PaymentIntent has been canceled; it cannot be confirmed.');
    expect(c.body.error.payment_intent).toEqual({ id: canceled.id, status: 'canceled' });

    const held = await create({ capture_method: 'manual' });
    expect((await confirm(held.id, withCard(bcard.card))).body.status).toBe('requires_capture');
    const h = await confirm(held.id, withCard((await newBcard()).card));
    expectError(h, 400, 'payment_intent_unexpected_state');
    expect(h.body.error.message).toStartWith('This PaymentIntent is already confirmed and its amount authorized (status requires_capture)');
    expect(h.body.error.payment_intent).toEqual({ id: held.id, status: 'requires_capture' });
    // Released again, so the money checks of later tests see no authorization left open.
    expect((await cancel(held.id)).body.status).toBe('canceled');
  });

  test('an expired bcard (31 minutes later) -> 402 expired_card', async () => {
    const bcard = await newBcard();
    const pi = await create();
    ctx.clock.advance(31 * 60_000);
    const res = await confirm(pi.id, withCard(bcard.card));
    expectError(res, 402, 'expired_card');
    expect(res.body.error.decline_code).toBe('expired_card');
    expect((await retrieve(pi.id)).body.last_payment_error).toMatchObject({ code: 'expired_card', decline_code: 'expired_card' });
    expect(await bcardRow(bcard.id)).toMatchObject({ spent_cents: 0 });
  });
});

describe('capture_method manual', () => {
  test('confirm authorizes (requires_capture, amount_capturable); capture moves the amount to merchant:<id>', async () => {
    const pi = await create({ amount: 2500, capture_method: 'manual' });
    const bcard = await newBcard('25.00');
    const before = await ledger(`merchant:${merchant.id}`);
    const res = await confirm(pi.id, withCard(bcard.card));
    expect(res.status).toBe(200);
    matches(res.body, { status: 'requires_capture', amount_capturable: 2500, amount_received: 0, payment_method: bcard.id });
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'authorized', spent_cents: 0 });
    expect(await ledger(`merchant:${merchant.id}`)).toBe(before);
    // An authorized bcard is spoken for: it cannot pay anything else.
    const other = await create();
    expectError(await confirm(other.id, withCard(bcard.card)), 402, 'card_declined');

    const captured = await capture(pi.id);
    expect(captured.status).toBe(200);
    matches(captured.body, { status: 'succeeded', amount_received: 2500, amount_capturable: 0 });
    expect((await ledger(`merchant:${merchant.id}`)) - before).toBe(2500);
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'used', spent_cents: 2500 });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.amount_capturable_updated', 'payment_intent.succeeded']);
    expectError(await capture(pi.id), 400, 'payment_intent_unexpected_state');
  });

  test('a partial capture: the merchant gets what was captured, the remainder goes back to the source', async () => {
    const pi = await create({ amount: 2500, capture_method: 'manual' });
    const bcard = await newBcard('25.00');
    expect((await confirm(pi.id, withCard(bcard.card))).body.status).toBe('requires_capture');
    const merchantBefore = await ledger(`merchant:${merchant.id}`);
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    const res = await capture(pi.id, { amount_to_capture: 1500 });
    expect(res.status).toBe(200);
    matches(res.body, { status: 'succeeded', amount_received: 1500, amount_capturable: 0 });
    expect((await ledger(`merchant:${merchant.id}`)) - merchantBefore).toBe(1500);
    // $10.00 left, and its part of the $0.48 fee (1.9 % of $25.00): floor(48 × 1000 / 2500) = 19.
    expect((await ledger(`funding_source:${sourceId}`)) - sourceBefore).toBe(1000 + 19);
    expect(await ledger(`bcard:${bcard.id}`)).toBe(0);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('capture errors: more than authorized, 0, a string, not authorized, unknown', async () => {
    const pi = await create({ amount: 2500, capture_method: 'manual' });
    expectError(await capture(pi.id), 400, 'payment_intent_unexpected_state');
    const bcard = await newBcard('25.00');
    expect((await confirm(pi.id, withCard(bcard.card))).body.status).toBe('requires_capture');
    expectError(await capture(pi.id, { amount_to_capture: 2501 }), 400, 'validation_error', 'amount_to_capture');
    expectError(await capture(pi.id, { amount_to_capture: 0 }), 400, 'validation_error', 'amount_to_capture');
    expectError(await capture(pi.id, { amount_to_capture: '1000' }), 400, 'validation_error', 'amount_to_capture');
    expectError(await capture(pi.id, { amount: 1000 }), 400, 'parameter_unknown', 'amount');
    expect((await retrieve(pi.id)).body).toMatchObject({ status: 'requires_capture', amount_capturable: 2500 });
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'authorized', spent_cents: 0 });
    expect((await cancel(pi.id)).body.status).toBe('canceled');
    // An automatic intent that succeeded has nothing to capture.
    const auto = await create();
    expect((await confirm(auto.id, withCard((await newBcard()).card))).body.status).toBe('succeeded');
    expectError(await capture(auto.id), 400, 'payment_intent_unexpected_state');
    expectError(await capture('pi_000000000000000000000000'), 404, 'resource_missing');
  });
});

describe('POST /api/v1/payment_intents/:id/cancel', () => {
  test('from requires_payment_method: canceled with its reason and payment_intent.canceled; then nothing more', async () => {
    const pi = await create();
    const res = await cancel(pi.id, { cancellation_reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    matches(res.body, {
      status: 'canceled',
      cancellation_reason: 'requested_by_customer',
      canceled_at: Math.floor(ctx.clock.now().getTime() / 1000),
    });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.canceled']);
    expectError(await cancel(pi.id), 400, 'payment_intent_unexpected_state');
    const bcard = await newBcard();
    expectError(await confirm(pi.id, withCard(bcard.card)), 400, 'payment_intent_unexpected_state');
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    // Without a body or a reason.
    const plain = await create();
    const res2 = await merchantCall(ctx, merchant.secretKey, `/payment_intents/${plain.id}/cancel`, { method: 'POST' });
    expect(res2.status).toBe(200);
    matches(res2.body, { status: 'canceled', cancellation_reason: null });
  });

  test('from requires_capture: the authorized bcard is refunded to its source in full', async () => {
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    const merchantBefore = await ledger(`merchant:${merchant.id}`);
    const pi = await create({ amount: 2500, capture_method: 'manual' });
    const bcard = await newBcard('25.00');
    expect((await ledger(`funding_source:${sourceId}`)) - sourceBefore).toBeLessThan(-2500); // the amount and the fee
    expect((await confirm(pi.id, withCard(bcard.card))).body.status).toBe('requires_capture');
    const res = await cancel(pi.id, { cancellation_reason: 'abandoned' });
    expect(res.status).toBe(200);
    matches(res.body, { status: 'canceled', cancellation_reason: 'abandoned', amount_capturable: 0, amount_received: 0 });
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'canceled', spent_cents: 0 });
    expect(await ledger(`funding_source:${sourceId}`)).toBe(sourceBefore);
    expect(await ledger(`merchant:${merchant.id}`)).toBe(merchantBefore);
    expect(await ledger(`bcard:${bcard.id}`)).toBe(0);
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.amount_capturable_updated', 'payment_intent.canceled']);
    expectError(await capture(pi.id), 400, 'payment_intent_unexpected_state');
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('a succeeded intent cannot be canceled; a reason outside the enum -> 400', async () => {
    const pi = await create();
    expect((await confirm(pi.id, withCard((await newBcard()).card))).body.status).toBe('succeeded');
    expectError(await cancel(pi.id), 400, 'payment_intent_unexpected_state');
    matches((await retrieve(pi.id)).body, { status: 'succeeded', canceled_at: null });

    const open = await create();
    expectError(await cancel(open.id, { cancellation_reason: 'bored' }), 400, 'validation_error', 'cancellation_reason');
    expectError(await cancel(open.id, { reason: 'duplicate' }), 400, 'parameter_unknown', 'reason');
    expect((await retrieve(open.id)).body.status).toBe('requires_payment_method');
    expectError(await cancel('pi_000000000000000000000000'), 404, 'resource_missing');
  });
});

describe('GET /api/v1/merchant/usage', () => {
  test('counts every authenticated request, today and this month', async () => {
    const m = await createMerchant(ctx, owner.cookie, 'production');
    await create({}, m);
    await merchantCall(ctx, m.secretKey, '/payment_intents');
    await merchantCall(ctx, m.secretKey, '/payment_intents/pi_nope');
    const first = await merchantCall(ctx, m.secretKey, '/merchant/usage');
    expect(first.status).toBe(200);
    // The read itself is the fourth request.
    expect(first.body).toEqual({ object: 'usage', totalRequests: 4, totalRequestsToday: 4, totalRequestsThisMonth: 4 });
    // Earlier this month counts for the month; last month and other merchants do not.
    await q('INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)', [
      m.id, '2026-01-02', 7,
      m.id, '2025-12-31', 100,
      merchant.id, '2026-01-03', 50,
    ]);
    const second = await merchantCall(ctx, m.secretKey, '/merchant/usage');
    expect(second.body).toEqual({ object: 'usage', totalRequests: 5, totalRequestsToday: 5, totalRequestsThisMonth: 12 });
    // Requests without a valid key count for no one.
    await merchantCall(ctx, 'sk_test_' + 'x'.repeat(32), '/merchant/usage');
    expect((await merchantCall(ctx, m.secretKey, '/merchant/usage')).body.totalRequestsToday).toBe(6);
  });
});

describe('authentication', () => {
  let pi: { id: string };
  let inactive: TestMerchant;
  beforeAll(async () => {
    pi = await create();
    inactive = await createMerchant(ctx, owner.cookie, 'production');
    const off = await call(ctx, `/api/merchants/${inactive.id}`, { method: 'PATCH', cookie: owner.cookie, body: { isActive: false } });
    expect(off.status).toBe(200);
  });

  const endpoints: Array<{ name: string; method: string; path: () => string; body?: unknown }> = [
    { name: 'POST /payment_intents', method: 'POST', path: () => '/payment_intents', body: { amount: 2500, currency: 'usd' } },
    { name: 'GET /payment_intents', method: 'GET', path: () => '/payment_intents' },
    { name: 'GET /payment_intents/:id', method: 'GET', path: () => `/payment_intents/${pi.id}` },
    { name: 'POST …/confirm', method: 'POST', path: () => `/payment_intents/${pi.id}/confirm`, body: { payment_method: 'bc_000000000000000000000000' } },
    { name: 'POST …/capture', method: 'POST', path: () => `/payment_intents/${pi.id}/capture`, body: {} },
    { name: 'POST …/cancel', method: 'POST', path: () => `/payment_intents/${pi.id}/cancel`, body: {} },
    { name: 'GET /merchant/usage', method: 'GET', path: () => '/merchant/usage' },
  ];
  const credentials: Array<{ name: string; headers: () => Record<string, string>; cookie?: () => string }> = [
    { name: 'no Authorization header', headers: () => ({}) },
    { name: 'a wrong secret key', headers: () => ({ authorization: `Bearer sk_test_wrong${'x'.repeat(27)}` }) },
    { name: 'the test twin of the live key', headers: () => ({ authorization: `Bearer ${merchant.secretKey.replace('sk_live_', 'sk_test_')}` }) },
    { name: 'the key without Bearer', headers: () => ({ authorization: merchant.secretKey }) },
    { name: 'Basic auth with the key as the password', headers: () => ({ authorization: `Basic ${btoa(`:${merchant.secretKey}`)}` }) },
    { name: 'Basic auth that is not base64', headers: () => ({ authorization: 'Basic %%%' }) },
    { name: 'a session cookie alone', headers: () => ({}), cookie: () => owner.cookie },
  ];
  for (const ep of endpoints) {
    for (const cred of credentials) {
      test(`${ep.name} with ${cred.name} -> 401 authentication_error/invalid_api_key`, async () => {
        const res = await call(ctx, `/api/v1${ep.path()}`, {
          method: ep.method,
          body: ep.body,
          headers: cred.headers(),
          cookie: cred.cookie?.() ?? null,
          origin: null,
        });
        expectError(res, 401, 'invalid_api_key');
        expect(res.body.error.type).toBe('authentication_error');
        expect(res.text).not.toContain(merchant.secretKey);
      });
    }
    test(`${ep.name} for an inactive merchant -> 403 merchant_inactive`, async () => {
      const res = await merchantCall(ctx, inactive.secretKey, ep.path(), { method: ep.method, body: ep.body });
      expectError(res, 403, 'merchant_inactive');
      expect(res.body.error.type).toBe('invalid_request_error') // Stripe answers a key's missing permission with 403 invalid_request_error;
    });
  }

  test('after all those refusals the intent is untouched and no request counted', async () => {
    matches((await retrieve(pi.id)).body, { status: 'requires_payment_method', canceled_at: null });
    expect(await q('SELECT requests FROM merchant_usage WHERE merchant_id = ?', [inactive.id])).toEqual([]);
  });
});
