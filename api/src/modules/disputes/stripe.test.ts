// Disputes of a funding share through Stripe's webhook (issue 26 part 2): charge.dispute.* events signed with the
// test secret, through the real app with the Stripe adapter pointed at the stand-in (test-support/stripe-stub.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { memoryLogger, type TestContext } from '../../../test-support/app';
import {
  disputeMovements,
  disputesOf,
  ledgerSum,
  noticeKinds,
  owed,
  shareStages,
  stripeDispute,
  tryNewBcard,
  type StripeDisputeInput,
} from '../../../test-support/modules/disputes';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import {
  issuingWorld,
  makeStripeApp,
  newBcard,
  postWebhook,
  sendEvent,
  stripeEvent,
  stripeId,
  type IssuingWorld,
  type TestBcard,
} from '../../../test-support/modules/stripe-issuing';

let stub: StripeStub;
let ctx: TestContext;
const log = memoryLogger();

beforeAll(async () => {
  stub = startStripeStub({ secretKey: 'sk_test_51bpayStubKey000000000000' });
  ctx = await makeStripeApp(stub, { log });
});
afterAll(async () => {
  ctx.close();
  await stub.stop();
});

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const count = async (table: string) => Number((await q(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
const send = (type: string, d: StripeDisputeInput & { id: string }, eventId?: string) => sendEvent(ctx, stripeEvent(ctx, type, stripeDispute(d), eventId));

/** A consumer with a $100.00 bcard split 60/40 over two Stripe cards; its first share is the one disputed. */
async function disputedWorld(): Promise<{ w: IssuingWorld; bcard: TestBcard; share: TestBcard['shares'][number] }> {
  const w = await issuingWorld(ctx);
  const bcard = await newBcard(ctx, w);
  const share = bcard.shares[0]!;
  expect(share.holdId).toStartWith('pi_');
  return { w, bcard, share };
}

describe('a dispute opened, then won', () => {
  let s: Awaited<ReturnType<typeof disputedWorld>>;
  const disputeId = stripeId('dp');
  const createdEvent = stripeId('evt');

  beforeAll(async () => {
    s = await disputedWorld();
  });

  test('charge.dispute.created: recorded open, the amount owed, the consumer told, new bcards refused', async () => {
    const res = await send('charge.dispute.created', { id: disputeId, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'needs_response' }, createdEvent);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open', vendorStatus: 'needs_response', amount: s.share.amount, refundedBefore: 0, reason: 'fraudulent', closed: false }]);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect(await ledgerSum(ctx)).toBe(0);
    expect(await disputeMovements(ctx)).toMatchObject({ 'share.disputed': 1 });
    expect((await noticeKinds(ctx, s.w.userId)).at(-1)).toBe('dispute_opened');
    const refused = await tryNewBcard(ctx, s.w.cookie, s.w.sources[1]);
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 403, code: 'account_restricted' });
    expect(refused.body.error.message).toMatch(/card payment you disputed.*or the dispute is decided/);
    expect(await shareStages(ctx, s.w.cookie, s.bcard.collectionId)).toEqual(['disputed', 'charged']);
  });

  test('the same event again: answered as a duplicate, nothing changes', async () => {
    const before = { disputes: await disputesOf(ctx, s.share.id), movements: await count('ledger_movements'), notices: await noticeKinds(ctx, s.w.userId) };
    const res = await send('charge.dispute.created', { id: disputeId, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'needs_response' }, createdEvent);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect({ disputes: await disputesOf(ctx, s.share.id), movements: await count('ledger_movements'), notices: await noticeKinds(ctx, s.w.userId) }).toEqual(before);
  });

  test('another event of the same dispute, still open (funds_withdrawn, under_review): only its status is kept', async () => {
    const movements = await count('ledger_movements');
    for (const [type, status] of [
      ['charge.dispute.funds_withdrawn', 'needs_response'],
      ['charge.dispute.updated', 'under_review'],
    ] as const) {
      const res = await send(type, { id: disputeId, paymentIntent: s.share.holdId, amount: s.share.amount, status });
      expect(res.status).toBe(200);
    }
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open', vendorStatus: 'under_review' }]);
    expect(await count('ledger_movements')).toBe(movements);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
  });

  test('charge.dispute.closed (won): reversed, nothing owed, the consumer told, bcards allowed again', async () => {
    const res = await send('charge.dispute.closed', { id: disputeId, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'won' });
    expect(res.status).toBe(200);
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'won', vendorStatus: 'won', closed: true }]);
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect(await ledgerSum(ctx)).toBe(0);
    expect((await noticeKinds(ctx, s.w.userId)).slice(-2)).toEqual(['dispute_opened', 'dispute_won']);
    expect(await shareStages(ctx, s.w.cookie, s.bcard.collectionId)).toEqual(['dispute_won', 'charged']);
    expect((await tryNewBcard(ctx, s.w.cookie, s.w.sources[1])).status).toBe(201);
  });

  test('a later event of the closed dispute (funds_reinstated, a replayed close) moves no money again', async () => {
    const movements = await count('ledger_movements');
    await send('charge.dispute.funds_reinstated', { id: disputeId, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'won' });
    await send('charge.dispute.updated', { id: disputeId, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'lost' });
    expect(await count('ledger_movements')).toBe(movements);
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'won' }]);
    expect(await owed(ctx, s.w.userId)).toBe(0);
  });
});

