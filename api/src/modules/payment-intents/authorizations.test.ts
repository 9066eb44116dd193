import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { CATALOGUE } from '../../errors';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { bcardCard, login, testBcardCard, type TestCardDetails, type TestMerchant, merchantWorld } from '../../../test-support/world';
import { moneyReport, moneyViolations, ledgerBalance } from '../../../test-support/money-invariants';
import { resetRateWindows } from '../merchants/usage';
import { AUTHORIZATION_TTL_MS } from './sweep';

/*
 * A bcard authorized for a manual-capture intent belongs to that payment until the merchant captures or cancels it:
 * the consumer's own cancel is refused (409 bcard_authorized), since refunding it would leave the intent waiting in
 * requires_capture for a capture that could never happen. An authorization nobody captures does not last forever
 * either: after 7 days (Stripe's rule) the money sweep cancels the intent (cancellation_reason `automatic`) and
 * refunds the bcard, exactly as a merchant's cancel would.
 */

let ctx: TestContext;
let consumer: { cookie: string; id: string; email: string; password: string };
let sourceId: string;
/** A consumer's bcard pays production intents; sandbox intents take sandbox test bcards. */
let live: TestMerchant;
let sandbox: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  ({ consumer, sourceId, live, sandbox } = await merchantWorld(ctx));
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const ledger = (account: string) => ledgerBalance(ctx, account);
const bcardRow = async (id: string) => (await q('SELECT status, spent_cents FROM bcards WHERE id = ?', [id]))[0]!;
const events = async (piId: string) =>
  (await q("SELECT type, json_extract(data, '$.cancellation_reason') AS reason FROM events WHERE json_extract(data, '$.id') = ? ORDER BY seq", [piId])).map(
    (r) => [String(r.type), r.reason === null ? null : String(r.reason)],
  );
const withCard = (card: TestCardDetails) => ({ payment_method_data: { type: 'card', card } });
const v1 = (m: TestMerchant, path: string, body?: unknown) =>
  merchantCall(ctx, m.secretKey, path, body === undefined ? {} : { method: 'POST', body });
const consumerCancel = (bcardId: string) => call(ctx, `/api/virtual-cards/${bcardId}/cancel`, { method: 'POST', cookie: consumer.cookie });

/** A manual-capture intent of $25.00 authorized with a fresh consumer bcard (production) or test bcard (sandbox). */
async function authorized(m: TestMerchant): Promise<{ piId: string; bcardId: string }> {
  const pi = await v1(m, '/payment_intents', { amount: 2500, currency: 'usd', capture_method: 'manual' });
  expect(pi.status).toBe(200);
  const bcard = m === live ? await bcardCard(ctx, consumer.cookie, sourceId, '25.00') : await testBcardCard(ctx, m.secretKey, 2500);
  const res = await v1(m, `/payment_intents/${pi.body.id}/confirm`, withCard(bcard.card));
  expect(res.body).toMatchObject({ status: 'requires_capture', amount_capturable: 2500 });
  return { piId: pi.body.id, bcardId: bcard.id };
}

describe("the consumer's cancel of an authorized bcard", () => {
  test('409 bcard_authorized; the intent stays capturable and the merchant captures it', async () => {
    const { piId, bcardId } = await authorized(live);
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    const res = await consumerCancel(bcardId);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'bcard_authorized', message: CATALOGUE.bcard_authorized.message });
    expect(res.body.error.message).toContain("authorized for a merchant's payment");
    expect(res.body.error.message).toContain("Only the merchant's capture or cancel of that payment can release it");
    // Nothing moved: the card is still authorized, the source not refunded, the intent still waiting for its capture.
    expect(await bcardRow(bcardId)).toMatchObject({ status: 'authorized', spent_cents: 0 });
    expect(await ledger(`funding_source:${sourceId}`)).toBe(sourceBefore);
    expect(await q("SELECT count(*) AS n FROM collections WHERE status = 'refunding'")).toEqual([expect.objectContaining({ n: 0 })]);
    expect((await v1(live, `/payment_intents/${piId}`)).body).toMatchObject({ status: 'requires_capture', amount_capturable: 2500 });

    const captured = await v1(live, `/payment_intents/${piId}/capture`, {});
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({ status: 'succeeded', amount_received: 2500 });
    expect(await bcardRow(bcardId)).toMatchObject({ status: 'used', spent_cents: 2500 });
    // Now spent: the consumer's cancel says the card is no longer active.
    const late = await consumerCancel(bcardId);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('bcard_not_active');
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test("only the merchant's cancel releases it: then the bcard is refunded in full and the consumer's cancel is not needed", async () => {
    const { piId, bcardId } = await authorized(live);
    expect((await consumerCancel(bcardId)).status).toBe(409);
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    const canceled = await v1(live, `/payment_intents/${piId}/cancel`, { cancellation_reason: 'abandoned' });
    expect(canceled.body).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect(await bcardRow(bcardId)).toMatchObject({ status: 'canceled', spent_cents: 0 });
    // The whole $25.00 and the fee went back to the source.
    expect((await ledger(`funding_source:${sourceId}`)) - sourceBefore).toBeGreaterThan(2500);
    expect((await consumerCancel(bcardId)).body.error.code).toBe('bcard_not_active');
  });

  test('an unused bcard the consumer cancels before a merchant authorizes it cannot be authorized afterwards', async () => {
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    expect((await consumerCancel(bcard.id)).status).toBe(200);
    const pi = await v1(live, '/payment_intents', { amount: 2500, currency: 'usd', capture_method: 'manual' });
    const res = await v1(live, `/payment_intents/${pi.body.id}/confirm`, withCard(bcard.card));
    expect(res.status).toBe(402);
    expect(res.body.error.decline_code).toBe('card_not_active');
  });

  test('racing a merchant authorization: either the cancel or the authorization wins, never both', async () => {
    for (let i = 0; i < 10; i++) {
      resetRateWindows();
      const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
      const pi = await v1(live, '/payment_intents', { amount: 2500, currency: 'usd', capture_method: 'manual' });
      const [cancel, confirm] = await Promise.all([consumerCancel(bcard.id), v1(live, `/payment_intents/${pi.body.id}/confirm`, withCard(bcard.card))]);
      const intent = (await v1(live, `/payment_intents/${pi.body.id}`)).body;
      const card = await bcardRow(bcard.id);
      if (cancel.status === 200) {
        expect(confirm.status).toBe(402);
        expect({ intent: intent.status, card: card.status }).toEqual({ intent: 'requires_payment_method', card: 'canceled' });
      } else {
        expect(cancel.body.error.code).toBe('bcard_authorized');
        expect(confirm.body.status).toBe('requires_capture');
        expect({ intent: intent.status, card: card.status }).toEqual({ intent: 'requires_capture', card: 'authorized' });
        expect((await v1(live, `/payment_intents/${pi.body.id}/cancel`, {})).body.status).toBe('canceled');
      }
    }
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });
});

