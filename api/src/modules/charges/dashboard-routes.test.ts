import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../../../test-support/world';

/*
 * The merchant dashboard's charges (issue 28 §2): the payment detail reads a payment's charge behind the owner's session,
 * the same object as GET /api/v1/charges answers; another user's merchant, and another merchant's intent or charge, are 404.
 */

let ctx: TestContext;
let owner: { cookie: string };
let stranger: { cookie: string };
let shop: TestMerchant;
let otherShop: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  owner = await registerUser(ctx);
  stranger = await registerUser(ctx);
  shop = await createMerchant(ctx, owner.cookie, 'sandbox');
  otherShop = await createMerchant(ctx, stranger.cookie, 'sandbox');
});
afterAll(() => ctx.close());

/** A sandbox payment of 3000 cents by a test bcard split over two test cards. */
async function paidSplit(m: TestMerchant): Promise<{ id: string; latest_charge: string }> {
  const card = await merchantCall(ctx, m.secretKey, '/test_helpers/bcards', {
    method: 'POST',
    body: { amount: 3000, allocations: [{ amount: 2000, source: 'tok_visa' }, { amount: 1000, source: 'tok_visa_debit' }] },
  });
  expect(card.status).toBe(200);
  const pi = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 3000, currency: 'usd' } });
  const paid = await merchantCall(ctx, m.secretKey, `/payment_intents/${pi.body.id}/confirm`, { method: 'POST', body: { payment_method: card.body.id } });
  expect(paid.body.status).toBe('succeeded');
  return paid.body;
}

const dashboard = (cookie: string, path: string) => call(ctx, path, { cookie });

describe('the dashboard reads a payment’s charge', () => {
  test('by payment intent and by id: the same charge as the merchant API answers, with its split', async () => {
    const pi = await paidSplit(shop);
    const viaApi = (await merchantCall(ctx, shop.secretKey, `/charges/${pi.latest_charge}`)).body;
    expect(viaApi.allocations).toHaveLength(2);
    const listed = await dashboard(owner.cookie, `/api/merchants/${shop.id}/charges?payment_intent=${pi.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ object: 'list', url: `/api/merchants/${shop.id}/charges`, has_more: false, data: [viaApi] });
    const one = await dashboard(owner.cookie, `/api/merchants/${shop.id}/charges/${pi.latest_charge}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(viaApi);
    expect(one.body.allocations.map((a: { amount: number; funding: string }) => [a.amount, a.funding])).toEqual([
      [2000, 'credit'],
      [1000, 'debit'],
    ]);
  });

  test('an intent not paid yet: an empty list', async () => {
    const pi = await merchantCall(ctx, shop.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } });
    const listed = await dashboard(owner.cookie, `/api/merchants/${shop.id}/charges?payment_intent=${pi.body.id}`);
    expect(listed.body.data).toEqual([]);
  });

  test("another user's merchant, another merchant's intent or charge: 404; no session: 401", async () => {
    const pi = await paidSplit(shop);
    const theirs = await paidSplit(otherShop);
    // The stranger asks through the owner's merchant id.
    expect((await dashboard(stranger.cookie, `/api/merchants/${shop.id}/charges?payment_intent=${pi.id}`)).status).toBe(404);
    expect((await dashboard(stranger.cookie, `/api/merchants/${shop.id}/charges/${pi.latest_charge}`)).status).toBe(404);
    // The owner asks, through their own merchant, for the stranger's intent and charge.
    const byIntent = await dashboard(owner.cookie, `/api/merchants/${shop.id}/charges?payment_intent=${theirs.id}`);
    expect({ status: byIntent.status, param: byIntent.body.error?.param }).toEqual({ status: 404, param: 'payment_intent' });
    expect((await dashboard(owner.cookie, `/api/merchants/${shop.id}/charges/${theirs.latest_charge}`)).status).toBe(404);
    expect((await call(ctx, `/api/merchants/${shop.id}/charges?payment_intent=${pi.id}`)).status).toBe(401);
  });
});
