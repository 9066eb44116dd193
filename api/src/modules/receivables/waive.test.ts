import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { addBankAccount, addCard, BANK_RETURNS_R01, createMerchant, makePremium, registerUser } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';

/*
 * Receivables in the back office (issue 26, part 1): the list of users who owe, and a waiver (all or part, with a
 * reason, audited, the consumer told) that cannot reach the part under an open dispute. The world: one consumer who
 * owes a returned bank debit after use (as in repay.test.ts), one who owes nothing, and an admin.
 */

let template: TestContext;
let owing: { cookie: string; id: string; email: string };
let clean: { id: string };
let card: string;
let owedCents: number;

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
  owing = { cookie: c.cookie, id: c.user.id, email: c.user.email };
  clean = { id: o.user.id };
  card = (await addCard(template, c.cookie)).id;
  const r01 = (await addBankAccount(template, c.cookie, BANK_RETURNS_R01)).id;
  const live = await createMerchant(template, o.cookie, 'production');
  const made = await call(template, '/api/virtual-cards', {
    method: 'POST',
    cookie: c.cookie,
    body: { name: 'Groceries', balance: '100.00', fundingSources: [{ fundingSourceId: card, percentage: 50 }, { fundingSourceId: r01, percentage: 50 }] },
  });
  const d = await call(template, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: c.cookie });
  const pi = await merchantCall(template, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 10000, currency: 'usd' } });
  await merchantCall(template, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  template.clock.advance(SIM_ACH_SETTLEMENT_MS);
  await sweepMoney(template.deps);
  owedCents = -(await ledgerBalance(template, `receivable:${c.user.id}`));
  if (owedCents <= 0) throw new Error('the world owes nothing');
});
afterAll(() => template.close());

const fork = () => forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false });

const waive = (ctx: TestContext, token: string, body: Record<string, unknown>, userId = owing.id) =>
  adminCall(ctx, token, `/api/admin/users/${userId}/receivable/waive`, { method: 'POST', body });

describe('GET /api/admin/receivables', () => {
  test('lists the users who owe, with what, open disputes and the oldest item; not those who owe nothing', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const res = await adminCall(ctx, token, '/api/admin/receivables');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ userId: owing.id, email: owing.email, owed: dollars(owedCents), underDispute: '0.00', repayable: dollars(owedCents), openDisputes: 0 });
    expect(res.body[0].oldestItemAt).toBe(new Date(template.clock.now().getTime()).toISOString());
    expect(res.body.some((r: { userId: string }) => r.userId === clean.id)).toBe(false);
    expect((await adminCall(ctx, null, '/api/admin/receivables')).status).toBe(401);
    // Paged like the other admin lists.
    const bad = await adminCall(ctx, token, '/api/admin/receivables?limit=0');
    expect([bad.status, bad.body.error.param]).toEqual([400, 'limit']);
    ctx.close();
  });

  test('pages with the next-cursor header', async () => {
    const ctx = await fork();
    // A second user who owes: a receivable posted directly.
    await ctx.handle.client.execute("INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES ('mv_x', 'test.owed', 'x', 0)");
    await ctx.handle.client.execute({
      sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES ('mv_x', ?, -500), ('mv_x', 'bpay:fees', 500)",
      args: [`receivable:${clean.id}`],
    });
    const token = await adminToken(ctx);
    const first = await adminCall(ctx, token, '/api/admin/receivables?limit=1');
    expect(first.body).toHaveLength(1);
    const cursor = first.headers.get('bpay-next-cursor');
    expect(cursor).toBeTruthy();
    const second = await adminCall(ctx, token, `/api/admin/receivables?limit=1&cursor=${cursor}`);
    expect(second.body).toHaveLength(1);
    expect(second.headers.get('bpay-next-cursor')).toBeNull();
    expect(new Set([first.body[0].userId, second.body[0].userId])).toEqual(new Set([owing.id, clean.id]));
    ctx.close();
  });
});

