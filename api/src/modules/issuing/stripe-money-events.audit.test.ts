// Hostile review of issue 26 part 3 (Stripe events instead of polling): forged-looking but signed events, an event
// and a poll racing, refund failures told twice or about refunds bpay never made, late returns.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, memoryLogger, type TestContext } from '../../../test-support/app';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import { makeStripeApp, sendEvent, settled, stripeEvent, stripeId, STUB_SECRET_KEY } from '../../../test-support/modules/stripe-issuing';
import { addBankAccount, addCard, makePremium, registerUser } from '../../../test-support/world';
import { TestClock } from '../../lib/clock';
import { shareStageOf } from '../bcards/stage';

let stub: StripeStub;
let ctx: TestContext;
const log = memoryLogger();
const clock = new TestClock(Date.parse('2026-11-02T12:00:00Z'));
type Consumer = { cookie: string; id: string; card: string; bank: string };

beforeAll(async () => {
  stub = startStripeStub({ secretKey: STUB_SECRET_KEY });
  ctx = await makeStripeApp(stub, { log, clock });
});
afterAll(async () => {
  ctx.close();
  await stub.stop();
});

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const count = async (sql: string, args: Array<string | number> = []) => Number((await q(sql, args))[0]!.n);
const noViolations = async () => expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
const event = (type: string, object: Record<string, unknown>) => stripeEvent(ctx, type, object);

async function consumer(): Promise<Consumer> {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  return { cookie: u.cookie, id: u.user.id, card: (await addCard(ctx, u.cookie)).id, bank: (await addBankAccount(ctx, u.cookie)).id };
}

async function bcard(who: Consumer, bankPct: number) {
  const fundingSources = bankPct > 0
    ? [{ fundingSourceId: who.card, percentage: 100 - bankPct }, { fundingSourceId: who.bank, percentage: bankPct }]
    : [{ fundingSourceId: who.card, percentage: 100 }];
  const made = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: who.cookie, body: { name: 'Audit', balance: '100.00', fundingSources } });
  if (made.status !== 201) throw new Error(`bcard: ${made.status} ${made.text}`);
  const [b] = await q('SELECT collection_id FROM bcards WHERE id = ?', [made.body.id]);
  const collectionId = String(b!.collection_id);
  const [d] = await q('SELECT share_id, vendor_debit_id, amount_cents FROM bank_debits WHERE collection_id = ?', [collectionId]);
  const [s] = await q('SELECT id, vendor_hold_id, amount_cents FROM collection_shares WHERE collection_id = ? AND funding_source_id = ?', [collectionId, who.card]);
  return {
    id: String(made.body.id),
    collectionId,
    debit: d ? { shareId: String(d.share_id), id: String(d.vendor_debit_id), cents: Number(d.amount_cents) } : null,
    cardShare: { id: String(s!.id), holdId: String(s!.vendor_hold_id), amount: Number(s!.amount_cents) },
  };
}

function intent(debitId: string, status: string): Record<string, unknown> {
  return {
    id: debitId,
    object: 'payment_intent',
    status,
    latest_charge: stripeId('py'),
    metadata: { bpay_purpose: 'bank_debit' },
    last_payment_error: status === 'succeeded' ? null : { code: 'insufficient_funds', message: 'Insufficient funds.' },
  };
}
function failedCharge(debitId: string): Record<string, unknown> {
  return {
    id: stripeId('py'),
    object: 'charge',
    status: 'failed',
    payment_intent: debitId,
    failure_code: 'insufficient_funds',
    failure_message: 'Insufficient funds.',
    payment_method_details: { type: 'us_bank_account' },
  };
}
const refundOf = (holdId: string) => [...stub.objects.values()].find((o) => o.object === 'refund' && o.payment_intent === holdId);

