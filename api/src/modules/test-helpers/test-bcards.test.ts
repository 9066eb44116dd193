import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { expireBcards } from '../bcards/sweep';
import { accountBalance, accounts } from '../ledger/service';
import { createIntent, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';

/*
 * POST /api/v1/test_helpers/bcards: a sandbox bcard that pays a payment intent exactly like a consumer's bcard,
 * funded from sandbox:test_funds, invisible in the owner's consumer screens, expiring like any bcard.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let sandbox: Merchant;
let other: Merchant;
let live: Merchant;

const makeCard = (m: Merchant, body: unknown = { amount: 2500 }, headers?: Record<string, string>) =>
  v1(ctx, m.key, '/test_helpers/bcards', { method: 'POST', body, headers });

beforeAll(async () => {
  ctx = await makeTestApp();
  owner = await registerUser(ctx);
  sandbox = await newMerchant(ctx, owner.cookie, 'sandbox');
  live = await newMerchant(ctx, owner.cookie, 'production');
  other = await newMerchant(ctx, (await registerUser(ctx)).cookie, 'sandbox');
});
afterAll(() => ctx.close());

describe('creating a test bcard', () => {
  test('answers the card once, with its limit, expiry and sandbox flag; the number and CVC are not stored', async () => {
    const res = await makeCard(sandbox, { amount: 2500, currency: 'usd' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'test_bcard', limit: 2500, currency: 'usd', livemode: false });
    expect(res.body.id).toMatch(/^bc_/);
    expect(res.body.number).toMatch(/^\d{16}$/);
    expect(res.body.cvc).toMatch(/^\d{3}$/);
    expect(res.body.expires_at).toBe(Math.floor(ctx.clock.now().getTime() / 1000) + 30 * 60);
    const row = await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, res.body.id) });
    expect(row).toMatchObject({ sandbox: true, lockedMerchantId: sandbox.id, userId: owner.user.id, limitCents: 2500, status: 'active' });
    // Neither the bcard tables, the simulator nor the idempotency records hold the number or CVC.
    const dump = JSON.stringify(
      await Promise.all(
        ['bcards', 'sim_issued_cards', 'idempotency_keys', 'collections', 'bcard_reveals'].map(
          async (t) => (await ctx.handle.client.execute(`SELECT * FROM ${t}`)).rows,
        ),
      ),
    );
    expect(dump).not.toContain(res.body.number);
    expect(await accountBalance(ctx.handle.db, accounts.bcard(res.body.id))).toBe(2500);
  });

  test.each([
    ['too small', { amount: 49 }, 'amount', 'validation_error'],
    ['too large', { amount: 100_000_000 }, 'amount', 'validation_error'],
    ['not an integer', { amount: 25.5 }, 'amount', 'validation_error'],
    ['a string', { amount: '2500' }, 'amount', 'validation_error'],
    ['another currency', { amount: 2500, currency: 'eur' }, 'currency', 'validation_error'],
    // Stripe's names for a parameter it does not know and one left out (the merchant API).
    ['an unknown field', { amount: 2500, limit: 1 }, 'limit', 'parameter_unknown'],
    ['no amount', {}, 'amount', 'parameter_missing'],
  ])('%s is refused, naming the field', async (_name, body, param, code) => {
    const res = await makeCard(sandbox, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  test('a production key answers 400 test_mode_only and makes nothing', async () => {
    const before = await ctx.handle.db.select().from(schema.bcards);
    const res = await makeCard(live);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'test_mode_only', message: 'Test helpers are available in sandbox only.' });
    expect(await ctx.handle.db.select().from(schema.bcards)).toHaveLength(before.length);
  });

  test('no key is 401; a session cookie is no key', async () => {
    expect((await v1(ctx, null, '/test_helpers/bcards', { method: 'POST', body: { amount: 100 } })).status).toBe(401);
    expect((await v1(ctx, null, '/test_helpers/bcards', { method: 'POST', body: { amount: 100 }, cookie: owner.cookie })).status).toBe(401);
  });

  test('Idempotency-Key: a retry answers the same card (number included) and makes no second one; another body is refused', async () => {
    const first = await makeCard(sandbox, { amount: 700 }, { 'idempotency-key': 'trigger-1' });
    const again = await makeCard(sandbox, { amount: 700 }, { 'idempotency-key': 'trigger-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const rows = await ctx.handle.db.select().from(schema.bcards).where(eq(schema.bcards.limitCents, 700));
    expect(rows).toHaveLength(1);
    const changed = await makeCard(sandbox, { amount: 800 }, { 'idempotency-key': 'trigger-1' });
    expect(changed.status).toBe(400);
    expect(changed.body.error.code).toBe('idempotency_error');
  });
});

describe('paying with a test bcard', () => {
  test('by number: the intent succeeds, the merchant is credited, payment_intent.succeeded is recorded', async () => {
    const card = (await makeCard(sandbox, { amount: 1500 })).body;
    const pi = await createIntent(ctx, sandbox, 1500);
    const before = await accountBalance(ctx.handle.db, accounts.merchant(sandbox.id));
    const res = await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card: { number: card.number, exp_month: card.exp_month, exp_year: card.exp_year, cvc: card.cvc } } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', amount_received: 1500, payment_method: card.id });
    expect(await accountBalance(ctx.handle.db, accounts.merchant(sandbox.id))).toBe(before + 1500);
    const events = await v1(ctx, sandbox.key, '/events?type=payment_intent.succeeded');
    expect(events.body.data.map((e: any) => e.data.object.id)).toContain(pi);
    // Single use: a second payment with it is declined.
    const pi2 = await createIntent(ctx, sandbox, 100);
    const again = await v1(ctx, sandbox.key, `/payment_intents/${pi2}/confirm`, { method: 'POST', body: { payment_method: card.id } });
    expect(again.status).toBe(402);
    expect(again.body.error.decline_code).toBe('card_not_active');
  });

  test('by id, for less than its limit: the remainder goes back to sandbox test funds, not to any consumer source', async () => {
    const card = (await makeCard(sandbox, { amount: 5000 })).body;
    const pi = await createIntent(ctx, sandbox, 1200);
    const res = await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.id } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    expect(await accountBalance(ctx.handle.db, accounts.bcard(card.id))).toBe(0);
    const col = await ctx.handle.db.query.collections.findFirst({
      where: eq(schema.collections.id, (await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, card.id) }))!.collectionId),
    });
    expect(col).toMatchObject({ kind: 'sandbox', status: 'completed', refundedCents: 3800 });
  });

  test("another merchant cannot use it, by id or by number", async () => {
    const card = (await makeCard(sandbox, { amount: 900 })).body;
    const pi = await createIntent(ctx, other, 900);
    const byId = await v1(ctx, other.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.id } });
    expect(byId.status).toBe(400);
    const byNumber = await v1(ctx, other.key, `/payment_intents/${pi}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card: { number: card.number, exp_month: card.exp_month, exp_year: card.exp_year, cvc: card.cvc } } },
    });
    expect(byNumber.status).toBe(402);
    expect(byNumber.body.error.decline_code).toBe('merchant_not_allowed');
  });

  test('manual capture: authorized, then captured; cancel of another refunds the sandbox', async () => {
    const card = (await makeCard(sandbox, { amount: 3000 })).body;
    const made = await v1(ctx, sandbox.key, '/payment_intents', { method: 'POST', body: { amount: 3000, currency: 'usd', capture_method: 'manual' } });
    const auth = await v1(ctx, sandbox.key, `/payment_intents/${made.body.id}/confirm`, { method: 'POST', body: { payment_method: card.id } });
    expect(auth.body.status).toBe('requires_capture');
    const cap = await v1(ctx, sandbox.key, `/payment_intents/${made.body.id}/capture`, { method: 'POST', body: { amount_to_capture: 2000 } });
    expect(cap.status).toBe(200);
    expect(cap.body.amount_received).toBe(2000);

    const card2 = (await makeCard(sandbox, { amount: 400 })).body;
    const made2 = await v1(ctx, sandbox.key, '/payment_intents', { method: 'POST', body: { amount: 400, currency: 'usd', capture_method: 'manual' } });
    await v1(ctx, sandbox.key, `/payment_intents/${made2.body.id}/confirm`, { method: 'POST', body: { payment_method: card2.id } });
    const canceled = await v1(ctx, sandbox.key, `/payment_intents/${made2.body.id}/cancel`, { method: 'POST', body: {} });
    expect(canceled.body.status).toBe('canceled');
    const row = await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, card2.id) });
    expect(row?.status).toBe('canceled');
    expect(await accountBalance(ctx.handle.db, accounts.bcard(card2.id))).toBe(0);
  });
});

describe("the owner's consumer screens and the money", () => {
  test('test bcards are not in GET /api/virtual-cards, /api/transactions or the summary, and cannot be read or canceled there', async () => {
    const card = (await makeCard(sandbox, { amount: 600 })).body;
    const cards = await call(ctx, '/api/virtual-cards', { cookie: owner.cookie });
    expect(cards.status).toBe(200);
    expect(cards.body).toEqual([]);
    const txs = await call(ctx, '/api/transactions', { cookie: owner.cookie });
    expect(txs.status).toBe(200);
    expect(txs.body).toEqual([]);
    const summary = await call(ctx, '/api/transactions/summary', { cookie: owner.cookie });
    expect(summary.body).toMatchObject({ totalSpent: '0.00', activeBcards: 0 });
    for (const path of [`/api/virtual-cards/${card.id}`, `/api/virtual-cards/${card.id}/checkout-details`]) {
      expect((await call(ctx, path, { cookie: owner.cookie })).status).toBe(404);
    }
    expect((await call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: owner.cookie, body: {} })).status).toBe(404);
  });

  test('an unused test bcard expires like any bcard: deactivated, its money back in sandbox test funds', async () => {
    const card = (await makeCard(sandbox, { amount: 1100 })).body;
    ctx.clock.advance(31 * 60_000);
    expect(await expireBcards(ctx.deps)).toBeGreaterThanOrEqual(1);
    const row = await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, card.id) });
    expect(row?.status).toBe('expired');
    expect(await accountBalance(ctx.handle.db, accounts.bcard(card.id))).toBe(0);
    const sim = await ctx.handle.db.query.simIssuedCards.findFirst({ where: eq(schema.simIssuedCards.id, row!.vendorCardId) });
    expect(sim?.status).toBe('inactive');
  });

  test('double entry holds: every movement balances, bcard accounts match their state, and sandbox test funds = minus what merchants got from them', async () => {
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.movementsByKind['sandbox.funded']).toBeGreaterThan(0);
    const sandboxFunds = await accountBalance(ctx.handle.db, accounts.sandboxTestFunds);
    const merchantFunds = await accountBalance(ctx.handle.db, accounts.merchant(sandbox.id));
    const onCards = report.bcards.reduce((s, b) => s + b.ledger, 0);
    expect(sandboxFunds + merchantFunds + onCards).toBe(0);
    // No consumer source was ever touched.
    expect(await ctx.handle.db.select().from(schema.collectionShares)).toEqual([]);
  });
});
