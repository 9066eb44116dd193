import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, interceptVendor, makeTestApp, merchantCall, type TestAppOptions, type TestContext, type VendorMethod } from '../../../test-support/app';
import {
  addBankAccount,
  addCard,
  BANK_RETURNS_R01,
  CARD_DECLINES_CHARGES,
  CARDS_OK,
  createMerchant,
  makePremium,
  registerUser,
  type TestMerchant,
} from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { ledgerTotal } from '../ledger/service';
import { REPAYMENT_LEASE_MS } from './service';

/*
 * Repaying what is owed (issue 26, part 1). The world: a consumer whose bcard was paid half by card and half by a bank
 * account whose debit comes back R01 after the bcard was spent: the bank share is owed (receivable:<user>) and new
 * bcards are refused. Each test forks that world and repays it, in part or whole, from a card; the rules: only the
 * consumer's own active cards, never more than can be repaid now (also when two requests race), a decline moves
 * nothing, the restriction lifts with the payment that clears the debt, and a crash at any step is finished by the
 * money sweep without charging twice. The ledger and the processor agree after each (moneyViolations).
 */

let template: TestContext;
let consumer: { cookie: string; id: string };
let other: { cookie: string; id: string };
let card: string;
let card2: string;
let declining: string;
let r01: string;
let otherCard: string;
let owedCents: number;
let live: TestMerchant;

async function rows(ctx: TestContext, sql: string, args: Array<string | number> = []) {
  return (await ctx.handle.client.execute({ sql, args })).rows;
}

const dollars = (c: number) => (c / 100).toFixed(2);

beforeAll(async () => {
  template = await makeTestApp({ rateLimits: false });
  const c = await registerUser(template);
  const o = await registerUser(template);
  await makePremium(template, c.user.id);
  await makePremium(template, o.user.id);
  consumer = { cookie: c.cookie, id: c.user.id };
  other = { cookie: o.cookie, id: o.user.id };
  card = (await addCard(template, c.cookie)).id;
  card2 = (await addCard(template, c.cookie, CARDS_OK[1])).id;
  declining = (await addCard(template, c.cookie, CARD_DECLINES_CHARGES)).id;
  r01 = (await addBankAccount(template, c.cookie, BANK_RETURNS_R01)).id;
  otherCard = (await addCard(template, o.cookie)).id;
  live = await createMerchant(template, o.cookie, 'production');
  // A bcard paid half from the card, half from the bank account, spent in full; then the debit comes back R01.
  const made = await call(template, '/api/virtual-cards', {
    method: 'POST',
    cookie: consumer.cookie,
    body: { name: 'Groceries', balance: '100.00', fundingSources: [{ fundingSourceId: card, percentage: 50 }, { fundingSourceId: r01, percentage: 50 }] },
  });
  if (made.status !== 201) throw new Error(made.text);
  const d = await call(template, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: consumer.cookie });
  const pi = await merchantCall(template, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 10000, currency: 'usd' } });
  const confirmed = await merchantCall(template, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  if (confirmed.body.status !== 'succeeded') throw new Error(confirmed.text);
  template.clock.advance(SIM_ACH_SETTLEMENT_MS);
  await sweepMoney(template.deps);
  owedCents = -(await ledgerBalance(template, `receivable:${consumer.id}`));
  if (owedCents <= 0) throw new Error('the world owes nothing');
});
afterAll(() => template.close());

const fork = (wrapVendor?: TestAppOptions['wrapVendor']) =>
  forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false, ...(wrapVendor ? { wrapVendor } : {}) });

let keys = 0;
function repay(ctx: TestContext, body: Record<string, unknown>, opts: { key?: string | null; cookie?: string } = {}) {
  const key = opts.key === undefined ? `k-${++keys}` : opts.key;
  return call(ctx, '/api/receivables/payments', {
    method: 'POST',
    cookie: opts.cookie ?? consumer.cookie,
    body,
    headers: key === null ? {} : { 'idempotency-key': key },
  });
}

