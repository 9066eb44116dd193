import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { REPLAY_HEADER } from '../../plugins/idempotency';
import { call, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser, type TestMerchant } from '../../../test-support/world';
import { moneyReport, moneyViolations, ledgerBalance } from '../../../test-support/money-invariants';
import { resetRateWindows } from '../merchants/usage';
import { sandboxMirror } from './service';

/*
 * The checkout widget's calls. GET /api/checkout/payment_intents/:id?client_secret=… is public (CORS for any
 * origin, no credentials) and shows only what a payment page needs. POST …/pay is the signed-in consumer paying
 * from bpay's own checkout page: the split is collected into a bcard locked to the merchant, and the intent is
 * confirmed with it; if anything fails, nothing stays charged and the intent can still be paid. A sandbox intent
 * charges nothing: the split is checked the same way, then a sandbox test bcard pays it (testMode: true).
 */

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

let ctx: TestContext;
let consumer: { cookie: string; id: string };
let stranger: { cookie: string; id: string };
let sources: { a: string; b: string; strangers: string };
/** A sandbox merchant (test payments) and a production one (the consumer's money). */
let merchant: TestMerchant;
let live: TestMerchant;
let ownerCookie: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  ownerCookie = owner.cookie;
  const c = await registerUser(ctx);
  const s = await registerUser(ctx);
  consumer = { cookie: c.cookie, id: c.user.id };
  stranger = { cookie: s.cookie, id: s.user.id };
  await makePremium(ctx, consumer.id);
  sources = {
    a: (await addCard(ctx, consumer.cookie, CARDS_OK[0])).id,
    b: (await addCard(ctx, consumer.cookie, CARDS_OK[1])).id,
    strangers: (await addCard(ctx, stranger.cookie, CARDS_OK[2])).id,
  };
  merchant = await createMerchant(ctx, owner.cookie, 'sandbox', { businessName: 'Corner Books', website: 'https://books.example' });
  live = await createMerchant(ctx, owner.cookie, 'production', { businessName: 'Corner Books', website: 'https://books.example' });
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const ledger = (account: string) => ledgerBalance(ctx, account);
const bcardCount = async (userId: string) => Number((await q('SELECT count(*) AS n FROM bcards WHERE user_id = ?', [userId]))[0]!.n);
const eventTypes = async (piId: string) =>
  (await q("SELECT type FROM events WHERE json_extract(data, '$.id') = ? ORDER BY seq", [piId])).map((r) => String(r.type));

const create = async (body: Record<string, unknown> = {}, m: TestMerchant = merchant) => {
  const res = await merchantCall(ctx, m.secretKey, '/payment_intents', {
    method: 'POST',
    body: { amount: 3000, currency: 'usd', description: 'A novel', metadata: { order: 'secret-order-ref' }, ...body },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string; client_secret: string; status: string };
};
const status = async (id: string, m: TestMerchant = merchant) => (await merchantCall(ctx, m.secretKey, `/payment_intents/${id}`)).body.status as string;
/** What the simulated processor says each of the consumer's cards has available, in cents. */
const available = async () =>
  (
    await q('SELECT f.id AS id, s.available_cents AS c FROM funding_sources f JOIN sim_cards s ON s.token = f.vendor_token WHERE f.user_id = ? ORDER BY f.id', [
      consumer.id,
    ])
  ).map((r) => [String(r.id), Number(r.c)]);
const collectionCount = async (userId: string) => Number((await q('SELECT count(*) AS n FROM collections WHERE user_id = ?', [userId]))[0]!.n);
const publicGet = (id: string, secret: string | null, origin: string | null = 'https://books.example') =>
  call(ctx, `/api/checkout/payment_intents/${id}${secret === null ? '' : `?client_secret=${encodeURIComponent(secret)}`}`, { origin });
const pay = (
  id: string,
  body: Record<string, unknown>,
  opts: { cookie?: string | null; origin?: string | null; headers?: Record<string, string> } = {},
) =>
  call(ctx, `/api/checkout/payment_intents/${id}/pay`, {
    method: 'POST',
    body,
    cookie: opts.cookie === undefined ? consumer.cookie : opts.cookie,
    origin: opts.origin,
    headers: opts.headers,
  });
const split = (...parts: Array<[string, number]>) => parts.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage }));

