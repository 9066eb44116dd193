import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { TestContext } from '../../../test-support/app';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import {
  authorizationLater,
  authorizationRequest,
  issuingTransaction,
  issuingWorld,
  makeStripeApp,
  newBcard,
  sendEvent,
  settled,
  stripeEvent,
  stripeId,
  STUB_SECRET_KEY,
  type IssuingWorld,
} from '../../../test-support/modules/stripe-issuing';

/*
 * Notices from Stripe Issuing's events (issue 25; events.test.ts has the rest): a merchant's refund of a bcard purchase
 * is told once with where it went, however often Stripe sends its event; a decline Stripe made alone is told once per
 * authorization; a released hold is not a refund and tells nothing.
 */

let stub: StripeStub;
let ctx: TestContext;
let w: IssuingWorld;

beforeAll(async () => {
  stub = startStripeStub({ secretKey: STUB_SECRET_KEY });
  ctx = await makeStripeApp(stub);
  w = await issuingWorld(ctx);
});
afterAll(async () => {
  ctx.close();
  await stub.stop();
});

async function facts(userId: string, kind: string): Promise<Array<Record<string, unknown>>> {
  const rows = (await ctx.handle.client.execute({ sql: 'SELECT params FROM notifications WHERE user_id = ? AND kind = ? ORDER BY seq', args: [userId, kind] })).rows;
  return rows.map((r) => JSON.parse(String(r.params)) as Record<string, unknown>);
}

test("a merchant's refund through Stripe: one notice with each card's part, a replayed event adds none; a released hold tells nothing", async () => {
  const bcard = await newBcard(ctx, w);
  const input = { id: stripeId('iauth'), cardId: bcard.cardId, amount: 8000 };
  const res = await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.request', authorizationRequest(input)));
  expect(res.body?.approved, res.text).toBe(true);
  await settled(ctx, bcard);
  expect(await facts(w.userId, 'bcard_spent')).toHaveLength(1);

  // Captured for less: the hold's rest is released (money back, but no merchant refund).
  await sendEvent(ctx, stripeEvent(ctx, 'issuing_transaction.created', issuingTransaction({ cardId: bcard.cardId, authorization: input.id, type: 'capture', amount: 6000 })));
  const closed = authorizationLater(input, { approved: true, status: 'closed', amount: 0, requested: 8000, transactions: [{ type: 'capture', amount: 6000 }] });
  expect((await sendEvent(ctx, stripeEvent(ctx, 'issuing_authorization.updated', closed))).status).toBe(200);
  expect(await facts(w.userId, 'merchant_refund')).toEqual([]);

  const before = await ctx.handle.client.execute({
    sql: "SELECT p.account AS a, p.amount_cents AS c FROM ledger_movements m JOIN ledger_postings p ON p.movement_id = m.id WHERE m.kind = 'issuing.refunded'",
    args: [],
  });
  expect(before.rows).toHaveLength(0);
  const refund = stripeEvent(ctx, 'issuing_transaction.created', issuingTransaction({ cardId: bcard.cardId, authorization: null, type: 'refund', amount: 3000 }));
  expect((await sendEvent(ctx, refund)).body).toEqual({ received: true });
  expect((await sendEvent(ctx, refund)).body).toEqual({ received: true, duplicate: true });

  // Where the money went, as the ledger moved it.
  const moved = (
    await ctx.handle.client.execute({
      sql: "SELECT p.account AS a, p.amount_cents AS c FROM ledger_movements m JOIN ledger_postings p ON p.movement_id = m.id WHERE m.kind = 'issuing.refunded' AND p.account LIKE 'funding_source:%'",
      args: [],
    })
  ).rows.map((r) => ({ account: String(r.a), cents: Number(r.c) }));
  const sources = (await ctx.handle.client.execute({ sql: 'SELECT id, name, last4 FROM funding_sources WHERE user_id = ?', args: [w.userId] })).rows;
  const partOf = (id: string) => moved.find((m) => m.account === `funding_source:${id}`)!.cents;
  const total = moved.reduce((a, m) => a + m.cents, 0);
  expect(total).toBeGreaterThanOrEqual(3000);
  expect(await facts(w.userId, 'merchant_refund')).toEqual([
    {
      merchant: 'Example Shop',
      amount: (total / 100).toFixed(2),
      parts: w.sources.map((id) => {
        const s = sources.find((r) => String(r.id) === id)!;
        return { name: String(s.name), last4: String(s.last4), amount: (partOf(id) / 100).toFixed(2) };
      }),
      transactionId: bcard.collectionId,
    },
  ]);
}, 60_000);

test('a decline Stripe made alone (never asked bpay) is told once, however often its event comes', async () => {
  const bcard = await newBcard(ctx, w);
  const input = { id: stripeId('iauth'), cardId: bcard.cardId, amount: 2500, merchant: { name: 'Night Market' } };
  const declined = stripeEvent(
    ctx,
    'issuing_authorization.created',
    authorizationLater(input, { approved: false, status: 'closed', amount: 0, requested: 2500, reason: 'card_expired' }),
  );
  expect((await sendEvent(ctx, declined)).status).toBe(200);
  expect((await sendEvent(ctx, declined)).body).toEqual({ received: true, duplicate: true });
  const updated = stripeEvent(
    ctx,
    'issuing_authorization.updated',
    authorizationLater(input, { approved: false, status: 'closed', amount: 0, requested: 2500, reason: 'card_expired' }),
  );
  expect((await sendEvent(ctx, updated)).status).toBe(200);
  expect((await facts(w.userId, 'bcard_declined')).filter((f) => f.bcardId === bcard.id)).toEqual([
    { bcardId: bcard.id, bcardName: 'Split', merchant: 'Night Market', amount: '25.00', reason: 'expired' },
  ]);
}, 60_000);
