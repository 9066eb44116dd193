// Stripe Issuing's reconciliation events (issuing_authorization.created/updated, issuing_transaction.created): what a
// merchant did not keep goes back to the bcard's two sources pro rata, once per event, with the ledger summing to zero.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { call, memoryLogger, type TestContext } from '../../../test-support/app';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { startStripeStub, stripeError, type StripeStub } from '../../../test-support/stripe-stub';
import {
  authorizationLater,
  authorizationRequest,
  issuingTransaction,
  issuingWorld,
  makeStripeApp,
  newBcard,
  sendEvent,
  settled,
  stripeEvent,
  stripeId,
  STUB_SECRET_KEY,
  type AuthorizationInput,
  type AuthorizationState,
  type IssuingWorld,
  type TestBcard,
} from '../../../test-support/modules/stripe-issuing';
import { LEASE_MS } from '../bcards/saga';

let stub: StripeStub;
let ctx: TestContext;
let w: IssuingWorld;
const log = memoryLogger();

beforeAll(async () => {
  stub = startStripeStub({ secretKey: STUB_SECRET_KEY });
  ctx = await makeStripeApp(stub, { log });
  w = await issuingWorld(ctx);
});
afterAll(async () => {
  ctx.close();
  await stub.stop();
});

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const noViolations = async () => expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
const sources = () => Promise.all(w.sources.map((id) => ledgerBalance(ctx, `funding_source:${id}`)));
const authRow = async (id: string) => ({ ...(await q('SELECT amount_cents, captured_cents, returned_cents, decision FROM issuer_authorizations WHERE id = ?', [id]))[0] });
const refundedOf = async (b: TestBcard) => Number((await q('SELECT refunded_cents FROM collections WHERE id = ?', [b.collectionId]))[0]!.refunded_cents);
/** What Stripe refunded to each share of `b` for its Issuing returns (keys refund:<share>:iauth:…), in split order. */
const stripeReturns = (b: TestBcard) =>
  b.shares.map((s) =>
    [...stub.objects.values()]
      .filter((o) => o.object === 'refund' && o.payment_intent === s.holdId && String((o.metadata as Record<string, string>).bpay_idempotency_key).startsWith(`refund:${s.id}:iauth:`))
      .reduce((a, o) => a + Number(o.amount), 0),
  );

interface Approved {
  bcard: TestBcard;
  input: AuthorizationInput & { id: string };
  /** bpay's id of the authorization. */
  id: string;
  /** The sources' ledger balances once the purchase and its remainder have settled. */
  after: number[];
}

/** A 100.00 bcard split 60/40 (premium's 1.9 % fee: shares 61.14 and 40.76), approved by Stripe's request for `amount`. */
async function approved(amount = 8000): Promise<Approved> {
  const bcard = await newBcard(ctx, w);
  const input = { id: stripeId('iauth'), cardId: bcard.cardId, amount };
  const res = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', authorizationRequest(input)));
  if (res.body?.approved !== true) throw new Error(`not approved: ${res.status} ${res.text}`);
  await settled(ctx, bcard);
  return { bcard, input, id: res.body.metadata.bpay_authorization, after: await sources() };
}

const updated = (a: Approved, s: AuthorizationState, id?: string) =>
  stripeEvent(ctx, 'issuing_authorization.updated', authorizationLater(a.input, s), id);
const transaction = (a: Approved, type: 'capture' | 'refund', amount: number, linked = true) =>
  stripeEvent(ctx, 'issuing_transaction.created', issuingTransaction({ cardId: a.bcard.cardId, authorization: linked ? a.input.id : null, type, amount }));
const gained = async (a: Approved) => (await sources()).map((v, i) => v - a.after[i]!);

