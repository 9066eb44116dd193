import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expireBcards, sweepBankDebits } from '../bcards/sweep';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import {
  addBankAccount,
  addCard,
  BANK_RETURNS_R01,
  CARDS_OK,
  createMerchant,
  login,
  makePremium,
  registerUser,
  type TestMerchant,
} from '../../../test-support/world';

/*
 * One definition of spending (issue 25, item 1), checked on every screen that shows it. One consumer's history,
 * every figure below computed by hand (premium at a 2.5 % fee; bcards live 20 days here):
 *
 *   15 Jan 12:00 UTC onwards, a minute apart:
 *   plan  upgrade to Professional from card 0                          plan charge 9.99
 *   P1    payment demo, $40.00 at Corner Coffee, card 0 (fee 1.00)     used in full: charged 40.00
 *   P2    bcard $50.00 from card 1 (fee 1.25), Acme charges $30.00     partly used: charged 30.00, returned 20.00,
 *                                                                      the fee's part of it floor(125 x 20/50) = 0.50
 *   P3    bcard $60.00 from card 0 (fee 1.50), Acme charges $60.00     refunded in part: 10.00, fee back 0.25
 *   P4    bcard $20.00 from card 1 (fee 0.50), Acme charges $20.00     refunded in full: 20.00, fee back 0.50
 *   C     bcard $30.00 from card 0 (fee 0.75), canceled unused         returned 30.00, fee back 0.75
 *   E     bcard $10.00 from card 1 (fee 0.25), never used              (expires 5 Feb: February)
 *   B     bcard $40.00, card 0 50 % + bank (R01) 50 % (fee 1.00),      charged 40.00; its bank debit is returned on
 *         Acme charges $40.00                                          5 Feb: the spend stands (the consumer owes it)
 *   5 Feb 12:00 UTC: E expires (returned 10.00, fee back 0.25), P5 $8.00 at Book Nook from card 1 (fee 0.20),
 *   H bcard $12.00 from card 0, live: held 12.00; then B's bank debit comes back returned.
 *
 *   January:  charged 40 + 30 + 60 + 20 + 40 = 190.00, refunded 10 + 20 = 30.00, spent 160.00, 5 purchases;
 *             fees 1.00 + 1.25 + 1.50 + 0.50 + 0.75 + 1.00 = 6.00, returned 0.50 + 0.25 + 0.50 + 0.75 = 2.00;
 *             returned 20 + 30 = 50.00; plan charges 9.99
 *   February: charged 8.00, spent 8.00, 1 purchase; fees 0.25 + 0.20 = 0.45, returned 0.25; returned 10.00
 *   All:      charged 198.00, refunded 30.00, spent 168.00, fees 6.45, fees returned 2.25, returned 60.00,
 *             plan charges 9.99, 6 purchases; held now 12.00 (H)
 *   By source (each spend split over its bcard's shares): card 0 P1 40 + P3 50 + B 20 = 110.00 (3);
 *             card 1 P2 30 + P4 0 + P5 8 = 38.00 (3); the bank B 20.00 (1)
 *   By merchant: Acme Shop charged 150.00, refunded 30.00, spent 120.00 (4); Corner Coffee 40.00; Book Nook 8.00
 */

const FEE_BPS = 250;
let ctx: TestContext;
let creds: { email: string; password: string };
let cookie: string;
let acme: TestMerchant;
let card0: string;
let card1: string;
let bank: string;
const ids: Record<string, string> = {};

const tick = () => ctx.clock.advance(60_000);

/** Makes a bcard; answers its id and its transaction's. */
async function bcard(name: string, balance: string, split: Array<[string, number]>): Promise<{ id: string; tx: string }> {
  const res = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name, balance, fundingSources: split.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })) },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, tx: res.body.transactionId };
}