const receivables = async (ctx: TestContext) => (await call(ctx, '/api/receivables', { cookie: consumer.cookie })).body;

async function expectBalanced(ctx: TestContext) {
  expect(await ledgerTotal(ctx.deps.db)).toBe(0);
  expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
}

async function createBcard(ctx: TestContext) {
  return call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: consumer.cookie,
    body: { name: 'Again', balance: '5.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
  });
}

describe('what is owed and why', () => {
  test('the returned debit: amount, date, the bcard it paid for, the bank account, the reason in words; restricted', async () => {
    const ctx = await fork();
    const r = await receivables(ctx);
    expect(r).toMatchObject({ owed: dollars(owedCents), underDispute: '0.00', repayable: dollars(owedCents), restricted: true, repayments: [], waivers: [] });
    expect(r.returnedDebits).toHaveLength(1);
    expect(r.returnedDebits[0]).toMatchObject({ bcard: { name: 'Groceries' }, bankAccount: { id: r01, type: 'bank_account' }, returnCode: 'R01', reason: 'R01: Insufficient funds' });
    expect(Date.parse(r.returnedDebits[0].returnedAt)).toBe(template.clock.now().getTime());
    // In the reader's language.
    await ctx.handle.client.execute({ sql: "UPDATE users SET language = 'ar' WHERE id = ?", args: [consumer.id] });
    expect((await receivables(ctx)).returnedDebits[0].reason).toContain('رصيد غير كافٍ');
    expect((await call(ctx, '/api/receivables', {})).status).toBe(401);
    ctx.close();
  });

  test('another user sees nothing owed', async () => {
    const ctx = await fork();
    const r = (await call(ctx, '/api/receivables', { cookie: other.cookie })).body;
    expect(r).toMatchObject({ owed: '0.00', repayable: '0.00', restricted: false, returnedDebits: [] });
    ctx.close();
  });
});

