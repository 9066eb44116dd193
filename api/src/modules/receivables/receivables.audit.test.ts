import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, interceptVendor, makeTestApp, merchantCall, type TestAppOptions, type TestContext } from '../../../test-support/app';
import { addBankAccount, addCard, BANK_RETURNS_R01, createMerchant, makePremium, registerUser, type TestMerchant } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { ledgerTotal } from '../ledger/service';
import { VendorUnavailableError } from '../../vendors/types';
import { REPAYMENT_LEASE_MS } from './service';

/*
 * Hostile review of issue 26 part 1 (receivables): input, access, parallel requests and what a later merchant refund
 * does to what was repaid. The world as in repay.test.ts: a bcard paid half by card, half by a bank account whose
 * debit came back R01 after the bcard was spent.
 */

let template: TestContext;
let consumer: { cookie: string; id: string };
let other: { cookie: string; id: string };
let card: string;
let r01: string;
let otherCard: string;
let owedCents: number;
let live: TestMerchant;
let pi: string;

async function rows(ctx: TestContext, sql: string, args: Array<string | number> = []) {
  return (await ctx.handle.client.execute({ sql, args })).rows;
}
const dollars = (c: number) => (c / 100).toFixed(2);

beforeAll(async () => {
  template = await makeTestApp({ rateLimits: false });
  await makeAdmin(template);
  const c = await registerUser(template);
  const o = await registerUser(template);
  await makePremium(template, c.user.id);
  await makePremium(template, o.user.id);
  consumer = { cookie: c.cookie, id: c.user.id };
  other = { cookie: o.cookie, id: o.user.id };
  card = (await addCard(template, c.cookie)).id;
  r01 = (await addBankAccount(template, c.cookie, BANK_RETURNS_R01)).id;
  otherCard = (await addCard(template, o.cookie)).id;
  live = await createMerchant(template, o.cookie, 'production');
  const made = await call(template, '/api/virtual-cards', {
    method: 'POST',
    cookie: c.cookie,
    body: { name: 'Groceries', balance: '100.00', fundingSources: [{ fundingSourceId: card, percentage: 50 }, { fundingSourceId: r01, percentage: 50 }] },
  });
  if (made.status !== 201) throw new Error(made.text);
  const d = await call(template, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: c.cookie });
  const created = await merchantCall(template, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 10000, currency: 'usd' } });
  pi = created.body.id;
  const confirmed = await merchantCall(template, live.secretKey, `/payment_intents/${pi}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  if (confirmed.body.status !== 'succeeded') throw new Error(confirmed.text);
  template.clock.advance(SIM_ACH_SETTLEMENT_MS);
  await sweepMoney(template.deps);
  owedCents = -(await ledgerBalance(template, `receivable:${c.user.id}`));
  if (owedCents <= 0) throw new Error('the world owes nothing');
});
afterAll(() => template.close());

const fork = (wrapVendor?: TestAppOptions['wrapVendor']) =>
  forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false, ...(wrapVendor ? { wrapVendor } : {}) });

let keys = 0;
function repay(ctx: TestContext, body: unknown, opts: { key?: string | null; cookie?: string; raw?: string } = {}) {
  const key = opts.key === undefined ? `a-${++keys}` : opts.key;
  return call(ctx, '/api/receivables/payments', {
    method: 'POST',
    cookie: opts.cookie ?? consumer.cookie,
    body: body as Record<string, unknown>,
    headers: key === null ? {} : { 'idempotency-key': key },
  });
}

async function expectBalanced(ctx: TestContext) {
  expect(await ledgerTotal(ctx.deps.db)).toBe(0);
  expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
}

describe('input', () => {
  test('odd amounts and bodies: 400 with the catalogue shape, nothing written', async () => {
    const ctx = await fork();
    const bad: unknown[] = [
      { fundingSourceId: card, amount: '0' },
      { fundingSourceId: card, amount: '-1' },
      { fundingSourceId: card, amount: '1e3' },
      { fundingSourceId: card, amount: '0.001' },
      { fundingSourceId: card, amount: '12.345' },
      { fundingSourceId: card, amount: '٥' },
      { fundingSourceId: card, amount: '99999999999999999999' },
      { fundingSourceId: card, amount: '9999999999999' },
      { fundingSourceId: card, amount: 5 },
      { fundingSourceId: card, amount: null },
      { fundingSourceId: card },
      { amount: '1.00' },
      { fundingSourceId: 5, amount: '1.00' },
      { fundingSourceId: '', amount: '1.00' },
      { fundingSourceId: card, amount: '' },
      { fundingSourceId: card, amount: '1.00\u0000' },
      { fundingSourceId: card, amount: 'NaN' },
      { fundingSourceId: card, amount: 'Infinity' },
      { fundingSourceId: card, amount: '0x10' },
      [],
      'text',
    ];
    for (const b of bad) {
      const res = await repay(ctx, b);
      expect(res.status, `${JSON.stringify(b)} → ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${JSON.stringify(b)} → ${res.text}`).toBeLessThan(500);
      expect(typeof res.body.error?.code, JSON.stringify(b)).toBe('string');
      expect(typeof res.body.error?.message, JSON.stringify(b)).toBe('string');
    }
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE idempotency_key LIKE 'repay:%'").catch(() => [])).toHaveLength(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test("another user's card is 404; a consumer on admin routes is 401", async () => {
    const ctx = await fork();
    const res = await repay(ctx, { fundingSourceId: otherCard, amount: '1.00' });
    expect(res.status, res.text).toBe(404);
    const asOther = await repay(ctx, { fundingSourceId: card, amount: '1.00' }, { cookie: other.cookie });
    expect(asOther.status, asOther.text).toBe(404);
    const adm = await call(ctx, '/api/admin/receivables', { cookie: consumer.cookie });
    expect(adm.status).toBe(401);
    const w = await call(ctx, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', cookie: consumer.cookie, body: { amount: '1.00', reason: 'self' } });
    expect(w.status).toBe(401);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-owedCents);
    ctx.close();
  });

  test('waiver: odd amounts and reasons are 4xx and write nothing', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const bad: unknown[] = [
      { amount: '1.00', reason: '     ' },
      { amount: '1.00', reason: 'x'.repeat(10_000) },
      { amount: '1.00' },
      { reason: 'goodwill' },
      { amount: '0', reason: 'goodwill' },
      { amount: '-1', reason: 'goodwill' },
      { amount: '1e3', reason: 'goodwill' },
      { amount: dollars(owedCents + 1), reason: 'goodwill' },
      { amount: 1, reason: 'goodwill' },
      { amount: '1.00', reason: 5 },
    ];
    for (const b of bad) {
      const res = await adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: b as Record<string, unknown> });
      expect(res.status, `${JSON.stringify(b).slice(0, 80)} → ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.error?.message).toBe('string');
    }
    // The schema's words say what is wrong, not "required", for a value that is there.
    const long = await adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: { amount: '1.00', reason: 'x'.repeat(10_000) } });
    expect(long.body.error.message).toBe('reason must be 3 to 500 characters: why bpay forgives this (the user is told).');
    const numeric = await adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: { amount: 1, reason: 'goodwill' } });
    expect(numeric.body.error.message).toBe('amount must be dollars and cents as a string, such as "12.50".');
    const none = await adminCall(ctx, token, `/api/admin/users/usr_nope/receivable/waive`, { method: 'POST', body: { amount: '1.00', reason: 'goodwill' } });
    expect(none.status).toBe(404);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_waivers')).toHaveLength(0);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-owedCents);
    ctx.close();
  });
});