describe('refund failures', () => {
  test('a failed refund bpay never made (no bpay key, the share still captured, its bcard active) reverses nothing and owes nothing', async () => {
    const who = await consumer();
    const b = await bcard(who, 0);
    const forged = { id: stripeId('re'), object: 'refund', amount: b.cardShare.amount, currency: 'usd', status: 'failed', failure_reason: 'declined', payment_intent: b.cardShare.holdId, metadata: {} };
    expect((await sendEvent(ctx, event('refund.failed', forged))).status).toBe(200);
    expect(await ledgerBalance(ctx, `payable:${who.id}`)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM share_refund_failures WHERE vendor_refund_id = ?', [forged.id])).toBe(0);
    // Even carrying bpay's own key for the share: bpay has not refunded it (the bcard is active).
    const keyed = { ...forged, id: stripeId('re'), metadata: { bpay_idempotency_key: `refund:${b.cardShare.id}` } };
    expect((await sendEvent(ctx, event('refund.failed', keyed))).status).toBe(200);
    expect(await ledgerBalance(ctx, `payable:${who.id}`)).toBe(0);
    await noViolations();
  });

  test('a failure told by refund.failed and charge.refund.updated at once (two event ids) is applied once', async () => {
    const who = await consumer();
    const b = await bcard(who, 0);
    expect((await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: who.cookie })).status).toBe(200);
    await settled(ctx, b);
    const refund = refundOf(b.cardShare.holdId)!;
    const failed = { ...refund, status: 'failed', failure_reason: 'expired_or_canceled_card', currency: 'usd' };
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sendEvent(ctx, event(i % 2 ? 'charge.refund.updated' : 'refund.failed', failed))),
    );
    expect(sent.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await count("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'refund.failed' AND reference_id = ?", [String(refund.id)])).toBe(1);
    expect(await ledgerBalance(ctx, `payable:${who.id}`)).toBe(b.cardShare.amount);
    await noViolations();
  });

  test('a failed refund larger than the share never owes more than the share', async () => {
    const who = await consumer();
    const b = await bcard(who, 0);
    expect((await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: who.cookie })).status).toBe(200);
    await settled(ctx, b);
    const refund = refundOf(b.cardShare.holdId)!;
    await sendEvent(ctx, event('refund.failed', { ...refund, amount: b.cardShare.amount * 100, status: 'failed', failure_reason: 'declined' }));
    expect(await ledgerBalance(ctx, `payable:${who.id}`)).toBeLessThanOrEqual(b.cardShare.amount);
    await noViolations();
  });

  test('odd shapes: 400 for malformed, 200 with nothing written for an unknown status or a refund of nothing bpay knows', async () => {
    const who = await consumer();
    const b = await bcard(who, 0);
    const base = { id: stripeId('re'), object: 'refund', amount: 500, currency: 'usd', status: 'failed', payment_intent: b.cardShare.holdId, metadata: {} };
    for (const o of [{ ...base, amount: 10.5 }, { ...base, amount: 0 }, { ...base, amount: Number.MAX_SAFE_INTEGER + 2 }, { ...base, status: 7 }, { ...base, metadata: 'x' }, { ...base, payment_intent: { object: 'payment_intent' } }]) {
      const r = await sendEvent(ctx, event('refund.failed', o));
      expect({ o, status: r.status }).toEqual({ o, status: 400 });
    }
    const before = await count('SELECT count(*) AS n FROM stripe_events');
    for (const o of [{ ...base, id: stripeId('re'), status: 'weird' }, { ...base, id: stripeId('re'), payment_intent: null }, { ...base, id: stripeId('re'), payment_intent: { id: stripeId('pi') } }]) {
      const r = await sendEvent(ctx, event('refund.failed', o));
      expect({ o, status: r.status }).toEqual({ o, status: 200 });
    }
    expect(await count('SELECT count(*) AS n FROM stripe_events')).toBe(before);
    for (const [type, o] of [
      ['payment_intent.succeeded', { id: stripeId('pi'), status: 'weird', metadata: {} }],
      ['payment_intent.payment_failed', { id: stripeId('pi'), status: 'requires_payment_method', latest_charge: { id: 'py_1', failure_code: 'R01' } }],
      ['charge.failed', { id: stripeId('py'), payment_intent: { id: stripeId('pi') } }],
    ] as const) {
      expect((await sendEvent(ctx, event(type, o as Record<string, unknown>))).status).toBe(200);
    }
    expect(await count('SELECT count(*) AS n FROM stripe_events')).toBe(before);
  });
});

