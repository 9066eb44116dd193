// Stripe's events about bpay's own money (issue 26 part 3), through POST /api/stripe/webhook with the Stripe adapter
// pointed at the stand-in (test-support/stripe-stub.ts): ACH bank debits settled or returned by event, the poll as a
// slow safety net, an event and a poll racing, and refunds to a card that Stripe failed after bpay made them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, interceptVendor, memoryLogger, type TestContext } from '../../../test-support/app';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import {
  authorizationRequest,
  makeStripeApp,
  sendEvent,
  settled,
  stripeEvent,
  stripeId,
  STUB_SECRET_KEY,
} from '../../../test-support/modules/stripe-issuing';
import { addBankAccount, addCard, makePremium, registerUser } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { paidIntent, prepare, refund as merchantRefund } from '../../../test-support/modules/refunds-hostile';
import { forkTestApp } from '../../../test-support/app';
import { WEBHOOK_SECRET } from '../../../test-support/modules/stripe-issuing';
import { VendorDeclineError } from '../../vendors/types';
import { TestClock } from '../../lib/clock';
import { BANK_DEBIT_POLL_MS } from '../bcards/bank-debits';
import { recoverCollections, sweepBankDebits } from '../bcards/sweep';
import { LEASE_MS } from '../bcards/saga';

let stub: StripeStub;
let ctx: TestContext;
const log = memoryLogger();
const clock = new TestClock(Date.parse('2026-11-02T12:00:00Z'));
/** getBankDebit calls, per debit id: what the slow safety net is measured by. */
const asked: string[] = [];
let consumer: { cookie: string; id: string; card: string; bank: string };

beforeAll(async () => {
  stub = startStripeStub({ secretKey: STUB_SECRET_KEY });
  ctx = await makeStripeApp(stub, {
    log,
    clock,
    wrapStripe: (v) =>
      interceptVendor(v, async (method, args, run) => {
        if (method === 'getBankDebit') asked.push(String(args[0]));
        return run();
      }),
  });
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const card = await addCard(ctx, u.cookie);
  const bank = await addBankAccount(ctx, u.cookie);
  consumer = { cookie: u.cookie, id: u.user.id, card: card.id, bank: bank.id };
});
afterAll(async () => {
  ctx.close();
  await stub.stop();
});

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const count = async (sql: string, args: Array<string | number> = []) => Number((await q(sql, args))[0]!.n);
const noViolations = async () => expect(moneyViolations(await moneyReport(ctx))).toEqual([]);

interface BankBcard {
  id: string;
  cardId: string;
  collectionId: string;
  shareId: string;
  debitId: string;
  debitCents: number;
  cardShare: { id: string; holdId: string; amount: number };
}

/** A $100.00 bcard split 50/50 between the card and the bank account: its ACH debit is pending at Stripe. */
async function bankBcard(who = consumer): Promise<BankBcard> {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: who.cookie,
    body: {
      name: 'Split',
      balance: '100.00',
      fundingSources: [
        { fundingSourceId: who.card, percentage: 50 },
        { fundingSourceId: who.bank, percentage: 50 },
      ],
    },
  });
  if (made.status !== 201) throw new Error(`bcard: ${made.status} ${made.text}`);
  const [b] = await q('SELECT vendor_card_id, collection_id FROM bcards WHERE id = ?', [made.body.id]);
  const [d] = await q('SELECT share_id, vendor_debit_id, amount_cents FROM bank_debits WHERE collection_id = ?', [String(b!.collection_id)]);
  const [s] = await q('SELECT id, vendor_hold_id, amount_cents FROM collection_shares WHERE collection_id = ? AND funding_source_id = ?', [
    String(b!.collection_id),
    who.card,
  ]);
  return {
    id: made.body.id,
    cardId: String(b!.vendor_card_id),
    collectionId: String(b!.collection_id),
    shareId: String(d!.share_id),
    debitId: String(d!.vendor_debit_id),
    debitCents: Number(d!.amount_cents),
    cardShare: { id: String(s!.id), holdId: String(s!.vendor_hold_id), amount: Number(s!.amount_cents) },
  };
}