describe('a capture below the approved amount', () => {
  test('the rest goes back to both sources pro rata, with its part of the fee, once', async () => {
    const a = await approved(8000);
    const capture = await sendEvent(ctx, transaction(a, 'capture', 5000));
    expect({ status: capture.status, body: capture.body }).toEqual({ status: 200, body: { received: true } });
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 5000, returned_cents: 0 });
    expect(await gained(a)).toEqual([0, 0]);

    const closed = updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 5000 }] });
    const res = await sendEvent(ctx, closed);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
    // The 20.00 remainder went back with floor(1.90 × 20 / 100) = 0.38 of the fee (12.23 and 8.15), so 1.52 of the fee
    // stayed with the 80.00 approved. Now 30.00 of the purchase and floor(1.52 × 30 / 80) = 0.57 of that fee over what
    // each share can still give back (61.14 - 12.23 and 40.76 - 8.15): 30.57 × 48.91 / 81.52 = 18.3412 and 12.2288,
    // the spare cent to the larger fraction: 18.34 and 12.23.
    expect(await gained(a)).toEqual([1834, 1223]);
    expect(stripeReturns(a.bcard)).toEqual([1834, 1223]);
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 5000, returned_cents: 3000 });
    expect(await refundedOf(a.bcard)).toBe(2038 + 3057);
    const txs = await call(ctx, '/api/transactions', { cookie: w.cookie });
    expect((txs.body as Array<{ id: string; refunded: string }>).find((t) => t.id === a.bcard.collectionId)?.refunded).toBe('50.95');
    await noViolations();

    // Stripe sends the event again, and a later event says the same: nothing goes back twice.
    const replay = await sendEvent(ctx, closed);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    const later = await sendEvent(ctx, updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 5000 }] }));
    expect(later.body).toEqual({ received: true });
    expect(await gained(a)).toEqual([1834, 1223]);
    expect(stripeReturns(a.bcard)).toEqual([1834, 1223]);
    await noViolations();
  }, 30_000);

  test('the closed authorization arriving before its capture: the capture it lists is kept, nothing more goes back after', async () => {
    const a = await approved(8000);
    await sendEvent(ctx, updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 5000 }] }));
    expect(await gained(a)).toEqual([1834, 1223]);
    const capture = await sendEvent(ctx, transaction(a, 'capture', 5000));
    expect(capture.body).toEqual({ received: true });
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 5000, returned_cents: 3000 });
    expect(await gained(a)).toEqual([1834, 1223]);
    await noViolations();
  }, 30_000);

  test('a closed authorization that lists no capture bpay knows of: asked for again, released once the capture is known', async () => {
    const a = await approved(8000);
    const closed = updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [] });
    const early = await sendEvent(ctx, closed);
    expect({ status: early.status, code: early.body?.error?.code }).toEqual({ status: 503, code: 'vendor_unavailable' });
    expect(await gained(a)).toEqual([0, 0]);
    await sendEvent(ctx, transaction(a, 'capture', 5000));
    expect((await sendEvent(ctx, closed)).body).toEqual({ received: true });
    expect(await gained(a)).toEqual([1834, 1223]);
    await noViolations();
  }, 30_000);

  test('a partial reversal, then the capture of what is left: each part once', async () => {
    const a = await approved(8000);
    // The merchant releases 20.00 of the hold (the authorization now holds 60.00).
    await sendEvent(ctx, updated(a, { approved: true, status: 'pending', amount: 6000, requested: 8000 }));
    // 20.00 + floor(1.52 × 20 / 80) = 0.38 fee over 48.91 / 32.61.
    expect(await gained(a)).toEqual([1223, 815]);
    await sendEvent(ctx, transaction(a, 'capture', 6000));
    await sendEvent(ctx, updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 6000 }] }));
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 6000, returned_cents: 2000 });
    expect(await gained(a)).toEqual([1223, 815]);
    expect(stripeReturns(a.bcard)).toEqual([1223, 815]);
    await noViolations();
  }, 30_000);

  test('a capture above the approved amount (a tip) is recorded and logged, never charged to the sources', async () => {
    const a = await approved(8000);
    log.lines.length = 0;
    await sendEvent(ctx, transaction(a, 'capture', 9000));
    await sendEvent(ctx, updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 9000 }] }));
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 9000, returned_cents: 0 });
    expect(await gained(a)).toEqual([0, 0]);
    expect(log.lines.some((l) => l.level === 'error' && /captured more than bpay approved/.test(l.msg))).toBe(true);
    await noViolations();
  }, 30_000);
});

