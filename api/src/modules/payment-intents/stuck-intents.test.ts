import { afterAll, beforeAll, expect, test } from 'bun:test';
import { makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser } from '../../../test-support/world';
import { recoverStuckIntents } from './sweep';

/*
 * The money sweep gives back an intent left in `processing` by a process that died mid-payment. Sweeps run in
 * every process, at once: each stuck intent is given back once, and a claim made after a sweep read its list is
 * not touched.
 */

let ctx: TestContext;
let secretKey: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx);
  secretKey = (await createMerchant(ctx, u.cookie)).secretKey;
});
afterAll(() => ctx.close());

async function stuckIntent(): Promise<string> {
  const res = await merchantCall(ctx, secretKey, '/payment_intents', { method: 'POST', body: { amount: 1200, currency: 'usd' } });
  expect(res.status).toBe(200);
  const claimedAt = ctx.clock.now().getTime() - 10 * 60_000;
  await ctx.handle.client.execute({ sql: "UPDATE payment_intents SET status = 'processing', updated_at = ? WHERE id = ?", args: [claimedAt, res.body.id] });
  return res.body.id;
}

const statusOf = async (id: string) =>
  String((await ctx.handle.client.execute({ sql: 'SELECT status FROM payment_intents WHERE id = ?', args: [id] })).rows[0]?.status);

test('three sweeps at once: the stuck intent is given back once, and counted once', async () => {
  const id = await stuckIntent();
  const counts = await Promise.all([recoverStuckIntents(ctx.deps), recoverStuckIntents(ctx.deps), recoverStuckIntents(ctx.deps)]);
  expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
  expect(await statusOf(id)).toBe('requires_payment_method');
});

test('a claim renewed after the sweep read it (a new payment took the intent) is left to its new holder', async () => {
  const id = await stuckIntent();
  const sweep = recoverStuckIntents(ctx.deps);
  // The sweep has read the stale claim; before it writes, a new payment claims the intent (a new updated_at).
  await ctx.handle.client.execute({ sql: "UPDATE payment_intents SET status = 'processing', updated_at = ? WHERE id = ?", args: [ctx.clock.now().getTime(), id] });
  expect(await sweep).toBe(0);
  expect(await statusOf(id)).toBe('processing');
});