/** A us_bank_account PaymentIntent as Stripe's payment_intent.* events carry it. */
function intent(debitId: string, status: 'succeeded' | 'requires_payment_method', code = 'insufficient_funds'): Record<string, unknown> {
  return {
    id: debitId,
    object: 'payment_intent',
    amount: 5095,
    currency: 'usd',
    status,
    latest_charge: stripeId('py'),
    payment_method_types: ['us_bank_account'],
    metadata: { bpay_idempotency_key: 'hold:shr_x', bpay_purpose: 'bank_debit' },
    last_payment_error: status === 'succeeded' ? null : { type: 'invalid_request_error', code, message: 'The customer’s account has insufficient funds to cover this payment.' },
  };
}

/** The failed charge of a returned debit (charge.failed), as Stripe sends it also after the debit had succeeded. */
function failedCharge(debitId: string, code = 'insufficient_funds'): Record<string, unknown> {
  return {
    id: stripeId('py'),
    object: 'charge',
    amount: 5095,
    status: 'failed',
    payment_intent: debitId,
    failure_code: code,
    failure_message: 'The customer’s account has insufficient funds to cover this payment.',
    payment_method_details: { type: 'us_bank_account', us_bank_account: { last4: '6789' } },
  };
}

const event = (type: string, object: Record<string, unknown>) => stripeEvent(ctx, type, object);
const debitRow = async (b: BankBcard) => (await q('SELECT status, return_code FROM bank_debits WHERE share_id = ?', [b.shareId]))[0]!;
const notices = (kind: string) => count("SELECT count(*) AS n FROM notifications WHERE user_id = ? AND kind = ?", [consumer.id, kind]);
const movements = (kind: string, ref: string) => count('SELECT count(*) AS n FROM ledger_movements WHERE kind = ? AND reference_id = ?', [kind, ref]);
const bcardStatus = async (id: string) => String((await q('SELECT status FROM bcards WHERE id = ?', [id]))[0]!.status);
const events = () => count('SELECT count(*) AS n FROM stripe_events');

/** Spends the bcard at a shop through Stripe Issuing's real-time request (approved: the bcard is used). */
async function spend(b: BankBcard, cents: number) {
  const res = await sendEvent(ctx, event('issuing_authorization.request', authorizationRequest({ cardId: b.cardId, amount: cents })));
  expect(res.body.approved).toBe(true);
  await settled(ctx, b);
}