describe('an authorization left uncaptured for 7 days', () => {
  test('AUTHORIZATION_TTL_MS is 7 days', () => {
    expect(AUTHORIZATION_TTL_MS).toBe(7 * 24 * 3600_000);
  });

  test('the sweep cancels the intent (automatic), refunds the bcard to its source and emits payment_intent.canceled', async () => {
    const sourceStart = await ledger(`funding_source:${sourceId}`);
    const { piId, bcardId } = await authorized(live);
    const sourceAuthorized = await ledger(`funding_source:${sourceId}`);
    expect(sourceAuthorized).toBeLessThan(sourceStart);

    // A minute short of 7 days: still the merchant's to capture.
    ctx.clock.advance(AUTHORIZATION_TTL_MS - 60_000);
    expect((await sweepMoney(ctx.deps)).canceled).toBe(0);
    expect((await v1(live, `/payment_intents/${piId}`)).body.status).toBe('requires_capture');
    expect(await bcardRow(bcardId)).toMatchObject({ status: 'authorized' });

    ctx.clock.advance(60_000);
    expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 1, bankDebits: 0 });
    const after = (await v1(live, `/payment_intents/${piId}`)).body;
    expect(after).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'automatic',
      canceled_at: Math.floor(ctx.clock.now().getTime() / 1000),
      amount_capturable: 0,
      amount_received: 0,
    });
    expect(await bcardRow(bcardId)).toMatchObject({ status: 'canceled', spent_cents: 0 });
    // Everything collected (the amount and the fee) is back on the source, and the merchant got nothing.
    expect(await ledger(`funding_source:${sourceId}`)).toBe(sourceStart);
    expect(await ledger(`bcard:${bcardId}`)).toBe(0);
    expect(await events(piId)).toEqual([
      ['payment_intent.created', null],
      ['payment_intent.amount_capturable_updated', null],
      ['payment_intent.canceled', 'automatic'],
    ]);
    // Final: nothing to capture, and a later sweep does nothing more.
    expect((await v1(live, `/payment_intents/${piId}/capture`, {})).body.error.code).toBe('payment_intent_unexpected_state');
    expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.unsettledCollections).toBe(0);
  });

  test("a sandbox authorization's test bcard goes back to sandbox:test_funds", async () => {
    const funds = await ledger('sandbox:test_funds');
    const { piId, bcardId } = await authorized(sandbox);
    expect(await ledger('sandbox:test_funds')).toBe(funds - 2500);
    ctx.clock.advance(AUTHORIZATION_TTL_MS);
    expect((await sweepMoney(ctx.deps)).canceled).toBe(1);
    expect((await v1(sandbox, `/payment_intents/${piId}`)).body).toMatchObject({ status: 'canceled', cancellation_reason: 'automatic' });
    expect(await bcardRow(bcardId)).toMatchObject({ status: 'canceled' });
    expect(await ledger('sandbox:test_funds')).toBe(funds);
  });

  test('the 7 days count from the authorization, not from when the intent was created; captured intents are left alone', async () => {
    // The clock has moved on by weeks: the consumer signs in again.
    consumer.cookie = (await login(ctx, consumer.email, consumer.password)).cookie!;
    const pi = await v1(live, '/payment_intents', { amount: 2500, currency: 'usd', capture_method: 'manual' });
    ctx.clock.advance(6 * 24 * 3600_000);
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    expect((await v1(live, `/payment_intents/${pi.body.id}/confirm`, withCard(bcard.card))).body.status).toBe('requires_capture');
    const captured = await authorized(live);
    expect((await v1(live, `/payment_intents/${captured.piId}/capture`, {})).body.status).toBe('succeeded');
    ctx.clock.advance(3 * 24 * 3600_000);
    expect((await sweepMoney(ctx.deps)).canceled).toBe(0);
    expect((await v1(live, `/payment_intents/${pi.body.id}`)).body.status).toBe('requires_capture');
    ctx.clock.advance(4 * 24 * 3600_000);
    expect((await sweepMoney(ctx.deps)).canceled).toBe(1);
    expect((await v1(live, `/payment_intents/${pi.body.id}`)).body.status).toBe('canceled');
    expect((await v1(live, `/payment_intents/${captured.piId}`)).body.status).toBe('succeeded');
  });
});
