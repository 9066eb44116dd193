import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { REPLAY_HEADER } from '../../plugins/idempotency';
import {
  call,
  interceptVendor,
  makeTestApp,
  memoryLogger,
  merchantCall,
  type TestContext,
  type VendorMethod,
} from '../../../test-support/app';
import { bcardCard, testBcardCard, type TestCardDetails, type TestMerchant, merchantWorld } from '../../../test-support/world';
import { moneyReport, moneyViolations, ledgerBalance } from '../../../test-support/money-invariants';
import { VendorUnavailableError } from '../../vendors/types';
import { LEASE_MS } from '../bcards/saga';
import { resetRateWindows } from '../merchants/usage';

/*
 * The processor fails after a payment has committed (deactivating the spent bcard, refunding what a partial capture
 * left, refunding a canceled authorization). The payment stands: the merchant is answered 200 with the committed
 * intent (a retry under the same Idempotency-Key replays it, instead of a 500 that frees the key and a retry that
 * meets a 400), the failure is logged with ids only, and the money sweep finishes the processor's part once the
 * collection's lease runs out.
 */

const log = memoryLogger();
/** The processor calls that fail (VendorUnavailableError) while listed. */
const failing = new Set<VendorMethod>();
let ctx: TestContext;
let consumer: { cookie: string; id: string };
let sourceId: string;
let live: TestMerchant;
let sandbox: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp({
    log,
    wrapVendor: (v) =>
      interceptVendor(v, async <T,>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        if (failing.has(method)) throw new VendorUnavailableError(`the processor did not answer ${method}`);
        return run();
      }),
  });
  ({ consumer, sourceId, live, sandbox } = await merchantWorld(ctx));
});
afterAll(() => ctx.close());
beforeEach(() => {
  failing.clear();
  log.lines.length = 0;
  resetRateWindows();
});

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const ledger = (account: string) => ledgerBalance(ctx, account);
/** The bcard, its collection and the card at the simulated processor. */
async function state(bcardId: string) {
  const [r] = await q(
    `SELECT b.status AS bcard, b.spent_cents AS spent, c.status AS collection, s.status AS processor
       FROM bcards b JOIN collections c ON c.id = b.collection_id JOIN sim_issued_cards s ON s.id = b.vendor_card_id
      WHERE b.id = ?`,
    [bcardId],
  );
  return { bcard: String(r!.bcard), spent: Number(r!.spent), collection: String(r!.collection), processor: String(r!.processor) };
}
const post = (m: TestMerchant, path: string, body: unknown, headers?: Record<string, string>) =>
  merchantCall(ctx, m.secretKey, path, { method: 'POST', body, headers });
const withCard = (card: TestCardDetails) => ({ payment_method_data: { type: 'card', card } });
const intent = async (m: TestMerchant, body: Record<string, unknown> = {}) =>
  (await post(m, '/payment_intents', { amount: 2500, currency: 'usd', ...body })).body.id as string;

/** The failure was logged as a warning naming the collection and the bcard, and nothing of the card. */
function expectLoggedFor(bcardId: string, card?: TestCardDetails) {
  const lines = log.lines.filter((l) => l.level === 'warn' && l.fields.bcardId === bcardId);
  expect(lines).toHaveLength(1);
  expect(lines[0]!.fields.collectionId).toEqual(expect.stringMatching(/^col_/));
  expect(log.lines.filter((l) => l.level === 'error')).toEqual([]);
  if (card) expect(JSON.stringify(log.lines)).not.toContain(card.number);
}

/** The lease of the request that committed runs out; the sweep then finishes the processor's part, once. */
async function sweepAfterLease(expectRecovered: number) {
  expect((await sweepMoney(ctx.deps)).recovered).toBe(0);
  ctx.clock.advance(LEASE_MS + 1);
  expect((await sweepMoney(ctx.deps)).recovered).toBe(expectRecovered);
  ctx.clock.advance(LEASE_MS + 1);
  expect((await sweepMoney(ctx.deps)).recovered).toBe(0);
}