describe('bank debits by event', () => {
  test('payment_intent.succeeded settles the debit once; a replay is a duplicate and tells nothing twice', async () => {
    const b = await bankBcard();
    const before = await notices('bank_debit_settled');
    const e = event('payment_intent.succeeded', intent(b.debitId, 'succeeded'));
    expect((await sendEvent(ctx, e)).body).toEqual({ received: true });
    expect(await debitRow(b)).toMatchObject({ status: 'settled' });
    expect(await notices('bank_debit_settled')).toBe(before + 1);
    expect((await sendEvent(ctx, e)).body).toEqual({ received: true, duplicate: true });
    // Another event of the same outcome (Stripe's own retry is the same id; a second type is another id).
    expect((await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debitId, 'succeeded')))).status).toBe(200);
    expect(await notices('bank_debit_settled')).toBe(before + 1);
    expect(await bcardStatus(b.id)).toBe('active');
    await noViolations();
  });

  test('returned while the bcard is unused (payment_intent.payment_failed): R01, the bcard canceled, the card share refunded, nothing owed', async () => {
    const b = await bankBcard();
    const res = await sendEvent(ctx, event('payment_intent.payment_failed', intent(b.debitId, 'requires_payment_method')));
    expect(res.status).toBe(200);
    expect(await debitRow(b)).toMatchObject({ status: 'returned', return_code: 'R01' });
    await settled(ctx, b);
    expect(await bcardStatus(b.id)).toBe('canceled');
    // The card share went back to the card at Stripe; the bank share's part cleared the receivable.
    expect(stub.find('POST', '/v1/refunds').some((r) => r.form.get('payment_intent') === b.cardShare.holdId)).toBe(true);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    // charge.failed of the same return (Stripe sends both): recorded as received, nothing applied twice.
    expect((await sendEvent(ctx, event('charge.failed', failedCharge(b.debitId)))).status).toBe(200);
    expect(await movements('bank_debit.returned', b.shareId)).toBe(1);
    expect(await movements('bcard.refunded', b.id)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM notifications WHERE user_id = ? AND kind = 'bank_debit_returned' AND params LIKE ?", [consumer.id, `%${b.collectionId}%`])).toBe(1);
    await noViolations();
  });

  test('settled, spent, then returned (charge.failed after success): the amount is owed and new bcards are refused', async () => {
    // Another consumer: this one ends owing bpay.
    const u = await registerUser(ctx);
    await makePremium(ctx, u.user.id);
    const owes = { cookie: u.cookie, id: u.user.id, card: (await addCard(ctx, u.cookie)).id, bank: (await addBankAccount(ctx, u.cookie)).id };
    const b = await bankBcard(owes);
    await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debitId, 'succeeded')));
    await spend(b, 10_000);
    expect(await bcardStatus(b.id)).toBe('used');
    expect((await sendEvent(ctx, event('charge.failed', failedCharge(b.debitId, 'account_closed')))).status).toBe(200);
    expect(await debitRow(b)).toMatchObject({ status: 'returned', return_code: 'R02' });
    expect(await ledgerBalance(ctx, `receivable:${owes.id}`)).toBe(-b.debitCents);
    const refused = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: owes.cookie,
      body: { name: 'Again', balance: '10.00', fundingSources: [{ fundingSourceId: owes.card, percentage: 100 }] },
    });
    expect(refused.body?.error?.code).toBe('account_restricted');
    // A late payment_intent.succeeded (out of order) does not undo the return.
    await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debitId, 'succeeded')));
    expect(await debitRow(b)).toMatchObject({ status: 'returned' });
    expect(await movements('bank_debit.returned', b.shareId)).toBe(1);
    await noViolations();
  });

  test('an event for a debit bpay does not know: logged, 200, nothing written; a card hold’s PaymentIntent is ignored quietly', async () => {
    const before = await events();
    const unknown = stripeId('pi');
    expect((await sendEvent(ctx, event('payment_intent.payment_failed', intent(unknown, 'requires_payment_method')))).body).toEqual({ received: true });
    expect((await sendEvent(ctx, event('charge.failed', failedCharge(unknown)))).body).toEqual({ received: true });
    expect(log.lines.filter((l) => l.msg.includes('bank debit bpay does not know') && l.fields.paymentIntent === unknown)).toHaveLength(2);
    const hold = { ...intent(stripeId('pi'), 'succeeded'), metadata: { bpay_purpose: 'share_hold' }, payment_method_types: ['card'] };
    expect((await sendEvent(ctx, event('payment_intent.succeeded', hold))).body).toEqual({ received: true });
    expect(await events()).toBe(before);
  });

  test('a signed event of another shape is a 400 naming the field, never a 500, and changes nothing', async () => {
    const b = await bankBcard();
    const pi = intent(b.debitId, 'succeeded');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['payment_intent.succeeded', { ...pi, id: 42 }],
      ['payment_intent.succeeded', { ...pi, status: null }],
      ['payment_intent.payment_failed', { ...pi, last_payment_error: 'insufficient_funds' }],
      ['payment_intent.payment_failed', { ...pi, latest_charge: 7 }],
      ['payment_intent.succeeded', { ...pi, metadata: ['bank_debit'] }],
      ['charge.failed', { ...failedCharge(b.debitId), payment_intent: 12 }],
      ['charge.failed', { ...failedCharge(b.debitId), failure_code: { code: 'x' } }],
      ['refund.failed', { id: stripeId('re'), amount: '10.00', status: 'failed', payment_intent: b.cardShare.holdId }],
      ['refund.failed', { id: stripeId('re'), amount: -5, status: 'failed', payment_intent: b.cardShare.holdId }],
      ['charge.refund.updated', { id: stripeId('re'), amount: 500, status: 'failed', payment_intent: b.cardShare.holdId, failure_reason: 3 }],
      ['refund.updated', { amount: 500, status: 'failed', payment_intent: b.cardShare.holdId }],
    ];
    const before = await events();
    for (const [type, object] of cases) {
      const res = await sendEvent(ctx, event(type, object));
      expect({ type, status: res.status, code: res.body?.error?.code }).toEqual({ type, status: 400, code: 'validation_error' });
      expect(res.body.error.message).toContain('data.object.');
    }
    expect(await events()).toBe(before);
    expect(await debitRow(b)).toMatchObject({ status: 'pending' });
  });
});