describe('repaying', () => {
  test('in two parts: each a hold and capture, a receivable.repaid movement and a notice; the restriction lifts with the last', async () => {
    const ctx = await fork();
    const first = Math.floor(owedCents / 3);
    const a = await repay(ctx, { fundingSourceId: card, amount: dollars(first) });
    expect(a.status, a.text).toBe(201);
    expect(a.body.payment).toMatchObject({ status: 'succeeded', amount: dollars(first), fundingSource: { id: card } });
    expect(a.body.receivables).toMatchObject({ owed: dollars(owedCents - first), restricted: true });
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - first));
    expect((await createBcard(ctx)).body.error.code).toBe('account_restricted');

    ctx.clock.advance(1000); // newest first: the second a second later
    const b = await repay(ctx, { fundingSourceId: card2, amount: dollars(owedCents - first) });
    expect(b.status, b.text).toBe(201);
    expect(b.body.receivables).toMatchObject({ owed: '0.00', repayable: '0.00', restricted: false });
    expect(b.body.receivables.repayments.map((p: { amount: string }) => p.amount)).toEqual([dollars(owedCents - first), dollars(first)]);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    expect(await ledgerBalance(ctx, `funding_source:${card2}`)).toBe(-(owedCents - first));
    const moves = await rows(ctx, "SELECT reference_id FROM ledger_movements WHERE kind = 'receivable.repaid'");
    expect(moves).toHaveLength(2);
    const notices = await rows(ctx, "SELECT params FROM notifications WHERE kind = 'receivable_repaid' AND user_id = ? ORDER BY seq", [consumer.id]);
    expect(notices.map((n) => JSON.parse(String(n.params)).owed)).toEqual([dollars(owedCents - first), '0.00']);
    // The restriction is read from the receivable: the transaction that cleared it lifted it.
    const again = await createBcard(ctx);
    expect(again.status, again.text).toBe(201);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('more than can be repaid is refused naming the amount, and nothing is charged', async () => {
    const ctx = await fork();
    const res = await repay(ctx, { fundingSourceId: card, amount: dollars(owedCents + 1) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'repayment_exceeds_owed', param: 'amount' });
    expect(res.body.error.message).toContain(`$${dollars(owedCents)}`);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE idempotency_key LIKE 'repay:%'")).toHaveLength(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('bad input changes nothing: no key, a bad amount, a bank account, a paused or removed card, another user’s card', async () => {
    const ctx = await fork();
    const cases: Array<{ name: string; body: Record<string, unknown>; key?: null; status: number; code: string; param?: string }> = [
      { name: 'no Idempotency-Key', body: { fundingSourceId: card, amount: '1.00' }, key: null, status: 400, code: 'invalid_idempotency_key' },
      { name: 'zero', body: { fundingSourceId: card, amount: '0.00' }, status: 400, code: 'validation_error', param: 'amount' },
      { name: 'three decimals', body: { fundingSourceId: card, amount: '1.005' }, status: 400, code: 'validation_error', param: 'amount' },
      { name: 'negative', body: { fundingSourceId: card, amount: '-5.00' }, status: 400, code: 'validation_error', param: 'amount' },
      { name: 'a bank account', body: { fundingSourceId: r01, amount: '1.00' }, status: 400, code: 'validation_error', param: 'fundingSourceId' },
      { name: "another user's card", body: { fundingSourceId: otherCard, amount: '1.00' }, status: 404, code: 'resource_not_found', param: 'fundingSourceId' },
      { name: 'no such source', body: { fundingSourceId: 'fs_nope', amount: '1.00' }, status: 404, code: 'resource_not_found' },
    ];
    for (const c of cases) {
      const res = await repay(ctx, c.body, c.key === null ? { key: null } : {});
      expect([c.name, res.status, res.body.error?.code]).toEqual([c.name, c.status, c.code]);
      if (c.param) expect(res.body.error.param).toBe(c.param);
    }
    await ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET is_active = 0 WHERE id = ?', args: [card] });
    const paused = await repay(ctx, { fundingSourceId: card, amount: '1.00' });
    expect([paused.status, paused.body.error.code]).toEqual([400, 'validation_error']);
    expect(paused.body.error.message).toContain('paused');
    await ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET is_active = 1, deleted_at = ? WHERE id = ?', args: [Date.now(), card] });
    expect((await repay(ctx, { fundingSourceId: card, amount: '1.00' })).status).toBe(404);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(0);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-owedCents);
    ctx.close();
  });

  test('a decline: 402 with why, the payment failed, nothing moved or held', async () => {
    const ctx = await fork();
    const res = await repay(ctx, { fundingSourceId: declining, amount: '10.00' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('card_declined');
    expect(res.body.error.message).toContain('•••• 0341');
    expect(res.body.error.message).toContain('Nothing was charged');
    const [p] = await rows(ctx, 'SELECT status, failure_code AS code, failure_message AS m FROM receivable_payments');
    expect(p).toMatchObject({ status: 'failed', code: 'card_declined' });
    expect(String(p!.m).length).toBeGreaterThan(5);
    const r = await receivables(ctx);
    expect(r).toMatchObject({ owed: dollars(owedCents), restricted: true });
    expect(r.repayments[0]).toMatchObject({ status: 'failed', failureCode: 'card_declined', failureMessage: 'The card was declined.' });
    // In the reader's language.
    await ctx.handle.client.execute({ sql: "UPDATE users SET language = 'ar' WHERE id = ?", args: [consumer.id] });
    expect((await receivables(ctx)).repayments[0].failureMessage).toBe('رُفضت البطاقة.');
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-owedCents);
    expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE status = 'held'")).toHaveLength(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('the same Idempotency-Key again answers the first outcome and charges once', async () => {
    const ctx = await fork();
    const a = await repay(ctx, { fundingSourceId: card, amount: '10.00' }, { key: 'same' });
    const b = await repay(ctx, { fundingSourceId: card, amount: '10.00' }, { key: 'same' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.payment.id).toBe(a.body.payment.id);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(1);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - 1000));
    await expectBalanced(ctx);
    ctx.close();
  });

  test('repayments sent together cannot overpay: of two that each fit alone but not both, one is refused', async () => {
    const ctx = await fork();
    const part = Math.ceil((owedCents * 2) / 3);
    const results = await Promise.all([
      repay(ctx, { fundingSourceId: card, amount: dollars(part) }),
      repay(ctx, { fundingSourceId: card2, amount: dollars(part) }),
      repay(ctx, { fundingSourceId: card, amount: dollars(part) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.error.code).toBe('repayment_exceeds_owed');
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - part));
    await expectBalanced(ctx);
    ctx.close();
  });
});

