import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { REPLAY_HEADER } from '../../plugins/idempotency';
import { makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import {
  addCard,
  bcardCard,
  createMerchant,
  makePremium,
  registerUser,
  testBcardCard,
  type TestCardDetails,
  type TestMerchant,
} from '../../../test-support/world';
import { resetRateWindows } from '../merchants/usage';

/*
 * Merchants are walled off from each other and each mode from the other: merchant B can never read or act on
 * merchant A's intents, a sandbox key never sees production objects (nor the reverse), and Idempotency-Key
 * answers are kept per merchant. A replay returns the stored answer marked as a replay; the same key with
 * another body is an idempotency_error naming the field that differs.
 */

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

let ctx: TestContext;
let consumer: { cookie: string; id: string };
let sourceId: string;
/** Two sandbox merchants of different owners, and a production merchant of A's owner. */
let a: TestMerchant;
let b: TestMerchant;
let live: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const ownerA = await registerUser(ctx);
  const ownerB = await registerUser(ctx);
  const c = await registerUser(ctx);
  consumer = { cookie: c.cookie, id: c.user.id };
  await makePremium(ctx, consumer.id);
  sourceId = (await addCard(ctx, consumer.cookie)).id;
  a = await createMerchant(ctx, ownerA.cookie, 'sandbox');
  b = await createMerchant(ctx, ownerB.cookie, 'sandbox');
  live = await createMerchant(ctx, ownerA.cookie, 'production');
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const bcardRow = async (id: string) => (await q('SELECT status, spent_cents FROM bcards WHERE id = ?', [id]))[0]!;
const create = async (m: TestMerchant, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', ...body }, headers });
const made = async (m: TestMerchant, body: Record<string, unknown> = {}) => {
  const res = await create(m, body);
  expect(res.status).toBe(200);
  return res.body as { id: string; status: string; livemode: boolean };
};
const withCard = (card: TestCardDetails) => ({ payment_method_data: { type: 'card', card } });
const act = (m: TestMerchant, id: string, action: 'confirm' | 'capture' | 'cancel', body: unknown = {}, headers?: Record<string, string>) =>
  merchantCall(ctx, m.secretKey, `/payment_intents/${id}/${action}`, { method: 'POST', body, headers });
const get = (m: TestMerchant, id: string) => merchantCall(ctx, m.secretKey, `/payment_intents/${id}`);
const listIds = async (m: TestMerchant) => (await merchantCall(ctx, m.secretKey, '/payment_intents?limit=100')).body.data.map((p: { id: string }) => p.id);

describe('merchant B and merchant A', () => {
  test("B cannot retrieve, confirm, capture or cancel A's intents (404), and they stay as they were", async () => {
    const open = await made(a);
    const manual = await made(a, { capture_method: 'manual' });
    const bcard = await testBcardCard(ctx, a.secretKey, 2500);
    expect((await act(a, manual.id, 'confirm', withCard(bcard.card))).body.status).toBe('requires_capture');

    for (const pi of [open, manual]) {
      expectError(await get(b, pi.id), 404, 'resource_missing');
      expectError(await act(b, pi.id, 'confirm', withCard(bcard.card)), 404, 'resource_missing');
      expectError(await act(b, pi.id, 'confirm', { payment_method: bcard.id }), 404, 'resource_missing');
      expectError(await act(b, pi.id, 'capture'), 404, 'resource_missing');
      expectError(await act(b, pi.id, 'capture', { amount_to_capture: 100 }), 404, 'resource_missing');
      expectError(await act(b, pi.id, 'cancel', { cancellation_reason: 'fraudulent' }), 404, 'resource_missing');
      // The 404 says nothing about the intent: it names the id B sent, exactly as for an id that never existed.
      const theirs = (await get(b, pi.id)).body.error;
      const none = (await get(b, 'pi_000000000000000000000000')).body.error;
      expect({ ...theirs, request_id: undefined, message: theirs.message.replace(pi.id, '<id>') }).toEqual({
        ...none,
        request_id: undefined,
        message: none.message.replace('pi_000000000000000000000000', '<id>'),
      });
      expect(theirs.message).toBe(`No such payment_intent: '${pi.id}'.`);
    }
    expect((await get(a, open.id)).body).toMatchObject({ status: 'requires_payment_method', canceled_at: null });
    expect((await get(a, manual.id)).body).toMatchObject({ status: 'requires_capture', amount_capturable: 2500, amount_received: 0 });
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'authorized', spent_cents: 0 });
    const ledger = await q("SELECT count(*) AS n FROM ledger_postings WHERE account = ?", [`merchant:${b.id}`]);
    expect(Number(ledger[0]!.n)).toBe(0);
    // A can still finish its own.
    expect((await act(a, manual.id, 'capture')).body.status).toBe('succeeded');
  });

  test('each lists only its own intents, and a cursor from the other is refused', async () => {
    const fromA = await made(a);
    const fromB = await made(b);
    const idsA = await listIds(a);
    const idsB = await listIds(b);
    expect(idsA).toContain(fromA.id);
    expect(idsA).not.toContain(fromB.id);
    expect(idsB).toContain(fromB.id);
    expect(idsB).not.toContain(fromA.id);
    const own = (await q('SELECT id FROM payment_intents WHERE merchant_id = ? ORDER BY seq DESC', [b.id])).map((r) => String(r.id));
    expect(idsB).toEqual(own);
    expectError(await merchantCall(ctx, b.secretKey, `/payment_intents?starting_after=${fromA.id}`), 400, 'validation_error', 'starting_after');
    expectError(await merchantCall(ctx, b.secretKey, `/payment_intents?ending_before=${fromA.id}`), 400, 'validation_error', 'ending_before');
  });

  test("B reusing A's Idempotency-Key gets its own intent, not A's stored answer", async () => {
    const key = 'order-1001';
    const first = await create(a, { description: 'A order' }, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.headers.get(REPLAY_HEADER)).toBeNull();
    // Same key, same body, other merchant: a new intent for B.
    const theirs = await create(b, { description: 'A order' }, { 'idempotency-key': key });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get(REPLAY_HEADER)).toBeNull();
    expect(theirs.body.id).not.toBe(first.body.id);
    expect(await listIds(b)).toContain(theirs.body.id);
    // Different body, other merchant: no idempotency_error (the key means nothing across merchants).
    const other = await create(b, { amount: 9999 }, { 'idempotency-key': 'order-1002' });
    const aSame = await create(a, { amount: 5000 }, { 'idempotency-key': 'order-1002' });
    expect([other.status, aSame.status]).toEqual([200, 200]);
    expect(aSame.body.amount).toBe(5000);
    // Each replays its own.
    const replayA = await create(a, { description: 'A order' }, { 'idempotency-key': key });
    const replayB = await create(b, { description: 'A order' }, { 'idempotency-key': key });
    expect(replayA.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replayB.headers.get(REPLAY_HEADER)).toBe('true');
    expect(replayA.body).toEqual(first.body);
    expect(replayB.body).toEqual(theirs.body);
  });
});

