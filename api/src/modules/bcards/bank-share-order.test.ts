import { afterAll, beforeAll, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addBankAccount, addCard, makePremium, registerUser } from '../../../test-support/world';

/*
 * AUDIT: settleRefund walks the shares in position order and throws BankDebitPendingError at the first bank share
 * whose debit is still settling. When the bank account is listed BEFORE the card in the split, the card share is never
 * reached: canceling an unused bcard keeps the consumer's card money until the ACH debit settles (~4 business days),
 * contrary to "the card share goes back now" (bank-split.test.ts tests only the card-first order).
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
});
afterAll(() => ctx.close());

test('canceling an unused bcard refunds its card share at once, whatever the order of the split', async () => {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const card = (await addCard(ctx, u.cookie)).id;
  const bank = (await addBankAccount(ctx, u.cookie)).id;
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: u.cookie,
    body: { name: 'Split', balance: '100.00', fundingSources: [{ fundingSourceId: bank, percentage: 50 }, { fundingSourceId: card, percentage: 50 }] },
  });
  expect(made.status, made.text).toBe(201);
  const canceled = await call(ctx, `/api/virtual-cards/${made.body.id}/cancel`, { method: 'POST', cookie: u.cookie });
  expect(canceled.status, canceled.text).toBe(200);
  const shares = await ctx.handle.client.execute({
    sql: 'SELECT f.type AS type, cs.status AS status FROM collection_shares cs JOIN funding_sources f ON f.id = cs.funding_source_id',
    args: [],
  });
  const cardShare = shares.rows.find((r) => r.type !== 'bank_account');
  expect(cardShare?.status).toBe('refunded');
});