describe('a reversal', () => {
  test('returns everything, fee included: the sources are whole again; replayed or sent at once, it is applied once', async () => {
    const before = await sources();
    const a = await approved(8000);
    const reversed = updated(a, { approved: true, status: 'reversed', amount: 0, requested: 8000 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => sendEvent(ctx, reversed)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((r) => r.body.duplicate === true).length).toBe(4);
    // 80.00 and the 1.52 of the fee that stayed with it: with the remainder (and its 0.38 of the fee), each source
    // got back all it paid (61.14 and 40.76).
    expect((await sources()).map((v, i) => v - before[i]!)).toEqual([0, 0]);
    expect(stripeReturns(a.bcard)).toEqual([4891, 3261]);
    expect(await authRow(a.id)).toMatchObject({ returned_cents: 8000 });
    expect(await refundedOf(a.bcard)).toBe(10_190);
    const again = await sendEvent(ctx, reversed);
    expect(again.body).toEqual({ received: true, duplicate: true });
    expect(stripeReturns(a.bcard)).toEqual([4891, 3261]);
    await noViolations();
  }, 30_000);

  test('an expired hold is released like a reversal', async () => {
    const a = await approved(3000);
    await sendEvent(ctx, updated(a, { approved: true, status: 'expired', amount: 0, requested: 3000 }));
    expect(await authRow(a.id)).toMatchObject({ returned_cents: 3000 });
    // The 70.00 remainder took floor(1.90 × 70 / 100) = 1.33 of the fee back; the rest, 0.57, comes with the release.
    expect((await gained(a)).reduce((x, y) => x + y, 0)).toBe(3000 + 57);
    await noViolations();
  }, 30_000);
});

describe("a merchant's refund", () => {
  test('goes back to the sources pro rata with its part of the fee; never more than the purchase', async () => {
    const a = await approved(8000);
    await sendEvent(ctx, transaction(a, 'capture', 8000));
    await sendEvent(ctx, updated(a, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 8000 }] }));
    expect(await gained(a)).toEqual([0, 0]);
    // Stripe's refund transactions usually name no authorization: the bcard's is found through the card.
    const refund = transaction(a, 'refund', 3000, false);
    expect((await sendEvent(ctx, refund)).body).toEqual({ received: true });
    expect(await gained(a)).toEqual([1834, 1223]);
    expect((await sendEvent(ctx, refund)).body).toEqual({ received: true, duplicate: true });
    expect(await gained(a)).toEqual([1834, 1223]);
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 8000, returned_cents: 3000 });

    // A second refund of more than is left: the rest of the purchase (50.00) and the rest of the fee, and a log line.
    log.lines.length = 0;
    await sendEvent(ctx, transaction(a, 'refund', 6000));
    expect(await authRow(a.id)).toMatchObject({ returned_cents: 8000 });
    expect((await gained(a)).reduce((x, y) => x + y, 0)).toBe(8000 + 152);
    expect(log.lines.some((l) => l.level === 'error' && /refunded more than the sources paid/.test(l.msg))).toBe(true);
    expect(await refundedOf(a.bcard)).toBe(10_190);
    await noViolations();
  }, 30_000);

  test('the same capture sent many times at once is counted once', async () => {
    const a = await approved(4000);
    const capture = transaction(a, 'capture', 4000);
    const answers = await Promise.all(Array.from({ length: 6 }, () => sendEvent(ctx, capture)));
    expect(answers.filter((r) => r.body.duplicate === true).length).toBe(5);
    expect(await authRow(a.id)).toMatchObject({ captured_cents: 4000 });
  }, 30_000);
});

describe('what Stripe decided alone', () => {
  test('an approval bpay was never asked for is applied: the bcard is spent, the remainder goes back', async () => {
    const bcard = await newBcard(ctx, w);
    const input = { id: stripeId('iauth'), cardId: bcard.cardId, amount: 6000 };
    const created = stripeEvent(ctx, 'issuing_authorization.created', authorizationLater(input, { approved: true, status: 'pending', amount: 6000, requested: 6000, reason: 'webhook_timeout' }));
    expect((await sendEvent(ctx, created)).body).toEqual({ received: true });
    const [row] = await q('SELECT decision, amount_cents, bcard_id FROM issuer_authorizations WHERE network_ref = ?', [input.id]);
    expect({ ...row }).toMatchObject({ decision: 'approved', amount_cents: 6000, bcard_id: bcard.id });
    expect((await q('SELECT status, spent_cents FROM bcards WHERE id = ?', [bcard.id]))[0]).toMatchObject({ status: 'used', spent_cents: 6000 });
    expect(await settled(ctx, bcard)).toBe('completed');
    expect((await sendEvent(ctx, created)).body).toEqual({ received: true, duplicate: true });
    await noViolations();
  }, 30_000);

  test('an approval bpay declines (the bcard was already spent) is recorded and logged, not charged', async () => {
    const a = await approved(2000);
    log.lines.length = 0;
    const input = { id: stripeId('iauth'), cardId: a.bcard.cardId, amount: 1500 };
    await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.created', authorizationLater(input, { approved: true, status: 'pending', amount: 1500, requested: 1500, reason: 'webhook_timeout' })));
    const [row] = await q('SELECT decision, decline_reason FROM issuer_authorizations WHERE network_ref = ?', [input.id]);
    expect({ ...row }).toMatchObject({ decision: 'declined', decline_reason: 'already_used' });
    expect(await gained(a)).toEqual([0, 0]);
    expect(log.lines.some((l) => l.level === 'error' && /bpay declines/.test(l.msg))).toBe(true);
    await noViolations();
  }, 30_000);

  test('a decline bpay never saw is recorded once', async () => {
    const bcard = await newBcard(ctx, w);
    const input = { id: stripeId('iauth'), cardId: bcard.cardId, amount: 2000 };
    const created = stripeEvent(ctx, 'issuing_authorization.created', authorizationLater(input, { approved: false, status: 'closed', amount: 0, requested: 2000, reason: 'card_expired' }));
    await sendEvent(ctx, created);
    await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.created', authorizationLater(input, { approved: false, status: 'closed', amount: 0, requested: 2000, reason: 'card_expired' })));
    const rows = await q('SELECT decision, decline_reason, amount_cents FROM issuer_authorizations WHERE network_ref = ?', [input.id]);
    expect(rows.map((r) => ({ ...r }))).toEqual([expect.objectContaining({ decision: 'declined', decline_reason: 'expired', amount_cents: 2000 })]);
    expect((await q('SELECT status FROM bcards WHERE id = ?', [bcard.id]))[0]).toMatchObject({ status: 'active' });
  }, 30_000);

  test('Stripe declining what bpay approved (a late answer): the whole purchase goes back', async () => {
    const a = await approved(8000);
    const created = stripeEvent(ctx, 'issuing_authorization.created', authorizationLater(a.input, { approved: false, status: 'closed', amount: 0, requested: 8000, reason: 'webhook_timeout' }));
    expect((await sendEvent(ctx, created)).body).toEqual({ received: true });
    expect(await authRow(a.id)).toMatchObject({ returned_cents: 8000 });
    expect((await gained(a)).reduce((x, y) => x + y, 0)).toBe(8000 + 152);
    await noViolations();
  }, 30_000);

  test('an approval confirmed by Stripe (created, approved) moves nothing', async () => {
    const a = await approved(8000);
    const created = stripeEvent(ctx, 'issuing_authorization.created', authorizationLater(a.input, { approved: true, status: 'pending', amount: 8000, requested: 8000 }));
    expect((await sendEvent(ctx, created)).body).toEqual({ received: true });
    expect(await authRow(a.id)).toMatchObject({ returned_cents: 0, captured_cents: 0 });
    expect(await gained(a)).toEqual([0, 0]);
  }, 30_000);
});