describe('sandbox and production', () => {
  test('a sandbox key never sees production objects, nor a production key sandbox ones', async () => {
    const prod = await made(live);
    expect(prod.livemode).toBe(true);
    const sand = await made(a);
    expect(sand.livemode).toBe(false);
    expect(live.secretKey).toMatch(/^sk_live_/);

    expectError(await get(a, prod.id), 404, 'resource_missing');
    expectError(await act(a, prod.id, 'cancel'), 404, 'resource_missing');
    expectError(await act(a, prod.id, 'capture'), 404, 'resource_missing');
    expectError(await get(live, sand.id), 404, 'resource_missing');
    expectError(await act(live, sand.id, 'cancel'), 404, 'resource_missing');
    expect(await listIds(a)).not.toContain(prod.id);
    expect(await listIds(live)).toEqual([prod.id]);
    expectError(await merchantCall(ctx, a.secretKey, `/payment_intents?starting_after=${prod.id}`), 400, 'validation_error', 'starting_after');
    expectError(await merchantCall(ctx, live.secretKey, `/payment_intents?ending_before=${sand.id}`), 400, 'validation_error', 'ending_before');

    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    expectError(await act(a, prod.id, 'confirm', withCard(bcard.card)), 404, 'resource_missing');
    expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    expect((await get(live, prod.id)).body.status).toBe('requires_payment_method');
    expect((await get(a, sand.id)).body.status).toBe('requires_payment_method');
    // Production objects are live mode through and through: the event too.
    const [event] = await q("SELECT livemode FROM events WHERE json_extract(data, '$.id') = ?", [prod.id]);
    expect(Number(event!.livemode)).toBe(1);
  });

  // Stripe declines a live card in test mode (test_mode_live_card) and a test card in live mode (live_mode_test_card).
  test("a sandbox intent declines a consumer's bcard (test_mode_live_card) like any decline; the bcard is not touched", async () => {
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    const consumerMoney = () =>
      q('SELECT account, sum(amount_cents) AS s, count(*) AS n FROM ledger_postings WHERE account IN (?, ?) GROUP BY account ORDER BY account', [
        `bcard:${bcard.id}`,
        `funding_source:${sourceId}`,
      ]);
    const moneyBefore = await consumerMoney();
    for (const [i, pm] of [withCard(bcard.card), { payment_method: bcard.id }].entries()) {
      const pi = await made(a);
      // By id the bcard must be locked to this merchant (the checkout widget's bcards were): lock it, then try.
      if (i === 1) await q('UPDATE bcards SET locked_merchant_id = ? WHERE id = ?', [a.id, bcard.id]);
      const res = await act(a, pi.id, 'confirm', pm);
      expectError(res, 402, 'card_declined', 'payment_method');
      expect(res.body.error.decline_code).toBe('test_mode_live_card');
      expect(res.body.error.message).toContain('sandbox payment intent takes only sandbox test bcards');
      expect(res.body.error.message).toContain('POST /api/v1/test_helpers/bcards');
      expect(res.body.error.payment_intent).toEqual({ id: pi.id, status: 'requires_payment_method' });
      expect((await get(a, pi.id)).body).toMatchObject({
        status: 'requires_payment_method',
        payment_method: null,
        amount_received: 0,
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'test_mode_live_card' },
      });
      const failed = await q("SELECT count(*) AS n FROM events WHERE type = 'payment_intent.failed' AND json_extract(data, '$.id') = ?", [pi.id]);
      expect(Number(failed[0]!.n)).toBe(1);
      // The consumer's money did not move and the bcard can still be used (or canceled) as before.
      expect(await bcardRow(bcard.id)).toMatchObject({ status: 'active', spent_cents: 0 });
      expect(await consumerMoney()).toEqual(moneyBefore);
      // A sandbox test bcard pays the same intent.
      const test = await testBcardCard(ctx, a.secretKey, 2500);
      expect((await act(a, pi.id, 'confirm', { payment_method: test.id })).body.status).toBe('succeeded');
    }
  });

  test('a production intent declines a sandbox test bcard (live_mode_test_card); the test bcard is not touched', async () => {
    const test = await testBcardCard(ctx, a.secretKey, 2500);
    const pi = await made(live);
    const res = await act(live, pi.id, 'confirm', withCard(test.card));
    expectError(res, 402, 'card_declined', 'payment_method');
    expect(res.body.error.decline_code).toBe('live_mode_test_card');
    expect((await get(live, pi.id)).body).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', decline_code: 'live_mode_test_card' },
    });
    expect(await bcardRow(test.id)).toMatchObject({ status: 'active', spent_cents: 0 });
    const ledger = await q('SELECT count(*) AS n FROM ledger_postings WHERE account = ?', [`merchant:${live.id}`]);
    expect(Number(ledger[0]!.n)).toBe(0);
  });

  test("a key's mode must match its merchant: the sk_live_ twin of a sandbox key is refused", async () => {
    const twin = a.secretKey.replace(/^sk_test_/, 'sk_live_');
    expectError(await merchantCall(ctx, twin, '/payment_intents'), 401, 'invalid_api_key');
    const liveTwin = live.secretKey.replace(/^sk_live_/, 'sk_test_');
    expectError(await merchantCall(ctx, liveTwin, '/payment_intents'), 401, 'invalid_api_key');
  });
});