describe('GET /api/checkout/payment_intents/:id (the widget, by client secret)', () => {
  test('public fields only, readable from any origin, not cached', async () => {
    const pi = await create();
    const res = await publicGet(pi.id, pi.client_secret);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: pi.id,
      amount: 3000,
      currency: 'usd',
      status: 'requires_payment_method',
      livemode: false,
      description: 'A novel',
      merchant: { businessName: 'Corner Books', website: 'https://books.example/' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).not.toContain(pi.client_secret);
    expect(res.text).not.toContain('secret-order-ref');
    expect(res.headers.get('set-cookie')).toBeNull();
    // Without an Origin (a direct visit) too.
    expect((await publicGet(pi.id, pi.client_secret, null)).status).toBe(200);
  });

  test('a wrong or missing client secret, or an unknown intent -> 404 / 400', async () => {
    const pi = await create();
    const other = await create();
    const wrong = await publicGet(pi.id, `${pi.client_secret}x`);
    expectError(wrong, 404, 'resource_not_found');
    // The widget on the merchant's page can read the refusal too.
    expect(wrong.headers.get('access-control-allow-origin')).toBe('*');
    expectError(await publicGet(pi.id, pi.client_secret.slice(0, -1)), 404, 'resource_not_found');
    expectError(await publicGet(pi.id, other.client_secret), 404, 'resource_not_found');
    expectError(await publicGet(pi.id, ''), 404, 'resource_not_found');
    expectError(await publicGet('pi_000000000000000000000000', pi.client_secret), 404, 'resource_not_found');
    expectError(await publicGet(pi.id, null), 400, 'validation_error', 'client_secret');
    // The 404 does not tell a wrong secret from a missing intent.
    const a = await publicGet(pi.id, 'nope');
    const b = await publicGet('pi_000000000000000000000000', 'nope');
    expect(a.body.error.message).toBe(b.body.error.message);
  });
});