describe('a dispute lost', () => {
  test('the amount stays owed and the account restricted; the consumer is told', async () => {
    const s = await disputedWorld();
    const id = stripeId('dp');
    await send('charge.dispute.created', { id, paymentIntent: s.share.holdId, amount: 2500, status: 'needs_response', reason: 'product_not_received' });
    expect(await owed(ctx, s.w.userId)).toBe(2500);
    const res = await send('charge.dispute.closed', { id, paymentIntent: s.share.holdId, amount: 2500, status: 'lost', reason: 'product_not_received' });
    expect(res.status).toBe(200);
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'lost', amount: 2500, reason: 'product_not_received', closed: true }]);
    expect(await owed(ctx, s.w.userId)).toBe(2500);
    expect(await ledgerSum(ctx)).toBe(0);
    expect((await noticeKinds(ctx, s.w.userId)).slice(-2)).toEqual(['dispute_opened', 'dispute_lost']);
    expect((await tryNewBcard(ctx, s.w.cookie, s.w.sources[1])).body?.error?.code).toBe('account_restricted');
    expect(await shareStages(ctx, s.w.cookie, s.bcard.collectionId)).toEqual(['dispute_lost', 'charged']);
  });
});

describe('events out of order', () => {
  test('a close (won) for a dispute never seen opens and closes it in one go: nothing owed, ledger zero', async () => {
    const s = await disputedWorld();
    const res = await send('charge.dispute.closed', { id: stripeId('dp'), paymentIntent: s.share.holdId, amount: s.share.amount, status: 'won' });
    expect(res.status).toBe(200);
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'won', closed: true }]);
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect(await ledgerSum(ctx)).toBe(0);
    // Told the outcome (never "opened": the restriction never applied).
    expect((await noticeKinds(ctx, s.w.userId)).filter((k) => k.startsWith('dispute_'))).toEqual(['dispute_won']);
    expect((await tryNewBcard(ctx, s.w.cookie, s.w.sources[1])).status).toBe(201);
  });

  test('a close (lost) first: recorded lost and owed; the created event arriving after changes nothing', async () => {
    const s = await disputedWorld();
    const id = stripeId('dp');
    await send('charge.dispute.closed', { id, paymentIntent: s.share.holdId, amount: 1000, status: 'lost' });
    const movements = await count('ledger_movements');
    await send('charge.dispute.created', { id, paymentIntent: s.share.holdId, amount: 1000, status: 'needs_response' });
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'lost', amount: 1000 }]);
    expect(await count('ledger_movements')).toBe(movements);
    expect(await owed(ctx, s.w.userId)).toBe(1000);
    expect(await ledgerSum(ctx)).toBe(0);
  });
});