describe('Idempotency-Key', () => {
  test('a replay returns the stored body with idempotent-replayed: true and makes nothing new', async () => {
    const headers = { 'idempotency-key': 'create-abc' };
    const first = await create(a, { amount: 4200, metadata: { order: '7' } }, headers);
    expect(first.status).toBe(200);
    const before = await q('SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', [a.id]);
    const again = await create(a, { amount: 4200, metadata: { order: '7' } }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await q('SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', [a.id])).toEqual(before);
  });

  test('twenty creates with one key at once: one intent, twenty identical answers, the key and the intent in one commit', async () => {
    const headers = { 'idempotency-key': 'create-burst' };
    const before = await q('SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', [a.id]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(a, { amount: 3100 }, headers)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
    expect(answers.filter((r) => r.headers.get(REPLAY_HEADER) === 'true')).toHaveLength(19);
    const after = await q('SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', [a.id]);
    expect(Number(after[0]!.n)).toBe(Number(before[0]!.n) + 1);
    // Written with its answer at once: never seen in progress.
    expect((await q("SELECT status FROM idempotency_keys WHERE key = 'create-burst'")).map((r) => r.status)).toEqual(['done']);
  });

  test('a refused create (4xx) is remembered with the key and leaves nothing else', async () => {
    const headers = { 'idempotency-key': 'create-bad-metadata' };
    const body = { amount: 3100, metadata: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'v'])) };
    const before = await q('SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', [a.id]);
    const first = await create(a, body, headers);
    expect(first.status).toBe(400);
    const again = await create(a, body, headers);
    expect(again.status).toBe(400);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    // The same error (each answer has its own request_id).
    const { request_id: _first, ...firstError } = first.body.error;
    const { request_id: _again, ...againError } = again.body.error;
    expect(againError).toEqual(firstError);
    expect(await q('SELECT count(*) AS n FROM payment_intents WHERE merchant_id = ?', [a.id])).toEqual(before);
  });

  test('the same key with a different body -> 400 idempotency_error naming the field', async () => {
    const headers = { 'idempotency-key': 'create-def' };
    expect((await create(a, { amount: 4200, description: 'x' }, headers)).status).toBe(200);
    const amount = await create(a, { amount: 4300, description: 'x' }, headers);
    expectError(amount, 400, 'idempotency_error', 'amount');
    expect(amount.body.error.message).toContain('amount');
    const description = await create(a, { amount: 4200, description: 'y' }, headers);
    expectError(description, 400, 'idempotency_error', 'description');
    const added = await create(a, { amount: 4200, description: 'x', capture_method: 'manual' }, headers);
    expectError(added, 400, 'idempotency_error', 'capture_method');
    // The key is for that route only.
    const pi = await made(a);
    expectError(await act(a, pi.id, 'cancel', {}, headers), 400, 'idempotency_error', 'Idempotency-Key');
    expect((await get(a, pi.id)).body.status).toBe('requires_payment_method');
  });

  test('a confirm replayed after success answers the same and spends nothing more', async () => {
    const pi = await made(a);
    const bcard = await testBcardCard(ctx, a.secretKey, 2500);
    const headers = { 'idempotency-key': 'confirm-1' };
    const first = await act(a, pi.id, 'confirm', withCard(bcard.card), headers);
    expect(first.body.status).toBe('succeeded');
    const again = await act(a, pi.id, 'confirm', withCard(bcard.card), headers);
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    expect(again.body).toEqual(first.body);
    const moves = await q("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = ?", [bcard.id]);
    expect(Number(moves[0]!.n)).toBe(1);
    // Without the key it is a new request, refused by the state machine.
    expectError(await act(a, pi.id, 'confirm', withCard(bcard.card)), 400, 'payment_intent_unexpected_state');
    // The stored answer holds no card data.
    const stored = await q('SELECT response_body, field_digests FROM idempotency_keys WHERE key = ?', ['confirm-1']);
    expect(JSON.stringify(stored)).not.toContain(bcard.card.number);
    expect(JSON.stringify(stored)).not.toContain(`"${bcard.card.cvc}"`);
  });

  test('a decline is stored too: the replay answers the same 402', async () => {
    const pi = await made(a);
    const bcard = await testBcardCard(ctx, a.secretKey, 1000);
    const headers = { 'idempotency-key': 'confirm-short' };
    const first = await act(a, pi.id, 'confirm', withCard(bcard.card), headers);
    expectError(first, 402, 'card_declined');
    expect(first.body.error.decline_code).toBe('insufficient_funds');
    const again = await act(a, pi.id, 'confirm', withCard(bcard.card), headers);
    expect(again.status).toBe(402);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    const { request_id: _, ...stored } = first.body.error;
    expect(again.body.error).toMatchObject(stored);
    const failed = await q("SELECT count(*) AS n FROM events WHERE type = 'payment_intent.failed' AND json_extract(data, '$.id') = ?", [pi.id]);
    expect(Number(failed[0]!.n)).toBe(1);
  });

  test('an Idempotency-Key of 256 characters -> 400 invalid_idempotency_key', async () => {
    const res = await create(a, {}, { 'idempotency-key': 'k'.repeat(256) });
    expectError(res, 400, 'invalid_idempotency_key', 'Idempotency-Key');
  });
});