describe('parallel', () => {
  test('30 repayments of all that is owed at once, each its own key: one succeeds, the rest refused; never overpaid', async () => {
    const ctx = await fork();
    const all = await Promise.all(Array.from({ length: 30 }, () => repay(ctx, { fundingSourceId: card, amount: dollars(owedCents) })));
    const statuses = all.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const r of all) expect(r.status, r.text).toBeLessThan(500);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('30 at once with the same key: charged once', async () => {
    const ctx = await fork();
    const all = await Promise.all(Array.from({ length: 30 }, () => repay(ctx, { fundingSourceId: card, amount: '1.00' }, { key: 'same' })));
    for (const r of all) expect(r.status, r.text).toBeLessThan(500);
    expect(all.some((r) => r.status === 201)).toBe(true);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(1);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - 100));
    // The same key with another body is refused, not answered with the first outcome.
    const other = await repay(ctx, { fundingSourceId: card, amount: '2.00' }, { key: 'same' });
    expect(other.status, other.text).toBeGreaterThanOrEqual(400);
    expect(other.status).toBeLessThan(500);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_payments')).toHaveLength(1);
    await expectBalanced(ctx);
    ctx.close();
  });

  test('20 partial waivers at once never waive more than is owed', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const part = Math.ceil(owedCents / 5);
    const all = await Promise.all(
      Array.from({ length: 20 }, () =>
        adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: { amount: dollars(part), reason: 'goodwill' } }),
      ),
    );
    for (const r of all) expect(r.status, r.text).toBeLessThan(500);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBeLessThanOrEqual(0);
    await expectBalanced(ctx);
    ctx.close();
  });
});

describe('a refund after what was owed is repaid', () => {
  // Found by the hostile review of issue 26: a merchant's refund credited a returned bank share's part to
  // receivable:<user> whatever was still owed; after a repayment (or a waiver) the receivable went positive. Now the
  // credit reduces the debt only while there is one (creditOwed); the rest is payable:<user>, what bpay owes them.
  test("the merchant refunds the purchase after the consumer repaid the returned share: bpay never owes the consumer through receivable:<user>", async () => {
    const ctx = await fork();
    const paid = await repay(ctx, { fundingSourceId: card, amount: dollars(owedCents) });
    expect(paid.status, paid.text).toBe(201);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    const refunded = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi } });
    expect(refunded.status, refunded.text).toBeLessThan(300);
    await sweepMoney(ctx.deps);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(0);
    // The returned share's part of the refund: money bpay now owes the consumer, in the account that says so.
    expect(await ledgerBalance(ctx, `payable:${consumer.id}`)).toBeGreaterThan(0);
    await expectBalanced(ctx);
    ctx.close();
  });
});

