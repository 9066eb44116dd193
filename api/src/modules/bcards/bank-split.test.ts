import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import {
  addBankAccount,
  addCard,
  BANK_LOW_BALANCE,
  BANK_OK,
  BANK_RETURNS_R01,
  createMerchant,
  makePremium,
  registerUser,
  setTier,
  type TestMerchant,
} from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { adminDashboard } from '../admin/figures';
import { BANK_EXPOSURE_CAP_CENTS } from '../funding-sources/bank-standing';
import { sweepBankDebits } from './sweep';

/*
 * A bank share in an all-or-nothing split (docs/DECISIONS.md "Bank accounts in a split"): the balance is checked with
 * the card holds, the debit initiated after every card hold is captured, the bcard issued at once; the debit settles
 * or comes back R01 by the test clock. Returned with the bcard unused: the bcard is canceled and the card shares
 * refunded; returned after use: the account is restricted and shows what is owed. The plan caps unsettled bank
 * debits. The ledger stays balanced throughout (moneyViolations), and merchant refunds reach the bank account.
 */

let template: TestContext;
let consumer: { cookie: string; id: string };
let card: string;
let bank: string;
let r01: string;
let low: string;
let owner: { cookie: string };
let live: TestMerchant;

beforeAll(async () => {
  template = await makeTestApp();
  const c = await registerUser(template);
  const o = await registerUser(template);
  await makePremium(template, c.user.id);
  await makePremium(template, o.user.id);
  consumer = { cookie: c.cookie, id: c.user.id };
  owner = { cookie: o.cookie };
  card = (await addCard(template, c.cookie)).id;
  bank = (await addBankAccount(template, c.cookie, BANK_OK)).id;
  r01 = (await addBankAccount(template, c.cookie, BANK_RETURNS_R01)).id;
  low = (await addBankAccount(template, c.cookie, BANK_LOW_BALANCE)).id;
  live = await createMerchant(template, o.cookie, 'production');
});
afterAll(() => template.close());

const fork = () => forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false });

async function createBcard(ctx: TestContext, split: Array<[string, number]>, balance = '100.00', cookie = consumer.cookie) {
  return call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name: 'Split', balance, fundingSources: split.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })) },
  });
}

async function rows(ctx: TestContext, sql: string, args: Array<string | number> = []) {
  return (await ctx.handle.client.execute({ sql, args })).rows;
}

async function expectBalanced(ctx: TestContext) {
  const r = await moneyReport(ctx);
  // The low-balance test account starts at $5.00, not the $10,000.00 moneyViolations assumes: left out.
  const lowToken = (await rows(ctx, 'SELECT vendor_token AS t FROM funding_sources WHERE id = ?', [low]))[0]?.t;
  const lowId = lowToken ? low : '';
  expect(moneyViolations({ ...r, sources: r.sources.filter((s) => s.id !== lowId) })).toEqual([]);
}

const standing = async (ctx: TestContext) => (await call(ctx, '/api/funding-sources/bank-standing', { cookie: consumer.cookie })).body;

/** Pays `cents` of the bcard at the live merchant (a bcard is single use: this uses it). */
async function spend(ctx: TestContext, bcardId: string, cents: number) {
  const d = await call(ctx, `/api/virtual-cards/${bcardId}/checkout-details`, { cookie: consumer.cookie });
  const pi = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: cents, currency: 'usd' } });
  const confirmed = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  expect(confirmed.body.status, confirmed.text).toBe('succeeded');
  return pi.body.id as string;
}

