import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, bcardCard, CARD_DECLINES_CHARGES, createMerchant, registerUser, testBcardCard } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';

/*
 * The dashboard's bcard card reads "N issued of M attempts" next to the success rate: issued, total (attempts) and
 * successRate must describe the same collections, so the caption and the rate agree.
 */
let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  await makeAdmin(ctx);
  token = await adminToken(ctx);
});
afterAll(() => ctx.close());

const dashboard = async () => {
  const res = await adminCall(ctx, token, '/api/admin/dashboard');
  expect(res.status).toBe(200);
  return res.body as { bcardGeneration: { successRate: number; total: number; issued: number }; bcardsToday: number };
};

describe('bcard generation figures', () => {
  test('issued counts successful collections, total counts finished attempts; in-flight and sandbox ones are left out', async () => {
    expect((await dashboard()).bcardGeneration).toEqual({ successRate: 100, total: 0, issued: 0 });

    // One bcard issued.
    const ok = await registerUser(ctx);
    const okSource = await addCard(ctx, ok.cookie);
    await bcardCard(ctx, ok.cookie, okSource.id, '25.00');
    expect((await dashboard()).bcardGeneration).toEqual({ successRate: 100, total: 1, issued: 1 });

    // One attempt whose only source declines: a failed collection, no bcard.
    const declined = await registerUser(ctx);
    const badSource = await addCard(ctx, declined.cookie, CARD_DECLINES_CHARGES);
    const refused = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: declined.cookie,
      body: { name: 'Declined card', balance: '10.00', fundingSources: [{ fundingSourceId: badSource.id, percentage: 100 }] },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const [failed] = await ctx.handle.db.select().from(schema.collections).where(eq(schema.collections.userId, declined.user.id));
    expect(failed?.status).toBe('failed');
    expect((await dashboard()).bcardGeneration).toEqual({ successRate: 50, total: 2, issued: 1 });

    // A collection still holding its shares is not an attempt yet; a merchant's sandbox test bcard is play money.
    await ctx.handle.db.insert(schema.collections).values({ ...failed!, id: 'col_in_flight', status: 'holding', idempotencyKey: null });
    const merchant = await createMerchant(ctx, ok.cookie);
    await testBcardCard(ctx, merchant.secretKey, 1500);
    const d = await dashboard();
    expect(d.bcardGeneration).toEqual({ successRate: 50, total: 2, issued: 1 });
    // The issued figure is the bcards consumers got: the same number the bcards table holds for them.
    expect(d.bcardsToday).toBe(1);

    // Two of three: the rate keeps one decimal and is issued / total.
    await bcardCard(ctx, ok.cookie, okSource.id, '5.00');
    expect((await dashboard()).bcardGeneration).toEqual({ successRate: 66.7, total: 3, issued: 2 });
  });
});
