import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import {
  addCard,
  CARDS_OK,
  createMerchant,
  login,
  makePremium,
  registerUser,
  testBcardCard,
  type TestMerchant,
} from '../../../test-support/world';

/*
 * GET /api/analytics against a world computed by hand: a consumer on premium at a 2.5 % fee with three cards, whose
 * January and February hold an unspent bcard, two purchases, a canceled (refunded) bcard, a failed bcard, a
 * checkout at a live merchant that the merchant partly refunds, a purchase at 23:30 UTC on 31 January (February at
 * UTC+1), and a sandbox test bcard of the consumer's own sandbox merchant. Another user's spending is never counted.
 * Spending is what merchants charged less what they refunded (modules/spending): the unspent bcard is held, not
 * spent; the canceled one is returned, not spent.
 */

const FEE_BPS = 250;
let ctx: TestContext;
let cookie: string;
let otherCookie: string;
let creds: { email: string; password: string };
let otherCreds: { email: string; password: string };

/** Sessions last 14 days: after a jump of the clock, both users sign in again. */
async function signInAgain() {
  cookie = (await login(ctx, creds.email, creds.password)).cookie!;
  otherCookie = (await login(ctx, otherCreds.email, otherCreds.password)).cookie!;
}
let src: string[];
let live: TestMerchant;

const bcard = (name: string, balance: string, split: Array<[number, number]>) =>
  call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name, balance, fundingSources: split.map(([i, p]) => ({ fundingSourceId: src[i], percentage: p })) },
  });

const purchase = (merchant: string, amount: string, split: Array<[number, number]>) =>
  call(ctx, '/api/process-payment', {
    method: 'POST',
    cookie,
    body: { amount, merchant, splits: split.map(([i, p]) => ({ fundingSourceId: src[i], percentage: p })) },
  });

beforeAll(async () => {
  ctx = await makeTestApp();
  const c = await registerUser(ctx);
  const o = await registerUser(ctx);
  const x = await registerUser(ctx);
  cookie = c.cookie;
  otherCookie = x.cookie;
  creds = c;
  otherCreds = x;
  await makePremium(ctx, c.user.id, FEE_BPS);
  await makePremium(ctx, o.user.id);
  await makePremium(ctx, x.user.id);
  src = [];
  for (const n of CARDS_OK.slice(0, 3)) src.push((await addCard(ctx, cookie, n)).id);
  live = await createMerchant(ctx, o.cookie, 'production', { businessName: 'Acme Shop' });
  const mySandbox = await createMerchant(ctx, cookie, 'sandbox', { businessName: 'My Test Shop' });

  // 15 January 2026, 12:00 UTC.
  // A: $100.00 at 50/50 of cards 0 and 1, unspent: fee 2.50, shares 51.25 + 51.25.
  expect((await bcard('Travel', '100.00', [[0, 50], [1, 50]])).status).toBe(201);
  // B: $40.00 at Corner Coffee from card 0: fee 1.00.
  expect((await purchase('Corner Coffee', '40.00', [[0, 100]])).status).toBe(200);
  // C: $20.00 from card 1, canceled unused: refunded in full, fee included (20.50).
  const canceled = await bcard('Gift', '20.00', [[1, 100]]);
  expect((await call(ctx, `/api/virtual-cards/${canceled.body.id}/cancel`, { method: 'POST', cookie })).status).toBe(200);
  // D: more than the card holds: fails, never counted.
  expect((await bcard('Too much', '20000.00', [[2, 100]])).status).toBe(402);
  // A sandbox test bcard of the consumer's own sandbox merchant: play money, never counted.
  await testBcardCard(ctx, mySandbox.secretKey, 1500);
  // Another user's spending.
  const otherSource = await addCard(ctx, otherCookie);
  expect(
    (await call(ctx, '/api/process-payment', { method: 'POST', cookie: otherCookie, body: { amount: '77.00', merchant: 'Corner Coffee', splits: [{ fundingSourceId: otherSource.id, percentage: 100 }] } })).status,
  ).toBe(200);

  // G: 31 January 23:30 UTC, $10.00 at Late Night from card 1: fee 0.25. January in UTC, February at UTC+1.
  ctx.clock.advance(16 * 86_400_000 + 11.5 * 3_600_000);
  await signInAgain();
  expect((await purchase('Late Night', '10.00', [[1, 100]])).status).toBe(200);

  // 15 February 12:00 UTC.
  ctx.clock.advance(14 * 86_400_000 + 12.5 * 3_600_000);
  await signInAgain();
  // E: a $60.00 checkout at Acme Shop paid with a bcard from card 2 (fee 1.50), of which Acme refunds $10.00 (fee 0.25 back).
  const made = await bcard('Shoes', '60.00', [[2, 100]]);
  expect(made.status).toBe(201);
  const details = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie });
  const pi = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 6000, currency: 'usd' } });
  const card = { number: details.body.cardNumber, exp_month: details.body.expiryMonth, exp_year: details.body.expiryYear, cvc: details.body.cvv };
  const confirmed = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  expect(confirmed.body.status).toBe('succeeded');
  const refund = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.body.id, amount: 1000 } });
  expect(refund.body.status).toBe('succeeded');
  // F: $8.00 at Book Nook from card 0: fee 0.20.
  expect((await purchase('Book Nook', '8.00', [[0, 100]])).status).toBe(200);
});
afterAll(() => ctx.close());