describe('a card and a bank account in one split', () => {
  test('succeeds at once: the card is captured, the debit initiated and pending; it settles after the window', async () => {
    const ctx = await fork();
    const res = await createBcard(ctx, [[card, 60], [bank, 40]]);
    expect(res.status, res.text).toBe(201);
    const shares = await rows(ctx, "SELECT cs.status, cs.amount_cents AS a, f.type FROM collection_shares cs JOIN funding_sources f ON f.id = cs.funding_source_id ORDER BY cs.position");
    expect(shares.map((s) => [s.type, s.status])).toEqual([['credit_card', 'captured'], ['bank_account', 'captured']]);
    const bankCents = Number(shares[1]!.a);
    expect((await rows(ctx, 'SELECT status FROM bank_debits')).map((r) => r.status)).toEqual(['pending']);
    expect(await standing(ctx)).toMatchObject({ owed: '0.00', restricted: false, unsettledBankExposure: (bankCents / 100).toFixed(2) });
    expect(await ledgerBalance(ctx, `funding_source:${bank}`)).toBe(-bankCents);
    await expectBalanced(ctx);

    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS - 1000);
    expect(await sweepBankDebits(ctx.deps)).toBe(0);
    ctx.clock.advance(1000);
    expect(await sweepBankDebits(ctx.deps)).toBe(1);
    expect((await rows(ctx, 'SELECT status FROM bank_debits')).map((r) => r.status)).toEqual(['settled']);
    expect((await standing(ctx)).unsettledBankExposure).toBe('0.00');
    ctx.close();
  });

  test("the bank account's balance is checked with the card holds: too little, and nothing is charged or held", async () => {
    const ctx = await fork();
    const res = await createBcard(ctx, [[card, 50], [low, 50]], '20.00');
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('insufficient_funds');
    expect(res.body.error.message).toContain('•••• 9991');
    expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE status = 'held'")).toHaveLength(0);
    expect(await rows(ctx, 'SELECT 1 FROM bank_debits')).toHaveLength(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('a declined card share fails the split before any debit is initiated', async () => {
    const ctx = await fork();
    const declining = (await addCard(ctx, consumer.cookie, '4000000000000341')).id;
    const res = await createBcard(ctx, [[bank, 50], [declining, 50]]);
    expect(res.status).toBe(402);
    expect(await rows(ctx, 'SELECT 1 FROM bank_debits')).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE id LIKE 'sim_debit%'")).toHaveLength(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('an unverified bank account cannot fund a split', async () => {
    const ctx = await fork();
    const pending = await addBankAccount(ctx, consumer.cookie, '000000004444', { verify: false });
    const res = await createBcard(ctx, [[card, 50], [pending.id, 50]]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'bank_account_not_verified', param: 'fundingSources.1.fundingSourceId' });
    ctx.close();
  });
});

describe('a returned bank debit (R01)', () => {
  test('with the bcard unused: the bcard is canceled, the card share refunded, the collection failed, nothing owed', async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [r01, 50]]);
    expect(made.status).toBe(201);
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    expect(await sweepBankDebits(ctx.deps)).toBe(1);
    expect((await rows(ctx, 'SELECT status FROM bcards WHERE id = ?', [made.body.id]))[0]!.status).toBe('canceled');
    const [col] = await rows(ctx, 'SELECT status, failure_code AS code, failure_message AS msg FROM collections');
    expect(col).toMatchObject({ status: 'failed', code: 'bank_debit_returned' });
    // bpay's words are written when read (issue 25), from the debit's stored return code.
    const tx = await call(ctx, `/api/transactions/${made.body.transactionId}`, { cookie: consumer.cookie });
    expect(tx.status).toBe(200);
    expect(String(tx.body.failureMessage)).toContain('R01');
    const shares = await rows(ctx, 'SELECT status FROM collection_shares ORDER BY position');
    expect(shares.map((s) => s.status)).toEqual(['refunded', 'returned']);
    expect(await ledgerBalance(ctx, `funding_source:${card}`)).toBe(0);
    expect(await ledgerBalance(ctx, `funding_source:${r01}`)).toBe(0);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    expect(await standing(ctx)).toMatchObject({ owed: '0.00', restricted: false });
    expect((await standing(ctx)).returnedDebits).toHaveLength(1);
    // The admin's deduction success rate counts the returned share as failed: 1 of 2 shares went through.
    expect((await adminDashboard(ctx.handle.db, ctx.clock)).fundingDeductions.successRate).toBe(50);
    await expectBalanced(ctx);
    // Not restricted: a new bcard can be made.
    expect((await createBcard(ctx, [[card, 100]], '5.00')).status).toBe(201);
    ctx.close();
  });

  test('after the bcard was used: restricted, what is owed shown, no new bcards; the ledger holds it as a receivable', async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [r01, 50]]);
    const bankCents = Number((await rows(ctx, 'SELECT amount_cents AS a FROM collection_shares WHERE position = 1'))[0]!.a);
    await spend(ctx, made.body.id, 10000);
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    const s = await standing(ctx);
    expect(s).toMatchObject({ owed: (bankCents / 100).toFixed(2), restricted: true });
    expect(s.returnedDebits[0]).toMatchObject({ bcardName: 'Split', returnCode: 'R01', fundingSourceId: r01 });
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-bankCents);
    expect(await ledgerBalance(ctx, `funding_source:${r01}`)).toBe(0);
    const refused = await createBcard(ctx, [[card, 100]], '5.00');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('account_restricted');
    expect(refused.body.error.message).toContain(`$${(bankCents / 100).toFixed(2)}`);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('used for less than its limit: the card part of the remainder goes back at once, the bank part reduces what is owed', async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [r01, 50]]);
    await spend(ctx, made.body.id, 6000);
    // The remainder ($40.00): the card's half went back to the card at once; the bank's half waits for the debit
    // (the collection stays refunding, and its ledger movement is written once every share is settled).
    expect(await rows(ctx, 'SELECT status FROM collection_shares ORDER BY position').then((r) => r.map((x) => x.status))).toEqual(['refunded', 'captured']);
    const [col] = await rows(ctx, 'SELECT status FROM collections');
    expect(col!.status).toBe('refunding');
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    const shares = await rows(ctx, 'SELECT amount_cents AS a FROM collection_shares ORDER BY position');
    const bankCents = Number(shares[1]!.a);
    const [after] = await rows(ctx, 'SELECT status, refunded_cents AS r FROM collections');
    expect(after!.status).toBe('completed');
    const owed = -(await ledgerBalance(ctx, `receivable:${consumer.id}`));
    // The $40.00 remainder goes back with its part of the fee (floor(fee × 40 / 100)), half of it the bank share's:
    // owed is the bank share less that part.
    const fee = Number((await rows(ctx, 'SELECT fee_cents AS f FROM collections'))[0]!.f);
    expect(owed).toBe(bankCents - (4000 + Math.floor((fee * 4000) / 10000)) / 2);
    expect(fee).toBe(190);
    expect(owed).toBe(5095 - 2038);
    expect((await standing(ctx)).owed).toBe((owed / 100).toFixed(2));
    await expectBalanced(ctx);
    ctx.close();
  });
});

