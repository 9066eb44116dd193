import { afterAll, beforeAll, expect, test } from 'bun:test';
import { merchantCall } from '../../../../test-support/app';
import { paidIntent, prepare, refund, world, type Prepared } from '../../../../test-support/modules/refunds-hostile';

/*
 * Found in review (low), fixed: "refund what is left" (no amount) reads what is left outside the reserving transaction and then
 * reserves that fixed figure. When a partial refund commits in between, the full refund is refused with
 * "Refund amount ($10.00) is greater than the amount not yet refunded … ($7.00)", param amount, although the client
 * sent no amount; it should refund the $7.00 that is left (compute the amount inside the guarded statement).
 */
let p: Prepared;
beforeAll(async () => { p = await prepare(); });
afterAll(() => p.template.close());

test('a refund of what is left, racing a partial refund, refunds what is left', async () => {
  const { ctx } = await world(p);
  const pi = await paidIntent(p, ctx, '10.00', [50, 50]);
  const [part, rest] = await Promise.all([
    refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 300 }),
    refund(ctx, p.live.secretKey, { payment_intent: pi.id }),
  ]);
  expect(part.status).toBe(200);
  expect({ status: rest.status, body: rest.status === 200 ? 'ok' : rest.body.error }).toEqual({ status: 200, body: 'ok' });
  expect((await merchantCall(ctx, p.live.secretKey, `/payment_intents/${pi.id}`)).body.amount_refunded).toBe(1000);
  ctx.close();
});