describe('the processor fails after the payment committed', () => {
  test('confirm: deactivating the spent bcard fails -> 200 succeeded, a replay answers the same; the sweep deactivates it', async () => {
    const pi = await intent(sandbox);
    const bcard = await testBcardCard(ctx, sandbox.secretKey, 2500);
    failing.add('deactivateCard');
    const headers = { 'idempotency-key': `confirm-${pi}` };
    const res = await post(sandbox, `/payment_intents/${pi}/confirm`, withCard(bcard.card), headers);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pi, status: 'succeeded', amount_received: 2500, payment_method: bcard.id });
    expectLoggedFor(bcard.id, bcard.card);
    // Committed: the bcard is spent and the merchant paid; the card is still open at the processor, under a lease.
    expect(await state(bcard.id)).toEqual({ bcard: 'used', spent: 2500, collection: 'refunding', processor: 'active' });
    expect(await ledger(`merchant:${sandbox.id}`)).toBe(2500);
    // The key was kept: the retry is a replay, not a 400 from a second confirm.
    const again = await post(sandbox, `/payment_intents/${pi}/confirm`, withCard(bcard.card), headers);
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    expect(again.body).toEqual(res.body);

    failing.clear();
    await sweepAfterLease(1);
    expect(await state(bcard.id)).toEqual({ bcard: 'used', spent: 2500, collection: 'completed', processor: 'inactive' });
    expect(await ledger(`merchant:${sandbox.id}`)).toBe(2500);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('confirm with money left on the bcard: the refund fails -> 200; the sweep refunds the remainder to the source, once', async () => {
    const pi = await intent(live, { amount: 1500 });
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    failing.add('refund');
    const res = await post(live, `/payment_intents/${pi}/confirm`, withCard(bcard.card));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    expectLoggedFor(bcard.id, bcard.card);
    expect(await state(bcard.id)).toMatchObject({ bcard: 'used', spent: 1500, collection: 'refunding' });
    expect(await ledger(`funding_source:${sourceId}`)).toBe(sourceBefore);

    failing.clear();
    await sweepAfterLease(1);
    expect(await state(bcard.id)).toEqual({ bcard: 'used', spent: 1500, collection: 'completed', processor: 'inactive' });
    // $10.00 left, and its part of the $0.48 fee (1.9 % of $25.00): floor(48 × 1000 / 2500) = 19.
    expect((await ledger(`funding_source:${sourceId}`)) - sourceBefore).toBe(1000 + 19);
    expect(Number((await q("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.remainder_refunded' AND reference_id = ?", [bcard.id]))[0]!.n)).toBe(1);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('partial capture: the remainder refund fails -> 200 succeeded; the sweep returns the remainder', async () => {
    const pi = await intent(live, { capture_method: 'manual' });
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    expect((await post(live, `/payment_intents/${pi}/confirm`, withCard(bcard.card))).body.status).toBe('requires_capture');
    const sourceBefore = await ledger(`funding_source:${sourceId}`);
    failing.add('refund');
    failing.add('deactivateCard');
    const headers = { 'idempotency-key': `capture-${pi}` };
    const res = await post(live, `/payment_intents/${pi}/capture`, { amount_to_capture: 1500 }, headers);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', amount_received: 1500, amount_capturable: 0 });
    expectLoggedFor(bcard.id, bcard.card);
    expect(await state(bcard.id)).toEqual({ bcard: 'used', spent: 1500, collection: 'refunding', processor: 'active' });
    const again = await post(live, `/payment_intents/${pi}/capture`, { amount_to_capture: 1500 }, headers);
    expect(again.headers.get(REPLAY_HEADER)).toBe('true');
    expect(again.body).toEqual(res.body);

    failing.clear();
    await sweepAfterLease(1);
    expect(await state(bcard.id)).toEqual({ bcard: 'used', spent: 1500, collection: 'completed', processor: 'inactive' });
    // $10.00 left, and its part of the $0.48 fee (1.9 % of $25.00): floor(48 × 1000 / 2500) = 19.
    expect((await ledger(`funding_source:${sourceId}`)) - sourceBefore).toBe(1000 + 19);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('cancel of an authorized intent: the refund fails -> 200 canceled; the sweep refunds the bcard in full', async () => {
    const sourceStart = await ledger(`funding_source:${sourceId}`);
    const pi = await intent(live, { capture_method: 'manual' });
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    expect((await post(live, `/payment_intents/${pi}/confirm`, withCard(bcard.card))).body.status).toBe('requires_capture');
    failing.add('refund');
    const res = await post(live, `/payment_intents/${pi}/cancel`, { cancellation_reason: 'abandoned' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expectLoggedFor(bcard.id, bcard.card);
    expect(await state(bcard.id)).toMatchObject({ bcard: 'canceling', collection: 'refunding' });

    failing.clear();
    await sweepAfterLease(1);
    expect(await state(bcard.id)).toEqual({ bcard: 'canceled', spent: 0, collection: 'refunded', processor: 'inactive' });
    expect(await ledger(`funding_source:${sourceId}`)).toBe(sourceStart);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test("the consumer's cancel: the processor is down -> 200 canceled; the sweep finishes the refund", async () => {
    const sourceStart = await ledger(`funding_source:${sourceId}`);
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    failing.add('deactivateCard');
    const res = await call(ctx, `/api/virtual-cards/${bcard.id}/cancel`, { method: 'POST', cookie: consumer.cookie });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('canceled');
    expectLoggedFor(bcard.id, bcard.card);
    failing.clear();
    await sweepAfterLease(1);
    expect(await state(bcard.id)).toEqual({ bcard: 'canceled', spent: 0, collection: 'refunded', processor: 'inactive' });
    expect(await ledger(`funding_source:${sourceId}`)).toBe(sourceStart);
  });
});