describe('canceling and refunding with a bank share', () => {
  test('an unused bcard canceled while its debit is pending: the card share goes back now, the bank share once it settles', async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [bank, 50]]);
    const canceled = await call(ctx, `/api/virtual-cards/${made.body.id}/cancel`, { method: 'POST', cookie: consumer.cookie });
    expect(canceled.status, canceled.text).toBe(200);
    expect(await rows(ctx, 'SELECT status FROM collection_shares ORDER BY position').then((r) => r.map((x) => x.status))).toEqual(['refunded', 'captured']);
    expect((await rows(ctx, 'SELECT status FROM collections'))[0]!.status).toBe('refunding');
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    expect((await rows(ctx, 'SELECT status FROM collections'))[0]!.status).toBe('refunded');
    expect(await rows(ctx, 'SELECT status FROM collection_shares ORDER BY position').then((r) => r.map((x) => x.status))).toEqual(['refunded', 'refunded']);
    expect(await ledgerBalance(ctx, `funding_source:${bank}`)).toBe(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test("a merchant refund reaches the bank account's share, back to the bank account", async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [bank, 50]]);
    const pi = await spend(ctx, made.body.id, 10000);
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    const before = await ledgerBalance(ctx, `funding_source:${bank}`);
    const refunded = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi } });
    expect(refunded.body.status, refunded.text).toBe('succeeded');
    const parts = await rows(ctx, 'SELECT funding_source_id AS s, amount_cents AS a, status FROM refund_parts');
    const bankPart = parts.find((p) => p.s === bank);
    expect(bankPart).toMatchObject({ status: 'succeeded' });
    expect(await ledgerBalance(ctx, `funding_source:${bank}`)).toBe(before + Number(bankPart!.a));
    await expectBalanced(ctx);
    ctx.close();
  });
});