describe('disputes in what is owed', () => {
  /** A dispute of the card share as part 2 records it: the row, and its amount moved to the receivable. */
  async function dispute(ctx: TestContext, status: 'open' | 'lost', cents: number) {
    const [share] = await rows(ctx, 'SELECT id, collection_id AS c FROM collection_shares WHERE funding_source_id = ?', [card]);
    const at = ctx.clock.now().getTime();
    await ctx.handle.client.execute({
      sql: `INSERT INTO share_disputes (id, user_id, share_id, collection_id, vendor, vendor_dispute_id, amount_cents, reason, status, vendor_status, opened_at, updated_at)
            VALUES (?, ?, ?, ?, 'simulated', ?, ?, 'fraudulent', ?, 'needs_response', ?, ?)`,
      args: [`dsp_${status}`, consumer.id, String(share!.id), String(share!.c), `sim_dp_${status}`, cents, status, at, at],
    });
    await ctx.handle.client.execute({ sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES (?, 'test.dispute', ?, ?)", args: [`mv_${status}`, status, at] });
    await ctx.handle.client.execute({
      sql: 'INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES (?, ?, ?), (?, ?, ?)',
      args: [`mv_${status}`, `receivable:${consumer.id}`, -cents, `mv_${status}`, `funding_source:${card}`, cents],
    });
  }

  test('an open dispute is shown under dispute and is not repayable; a lost one is', async () => {
    const ctx = await fork();
    await dispute(ctx, 'open', 2000);
    const r = await receivables(ctx);
    expect(r).toMatchObject({ owed: dollars(owedCents + 2000), underDispute: '20.00', repayable: dollars(owedCents) });
    expect(r.disputes[0]).toMatchObject({ status: 'open', amount: '20.00', bcard: { name: 'Groceries' }, card: { id: card }, reason: 'fraudulent' });
    const over = await repay(ctx, { fundingSourceId: card2, amount: dollars(owedCents + 1) });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain('$20.00 under dispute');
    // Everything outside the dispute repaid: still restricted, as the dispute is still owed.
    const ok = await repay(ctx, { fundingSourceId: card2, amount: dollars(owedCents) });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.receivables).toMatchObject({ owed: '20.00', repayable: '0.00', restricted: true });
    // Lost: it stays owed and becomes repayable.
    await ctx.handle.client.execute("UPDATE share_disputes SET status = 'lost'");
    expect(await receivables(ctx)).toMatchObject({ underDispute: '0.00', repayable: '20.00' });
    expect((await repay(ctx, { fundingSourceId: card2, amount: '20.00' })).status).toBe(201);
    expect((await receivables(ctx)).restricted).toBe(false);
    ctx.close();
  });
});

describe('a crash in the middle is finished by the money sweep', () => {
  /** A processor whose `method` "crashes" the request (a non-processor error) before or after the real call. */
  function crashing(method: VendorMethod, when: 'before' | 'after') {
    const state = { armed: true };
    const wrap = (v: Parameters<typeof interceptVendor>[0]) =>
      interceptVendor(v, async (m, _args, run) => {
        if (m !== method || !state.armed) return run();
        state.armed = false;
        if (when === 'before') throw new Error(`crash before ${m}`);
        await run();
        throw new Error(`crash after ${m}`);
      });
    return { state, wrap };
  }

  const cases: Array<{ name: string; method: VendorMethod; when: 'before' | 'after'; ends: 'succeeded' | 'failed' }> = [
    { name: 'after recording it pending (before the hold)', method: 'hold', when: 'before', ends: 'failed' },
    { name: 'after the hold (its id not recorded)', method: 'hold', when: 'after', ends: 'failed' },
    { name: 'after the hold was recorded, before the capture', method: 'capture', when: 'before', ends: 'failed' },
    { name: 'after the capture, before the final transaction', method: 'capture', when: 'after', ends: 'succeeded' },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.ends}, the ledger sums to zero, nothing charged twice`, async () => {
      const { wrap } = crashing(c.method, c.when);
      const ctx = await fork(wrap);
      const res = await repay(ctx, { fundingSourceId: card, amount: '10.00' });
      expect(res.status).toBe(500);
      expect((await rows(ctx, 'SELECT status FROM receivable_payments')).map((r) => r.status)).toEqual(['pending']);
      // Still under its lease: the sweep leaves it alone.
      await sweepMoney(ctx.deps);
      expect((await rows(ctx, 'SELECT status FROM receivable_payments')).map((r) => r.status)).toEqual(['pending']);
      ctx.clock.advance(REPAYMENT_LEASE_MS + 1);
      await sweepMoney(ctx.deps);
      const [p] = await rows(ctx, 'SELECT status, failure_code AS code FROM receivable_payments');
      expect(p!.status).toBe(c.ends);
      if (c.ends === 'failed') expect(p!.code).toBe('interrupted');
      expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(c.ends === 'succeeded' ? -(owedCents - 1000) : -owedCents);
      expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.repaid'")).toHaveLength(c.ends === 'succeeded' ? 1 : 0);
      expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE status = 'held'")).toHaveLength(0);
      // A later sweep finds nothing to do; the ledger and the card's balance agree (charged once, or not at all).
      await sweepMoney(ctx.deps);
      expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.repaid'")).toHaveLength(c.ends === 'succeeded' ? 1 : 0);
      await expectBalanced(ctx);
      ctx.close();
    });
  }

  test('a retry with the same key after the lease ran out finishes the first attempt instead of charging again', async () => {
    const { wrap } = crashing('capture', 'after');
    const ctx = await fork(wrap);
    expect((await repay(ctx, { fundingSourceId: card, amount: '10.00' }, { key: 'retry' })).status).toBe(500);
    ctx.clock.advance(REPAYMENT_LEASE_MS + 1);
    const again = await repay(ctx, { fundingSourceId: card, amount: '10.00' }, { key: 'retry' });
    expect(again.status, again.text).toBe(201);
    expect(again.body.payment.status).toBe('succeeded');
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(1);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - 1000));
    await expectBalanced(ctx);
    ctx.close();
  });

  test('captured, but what is owed went down meanwhile (waived): the final guard refuses it and the card is refunded', async () => {
    const { wrap } = crashing('capture', 'after');
    const ctx = await fork(wrap);
    expect((await repay(ctx, { fundingSourceId: card, amount: dollars(owedCents) })).status).toBe(500);
    // What is owed is forgiven in full while the captured repayment waits for the sweep.
    await ctx.handle.client.execute({ sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES ('mv_w', 'receivable.waived', 'w', 0)" });
    await ctx.handle.client.execute({
      sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES ('mv_w', ?, ?), ('mv_w', 'bpay:written_off', ?)",
      args: [`receivable:${consumer.id}`, owedCents, -owedCents],
    });
    ctx.clock.advance(REPAYMENT_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    const [p] = await rows(ctx, 'SELECT status, failure_code AS code FROM receivable_payments');
    expect(p).toMatchObject({ status: 'failed', code: 'repayment_exceeds_owed' });
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.repaid'")).toHaveLength(0);
    // The card got its money back: the processor's balance matches a ledger that never took it.
    await expectBalanced(ctx);
    ctx.close();
  });
});