describe('returned after settled', () => {
  test('a debit settled, its bcard canceled and both shares refunded, then returned: the ledger stays whole and nothing twice', async () => {
    const who = await consumer();
    const b = await bcard(who, 50);
    stub.objects.get(b.debit!.id)!.status = 'succeeded';
    await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debit!.id, 'succeeded')));
    expect((await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: who.cookie })).status).toBe(200);
    await settled(ctx, b);
    expect(String((await q('SELECT status FROM collections WHERE id = ?', [b.collectionId]))[0]!.status)).toBe('refunded');
    const returned = event('charge.failed', failedCharge(b.debit!.id));
    await Promise.all([sendEvent(ctx, returned), sendEvent(ctx, event('payment_intent.payment_failed', intent(b.debit!.id, 'requires_payment_method')))]);
    expect(await count("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bank_debit.returned' AND reference_id = ?", [b.debit!.shareId])).toBe(1);
    // The bank refund went to the bank account and the debit came back: the consumer had the money twice and owes it once.
    expect(await ledgerBalance(ctx, `receivable:${who.id}`)).toBe(-b.debit!.cents);
    await noViolations();
  });

  test('settled, then returned by 15 events at once (one id 10 times, 5 others): one return, one cancel', async () => {
    const who = await consumer();
    const b = await bcard(who, 50);
    stub.objects.get(b.debit!.id)!.status = 'succeeded';
    await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debit!.id, 'succeeded')));
    const e = event('charge.failed', failedCharge(b.debit!.id));
    await Promise.all(Array.from({ length: 10 }, () => sendEvent(ctx, e)));
    await Promise.all(Array.from({ length: 5 }, () => sendEvent(ctx, event('charge.failed', failedCharge(b.debit!.id)))));
    expect(await count("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bank_debit.returned' AND reference_id = ?", [b.debit!.shareId])).toBe(1);
    await settled(ctx, b);
    expect(await count("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.refunded' AND reference_id = ?", [b.id])).toBe(1);
    await noViolations();
  });
});

describe('a return racing the consumer', () => {
  test('the consumer cancels while the return event arrives (pending debit, 5 times): one cancel, one return, the receivable cleared', async () => {
    for (let i = 0; i < 5; i++) {
      const who = await consumer();
      const b = await bcard(who, 50);
      stub.objects.get(b.debit!.id)!.status = 'requires_payment_method';
      await Promise.all([
        call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: who.cookie }),
        sendEvent(ctx, event('payment_intent.payment_failed', intent(b.debit!.id, 'requires_payment_method'))),
      ]);
      // The refund waiting for the debit (if the cancel came first) finishes at the next recovery sweep.
      clock.advance(10 * 60_000);
      const { recoverCollections } = await import('../bcards/sweep');
      await recoverCollections(ctx.deps, 60_000);
      await settled(ctx, b);
      expect(await count("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bank_debit.returned' AND reference_id = ?", [b.debit!.shareId])).toBe(1);
      expect(await count("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.refunded' AND reference_id = ?", [b.id])).toBe(1);
      expect(await ledgerBalance(ctx, `receivable:${who.id}`)).toBe(0);
      expect(stub.find('POST', '/v1/refunds').filter((r) => r.form.get('payment_intent') === b.cardShare.holdId)).toHaveLength(1);
      expect(stub.find('POST', '/v1/refunds').filter((r) => r.form.get('payment_intent') === b.debit!.id)).toHaveLength(0);
    }
    await noViolations();
  });
});

describe('a return in the middle of a cancel’s refund', () => {
  test('the bank share refunded at Stripe, the recording crashed, then the debit returned: the consumer owes the debit (they had the refund and were never debited)', async () => {
    const who = await consumer();
    const b = await bcard(who, 50);
    stub.objects.get(b.debit!.id)!.status = 'succeeded';
    await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debit!.id, 'succeeded')));
    await ctx.handle.client.execute("CREATE TRIGGER refuse_cancel_notice BEFORE INSERT ON notifications WHEN NEW.kind = 'bcard_canceled' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: who.cookie });
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_cancel_notice');
    }
    expect(stub.find('POST', '/v1/refunds').filter((r) => r.form.get('payment_intent') === b.debit!.id)).toHaveLength(1);
    expect(String((await q('SELECT status FROM collections WHERE id = ?', [b.collectionId]))[0]!.status)).toBe('refunding');
    await sendEvent(ctx, event('charge.failed', failedCharge(b.debit!.id)));
    clock.advance(10 * 60_000);
    const { recoverCollections } = await import('../bcards/sweep');
    await recoverCollections(ctx.deps, 60_000);
    await settled(ctx, b);
    expect(await ledgerBalance(ctx, `receivable:${who.id}`)).toBe(-b.debit!.cents);
    // The share stays refunded (the money went back to the bank account); its stage says the debit was returned.
    expect(String((await q('SELECT status FROM collection_shares WHERE id = ?', [b.debit!.shareId]))[0]!.status)).toBe('refunded');
    expect(shareStageOf({ status: 'refunded' }, 'returned', false)).toBe('returned');
    // The bank share was refunded once at Stripe, with its key.
    expect(stub.find('POST', '/v1/refunds').filter((r) => r.form.get('payment_intent') === b.debit!.id)).toHaveLength(1);
    await noViolations();
  });
});