describe("the plan's cap on unsettled bank debits", () => {
  test('a bank share above the cap is refused; debits settling add up; settling frees the room', async () => {
    const ctx = await fork();
    const u = await registerUser(ctx);
    await setTier(ctx, u.user.id, 'tier_free');
    const c = (await addCard(ctx, u.cookie)).id;
    const b = (await addBankAccount(ctx, u.cookie, '000000007777')).id;
    const cap = BANK_EXPOSURE_CAP_CENTS.free!;
    expect(cap).toBe(50_000);
    const over = await createBcard(ctx, [[b, 100]], '501.00', u.cookie);
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe('bank_exposure_limit_reached');
    expect(over.body.error.message).toContain('$500.00');
    expect((await createBcard(ctx, [[c, 50], [b, 50]], '600.00', u.cookie)).status).toBe(201); // $300 from the bank
    const second = await createBcard(ctx, [[c, 50], [b, 50]], '600.00', u.cookie);
    expect(second.body.error?.code).toBe('bank_exposure_limit_reached');
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepBankDebits(ctx.deps);
    expect((await createBcard(ctx, [[c, 50], [b, 50]], '600.00', u.cookie)).status).toBe(201);
    ctx.close();
  });
});

describe('merchant refunds and bank debits', () => {
  test('a refund while the debit is pending stays pending, and goes through once the debit settles', async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [bank, 50]]);
    const pi = await spend(ctx, made.body.id, 10000);
    const refunded = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi } });
    expect(refunded.body.status, refunded.text).toBe('pending');
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    await sweepMoney(ctx.deps);
    const after = await merchantCall(ctx, live.secretKey, `/refunds/${refunded.body.id}`);
    expect(after.body.status).toBe('succeeded');
    await expectBalanced(ctx);
    ctx.close();
  });

  test("a refund of a purchase whose bank debit was returned reduces what is owed instead of paying the bank", async () => {
    const ctx = await fork();
    const made = await createBcard(ctx, [[card, 50], [r01, 50]]);
    const pi = await spend(ctx, made.body.id, 10000);
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    const owedBefore = -(await ledgerBalance(ctx, `receivable:${consumer.id}`));
    expect(owedBefore).toBeGreaterThan(0);
    const refunded = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi } });
    expect(refunded.body.status, refunded.text).toBe('succeeded');
    const bankPart = (await rows(ctx, 'SELECT amount_cents AS a, vendor_refund_id AS v FROM refund_parts WHERE funding_source_id = ?', [r01]))[0]!;
    expect(bankPart.v).toBe('offset:owed');
    expect(0 - (await ledgerBalance(ctx, `receivable:${consumer.id}`)) + 0).toBe(owedBefore - Number(bankPart.a));
    expect((await standing(ctx)).restricted).toBe(owedBefore - Number(bankPart.a) > 0);
    expect(await ledgerBalance(ctx, `funding_source:${r01}`)).toBe(0);
    await expectBalanced(ctx);
    ctx.close();
  });
});
