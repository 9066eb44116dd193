import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, registerUser } from '../../../test-support/world';

/** GET /api/transactions/summary: the Overview's figures, by the one definition of spending (modules/spending), only the owner's. */
describe('GET /api/transactions/summary', () => {
  let ctx: TestContext;
  let cookie: string;
  let otherCookie: string;
  beforeAll(async () => {
    ctx = await makeTestApp();
    cookie = (await registerUser(ctx)).cookie;
    otherCookie = (await registerUser(ctx)).cookie;
  });
  afterAll(() => ctx.close());

  const bcard = async (amount: string, sourceId: string) =>
    call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie,
      body: { name: `Card ${amount}`, balance: amount, fundingSources: [{ fundingSourceId: sourceId, percentage: 100 }] },
    });

  test('bcards not spent are held (live) or returned (canceled), never spent; a purchase is spent, this month from monthStart', async () => {
    const source = await addCard(ctx, cookie);
    // Before the month start given below (the clock starts on 15 January 2026): $10.00, never spent.
    expect((await bcard('10.00', source.id)).status).toBe(201);
    ctx.clock.advance(10 * 24 * 3600_000); // 25 January
    expect((await bcard('25.50', source.id)).status).toBe(201);
    const kept = await bcard('4.25', source.id);
    expect(kept.status).toBe(201);
    // A canceled bcard is returned to its source: not spent.
    const canceled = await bcard('99.00', source.id);
    expect((await call(ctx, `/api/virtual-cards/${canceled.body.id}/cancel`, { method: 'POST', cookie })).status).toBe(200);
    // A failed one is nothing at all.
    expect((await bcard('20000.00', source.id)).status).toBe(402);
    // A $7.00 purchase at a merchant (the payment demo's): spent.
    const paid = await call(ctx, '/api/process-payment', {
      method: 'POST',
      cookie,
      body: { amount: '7.00', merchant: 'Corner Coffee', splits: [{ fundingSourceId: source.id, percentage: 100 }] },
    });
    expect(paid.status, paid.text).toBe(200);

    const res = await call(ctx, `/api/transactions/summary?monthStart=${encodeURIComponent('2026-01-20T00:00:00.000Z')}`, { cookie });
    expect(res.status).toBe(200);
    // The first card's session ended meanwhile, but until the sweep returns it, it is still active and held.
    expect(res.body).toMatchObject({
      totalSpent: '7.00',
      thisMonth: '7.00',
      activeBcards: 3,
      charged: '7.00',
      refunded: '0.00',
      heldOnBcards: '39.75',
      returned: '99.00',
      planCharges: '0.00',
      thisMonthPlanCharges: '0.00',
      purchases: 1,
    });
    // A month start after the purchase: nothing spent this month.
    const later = await call(ctx, `/api/transactions/summary?monthStart=${encodeURIComponent('2026-02-01T00:00:00.000Z')}`, { cookie });
    expect(later.body).toMatchObject({ totalSpent: '7.00', thisMonth: '0.00' });

    const other = await call(ctx, '/api/transactions/summary', { cookie: otherCookie });
    expect(other.body).toMatchObject({ totalSpent: '0.00', thisMonth: '0.00', activeBcards: 0, heldOnBcards: '0.00', returned: '0.00' });
  });

  test('a bad monthStart is a 400 naming it; no cookie is a 401', async () => {
    const bad = await call(ctx, '/api/transactions/summary?monthStart=yesterday', { cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('monthStart');
    expect((await call(ctx, '/api/transactions/summary')).status).toBe(401);
  });
});