describe('an event and a poll racing apply the outcome once', () => {
  /** Makes the poll ask (the debit is due a safety-net check) and Stripe answer `status` for it. */
  function stripeSays(b: BankBcard, status: 'succeeded' | 'failed') {
    const pi = stub.objects.get(b.debitId)!;
    if (status === 'succeeded') pi.status = 'succeeded';
    else {
      pi.status = 'requires_payment_method';
      Object.assign(stub.objects.get(String(pi.latest_charge))!, { status: 'failed', failure_code: 'insufficient_funds', failure_message: 'Insufficient funds.' });
    }
    clock.advance(BANK_DEBIT_POLL_MS + 1);
  }

  const orders: Array<[string, (send: () => Promise<unknown>, poll: () => Promise<unknown>) => Promise<unknown>]> = [
    ['in parallel', (send, poll) => Promise.all([send(), poll()])],
    ['event first', async (send, poll) => {
      await send();
      await poll();
    }],
    ['poll first', async (send, poll) => {
      await poll();
      await send();
    }],
  ];

  for (const [name, run] of orders) {
    test(`settled, ${name}: one settled notice`, async () => {
      const b = await bankBcard();
      stripeSays(b, 'succeeded');
      const before = await notices('bank_debit_settled');
      const askedBefore = asked.filter((id) => id === b.debitId).length;
      await run(
        () => sendEvent(ctx, event('payment_intent.succeeded', intent(b.debitId, 'succeeded'))),
        () => sweepBankDebits(ctx.deps),
      );
      expect(await debitRow(b)).toMatchObject({ status: 'settled' });
      expect(await notices('bank_debit_settled')).toBe(before + 1);
      // The poll asked (or found it settled first and did not need to).
      expect(asked.filter((id) => id === b.debitId).length - askedBefore).toBeLessThanOrEqual(1);
      await noViolations();
    });

    test(`returned with the bcard unused, ${name}: one return, one cancel, one refund of the card share`, async () => {
      const b = await bankBcard();
      stripeSays(b, 'failed');
      const returnedBefore = await notices('bank_debit_returned');
      const canceledBefore = await notices('bcard_canceled');
      await run(
        () => sendEvent(ctx, event('charge.failed', failedCharge(b.debitId))),
        () => sweepBankDebits(ctx.deps),
      );
      await settled(ctx, b);
      expect(await debitRow(b)).toMatchObject({ status: 'returned', return_code: 'R01' });
      expect(await movements('bank_debit.returned', b.shareId)).toBe(1);
      expect(await movements('bcard.refunded', b.id)).toBe(1);
      expect(await bcardStatus(b.id)).toBe('canceled');
      expect(await notices('bank_debit_returned')).toBe(returnedBefore + 1);
      expect(await notices('bcard_canceled')).toBe(canceledBefore + 1);
      expect(stub.find('POST', '/v1/refunds').filter((r) => r.form.get('payment_intent') === b.cardShare.holdId)).toHaveLength(1);
      await noViolations();
    });
  }
});

