// Hostile review of issue 26 part 2: Stripe dispute events of odd shapes and odd pairings.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { memoryLogger, type TestContext } from '../../../test-support/app';
import { disputesOf, ledgerSum, owed, stripeDispute, type StripeDisputeInput } from '../../../test-support/modules/disputes';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import { issuingWorld, makeStripeApp, newBcard, sendEvent, stripeEvent, stripeId } from '../../../test-support/modules/stripe-issuing';

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

const count = async (table: string) => Number((await ctx.handle.client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
const send = (type: string, d: StripeDisputeInput & { id: string }) => sendEvent(ctx, stripeEvent(ctx, type, stripeDispute(d)));

async function world() {
  const w = await issuingWorld(ctx);
  const bcard = await newBcard(ctx, w);
  return { w, bcard, a: bcard.shares[0]!, b: bcard.shares[1]! };
}

describe('odd Stripe disputes', () => {
  test('an amount of 0 and an unknown status: 200, nothing owed', async () => {
    const s = await world();
    const before = await count('share_disputes');
    expect((await send('charge.dispute.created', { id: stripeId('dp'), paymentIntent: s.a.holdId, amount: 0, status: 'needs_response' })).status).toBe(200);
    expect((await send('charge.dispute.created', { id: stripeId('dp'), paymentIntent: s.a.holdId, amount: 100, status: 'weird_new_status' })).status).toBe(200);
    expect(await count('share_disputes')).toBe(before);
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect(await ledgerSum(ctx)).toBe(0);
  });

  test('two disputes of one share: the second takes only what the first left', async () => {
    const s = await world();
    await send('charge.dispute.created', { id: stripeId('dp'), paymentIntent: s.a.holdId, amount: s.a.amount - 100, status: 'needs_response' });
    await send('charge.dispute.created', { id: stripeId('dp'), paymentIntent: s.a.holdId, amount: s.a.amount, status: 'needs_response' });
    expect(await owed(ctx, s.w.userId)).toBe(s.a.amount);
    expect(await ledgerSum(ctx)).toBe(0);
  });

  test('one dispute id named with another share: the first share’s dispute is not closed by it', async () => {
    const s = await world();
    const id = stripeId('dp');
    await send('charge.dispute.created', { id, paymentIntent: s.a.holdId, amount: s.a.amount, status: 'needs_response' });
    const res = await send('charge.dispute.closed', { id, paymentIntent: s.b.holdId, amount: s.b.amount, status: 'won' });
    expect(res.status).toBeLessThan(500);
    expect((await disputesOf(ctx, s.a.id)).map((d) => d.status)).toEqual(['open']);
    expect(await disputesOf(ctx, s.b.id)).toEqual([]);
    expect(await owed(ctx, s.w.userId)).toBe(s.a.amount);
    expect(await ledgerSum(ctx)).toBe(0);
  });

  test('the created event arriving after the close does not set the processor status back to needs_response', async () => {
    const s = await world();
    const id = stripeId('dp');
    await send('charge.dispute.closed', { id, paymentIntent: s.a.holdId, amount: 1000, status: 'lost' });
    await send('charge.dispute.created', { id, paymentIntent: s.a.holdId, amount: 1000, status: 'needs_response' });
    expect(await disputesOf(ctx, s.a.id)).toMatchObject([{ status: 'lost', vendorStatus: 'lost' }]);
  });
});
