import { afterAll, beforeAll, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addBankAccount, registerUser } from '../../../test-support/world';

/*
 * AUDIT: a plan can be "paid" with a bank account (payableSource never looks at the source type): the card-only
 * hold path is called with a bank token, so the user gets a 500 and the attempt blocks plan changes until the sweep.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
});
afterAll(() => ctx.close());

test('paying for a plan with a bank account is refused with a clear 4xx and leaves nothing pending', async () => {
  const u = await registerUser(ctx);
  const bank = await addBankAccount(ctx, u.cookie);
  const res = await call(ctx, '/api/subscription/upgrade', {
    method: 'POST',
    cookie: u.cookie,
    headers: { 'idempotency-key': 'audit3-bank-plan' },
    body: { tierId: 'tier_pro', fundingSourceId: bank.id },
  });
  expect(res.status, res.text).toBeLessThan(500);
  expect(res.status, res.text).toBe(400);
  const pending = await ctx.handle.client.execute({ sql: "SELECT status FROM subscription_charges WHERE user_id = ?", args: [u.user.id] });
  expect(pending.rows.map((r) => r.status)).not.toContain('pending');
});