describe('inquiries (warning_*): no money withdrawn', () => {
  test('recorded as heard only: nothing owed, not restricted; once it escalates it opens', async () => {
    const s = await disputedWorld();
    const id = stripeId('dp');
    for (const status of ['warning_needs_response', 'warning_under_review']) {
      const res = await send('charge.dispute.updated', { id, paymentIntent: s.share.holdId, amount: s.share.amount, status });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
    }
    expect(await disputesOf(ctx, s.share.id)).toEqual([]);
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect((await tryNewBcard(ctx, s.w.cookie, s.w.sources[1])).status).toBe(201);
    await send('charge.dispute.updated', { id, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'needs_response' });
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open', vendorStatus: 'needs_response' }]);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
  });

  test('an inquiry closed (warning_closed) leaves nothing', async () => {
    const s = await disputedWorld();
    const id = stripeId('dp');
    await send('charge.dispute.created', { id, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'warning_needs_response' });
    await send('charge.dispute.closed', { id, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'warning_closed' });
    expect(await disputesOf(ctx, s.share.id)).toEqual([]);
    expect(await owed(ctx, s.w.userId)).toBe(0);
  });
});

describe('what cannot be a bpay dispute', () => {
  test('a dispute of a charge that is no bpay share: logged, 200 {received: true}, nothing written', async () => {
    const before = { events: await count('stripe_events'), disputes: await count('share_disputes'), movements: await count('ledger_movements') };
    for (const d of [
      { id: stripeId('dp'), paymentIntent: stripeId('pi'), amount: 1000, status: 'needs_response' },
      { id: stripeId('dp'), paymentIntent: null, charge: stripeId('ch'), amount: 1000, status: 'needs_response' },
    ]) {
      const res = await send('charge.dispute.created', d);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { received: true } });
    }
    expect({ events: await count('stripe_events'), disputes: await count('share_disputes'), movements: await count('ledger_movements') }).toEqual(before);
    expect(log.lines.some((l) => l.level === 'warn' && /not a bpay funding share/.test(l.msg))).toBe(true);
  });

  test('the share found through an expanded charge’s payment_intent', async () => {
    const s = await disputedWorld();
    const res = await send('charge.dispute.created', {
      id: stripeId('dp'),
      paymentIntent: null,
      charge: { id: stripeId('ch'), object: 'charge', payment_intent: s.share.holdId },
      amount: 500,
      status: 'needs_response',
    });
    expect(res.status).toBe(200);
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open', amount: 500 }]);
  });

  test('an amount above what the share was charged: recorded for the share’s amount, and logged', async () => {
    const s = await disputedWorld();
    await send('charge.dispute.created', { id: stripeId('dp'), paymentIntent: s.share.holdId, amount: s.share.amount + 5000, status: 'needs_response' });
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open', amount: s.share.amount }]);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect(await ledgerSum(ctx)).toBe(0);
    expect(log.lines.some((l) => l.level === 'error' && /asks for more than the share/.test(l.msg) && l.fields.asked === s.share.amount + 5000)).toBe(true);
  });

  const base = () => stripeDispute({ paymentIntent: stripeId('pi'), amount: 1000, status: 'needs_response' });
  const MALFORMED: Array<[string, Record<string, unknown>]> = [
    ['no id', { ...base(), id: undefined }],
    ['an amount in dollars', { ...base(), amount: '10.00' }],
    ['a fractional amount', { ...base(), amount: 10.5 }],
    ['a negative amount', { ...base(), amount: -100 }],
    ['no status', { ...base(), status: undefined }],
    ['a numeric reason', { ...base(), reason: 7 }],
    ['neither payment_intent nor charge', { ...base(), payment_intent: null, charge: null }],
    ['a payment_intent that is not an id', { ...base(), payment_intent: 42 }],
  ];
  test.each(MALFORMED)('a signed dispute event with %s: 400 naming the field, nothing written', async (_name, object) => {
    const before = { events: await count('stripe_events'), disputes: await count('share_disputes') };
    const res = await postWebhook(ctx, JSON.stringify(stripeEvent(ctx, 'charge.dispute.created', object)));
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'validation_error' });
    expect(res.body.error.message).toMatch(/charge\.dispute\.created is malformed: .*data\.object|a dispute needs/);
    expect({ events: await count('stripe_events'), disputes: await count('share_disputes') }).toEqual(before);
  });
});