describe('POST /api/checkout/payment_intents/:id/pay (a production intent: the consumer pays)', () => {
  test('200: a split into a bcard locked to the merchant; the intent succeeds and its events are written', async () => {
    const merchant = live;
    const pi = await create({ amount: 3000 }, live);
    const merchantBefore = await ledger(`merchant:${merchant.id}`);
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 60], [sources.b, 40]) });
    expect(res.status).toBe(200);
    expect(res.body.paymentIntent).toEqual({ id: pi.id, status: 'succeeded', amount: 3000 });
    expect(res.body.testMode).toBe(false);
    const bcardId: string = res.body.bcard.id;
    expect(res.body.bcard).toMatchObject({ status: 'used', amount: '30.00', balance: '0.00' });
    expect(res.body.bcard.fundingSources.map((s: { fundingSourceId: string; percentage: number }) => [s.fundingSourceId, s.percentage])).toEqual([
      [sources.a, 60],
      [sources.b, 40],
    ]);

    const [card] = await q('SELECT user_id, locked_merchant_id, status, spent_cents, limit_cents FROM bcards WHERE id = ?', [bcardId]);
    expect(card).toMatchObject({ user_id: consumer.id, locked_merchant_id: merchant.id, status: 'used', spent_cents: 3000, limit_cents: 3000 });
    const v1 = (await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body;
    expect(v1).toMatchObject({ status: 'succeeded', amount_received: 3000, payment_method: bcardId });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    expect((await ledger(`merchant:${merchant.id}`)) - merchantBefore).toBe(3000);
    expect((await publicGet(pi.id, pi.client_secret)).body.status).toBe('succeeded');
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);

    // Paid is paid: a second payment is refused before anything is collected.
    const cards = await bcardCount(consumer.id);
    const again = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 100]) });
    expectError(again, 400, 'payment_intent_unexpected_state');
    expect(await bcardCount(consumer.id)).toBe(cards);
    expect((await ledger(`merchant:${merchant.id}`)) - merchantBefore).toBe(3000);
  });

  test('a repeated submission with the same Idempotency-Key answers the first outcome and pays once', async () => {
    const pi = await create({ amount: 1200 }, live);
    const headers = { 'idempotency-key': `checkout-${pi.id}` };
    const body = { client_secret: pi.client_secret, splits: split([sources.b, 100]) };
    const cards = await bcardCount(consumer.id);
    const first = await pay(pi.id, body, { headers });
    expect(first.status).toBe(200);
    const again = await pay(pi.id, body, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await bcardCount(consumer.id)).toBe(cards + 1);
  });

  test('a manual-capture intent is authorized by the payment and captured by the merchant', async () => {
    const pi = await create({ amount: 2000, capture_method: 'manual' }, live);
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 100]) });
    expect(res.status).toBe(200);
    expect(res.body.paymentIntent.status).toBe('requires_capture');
    const [card] = await q('SELECT status, locked_merchant_id FROM bcards WHERE id = ?', [res.body.bcard.id]);
    expect(card).toMatchObject({ status: 'authorized', locked_merchant_id: live.id });
    const captured = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}/capture`, { method: 'POST', body: {} });
    expect(captured.body).toMatchObject({ status: 'succeeded', amount_received: 2000 });
  });

  test('a split the sources cannot cover -> 402 insufficient_funds; nothing is charged and the intent can still be paid', async () => {
    // $20,000.00 from one card holding $10,000.00.
    const pi = await create({ amount: 2_000_000 }, live);
    const sourceBefore = await ledger(`funding_source:${sources.a}`);
    const cards = await bcardCount(consumer.id);
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 100]) });
    expectError(res, 402, 'insufficient_funds');
    expect(await status(pi.id, live)).toBe('requires_payment_method');
    expect(await ledger(`funding_source:${sources.a}`)).toBe(sourceBefore);
    expect(await bcardCount(consumer.id)).toBe(cards);
    const report = await moneyReport(ctx);
    expect(report.heldHolds).toBe(0);
    expect(moneyViolations(report)).toEqual([]);
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created']);
  });

  for (const mode of ['production', 'sandbox'] as const) {
    test(`another user's funding source -> 404, nothing is collected (${mode})`, async () => {
      const m = mode === 'production' ? live : merchant;
      const pi = await create({}, m);
      const theirs = await ledger(`funding_source:${sources.strangers}`);
      const cards = await bcardCount(consumer.id);
      const allCards = Number((await q('SELECT count(*) AS n FROM bcards'))[0]!.n);
      const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 50], [sources.strangers, 50]) });
      expectError(res, 404, 'resource_not_found');
      expect(await status(pi.id, m)).toBe('requires_payment_method');
      expect(await ledger(`funding_source:${sources.strangers}`)).toBe(theirs);
      expect(await bcardCount(consumer.id)).toBe(cards);
      // Not even a sandbox test bcard was made.
      expect(Number((await q('SELECT count(*) AS n FROM bcards'))[0]!.n)).toBe(allCards);
    });
  }

  interface Row {
    name: string;
    body?: (pi: { id: string; client_secret: string }) => Record<string, unknown>;
    opts?: { cookie?: string | null; origin?: string | null; headers?: Record<string, string> };
    raw?: string;
    expectStatus: number;
    expectCode: ErrorCode;
    expectParam?: string;
  }
  const rows: Row[] = [
    { name: 'without a cookie', opts: { cookie: null }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'from another site (the merchant page itself)', opts: { origin: 'https://books.example' }, expectStatus: 403, expectCode: 'cross_site_request' },
    { name: 'a wrong client secret', body: (pi) => ({ client_secret: `${pi.client_secret}x`, splits: split([sources.a, 100]) }), expectStatus: 404, expectCode: 'resource_not_found' },
    { name: "another intent's client secret", body: () => ({ client_secret: otherSecret, splits: split([sources.a, 100]) }), expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'splits adding up to 90 %', body: (pi) => ({ client_secret: pi.client_secret, splits: split([sources.a, 50], [sources.b, 40]) }), expectStatus: 400, expectCode: 'invalid_splits' },
    { name: 'no splits', body: (pi) => ({ client_secret: pi.client_secret, splits: [] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'splits' },
    { name: 'a percentage of 101', body: (pi) => ({ client_secret: pi.client_secret, splits: split([sources.a, 101]) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'splits.0.percentage' },
    { name: 'the same source twice', body: (pi) => ({ client_secret: pi.client_secret, splits: split([sources.a, 50], [sources.a, 50]) }), expectStatus: 400, expectCode: 'validation_error' },
    { name: 'an unknown field', body: (pi) => ({ client_secret: pi.client_secret, splits: split([sources.a, 100]), customer: 'cus_1' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'customer' },
    { name: 'an amount that is not whole cents', body: (pi) => ({ client_secret: pi.client_secret, splits: split([sources.a, 100]), amount: 12.5 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'amount' },
    { name: 'an amount other than the intent’s', body: (pi) => ({ client_secret: pi.client_secret, splits: split([sources.a, 100]), amount: 1 }), expectStatus: 409, expectCode: 'amount_changed', expectParam: 'amount' },
    { name: "a fixed amount '52.905' (refused, not rounded)", body: (pi) => ({ client_secret: pi.client_secret, splits: [{ fundingSourceId: sources.a, fixedAmount: '52.905' }] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'splits.0.fixedAmount' },
    { name: 'a fixed amount 52.905 as a number (refused, not rounded)', body: (pi) => ({ client_secret: pi.client_secret, splits: [{ fundingSourceId: sources.a, fixedAmount: 52.905 }] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'splits.0.fixedAmount' },
    { name: 'a text/plain body', raw: 'text/plain', expectStatus: 415, expectCode: 'unsupported_media_type' },
  ];
  let otherSecret = '';
  beforeAll(async () => {
    otherSecret = (await create()).client_secret;
  });
  // The split is checked the same way for a sandbox intent, though nothing is collected for it.
  for (const row of rows.flatMap((r) => (['production', 'sandbox'] as const).map((mode) => ({ ...r, mode })))) {
    test(`${row.name} -> ${row.expectStatus} ${row.expectCode}; the intent can still be paid (${row.mode})`, async () => {
      const m = row.mode === 'production' ? live : merchant;
      const pi = await create({}, m);
      const cards = await bcardCount(consumer.id);
      const allCards = Number((await q('SELECT count(*) AS n FROM bcards'))[0]!.n);
      const body = row.body ? row.body(pi) : { client_secret: pi.client_secret, splits: split([sources.a, 100]) };
      const res = row.raw
        ? await call(ctx, `/api/checkout/payment_intents/${pi.id}/pay`, {
            method: 'POST',
            rawBody: JSON.stringify(body),
            headers: { 'content-type': row.raw },
            cookie: consumer.cookie,
          })
        : await pay(pi.id, body, row.opts);
      expectError(res, row.expectStatus, row.expectCode, row.expectParam);
      expect(await status(pi.id, m)).toBe('requires_payment_method');
      expect(await bcardCount(consumer.id)).toBe(cards);
      expect(Number((await q('SELECT count(*) AS n FROM bcards'))[0]!.n)).toBe(allCards);
    });
  }

  test('5 simultaneous payments of one intent: one pays, the other bcards are refunded in full', async () => {
    const pi = await create({ amount: 1000 }, live);
    const earlier = new Set((await q('SELECT id FROM bcards WHERE user_id = ?', [consumer.id])).map((r) => String(r.id)));
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => pay(pi.id, { client_secret: pi.client_secret, splits: split([i % 2 ? sources.a : sources.b, 100]) })),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 400, 'payment_intent_unexpected_state');
    expect(await status(pi.id, live)).toBe('succeeded');
    // Each refused payment may have issued a bcard before the race was lost: none is left usable or holding money.
    const fresh = (await q('SELECT id, status, spent_cents FROM bcards WHERE user_id = ?', [consumer.id])).filter((b) => !earlier.has(String(b.id)));
    expect(fresh.length).toBeGreaterThanOrEqual(1);
    expect(fresh.filter((b) => b.status === 'used').map((b) => b.id)).toEqual([ok[0]!.body.bcard.id]);
    for (const b of fresh.filter((x) => x.id !== ok[0]!.body.bcard.id)) expect(b).toMatchObject({ status: 'canceled', spent_cents: 0 });
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.unsettledCollections).toBe(0);
  });

  test('a canceled intent cannot be paid, and nothing is collected', async () => {
    const pi = await create({}, live);
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}/cancel`, { method: 'POST', body: {} })).status).toBe(200);
    const cards = await bcardCount(consumer.id);
    expectError(await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 100]) }), 400, 'payment_intent_unexpected_state');
    expect(await bcardCount(consumer.id)).toBe(cards);
  });

  test('a production intent paid through checkout is live mode, and only the production key sees it', async () => {
    const made = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1500, currency: 'usd' } });
    const pi = made.body as { id: string; client_secret: string };
    expect((await publicGet(pi.id, pi.client_secret)).body.livemode).toBe(true);
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.b, 100]) });
    expect(res.body.paymentIntent.status).toBe('succeeded');
    const [card] = await q('SELECT locked_merchant_id FROM bcards WHERE id = ?', [res.body.bcard.id]);
    expect(card!.locked_merchant_id).toBe(live.id);
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`)).body).toMatchObject({ status: 'succeeded', livemode: true });
    expectError(await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`), 404, 'resource_missing');
  });
});

describe('POST /api/checkout/payment_intents/:id/pay (a sandbox intent: a test payment)', () => {
  test("200 testMode: a split test bcard standing for the consumer's shares pays; the consumer's cards, bcards, transactions and plan are untouched", async () => {
    const pi = await create({ amount: 3000 });
    const merchantBefore = await ledger(`merchant:${merchant.id}`);
    const testFundsBefore = await ledger('sandbox:test_funds');
    const cardsBefore = await available();
    const sourceLedger = [await ledger(`funding_source:${sources.a}`), await ledger(`funding_source:${sources.b}`)];
    const bcards = await bcardCount(consumer.id);
    const collections = await collectionCount(consumer.id);
    const transactions = (await call(ctx, '/api/transactions', { cookie: consumer.cookie })).body;

    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 60], [sources.b, 40]) });
    expect(res.status).toBe(200);
    expect(res.body.testMode).toBe(true);
    expect(res.body.paymentIntent).toEqual({ id: pi.id, status: 'succeeded', amount: 3000 });
    // The bcard that paid is a sandbox test bcard: the amount only (no fee), in the consumer's proportions (60/40),
    // each share on tok_visa (issue 28 §3: collected by the live collection code, from test sources only).
    expect(res.body.bcard).toMatchObject({ status: 'used', amount: '30.00', fee: '0.00', totalCharged: '30.00' });
    expect(res.body.bcard.fundingSources.map((s: { amount: string; last4: string; status: string }) => [s.amount, s.last4, s.status])).toEqual([
      ['18.00', '4242', 'captured'],
      ['12.00', '4242', 'captured'],
    ]);
    expect(res.body.bcard.fundingSources.map((s: { fundingSourceId: string }) => s.fundingSourceId)).not.toContain(sources.a);
    const [card] = await q('SELECT sandbox, locked_merchant_id, status, spent_cents, user_id FROM bcards WHERE id = ?', [res.body.bcard.id]);
    expect(card).toMatchObject({ sandbox: 1, locked_merchant_id: merchant.id, status: 'used', spent_cents: 3000 });
    expect(card!.user_id).not.toBe(consumer.id);
    expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}`)).body).toMatchObject({
      status: 'succeeded',
      amount_received: 3000,
      livemode: false,
      payment_method: res.body.bcard.id,
    });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    // Play money: the test sources paid the merchant (sandbox:test_funds is the one-pool test bcard's, untouched).
    expect((await ledger(`merchant:${merchant.id}`)) - merchantBefore).toBe(3000);
    expect(await ledger('sandbox:test_funds')).toBe(testFundsBefore);
    const testShares = res.body.bcard.fundingSources as { fundingSourceId: string }[];
    expect(await Promise.all(testShares.map((s) => ledger(`funding_source:${s.fundingSourceId}`)))).toEqual([-1800, -1200]);

    // Nothing of the consumer's moved or was recorded.
    expect(await available()).toEqual(cardsBefore);
    expect([await ledger(`funding_source:${sources.a}`), await ledger(`funding_source:${sources.b}`)]).toEqual(sourceLedger);
    expect(await bcardCount(consumer.id)).toBe(bcards);
    expect(await collectionCount(consumer.id)).toBe(collections);
    expect((await call(ctx, '/api/transactions', { cookie: consumer.cookie })).body).toEqual(transactions);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('a split the sources could not cover still pays a test payment (nothing is collected), once per Idempotency-Key', async () => {
    const pi = await create({ amount: 2_000_000 });
    const cardsBefore = await available();
    const headers = { 'idempotency-key': `checkout-${pi.id}` };
    const body = { client_secret: pi.client_secret, splits: split([sources.a, 100]) };
    const first = await pay(pi.id, body, { headers });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ testMode: true, paymentIntent: { status: 'succeeded', amount: 2_000_000 } });
    const again = await pay(pi.id, body, { headers });
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(Number((await q("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = ?", [first.body.bcard.id]))[0]!.n)).toBe(1);
    expect(await available()).toEqual(cardsBefore);
  });

  test('a manual-capture sandbox intent is authorized with a test bcard; canceling it returns the money to the sandbox', async () => {
    const pi = await create({ amount: 2000, capture_method: 'manual' });
    const testFundsBefore = await ledger('sandbox:test_funds');
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.b, 100]) });
    expect(res.body).toMatchObject({ testMode: true, paymentIntent: { status: 'requires_capture' } });
    const [card] = await q('SELECT status, sandbox FROM bcards WHERE id = ?', [res.body.bcard.id]);
    expect(card).toMatchObject({ status: 'authorized', sandbox: 1 });
    const canceled = await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.id}/cancel`, { method: 'POST', body: {} });
    expect(canceled.body.status).toBe('canceled');
    expect(await ledger('sandbox:test_funds')).toBe(testFundsBefore);
    expect(await ledger(`bcard:${res.body.bcard.id}`)).toBe(0);
  });

  test('if the confirmation fails, the test bcard is canceled and its money goes back to its test sources', async () => {
    const pi = await create({ amount: 1000 });
    const merchantBefore = await ledger(`merchant:${merchant.id}`);
    const results = await Promise.all(
      Array.from({ length: 3 }, () => pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 100]) })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 400, 'payment_intent_unexpected_state');
    expect((await ledger(`merchant:${merchant.id}`)) - merchantBefore).toBe(1000);
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.unsettledCollections).toBe(0);
  });
});

describe("a sandbox payment's progress (issue 28 §3: the payment demo polls it)", () => {
  const progress = (cookie: string, key: string) => call(ctx, `/api/virtual-cards/collection-progress?key=${encodeURIComponent(key)}`, { cookie });
  type Share = { fundingSourceId: string; last4: string; amount: string; status: string };

  test("the consumer who paid follows the test bcard's shares, in their split's order, under their Idempotency-Key", async () => {
    const pi = await create({ amount: 5000 });
    const key = `sandbox-progress-${crypto.randomUUID()}`;
    expect((await progress(consumer.cookie, key)).body).toEqual({ stage: 'not_started', shares: [] });
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.b, 30], [sources.a, 70]) }, { headers: { 'idempotency-key': key } });
    expect(res.status).toBe(200);
    const p = await progress(consumer.cookie, key);
    expect(p.status).toBe(200);
    expect(p.body.stage).toBe('completed');
    // One share per consumer share, in the order they chose, each the intent's amount in their proportion, on tok_visa.
    expect((p.body.shares as Share[]).map((s) => [s.amount, s.last4, s.status])).toEqual([
      ['15.00', '4242', 'captured'],
      ['35.00', '4242', 'captured'],
    ]);
    expect((p.body.shares as Share[]).map((s) => s.fundingSourceId)).toEqual(
      (res.body.bcard.fundingSources as Share[]).map((s) => s.fundingSourceId),
    );
    expect((p.body.shares as Share[]).map((s) => s.fundingSourceId)).not.toContain(sources.a);
  });

  test("only that consumer: another user, and the merchant's owner whose test bcard it is, read it as not started", async () => {
    const pi = await create({ amount: 2500 });
    const key = `sandbox-progress-owner-${crypto.randomUUID()}`;
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 50], [sources.b, 50]) }, { headers: { 'idempotency-key': key } });
    expect(res.status).toBe(200);
    expect((await progress(consumer.cookie, key)).body.stage).toBe('completed');
    for (const cookie of [stranger.cookie, ownerCookie]) {
      const other = await progress(cookie, key);
      expect(other.status).toBe(200);
      expect(other.body).toEqual({ stage: 'not_started', shares: [] });
    }
  });

  test('a refused split collects nothing: the progress stays not started', async () => {
    const pi = await create({ amount: 2500 });
    const key = `sandbox-progress-refused-${crypto.randomUUID()}`;
    const res = await pay(pi.id, { client_secret: pi.client_secret, splits: split([sources.a, 50], [sources.strangers, 50]) }, { headers: { 'idempotency-key': key } });
    expect(res.status).toBe(404);
    expect((await progress(consumer.cookie, key)).body).toEqual({ stage: 'not_started', shares: [] });
  });

  test("sandboxMirror: the intent's amount in the shares' proportions; null when a share would be under a cent", () => {
    expect(sandboxMirror(3000, [9261, 6174])).toEqual([
      { amount: 1800, source: 'tok_visa' },
      { amount: 1200, source: 'tok_visa' },
    ]);
    expect(sandboxMirror(100, [1, 99_999])).toBeNull();
    expect(sandboxMirror(100, [103])).toEqual([{ amount: 100, source: 'tok_visa' }]);
  });
});