/** Acme charges the bcard `cents` through a payment intent; answers the intent's id. */
async function acmeCharges(bcardId: string, cents: number): Promise<string> {
  const d = await call(ctx, `/api/virtual-cards/${bcardId}/checkout-details`, { cookie });
  expect(d.status, d.text).toBe(200);
  const pi = await merchantCall(ctx, acme.secretKey, '/payment_intents', { method: 'POST', body: { amount: cents, currency: 'usd' } });
  const confirmed = await merchantCall(ctx, acme.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  expect(confirmed.body.status, confirmed.text).toBe('succeeded');
  return pi.body.id;
}

async function acmeRefunds(intentId: string, cents?: number) {
  const res = await merchantCall(ctx, acme.secretKey, '/refunds', { method: 'POST', body: { payment_intent: intentId, ...(cents ? { amount: cents } : {}) } });
  expect(res.body.status, res.text).toBe('succeeded');
}

async function demoPurchase(merchant: string, amount: string, sourceId: string): Promise<string> {
  const res = await call(ctx, '/api/process-payment', {
    method: 'POST',
    cookie,
    body: { amount, merchant, splits: [{ fundingSourceId: sourceId, percentage: 100 }] },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.transaction.id;
}

beforeAll(async () => {
  ctx = await makeTestApp({ bcardTtlMs: 20 * 86_400_000 });
  const c = await registerUser(ctx);
  const merchantOwner = await registerUser(ctx);
  creds = c;
  cookie = c.cookie;
  await makePremium(ctx, merchantOwner.user.id);
  acme = await createMerchant(ctx, merchantOwner.cookie, 'production', { businessName: 'Acme Shop' });
  card0 = (await addCard(ctx, cookie, CARDS_OK[0])).id;
  card1 = (await addCard(ctx, cookie, CARDS_OK[1])).id;

  // The plan charge, on the free plan: Professional for 9.99.
  const upgraded = await call(ctx, '/api/subscription/upgrade', {
    method: 'POST',
    cookie,
    body: { tierId: 'tier_pro', fundingSourceId: card0 },
    headers: { 'idempotency-key': 'spending-upgrade' },
  });
  expect(upgraded.status, upgraded.text).toBe(200);
  expect(upgraded.body.receipt).toMatchObject({ status: 'succeeded', amount: '9.99' });
  // Then premium at 2.5 % (no monthly limits; a test shortcut, no charge of its own).
  await makePremium(ctx, c.user.id, FEE_BPS);
  bank = (await addBankAccount(ctx, cookie, BANK_RETURNS_R01)).id;

  tick();
  ids.p1 = await demoPurchase('Corner Coffee', '40.00', card0);
  tick();
  const p2 = await bcard('Partly', '50.00', [[card1, 100]]);
  await acmeCharges(p2.id, 3000);
  ids.p2 = p2.tx;
  tick();
  const p3 = await bcard('Shoes', '60.00', [[card0, 100]]);
  await acmeRefunds(await acmeCharges(p3.id, 6000), 1000);
  ids.p3 = p3.tx;
  tick();
  const p4 = await bcard('Returned shoes', '20.00', [[card1, 100]]);
  await acmeRefunds(await acmeCharges(p4.id, 2000));
  ids.p4 = p4.tx;
  tick();
  const canceled = await bcard('Canceled', '30.00', [[card0, 100]]);
  expect((await call(ctx, `/api/virtual-cards/${canceled.id}/cancel`, { method: 'POST', cookie })).status).toBe(200);
  ids.c = canceled.tx;
  tick();
  ids.e = (await bcard('Expiring', '10.00', [[card1, 100]])).tx;
  tick();
  const b = await bcard('Bank split', '40.00', [[card0, 50], [bank, 50]]);
  await acmeCharges(b.id, 4000);
  ids.b = b.tx;

  // 5 February 12:00 UTC.
  ctx.clock.advance(21 * 86_400_000 - 7 * 60_000);
  cookie = (await login(ctx, creds.email, creds.password)).cookie!;
  expect(await expireBcards(ctx.deps)).toBe(1);
  tick();
  ids.p5 = await demoPurchase('Book Nook', '8.00', card1);
  tick();
  ids.h = (await bcard('Held', '12.00', [[card0, 100]])).tx;
  tick();
  expect(SIM_ACH_SETTLEMENT_MS).toBeLessThan(21 * 86_400_000);
  expect(await sweepBankDebits(ctx.deps)).toBe(1);
  const standing = await call(ctx, '/api/funding-sources/bank-standing', { cookie });
  expect(standing.body).toMatchObject({ owed: '20.50', restricted: true });
});
afterAll(() => ctx.close());

const ALL = {
  charged: '198.00',
  refunded: '30.00',
  spent: '168.00',
  fees: '6.45',
  feesReturned: '2.25',
  returned: '60.00',
  planCharges: '9.99',
  purchases: 6,
};

describe('one definition of spending on every screen', () => {
  test("Overview's summary: spent at merchants all time and this month, held, returned, fees, plan charges apart", async () => {
    const res = await call(ctx, `/api/transactions/summary?monthStart=${encodeURIComponent('2026-02-01T00:00:00.000Z')}`, { cookie });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      totalSpent: '168.00',
      thisMonth: '8.00',
      activeBcards: 1,
      charged: '198.00',
      refunded: '30.00',
      heldOnBcards: '12.00',
      returned: '60.00',
      fees: '6.45',
      feesReturned: '2.25',
      planCharges: '9.99',
      thisMonthPlanCharges: '0.00',
      purchases: 6,
    });
    // January as the viewer's month: its spending and its plan charge.
    const jan = await call(ctx, `/api/transactions/summary?monthStart=${encodeURIComponent('2026-01-01T00:00:00.000Z')}`, { cookie });
    expect(jan.body).toMatchObject({ totalSpent: '168.00', thisMonth: '168.00', thisMonthPlanCharges: '9.99' });
  });

  test('Analytics: the same totals, by month, by source and by merchant', async () => {
    const res = await call(ctx, '/api/analytics?from=2026-01&to=2026-02&top=20', { cookie });
    expect(res.status, res.text).toBe(200);
    expect(res.body.totals).toEqual(ALL);
    const [jan, feb] = res.body.months;
    expect(jan).toEqual({
      month: '2026-01',
      charged: '190.00',
      refunded: '30.00',
      spent: '160.00',
      fees: '6.00',
      feesReturned: '2.00',
      returned: '50.00',
      planCharges: '9.99',
      purchases: 5,
      sources: [
        { fundingSourceId: card0, spent: '110.00' },
        { fundingSourceId: card1, spent: '30.00' },
        { fundingSourceId: bank, spent: '20.00' },
      ],
    });
    expect(feb).toEqual({
      month: '2026-02',
      charged: '8.00',
      refunded: '0.00',
      spent: '8.00',
      fees: '0.45',
      feesReturned: '0.25',
      returned: '10.00',
      planCharges: '0.00',
      purchases: 1,
      sources: [{ fundingSourceId: card1, spent: '8.00' }],
    });
    expect(res.body.sources.map((s: Record<string, unknown>) => [s.fundingSourceId, s.spent, s.purchases])).toEqual([
      [card0, '110.00', 3],
      [card1, '38.00', 3],
      [bank, '20.00', 1],
    ]);
    expect(res.body.merchants).toEqual([
      { merchant: 'Acme Shop', charged: '150.00', refunded: '30.00', spent: '120.00', purchases: 4 },
      { merchant: 'Corner Coffee', charged: '40.00', refunded: '0.00', spent: '40.00', purchases: 1 },
      { merchant: 'Book Nook', charged: '8.00', refunded: '0.00', spent: '8.00', purchases: 1 },
    ]);
    expect(res.body.otherMerchants).toBeNull();
  });

  test('Analytics CSV: the same figures', async () => {
    const res = await call(ctx, '/api/analytics.csv?from=2026-01&to=2026-02&top=20', { cookie });
    expect(res.status).toBe(200);
    const lines = res.text.trimEnd().split('\r\n');
    for (const line of [
      'spent,2026-01,,160.00,5',
      'refunded,2026-01,,30.00,5',
      'returned,2026-01,,50.00,5',
      'plan_charges,2026-01,,9.99,5',
      'spent,2026-02,,8.00,1',
      'returned,2026-02,,10.00,1',
      'merchant_spent,all,Acme Shop,120.00,4',
      'spent,all,,168.00,6',
      'charged,all,,198.00,6',
      'fees,all,,6.45,6',
      'fees_returned,all,,2.25,6',
      'returned,all,,60.00,6',
      'plan_charges,all,,9.99,6',
    ]) {
      expect(lines).toContain(line);
    }
    expect(lines.some((l) => l.includes('Not spent at a merchant'))).toBe(false);
  });

  test('Recent Activity: purchases at what they finally cost, money returned, the plan charge; the purchases add up to the spending', async () => {
    const res = await call(ctx, '/api/spending/activity?limit=20', { cookie });
    expect(res.status, res.text).toBe(200);
    const rows = res.body.map((i: Record<string, unknown>) => [i.kind, i.title, i.amount, i.charged, i.refunded, i.transactionId]);
    expect(rows).toEqual([
      ['purchase', 'Book Nook', '8.00', '8.00', '0.00', ids.p5],
      ['returned', 'Expiring', '10.25', '10.25', '0.00', ids.e],
      ['purchase', 'Acme Shop', '40.00', '40.00', '0.00', ids.b],
      ['returned', 'Canceled', '30.75', '30.75', '0.00', ids.c],
      ['purchase', 'Acme Shop', '0.00', '20.00', '20.00', ids.p4],
      ['purchase', 'Acme Shop', '50.00', '60.00', '10.00', ids.p3],
      ['purchase', 'Acme Shop', '30.00', '30.00', '0.00', ids.p2],
      ['purchase', 'Corner Coffee', '40.00', '40.00', '0.00', ids.p1],
      ['plan_charge', 'Professional', '9.99', '9.99', '0.00', null],
    ]);
    // The live bcard H is held, not activity.
    expect(rows.map((r: unknown[]) => r[5])).not.toContain(ids.h);
    const purchases = res.body.filter((i: { kind: string }) => i.kind === 'purchase');
    expect(purchases.reduce((a: number, i: { amount: string }) => a + Math.round(Number(i.amount) * 100), 0)).toBe(16800);
    // limit: the newest first.
    const two = await call(ctx, '/api/spending/activity?limit=2', { cookie });
    expect(two.body.map((i: { title: string }) => i.title)).toEqual(['Book Nook', 'Expiring']);
  });

  test("Transactions: each purchase's amount and its merchant's refunds agree with the activity", async () => {
    // P3: a $60.00 purchase refunded $10.00 (with 0.25 of the fee): 50.00 spent.
    const p3 = await call(ctx, `/api/transactions/${ids.p3}`, { cookie });
    expect(p3.status).toBe(200);
    expect(p3.body.amount).toBe('60.00');
    expect(p3.body.refunds.map((r: { amount: string; fee: string; status: string }) => [r.amount, r.fee, r.status])).toEqual([['10.00', '0.25', 'succeeded']]);
    const p4 = await call(ctx, `/api/transactions/${ids.p4}`, { cookie });
    expect(p4.body.refunds.map((r: { amount: string; fee: string }) => [r.amount, r.fee])).toEqual([['20.00', '0.50']]);
    // The list holds every bcard's transaction once (the live one included), the sandbox none.
    const list = await call(ctx, '/api/transactions?limit=100', { cookie });
    expect(list.status).toBe(200);
    const byId = new Map(list.body.map((t: { id: string; amount: string; merchant: string }) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual(Object.values(ids).sort());
    expect(byId.get(ids.p1)).toMatchObject({ merchant: 'Corner Coffee', amount: '40.00' });
    expect(byId.get(ids.p5)).toMatchObject({ merchant: 'Book Nook', amount: '8.00' });
  });

  test('another user sees none of it; bad input is a clear error', async () => {
    const other = await registerUser(ctx);
    const sum = await call(ctx, '/api/transactions/summary', { cookie: other.cookie });
    expect(sum.body).toMatchObject({ totalSpent: '0.00', heldOnBcards: '0.00', returned: '0.00', planCharges: '0.00', purchases: 0 });
    expect((await call(ctx, '/api/spending/activity', { cookie: other.cookie })).body).toEqual([]);
    for (const q of ['?limit=0', '?limit=21', '?limit=1.5', '?limit=many']) {
      const bad = await call(ctx, `/api/spending/activity${q}`, { cookie });
      expect(bad.status, q).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'limit', message: 'limit must be a whole number between 1 and 20.' });
    }
    expect((await call(ctx, '/api/spending/activity')).status).toBe(401);
  });
});