const get = (q: string, c: string | null = cookie) => call(ctx, `/api/analytics${q}`, { cookie: c });

describe('GET /api/analytics', () => {
  test('by month: spent at merchants (charged - refunded), fees, returned, every month listed', async () => {
    const res = await get('?months=3');
    expect(res.status, res.text).toBe(200);
    expect(res.body.range).toEqual({ from: '2025-12', to: '2026-02', utcOffset: 0 });
    expect(res.body.currency).toBe('usd');
    expect(res.body.months.map((m: { month: string }) => m.month)).toEqual(['2025-12', '2026-01', '2026-02']);
    const [dec, jan, feb] = res.body.months;
    const zero = { charged: '0.00', refunded: '0.00', spent: '0.00', fees: '0.00', feesReturned: '0.00', returned: '0.00', planCharges: '0.00', purchases: 0 };
    expect(dec).toEqual({ month: '2025-12', ...zero, sources: [] });
    // January: B 40 + G 10 spent; fees B 1.00 + G 0.25 + C 0.50; C canceled unused: 20.00 returned, its 0.50 fee too.
    // A (100.00, unspent, live) is held: in no month.
    expect(jan).toMatchObject({ charged: '50.00', refunded: '0.00', spent: '50.00', fees: '1.75', feesReturned: '0.50', returned: '20.00', purchases: 2 });
    // February: E 60 (Acme refunds 10.00, fee 0.25 back) + F 8.
    expect(feb).toMatchObject({ charged: '68.00', refunded: '10.00', spent: '58.00', fees: '1.70', feesReturned: '0.25', returned: '0.00', purchases: 2 });
    expect(res.body.totals).toEqual({
      charged: '118.00',
      refunded: '10.00',
      spent: '108.00',
      fees: '3.45',
      feesReturned: '0.75',
      returned: '20.00',
      planCharges: '0.00',
      purchases: 4,
    });
  });

  test('by source: each source’s part of the spending, overall and each month', async () => {
    const res = await get('?from=2026-01&to=2026-02');
    expect(res.status).toBe(200);
    // Card 0: B 40 + F 8; card 1: G 10; card 2: E 60 - 10. A and C were never spent.
    expect(res.body.sources.map((s: Record<string, unknown>) => [s.fundingSourceId, s.spent, s.purchases, s.removed])).toEqual([
      [src[2], '50.00', 1, false],
      [src[0], '48.00', 2, false],
      [src[1], '10.00', 1, false],
    ]);
    expect(res.body.sources[0]).toMatchObject({ name: 'Ada Lovelace', last4: CARDS_OK[2]!.slice(-4) });
    const [jan, feb] = res.body.months;
    expect(jan.sources).toEqual([
      { fundingSourceId: src[0], spent: '40.00' },
      { fundingSourceId: src[1], spent: '10.00' },
    ]);
    expect(feb.sources).toEqual([
      { fundingSourceId: src[2], spent: '50.00' },
      { fundingSourceId: src[0], spent: '8.00' },
    ]);
  });

  test('by merchant: the top n by amount spent, then the rest together; no unspent bcards among them', async () => {
    const all = await get('?from=2026-01&to=2026-02&top=20');
    expect(all.body.merchants).toEqual([
      { merchant: 'Acme Shop', charged: '60.00', refunded: '10.00', spent: '50.00', purchases: 1 },
      { merchant: 'Corner Coffee', charged: '40.00', refunded: '0.00', spent: '40.00', purchases: 1 },
      { merchant: 'Late Night', charged: '10.00', refunded: '0.00', spent: '10.00', purchases: 1 },
      { merchant: 'Book Nook', charged: '8.00', refunded: '0.00', spent: '8.00', purchases: 1 },
    ]);
    expect(all.body.otherMerchants).toBeNull();
    const top2 = await get('?from=2026-01&to=2026-02&top=2');
    expect(top2.body.merchants.map((m: { merchant: string }) => m.merchant)).toEqual(['Acme Shop', 'Corner Coffee']);
    expect(top2.body.otherMerchants).toEqual({ spent: '18.00', purchases: 2, merchants: 2 });
  });

  test('months begin at the viewer’s offset: 23:30 UTC on 31 January is February at UTC+1', async () => {
    const utc = await get('?from=2026-01&to=2026-01');
    expect(utc.body.totals).toMatchObject({ spent: '50.00', purchases: 2 });
    const plus1 = await get('?from=2026-01&to=2026-01&utcOffset=60');
    expect(plus1.body.range).toEqual({ from: '2026-01', to: '2026-01', utcOffset: 60 });
    expect(plus1.body.totals).toMatchObject({ spent: '40.00', purchases: 1 });
    const febPlus1 = await get('?from=2026-02&to=2026-02&utcOffset=60');
    expect(febPlus1.body.totals).toMatchObject({ spent: '68.00', purchases: 3 });
    // months counts back from the viewer's current month.
    expect((await get('?months=1')).body.range).toEqual({ from: '2026-02', to: '2026-02', utcOffset: 0 });
    expect((await get('')).body.range).toEqual({ from: '2025-03', to: '2026-02', utcOffset: 0 });
  });

  test('nothing of another user, and a new user sees zeros', async () => {
    const other = await get('?months=2', otherCookie);
    expect(other.body.totals).toMatchObject({ spent: '77.00', purchases: 1 });
    expect(other.body.merchants).toEqual([{ merchant: 'Corner Coffee', charged: '77.00', refunded: '0.00', spent: '77.00', purchases: 1 }]);
    const fresh = await registerUser(ctx);
    const empty = await get('?months=2', fresh.cookie);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ sources: [], merchants: [], otherMerchants: null });
    expect(empty.body.totals).toMatchObject({ spent: '0.00', returned: '0.00', purchases: 0 });
    expect(empty.body.months).toHaveLength(2);
  });

  test('the sandbox test bcard exists and is left out', async () => {
    const { rows } = await ctx.handle.client.execute({ sql: "SELECT count(*) AS n FROM collections WHERE kind = 'sandbox' AND status = 'completed'", args: [] });
    expect(Number(rows[0]!.n)).toBe(1);
    const res = await get('?months=2&top=20');
    expect(res.body.merchants.map((m: { merchant: string }) => m.merchant)).not.toContain('My Test Shop');
    expect(res.body.totals.spent).toBe('108.00');
  });

  const bad: Array<{ name: string; q: string; param: string; message: string }> = [
    { name: 'months 0', q: '?months=0', param: 'months', message: 'months must be a whole number between 1 and 36.' },
    { name: 'months 37', q: '?months=37', param: 'months', message: 'months must be a whole number between 1 and 36.' },
    { name: 'months 1.5', q: '?months=1.5', param: 'months', message: 'months must be a whole number between 1 and 36.' },
    { name: 'months words', q: '?months=twelve', param: 'months', message: 'months must be a whole number between 1 and 36.' },
    { name: 'months with from/to', q: '?months=3&from=2026-01&to=2026-02', param: 'months', message: 'Give either months or from and to, not both.' },
    { name: 'from alone', q: '?from=2026-01', param: 'to', message: 'to is required with from (a month, YYYY-MM).' },
    { name: 'to alone', q: '?to=2026-01', param: 'from', message: 'from is required with to (a month, YYYY-MM).' },
    { name: 'from a date', q: '?from=2026-01-01&to=2026-02', param: 'from', message: 'from must be a month written YYYY-MM (for example 2026-01).' },
    { name: 'month 13', q: '?from=2026-01&to=2026-13', param: 'to', message: 'to must be a month written YYYY-MM (for example 2026-01).' },
    { name: 'to before from', q: '?from=2026-02&to=2026-01', param: 'to', message: 'to must not be before from.' },
    { name: 'span too long', q: '?from=2020-01&to=2026-01', param: 'from', message: 'The range can span at most 36 months.' },
    { name: 'utcOffset 900', q: '?utcOffset=900', param: 'utcOffset', message: 'utcOffset must be a whole number of minutes between -840 and 840.' },
    { name: 'top 0', q: '?top=0', param: 'top', message: 'top must be a whole number between 1 and 20.' },
    { name: 'top 21', q: '?top=21', param: 'top', message: 'top must be a whole number between 1 and 20.' },
  ];
  for (const b of bad) {
    test(`400 for ${b.name}`, async () => {
      for (const path of ['', '.csv']) {
        const res = await call(ctx, `/api/analytics${path}${b.q}`, { cookie });
        expect(res.status, res.text).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'validation_error', param: b.param, message: b.message });
      }
    });
  }

  test('401 without a session', async () => {
    expect((await get('', null)).status).toBe(401);
    expect((await call(ctx, '/api/analytics.csv')).status).toBe(401);
  });
});