describe('a crash while giving back a repayment the final guard refused', () => {
  test('the refund went through but its answer was lost; what is owed grows again before the sweep: never recorded repaid', async () => {
    const armed = { capture: true, refund: true };
    const ctx = await fork((v) =>
      interceptVendor(v, async (m, _args, run) => {
        if (m === 'capture' && armed.capture) {
          armed.capture = false;
          await run();
          throw new Error('crash after capture');
        }
        if (m === 'refund' && armed.refund) {
          armed.refund = false;
          await run();
          throw new VendorUnavailableError('the answer to the refund was lost');
        }
        return run();
      }),
    );
    expect((await repay(ctx, { fundingSourceId: card, amount: dollars(owedCents) })).status).toBe(500);
    const move = async (id: string, cents: number) => {
      await ctx.handle.client.execute({ sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES (?, 'test.adjust', ?, 0)", args: [id, id] });
      await ctx.handle.client.execute({
        sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES (?, ?, ?), (?, 'bpay:written_off', ?)",
        args: [id, `receivable:${consumer.id}`, cents, id, -cents],
      });
    };
    // Forgiven meanwhile: the final guard refuses the captured repayment and refunds it; the refund's answer is lost.
    await move('mv_forgive', owedCents);
    ctx.clock.advance(REPAYMENT_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    // Owed again (another debt) before the next sweep.
    await move('mv_owed_again', -owedCents);
    ctx.clock.advance(REPAYMENT_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    const [p] = await rows(ctx, 'SELECT status, failure_code AS code FROM receivable_payments');
    expect(p).toMatchObject({ status: 'failed', code: 'repayment_exceeds_owed' });
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.repaid'")).toHaveLength(0);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-owedCents);
    expect(await ledgerTotal(ctx.deps.db)).toBe(0);
    ctx.close();
  });
});

describe('a waiver retried', () => {
  test('the same Idempotency-Key twice waives once and answers the first waiver; another body under it is refused', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const send = (amount: string) =>
      adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: { amount, reason: 'goodwill' }, headers: { 'idempotency-key': 'w-1' } });
    const first = await send('1.00');
    expect(first.status, first.text).toBe(201);
    const again = await send('1.00');
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const other = await send('2.00');
    expect(other.status, other.text).toBeGreaterThanOrEqual(400);
    expect(other.status).toBeLessThan(500);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_waivers')).toHaveLength(1);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - 100));
    // 20 at once under one key: once.
    const all = await Promise.all(
      Array.from({ length: 20 }, () =>
        adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: { amount: '1.00', reason: 'goodwill' }, headers: { 'idempotency-key': 'w-2' } }),
      ),
    );
    for (const r of all) expect(r.status, r.text).toBeLessThan(500);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_waivers')).toHaveLength(2);
    await expectBalanced(ctx);
    ctx.close();
  });
});

describe('a crash inside a waiver or a repayment’s last step', () => {
  test('a waiver whose notice cannot be written leaves nothing: no waiver, no movement, no audit; the retry waives once', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const send = () =>
      adminCall(ctx, token, `/api/admin/users/${consumer.id}/receivable/waive`, { method: 'POST', body: { amount: '3.00', reason: 'goodwill' }, headers: { 'idempotency-key': 'crash-w' } });
    await ctx.handle.client.execute("CREATE TRIGGER refuse_notice BEFORE INSERT ON notifications BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      expect((await send()).status).toBe(500);
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_notice');
    }
    expect(await rows(ctx, 'SELECT 1 FROM receivable_waivers')).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.waived'")).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM audit_log WHERE action = 'receivable.waive'")).toHaveLength(0);
    const again = await send();
    expect(again.status, again.text).toBe(201);
    expect(await rows(ctx, 'SELECT 1 FROM receivable_waivers')).toHaveLength(1);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - 300));
    await expectBalanced(ctx);
    ctx.close();
  });

  test('a repayment whose final movement cannot be written stays pending (captured); the sweep records it once', async () => {
    const ctx = await fork();
    await ctx.handle.client.execute("CREATE TRIGGER refuse_repaid BEFORE INSERT ON ledger_movements WHEN NEW.kind = 'receivable.repaid' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      expect((await repay(ctx, { fundingSourceId: card, amount: '4.00' })).status).toBe(500);
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_repaid');
    }
    expect((await rows(ctx, 'SELECT status FROM receivable_payments')).map((r) => r.status)).toEqual(['pending']);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-owedCents);
    ctx.clock.advance(REPAYMENT_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    await sweepMoney(ctx.deps);
    expect((await rows(ctx, 'SELECT status FROM receivable_payments')).map((r) => r.status)).toEqual(['succeeded']);
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.repaid'")).toHaveLength(1);
    expect(await ledgerBalance(ctx, `receivable:${consumer.id}`)).toBe(-(owedCents - 400));
    await expectBalanced(ctx);
    ctx.close();
  });
});