describe('POST /api/admin/users/:id/receivable/waive', () => {
  test('a part, then the rest: waiver rows, receivable.waived movements, audit rows, notices; the restriction lifts', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const part = 1000;
    const a = await waive(ctx, token, { amount: dollars(part), reason: '  Goodwill: bank error  ' });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ userId: owing.id, amount: dollars(part), reason: 'Goodwill: bank error', owed: dollars(owedCents - part) });
    expect(await ledgerBalance(ctx, `receivable:${owing.id}`)).toBe(-(owedCents - part));
    expect(await ledgerBalance(ctx, 'bpay:written_off')).toBe(-part);
    const [audit] = await rows(ctx, "SELECT admin_id, target_id, after FROM audit_log WHERE action = 'receivable.waive'");
    expect(audit!.target_id).toBe(owing.id);
    expect(JSON.parse(String(audit!.after))).toMatchObject({ waived: dollars(part), reason: 'Goodwill: bank error' });
    const consumerView = (await call(ctx, '/api/receivables', { cookie: owing.cookie })).body;
    expect(consumerView).toMatchObject({ owed: dollars(owedCents - part), restricted: true });
    expect(consumerView.waivers[0]).toMatchObject({ amount: dollars(part), reason: 'Goodwill: bank error' });

    const b = await waive(ctx, token, { amount: dollars(owedCents - part), reason: 'Rest forgiven' });
    expect(b.status, b.text).toBe(201);
    expect(b.body.owed).toBe('0.00');
    expect((await call(ctx, '/api/receivables', { cookie: owing.cookie })).body.restricted).toBe(false);
    const notices = await rows(ctx, "SELECT params FROM notifications WHERE kind = 'receivable_waived' AND user_id = ? ORDER BY seq", [owing.id]);
    expect(notices.map((n) => JSON.parse(String(n.params)).owed)).toEqual([dollars(owedCents - part), '0.00']);
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'receivable.waived'")).toHaveLength(2);
    const again = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: owing.cookie,
      body: { name: 'Again', balance: '5.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
    });
    expect(again.status, again.text).toBe(201);
    expect((await adminCall(ctx, token, '/api/admin/receivables')).body).toHaveLength(0);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
    ctx.close();
  });

  test('refused, changing nothing: more than owed, the part under an open dispute, a bad reason or amount, no such user', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    // An open dispute of $20.00 on top of what is owed.
    const [share] = await rows(ctx, 'SELECT id, collection_id AS c FROM collection_shares WHERE funding_source_id = ?', [card]);
    await ctx.handle.client.execute({
      sql: `INSERT INTO share_disputes (id, user_id, share_id, collection_id, vendor, vendor_dispute_id, amount_cents, reason, status, vendor_status, opened_at, updated_at)
            VALUES ('dsp_1', ?, ?, ?, 'simulated', 'sim_dp_1', 2000, 'fraudulent', 'open', 'needs_response', 0, 0)`,
      args: [owing.id, String(share!.id), String(share!.c)],
    });
    await ctx.handle.client.execute("INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES ('mv_d', 'test.dispute', 'd', 0)");
    await ctx.handle.client.execute({
      sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES ('mv_d', ?, -2000), ('mv_d', ?, 2000)",
      args: [`receivable:${owing.id}`, `funding_source:${card}`],
    });
    const listed = (await adminCall(ctx, token, '/api/admin/receivables')).body[0];
    expect(listed).toMatchObject({ owed: dollars(owedCents + 2000), underDispute: '20.00', openDisputes: 1 });
    const cases: Array<{ name: string; body: Record<string, unknown>; userId?: string; status: number; code: string; param?: string }> = [
      { name: 'into the disputed part', body: { amount: dollars(owedCents + 1), reason: 'Goodwill' }, status: 400, code: 'waiver_exceeds_owed', param: 'amount' },
      { name: 'all of it, dispute included', body: { amount: dollars(owedCents + 2000), reason: 'Goodwill' }, status: 400, code: 'waiver_exceeds_owed' },
      { name: 'a reason of 2 characters once trimmed', body: { amount: '1.00', reason: '  ab  ' }, status: 400, code: 'validation_error', param: 'reason' },
      { name: 'a reason of 501 characters', body: { amount: '1.00', reason: 'x'.repeat(501) }, status: 400, code: 'validation_error', param: 'reason' },
      { name: 'no reason', body: { amount: '1.00' }, status: 400, code: 'validation_error' },
      { name: 'a zero amount', body: { amount: '0', reason: 'Goodwill' }, status: 400, code: 'validation_error', param: 'amount' },
      { name: 'no such user', body: { amount: '1.00', reason: 'Goodwill' }, userId: 'usr_nope', status: 404, code: 'resource_not_found' },
    ];
    for (const c of cases) {
      const res = await waive(ctx, token, c.body, c.userId);
      expect([c.name, res.status, res.body.error?.code]).toEqual([c.name, c.status, c.code]);
      if (c.param) expect(res.body.error.param).toBe(c.param);
    }
    const exceeded = await waive(ctx, token, { amount: dollars(owedCents + 1), reason: 'Goodwill' });
    expect(exceeded.body.error.message).toContain('$20.00 is under an open dispute');
    expect(await rows(ctx, 'SELECT 1 FROM receivable_waivers')).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM audit_log WHERE action = 'receivable.waive'")).toHaveLength(0);
    // Exactly what is outside the dispute can be waived; the disputed part stays owed (and restricted).
    expect((await waive(ctx, token, { amount: dollars(owedCents), reason: 'Goodwill' })).status).toBe(201);
    expect((await call(ctx, '/api/receivables', { cookie: owing.cookie })).body).toMatchObject({ owed: '20.00', restricted: true });
    ctx.close();
  });
});