describe('the poll as a slow safety net', () => {
  test(`with events configured, a pending debit is asked about at most once per ${BANK_DEBIT_POLL_MS / 3_600_000} hours`, async () => {
    const b = await bankBcard();
    const times = () => asked.filter((id) => id === b.debitId).length;
    // Just initiated: the events come first; the first ask is a poll period after the debit began.
    await sweepBankDebits(ctx.deps);
    await sweepBankDebits(ctx.deps);
    expect(times()).toBe(0);
    clock.advance(BANK_DEBIT_POLL_MS);
    await sweepBankDebits(ctx.deps);
    expect(times()).toBe(1);
    await Promise.all([sweepBankDebits(ctx.deps), sweepBankDebits(ctx.deps), sweepBankDebits(ctx.deps)]);
    expect(times()).toBe(1);
    clock.advance(BANK_DEBIT_POLL_MS - 1);
    await sweepBankDebits(ctx.deps);
    expect(times()).toBe(1);
    clock.advance(1);
    await sweepBankDebits(ctx.deps);
    expect(times()).toBe(2);
    expect(await debitRow(b)).toMatchObject({ status: 'pending' });
  });

  test('a refund waiting for a pending debit does not ask Stripe either; the event lets it finish', async () => {
    const b = await bankBcard();
    const times = () => asked.filter((id) => id === b.debitId).length;
    const status = async () => String((await q('SELECT status FROM collections WHERE id = ?', [b.collectionId]))[0]!.status);
    expect((await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: consumer.cookie })).status).toBe(200);
    // The card share went back; the bank share waits for its debit, and the recovery sweep's retries do not poll.
    for (let i = 0; i < 3; i++) {
      clock.advance(LEASE_MS + 1);
      await recoverCollections(ctx.deps, 60_000);
    }
    expect(await status()).toBe('refunding');
    expect(times()).toBe(0);
    stub.objects.get(b.debitId)!.status = 'succeeded';
    await sendEvent(ctx, event('payment_intent.succeeded', intent(b.debitId, 'succeeded')));
    clock.advance(LEASE_MS + 1);
    await recoverCollections(ctx.deps, 60_000);
    expect(await status()).toBe('refunded');
    expect(times()).toBe(0);
    expect(stub.find('POST', '/v1/refunds').filter((r) => r.form.get('payment_intent') === b.debitId)).toHaveLength(1);
    expect(await bcardStatus(b.id)).toBe('canceled');
    await noViolations();
  });

  test('without a webhook signing secret (no events), every sweep asks, as before', async () => {
    const noEvents = await makeStripeApp(stub, {
      webhookSecret: null,
      wrapStripe: (v) =>
        interceptVendor(v, async (method, args, run) => {
          if (method === 'getBankDebit') asked.push(`noevents:${String(args[0])}`);
          return run();
        }),
    });
    try {
      const u = await registerUser(noEvents);
      await makePremium(noEvents, u.user.id);
      const card = await addCard(noEvents, u.cookie);
      const bank = await addBankAccount(noEvents, u.cookie);
      const made = await call(noEvents, '/api/virtual-cards', {
        method: 'POST',
        cookie: u.cookie,
        body: { name: 'S', balance: '20.00', fundingSources: [{ fundingSourceId: card.id, percentage: 50 }, { fundingSourceId: bank.id, percentage: 50 }] },
      });
      expect(made.status).toBe(201);
      const n = () => asked.filter((id) => id.startsWith('noevents:')).length;
      await sweepBankDebits(noEvents.deps);
      await sweepBankDebits(noEvents.deps);
      expect(n()).toBe(2);
    } finally {
      noEvents.close();
    }
  });
});

