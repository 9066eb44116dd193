import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, registerUser } from '../../../test-support/world';

/** GET /api/transactions/summary: the Overview's figures, summed by the database, only the owner's. */
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

  test('sums completed transactions, this month from monthStart, and counts active bcards', async () => {
    const source = await addCard(ctx, cookie);
    // Before the month start given below (the clock starts on 15 January 2026): $10.00.
    expect((await bcard('10.00', source.id)).status).toBe(201);
    ctx.clock.advance(10 * 24 * 3600_000); // 25 January
    expect((await bcard('25.50', source.id)).status).toBe(201);
    const kept = await bcard('4.25', source.id);
    expect(kept.status).toBe(201);
    // A canceled bcard is refunded: not spent.
    const canceled = await bcard('99.00', source.id);
    expect((await call(ctx, `/api/virtual-cards/${canceled.body.id}/cancel`, { method: 'POST', cookie })).status).toBe(200);
    // A failed one is not spent either.
    expect((await bcard('20000.00', source.id)).status).toBe(402);

    const res = await call(ctx, `/api/transactions/summary?monthStart=${encodeURIComponent('2026-01-20T00:00:00.000Z')}`, { cookie });
    expect(res.status).toBe(200);
    // The first card's session ended meanwhile, but until the sweep refunds it, it is still completed and active.
    expect(res.body).toEqual({ totalSpent: '39.75', thisMonth: '29.75', activeBcards: 3 });

    const other = await call(ctx, '/api/transactions/summary', { cookie: otherCookie });
    expect(other.body).toEqual({ totalSpent: '0.00', thisMonth: '0.00', activeBcards: 0 });
  });

  test('a bad monthStart is a 400 naming it; no cookie is a 401', async () => {
    const bad = await call(ctx, '/api/transactions/summary?monthStart=yesterday', { cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('monthStart');
    expect((await call(ctx, '/api/transactions/summary')).status).toBe(401);
  });
});