describe('when the processor is not ready', () => {
  test('Stripe failing a refund: 503, nothing recorded; the event sent again returns the money once', async () => {
    const a = await approved(8000);
    const reversed = updated(a, { approved: true, status: 'reversed', amount: 0, requested: 8000 });
    // The first share's refund goes through, the second's fails (Stripe down).
    let n = 0;
    stub.override({ method: 'POST', path: '/v1/refunds' }, () => (++n === 2 ? stripeError(500, { type: 'api_error', message: 'Stripe is down' }) : undefined), 5);
    const failed = await sendEvent(ctx, reversed);
    expect({ status: failed.status, code: failed.body?.error?.code }).toEqual({ status: 503, code: 'vendor_unavailable' });
    expect(await authRow(a.id)).toMatchObject({ returned_cents: 0 });
    expect(await gained(a)).toEqual([0, 0]);
    stub.clearRequests();
    const retried = await sendEvent(ctx, reversed);
    expect(retried.body).toEqual({ received: true });
    // Each share refunded once at Stripe (the first one's refund was found again by its key).
    expect(stripeReturns(a.bcard)).toEqual([4891, 3261]);
    expect(await gained(a)).toEqual([4891, 3261]);
    await noViolations();
  }, 30_000);

  test("an event while the bcard's remainder has not settled yet: 503 after a wait, applied once it has", async () => {
    const bcard = await newBcard(ctx, w);
    const input = { id: stripeId('iauth'), cardId: bcard.cardId, amount: 8000 };
    // Stripe cannot cancel the card now: the remainder's settling fails and waits for the sweep.
    log.lines.length = 0;
    stub.override({ method: 'POST', path: /^\/v1\/issuing\/cards\// }, stripeError(500, { type: 'api_error', message: 'Stripe is down' }), 1);
    const res = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', authorizationRequest(input)));
    expect(res.body.approved).toBe(true);
    for (let i = 0; i < 300 && !log.lines.some((l) => /could not finish a committed change/.test(l.msg)); i++) await Bun.sleep(10);
    expect((await q('SELECT status FROM collections WHERE id = ?', [bcard.collectionId]))[0]).toMatchObject({ status: 'refunding' });
    const reversed = stripeEvent(ctx, 'issuing_authorization.updated', authorizationLater(input, { approved: true, status: 'reversed', amount: 0, requested: 8000 }));
    const early = await sendEvent(ctx, reversed);
    expect({ status: early.status, code: early.body?.error?.code }).toEqual({ status: 503, code: 'vendor_unavailable' });
    ctx.clock.advance(LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    expect(await settled(ctx, bcard)).toBe('completed');
    expect((await sendEvent(ctx, reversed)).body).toEqual({ received: true });
    expect((await q('SELECT refunded_cents FROM collections WHERE id = ?', [bcard.collectionId]))[0]).toMatchObject({ refunded_cents: 10_190 });
    await noViolations();
  }, 30_000);
});