describe('a crash in the middle', () => {
  test('a failure inside the transaction leaves nothing applied; Stripe’s resend applies it once', async () => {
    const s = await disputedWorld();
    const eventId = stripeId('evt');
    const d = { id: stripeId('dp'), paymentIntent: s.share.holdId, amount: s.share.amount, status: 'needs_response' };
    const before = { events: await count('stripe_events'), movements: await count('ledger_movements'), ledger: await ledgerSum(ctx) };
    // The notice is the last write of the transaction: refusing it fails the event after the row and the movement.
    await q("CREATE TRIGGER refuse_dispute_notice BEFORE INSERT ON notifications WHEN NEW.kind = 'dispute_opened' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      const res = await send('charge.dispute.created', d, eventId);
      expect(res.status).toBe(500);
    } finally {
      await q('DROP TRIGGER refuse_dispute_notice');
    }
    expect(await disputesOf(ctx, s.share.id)).toEqual([]);
    expect({ events: await count('stripe_events'), movements: await count('ledger_movements'), ledger: await ledgerSum(ctx) }).toEqual(before);
    expect(await owed(ctx, s.w.userId)).toBe(0);

    const again = await send('charge.dispute.created', d, eventId);
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { received: true } });
    const replay = await send('charge.dispute.created', d, eventId);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open' }]);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect(await ledgerSum(ctx)).toBe(0);
  });

  test('a failure while closing leaves the dispute open and owed; the resend closes it once', async () => {
    const s = await disputedWorld();
    const id = stripeId('dp');
    await send('charge.dispute.created', { id, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'needs_response' });
    const closeEvent = stripeId('evt');
    const close = { id, paymentIntent: s.share.holdId, amount: s.share.amount, status: 'won' };
    const wonBefore = (await disputeMovements(ctx))['share.dispute_won'] ?? 0;
    await q("CREATE TRIGGER refuse_won_notice BEFORE INSERT ON notifications WHEN NEW.kind = 'dispute_won' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      expect((await send('charge.dispute.closed', close, closeEvent)).status).toBe(500);
    } finally {
      await q('DROP TRIGGER refuse_won_notice');
    }
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'open', closed: false }]);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect((await disputeMovements(ctx))['share.dispute_won'] ?? 0).toBe(wonBefore);
    expect((await send('charge.dispute.closed', close, closeEvent)).status).toBe(200);
    expect((await send('charge.dispute.closed', close, closeEvent)).body).toEqual({ received: true, duplicate: true });
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'won' }]);
    expect((await disputeMovements(ctx))['share.dispute_won']).toBe(wonBefore + 1);
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect(await ledgerSum(ctx)).toBe(0);
  });
});

describe('at once', () => {
  test('the same event 20 times in parallel: applied once, the others answered as duplicates', async () => {
    const s = await disputedWorld();
    const event = stripeEvent(ctx, 'charge.dispute.created', stripeDispute({ id: stripeId('dp'), paymentIntent: s.share.holdId, amount: s.share.amount, status: 'needs_response' }));
    const movements = (await disputeMovements(ctx))['share.disputed'] ?? 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => sendEvent(ctx, event)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => !a.body.duplicate)).toHaveLength(1);
    expect(await disputesOf(ctx, s.share.id)).toHaveLength(1);
    expect((await disputeMovements(ctx))['share.disputed']).toBe(movements + 1);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect((await noticeKinds(ctx, s.w.userId)).filter((k) => k === 'dispute_opened')).toHaveLength(1);
  });

  test('created, updated and closed (lost) of one dispute in parallel, in any order: one dispute, lost, owed once', async () => {
    const s = await disputedWorld();
    const id = stripeId('dp');
    const d = (status: string) => ({ id, paymentIntent: s.share.holdId, amount: 3000, status });
    const answers = await Promise.all([
      send('charge.dispute.closed', d('lost')),
      send('charge.dispute.created', d('needs_response')),
      send('charge.dispute.updated', d('under_review')),
      send('charge.dispute.funds_withdrawn', d('needs_response')),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await disputesOf(ctx, s.share.id)).toMatchObject([{ status: 'lost', amount: 3000 }]);
    expect(await owed(ctx, s.w.userId)).toBe(3000);
    expect(await ledgerSum(ctx)).toBe(0);
  });
});