describe('a refund to a card that Stripe failed later', () => {
  /** A card-only bcard canceled unused: its share is refunded at Stripe (a refund bpay counts as gone). */
  async function refundedShare() {
    const made = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: consumer.cookie,
      body: { name: 'Card only', balance: '30.00', fundingSources: [{ fundingSourceId: consumer.card, percentage: 100 }] },
    });
    expect(made.status).toBe(201);
    const canceled = await call(ctx, `/api/virtual-cards/${made.body.id}/cancel`, { method: 'POST', cookie: consumer.cookie });
    expect(canceled.status).toBe(200);
    const [s] = await q('SELECT s.id, s.vendor_hold_id, s.amount_cents, s.collection_id FROM collection_shares s JOIN bcards b ON b.collection_id = s.collection_id WHERE b.id = ?', [made.body.id]);
    const refund = [...stub.objects.values()].find((o) => o.object === 'refund' && o.payment_intent === String(s!.vendor_hold_id))!;
    expect(refund).toBeDefined();
    return { shareId: String(s!.id), holdId: String(s!.vendor_hold_id), amount: Number(s!.amount_cents), collectionId: String(s!.collection_id), refund };
  }
  const failedRefund = (r: { refund: Record<string, unknown> }, over: Record<string, unknown> = {}) => ({
    ...r.refund,
    status: 'failed',
    failure_reason: 'expired_or_canceled_card',
    currency: 'usd',
    ...over,
  });

  test('refund.failed: the credit to the card is reversed into payable:<user>, kept for admins, told in words; charge.refund.updated of it adds nothing', async () => {
    const r = await refundedShare();
    const sourceBefore = await ledgerBalance(ctx, `funding_source:${consumer.card}`);
    expect((await sendEvent(ctx, event('refund.failed', failedRefund(r)))).body).toEqual({ received: true });
    expect(await ledgerBalance(ctx, `funding_source:${consumer.card}`)).toBe(sourceBefore - r.amount);
    expect(await ledgerBalance(ctx, `payable:${consumer.id}`)).toBe(r.amount);
    expect(await movements('refund.failed', String(r.refund.id))).toBe(1);
    const [row] = await q('SELECT share_id, user_id, amount_cents, failure_reason FROM share_refund_failures WHERE vendor_refund_id = ?', [String(r.refund.id)]);
    expect(row).toMatchObject({ share_id: r.shareId, user_id: consumer.id, amount_cents: r.amount, failure_reason: 'expired_or_canceled_card' });

    const list = await call(ctx, '/api/notifications', { cookie: consumer.cookie });
    const notice = (list.body.data ?? list.body).find((n: { kind: string }) => n.kind === 'refund_failed');
    expect(notice.title).toContain('$30');
    expect(notice.body).toContain('•••• 4242');
    expect(notice.body).toContain('the card has expired or was canceled');
    const ar = await call(ctx, '/api/notifications?language=ar', { cookie: consumer.cookie });
    const arNotice = (ar.body.data ?? ar.body).find((n: { kind: string }) => n.kind === 'refund_failed');
    expect(arNotice.body).toContain('انتهت صلاحية البطاقة أو أُلغيت');

    // The same failure told again, by another event type: recorded as received, nothing twice.
    const again = await sendEvent(ctx, event('charge.refund.updated', failedRefund(r)));
    expect(again.status).toBe(200);
    expect(await count('SELECT count(*) AS n FROM share_refund_failures WHERE vendor_refund_id = ?', [String(r.refund.id)])).toBe(1);
    expect(await notices('refund_failed')).toBe(1);
    expect(await ledgerBalance(ctx, `payable:${consumer.id}`)).toBe(r.amount);
    await noViolations();

    // Admins see it, per user or in all, with what bpay owes the user.
    await makeAdmin(ctx);
    const token = await adminToken(ctx);
    const listed = await adminCall(ctx, token, `/api/admin/refund-failures?userId=${consumer.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        refundId: r.refund.id,
        user: { id: consumer.id, email: expect.any(String) },
        fundingSource: { id: consumer.card, name: 'Ada Lovelace', last4: '4242' },
        amount: (r.amount / 100).toFixed(2),
        failureReason: 'expired_or_canceled_card',
        transactionId: r.collectionId,
        owedToUser: (r.amount / 100).toFixed(2),
      }),
    ]);
    expect((await adminCall(ctx, token, '/api/admin/refund-failures?userId=usr_nobody')).body).toEqual([]);
    expect((await adminCall(ctx, null, '/api/admin/refund-failures')).status).toBe(401);
  });

  test('a refund that succeeded (refund.updated) changes nothing; a failed refund of no share bpay knows is logged, 200, nothing written', async () => {
    const r = await refundedShare();
    const before = await events();
    expect((await sendEvent(ctx, event('refund.updated', { ...r.refund, status: 'succeeded' }))).status).toBe(200);
    const stranger = { id: stripeId('re'), object: 'refund', amount: 900, status: 'failed', failure_reason: 'declined', payment_intent: stripeId('pi'), metadata: {} };
    expect((await sendEvent(ctx, event('refund.failed', stranger))).body).toEqual({ received: true });
    expect(log.lines.some((l) => l.msg.includes('refunded no funding share') && l.fields.refund === stranger.id)).toBe(true);
    expect(await events()).toBe(before);
    expect(await count('SELECT count(*) AS n FROM share_refund_failures WHERE vendor_refund_id IN (?, ?)', [String(r.refund.id), stranger.id])).toBe(0);
  });
});

describe('a crash in the middle of applying an event', () => {
  async function refusingNotices<T>(run: () => Promise<T>): Promise<T> {
    await ctx.handle.client.execute("CREATE TRIGGER refuse_notice BEFORE INSERT ON notifications BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      return await run();
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_notice');
    }
  }

  test('a return: nothing applied (500, Stripe resends); the resent event applies it once', async () => {
    const b = await bankBcard();
    const e = event('payment_intent.payment_failed', intent(b.debitId, 'requires_payment_method'));
    const before = await events();
    const failed = await refusingNotices(() => sendEvent(ctx, e));
    expect(failed.status).toBe(500);
    expect(await debitRow(b)).toMatchObject({ status: 'pending' });
    expect(await events()).toBe(before);
    expect(await movements('bank_debit.returned', b.shareId)).toBe(0);
    expect(await bcardStatus(b.id)).toBe('active');

    expect((await sendEvent(ctx, e)).body).toEqual({ received: true });
    await settled(ctx, b);
    expect(await debitRow(b)).toMatchObject({ status: 'returned' });
    expect(await movements('bank_debit.returned', b.shareId)).toBe(1);
    expect(await bcardStatus(b.id)).toBe('canceled');
    expect((await sendEvent(ctx, e)).body).toEqual({ received: true, duplicate: true });
    await noViolations();
  });

  test('a refund failure: nothing applied; the resent event applies it once', async () => {
    const made = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: consumer.cookie,
      body: { name: 'Crash', balance: '12.00', fundingSources: [{ fundingSourceId: consumer.card, percentage: 100 }] },
    });
    await call(ctx, `/api/virtual-cards/${made.body.id}/cancel`, { method: 'POST', cookie: consumer.cookie });
    const [s] = await q('SELECT s.vendor_hold_id FROM collection_shares s JOIN bcards b ON b.collection_id = s.collection_id WHERE b.id = ?', [made.body.id]);
    const refund = [...stub.objects.values()].find((o) => o.object === 'refund' && o.payment_intent === String(s!.vendor_hold_id))!;
    const e = event('refund.failed', { ...refund, status: 'failed', failure_reason: 'lost_or_stolen_card' });
    const payable = await ledgerBalance(ctx, `payable:${consumer.id}`);
    expect((await refusingNotices(() => sendEvent(ctx, e))).status).toBe(500);
    expect(await movements('refund.failed', String(refund.id))).toBe(0);
    expect(await count('SELECT count(*) AS n FROM share_refund_failures WHERE vendor_refund_id = ?', [String(refund.id)])).toBe(0);
    expect((await sendEvent(ctx, e)).body).toEqual({ received: true });
    expect((await sendEvent(ctx, e)).body).toEqual({ received: true, duplicate: true });
    expect(await movements('refund.failed', String(refund.id))).toBe(1);
    expect(await ledgerBalance(ctx, `payable:${consumer.id}`)).toBe(payable + Number(refund.amount));
    await noViolations();
  });
});

describe('a merchant refund’s part: found by its key', () => {
  test('a part bpay recorded as refused reverses nothing; a part that went back is reversed into payable', async () => {
    const p = await prepare();
    let refuse = false;
    // The simulator, as the processor of a signed Stripe event (the share is found by its hold, whoever holds it).
    const app = await forkTestApp(p.template, {
      stripeWebhookSecret: WEBHOOK_SECRET,
      rateLimits: false,
      wrapVendor: (v) =>
        interceptVendor(
          v,
          async (method, _args, run) => {
            if (method === 'refund' && refuse) throw new VendorDeclineError('processing_error', 'refused by the test');
            return run();
          },
          { local: true },
        ),
    });
    try {
      const rows = async (sql: string, args: Array<string | number>) => (await app.handle.client.execute({ sql, args })).rows;
      const pi = await paidIntent(p, app, '20.00', [50, 50]);
      const partsOf = (refundId: string) =>
        rows(
          'SELECT rp.share_id, rp.amount_cents, rp.status, s.vendor_hold_id FROM refund_parts rp JOIN collection_shares s ON s.id = rp.share_id WHERE rp.refund_id = ? ORDER BY s.position',
          [refundId],
        );
      const failedEvent = (refundId: string, part: Record<string, unknown>) =>
        stripeEvent(app, 'refund.failed', {
          id: stripeId('re'),
          object: 'refund',
          amount: Number(part.amount_cents),
          currency: 'usd',
          status: 'failed',
          failure_reason: 'declined',
          payment_intent: String(part.vendor_hold_id),
          metadata: { bpay_idempotency_key: `refund:${refundId}:${String(part.share_id)}` },
        });

      refuse = true;
      const refused = await merchantRefund(app, p.live.secretKey, { payment_intent: pi.id, amount: 1000 });
      refuse = false;
      expect(refused.body.status).toBe('failed');
      const [refusedPart] = await partsOf(refused.body.id);
      expect(refusedPart!.status).toBe('failed');
      expect((await sendEvent(app, failedEvent(refused.body.id, refusedPart!))).body).toEqual({ received: true });
      expect(Number((await rows("SELECT count(*) AS n FROM ledger_movements WHERE kind = 'refund.failed'", []))[0]!.n)).toBe(0);
      expect(await ledgerBalance(app, `payable:${p.consumer.id}`)).toBe(0);

      const went = await merchantRefund(app, p.live.secretKey, { payment_intent: pi.id, amount: 1000 });
      expect(went.body.status).toBe('succeeded');
      const [wentPart] = await partsOf(went.body.id);
      expect(wentPart!.status).toBe('succeeded');
      expect((await sendEvent(app, failedEvent(went.body.id, wentPart!))).body).toEqual({ received: true });
      expect(await ledgerBalance(app, `payable:${p.consumer.id}`)).toBe(Number(wentPart!.amount_cents));
      expect(Number((await rows('SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings', []))[0]!.s)).toBe(0);
    } finally {
      app.close();
      p.template.close();
    }
  });
});