describe('GET /api/analytics.csv', () => {
  test('the same figures, one a row, formula-safe', async () => {
    // A merchant name a spreadsheet would run as a formula.
    expect((await purchase('=HYPERLINK("http://evil")', '1.00', [[0, 100]])).status).toBe(200);
    const res = await call(ctx, '/api/analytics.csv?from=2026-01&to=2026-02&top=20', { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="bpay-analytics-2026-01-to-2026-02.csv"');
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('figure,month,item,amount,transactions');
    expect(lines).toContain('spent,2026-01,,50.00,2');
    expect(lines).toContain('returned,2026-01,,20.00,2');
    expect(lines).toContain('refunded,2026-02,,10.00,3');
    expect(lines).toContain('charged,2026-02,,69.00,3');
    expect(lines).toContain(`source_spent,2026-02,Ada Lovelace •••• ${CARDS_OK[2]!.slice(-4)},50.00,`);
    expect(lines).toContain('merchant_spent,all,Acme Shop,50.00,1');
    expect(lines.some((l) => l.includes('Not spent at a merchant'))).toBe(false);
    expect(lines).toContain(`merchant_spent,all,"'=HYPERLINK(""http://evil"")",1.00,1`);
    expect(lines).toContain('fees_returned,all,,0.75,5');
    expect(lines).toContain('spent,all,,109.00,5');
  });
});
