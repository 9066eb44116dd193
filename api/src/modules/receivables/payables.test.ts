import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, makePremium, registerUser } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { ledgerTotal } from '../ledger/service';

/*
 * What bpay owes a consumer (issue 26): payable:<user>, shown to the consumer (GET /api/receivables, the bank
 * standing's owedToYou) and to admins (GET /api/admin/payables), and settled by an admin who paid it another way
 * (POST /api/admin/users/:id/payable/settle, method paid_outside): one movement, audit row and notice; never more
 * than is owed, even 20 at once; an Idempotency-Key pays once.
 *
 * The world: a consumer with a bcard paid by one card, one refund of $30.90 to that card that the processor failed
 * (share_refund_failures and its `refund.failed` movement, as stripe-money-events.ts writes them) and another credit
 * of $5.00 (money due back after a debt was settled, as creditOwed writes it); a second consumer bpay owes nothing.
 */

let template: TestContext;
let owed: { cookie: string; id: string; email: string };
let clean: { id: string; cookie: string };
let card: string;
const FAILED = 3090;
const OTHER = 500;
const TOTAL = FAILED + OTHER;

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
  owed = { cookie: c.cookie, id: c.user.id, email: c.user.email };
  clean = { id: o.user.id, cookie: o.cookie };
  card = (await addCard(template, c.cookie)).id;
  const made = await call(template, '/api/virtual-cards', {
    method: 'POST',
    cookie: c.cookie,
    body: { name: 'Groceries', balance: '50.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
  });
  if (made.status !== 201) throw new Error(made.text);
  const [share] = await rows(template, 'SELECT id, collection_id AS c FROM collection_shares WHERE funding_source_id = ?', [card]);
  const at = template.clock.now().getTime();
  await template.handle.client.execute({
    sql: `INSERT INTO share_refund_failures (id, vendor_refund_id, share_id, collection_id, user_id, funding_source_id, amount_cents, currency, failure_reason, created_at)
          VALUES ('srf_1', 're_1', ?, ?, ?, ?, ?, 'usd', 'expired_or_canceled_card', ?)`,
    args: [String(share!.id), String(share!.c), owed.id, card, FAILED, at],
  });
  // The merchant's refund bpay credited to the card (the processor's refund then failed: the card's balance there is
  // unchanged), and its reversal into payable:<user>.
  await template.handle.client.execute({ sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES ('mv_rr', 'test.refund', 're_1', ?)", args: [at] });
  await template.handle.client.execute({
    sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES ('mv_rr', 'external:merchants', ?), ('mv_rr', ?, ?)",
    args: [-FAILED, `funding_source:${card}`, FAILED],
  });
  await template.handle.client.execute({ sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES ('mv_rf', 'refund.failed', 're_1', ?)", args: [at] });
  await template.handle.client.execute({
    sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES ('mv_rf', ?, ?), ('mv_rf', ?, ?)",
    args: [`funding_source:${card}`, -FAILED, `payable:${owed.id}`, FAILED],
  });
  await template.handle.client.execute({ sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES ('mv_oc', 'refund.bank_share', 'x', ?)", args: [at] });
  await template.handle.client.execute({
    sql: "INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES ('mv_oc', 'external:merchants', ?), ('mv_oc', ?, ?)",
    args: [-OTHER, `payable:${owed.id}`, OTHER],
  });
});
afterAll(() => template.close());

const fork = () => forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false });

const settle = (ctx: TestContext, token: string, body: Record<string, unknown>, opts: { userId?: string; key?: string } = {}) =>
  adminCall(ctx, token, `/api/admin/users/${opts.userId ?? owed.id}/payable/settle`, {
    method: 'POST',
    body,
    headers: opts.key ? { 'idempotency-key': opts.key } : {},
  });

describe('the consumer sees what bpay owes them', () => {
  test('GET /api/receivables: owedToYou, each failed refund (card, amount, date, reason in words), other credits; not restricted', async () => {
    const ctx = await fork();
    const res = await call(ctx, '/api/receivables', { cookie: owed.cookie });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ owed: '0.00', restricted: false, owedToYou: dollars(TOTAL), otherCredits: dollars(OTHER), paidToYou: '0.00' });
    expect(res.body.failedRefunds).toHaveLength(1);
    expect(res.body.failedRefunds[0]).toMatchObject({ id: 'srf_1', amount: dollars(FAILED), reasonCode: 'expired_or_canceled_card', card: { id: card } });
    expect(res.body.failedRefunds[0].failedAt).toBe(ctx.clock.now().toISOString());
    expect(res.body.failedRefunds[0].reason).toBe('the card has expired or was canceled');
    const standing = await call(ctx, '/api/funding-sources/bank-standing', { cookie: owed.cookie });
    expect(standing.body).toMatchObject({ owed: '0.00', owedToYou: dollars(TOTAL) });
    // In Arabic, the reason in Arabic.
    await ctx.handle.client.execute({ sql: "UPDATE users SET language = 'ar' WHERE id = ?", args: [owed.id] });
    const ar = await call(ctx, '/api/receivables', { cookie: owed.cookie });
    expect(ar.body.failedRefunds[0].reason).toBe('انتهت صلاحية البطاقة أو أُلغيت');
    // Another consumer: nothing.
    const none = await call(ctx, '/api/receivables', { cookie: clean.cookie });
    expect(none.body).toMatchObject({ owedToYou: '0.00', failedRefunds: [], otherCredits: '0.00' });
    ctx.close();
  });
});

describe('GET /api/admin/payables', () => {
  test('lists the users bpay owes, with the amount and how many refunds failed; not the others', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const res = await adminCall(ctx, token, '/api/admin/payables');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ userId: owed.id, email: owed.email, owedToUser: dollars(TOTAL), failedRefunds: 1 })]);
    expect((await adminCall(ctx, null, '/api/admin/payables')).status).toBe(401);
    expect((await adminCall(ctx, token, '/api/admin/payables?limit=0')).status).toBe(400);
    ctx.close();
  });
});

describe('POST /api/admin/users/:id/payable/settle (paid_outside)', () => {
  test('a part, then the rest: payable.settled movements against bpay:payouts, audit rows, notices; the list empties', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const a = await settle(ctx, token, { amount: '30.90', method: 'paid_outside', reason: '  Bank transfer ref 2211  ' });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({ userId: owed.id, amount: '30.90', method: 'paid_outside', reason: 'Bank transfer ref 2211', owedToUser: dollars(OTHER) });
    expect(await ledgerBalance(ctx, `payable:${owed.id}`)).toBe(OTHER);
    expect(await ledgerBalance(ctx, 'bpay:payouts')).toBe(FAILED);
    const [audit] = await rows(ctx, "SELECT admin_id, target_id, after FROM audit_log WHERE action = 'payable.settle'");
    expect(audit!.target_id).toBe(owed.id);
    expect(audit!.admin_id).toBeTruthy();
    expect(JSON.parse(String(audit!.after))).toMatchObject({ settled: '30.90', method: 'paid_outside', reason: 'Bank transfer ref 2211', owedToUser: dollars(OTHER), settlementId: a.body.id });
    const view = (await call(ctx, '/api/receivables', { cookie: owed.cookie })).body;
    expect(view).toMatchObject({ owedToYou: dollars(OTHER), paidToYou: '30.90' });

    const b = await settle(ctx, token, { amount: dollars(OTHER), method: 'paid_outside', reason: 'Cheque 17' });
    expect(b.status, b.text).toBe(201);
    expect(b.body.owedToUser).toBe('0.00');
    const notices = await rows(ctx, "SELECT params FROM notifications WHERE kind = 'payable_settled' AND user_id = ? ORDER BY seq", [owed.id]);
    expect(notices.map((n) => JSON.parse(String(n.params)))).toEqual([
      { amount: '30.90', owedToYou: dollars(OTHER), method: 'paid_outside', reason: 'Bank transfer ref 2211' },
      { amount: dollars(OTHER), owedToYou: '0.00', method: 'paid_outside', reason: 'Cheque 17' },
    ]);
    const shown = await call(ctx, '/api/notifications', { cookie: owed.cookie });
    expect(JSON.stringify(shown.body)).toContain('bpay paid you');
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'payable.settled'")).toHaveLength(2);
    expect((await adminCall(ctx, token, '/api/admin/payables')).body).toHaveLength(0);
    expect((await call(ctx, '/api/funding-sources/bank-standing', { cookie: owed.cookie })).body.owedToYou).toBe('0.00');
    expect(await ledgerTotal(ctx.deps.db)).toBe(0);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
    ctx.close();
  });

  test('refused, changing nothing: more than owed, owed nothing, a bad method, reason or amount, no such user', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const cases: Array<{ name: string; body: Record<string, unknown>; userId?: string; status: number; code: string; param?: string }> = [
      { name: 'a cent more than owed', body: { amount: dollars(TOTAL + 1), method: 'paid_outside', reason: 'Transfer' }, status: 400, code: 'payable_settle_exceeds_owed', param: 'amount' },
      { name: 'a user bpay owes nothing', body: { amount: '1.00', method: 'paid_outside', reason: 'Transfer' }, userId: clean.id, status: 400, code: 'payable_settle_exceeds_owed' },
      { name: 'refund_to_card (not offered)', body: { amount: '1.00', method: 'refund_to_card', reason: 'Transfer' }, status: 400, code: 'validation_error', param: 'method' },
      { name: 'no method', body: { amount: '1.00', reason: 'Transfer' }, status: 400, code: 'validation_error' },
      { name: 'a reason of 2 characters once trimmed', body: { amount: '1.00', method: 'paid_outside', reason: '  ab ' }, status: 400, code: 'validation_error', param: 'reason' },
      { name: 'a reason of 501 characters', body: { amount: '1.00', method: 'paid_outside', reason: 'x'.repeat(501) }, status: 400, code: 'validation_error', param: 'reason' },
      { name: 'a zero amount', body: { amount: '0.00', method: 'paid_outside', reason: 'Transfer' }, status: 400, code: 'validation_error', param: 'amount' },
      { name: 'three decimals', body: { amount: '1.005', method: 'paid_outside', reason: 'Transfer' }, status: 400, code: 'validation_error', param: 'amount' },
      { name: 'no such user', body: { amount: '1.00', method: 'paid_outside', reason: 'Transfer' }, userId: 'usr_nope', status: 404, code: 'resource_not_found' },
    ];
    for (const c of cases) {
      const res = await settle(ctx, token, c.body, { userId: c.userId });
      expect([c.name, res.status, res.body.error?.code]).toEqual([c.name, c.status, c.code]);
      if (c.param) expect(res.body.error.param).toBe(c.param);
    }
    const exceeded = await settle(ctx, token, { amount: dollars(TOTAL + 1), method: 'paid_outside', reason: 'Transfer' });
    expect(exceeded.body.error.message).toContain(`bpay owes this user $${dollars(TOTAL)}`);
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'payable.settled'")).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM audit_log WHERE action = 'payable.settle'")).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM notifications WHERE kind = 'payable_settled'")).toHaveLength(0);
    expect(await ledgerBalance(ctx, `payable:${owed.id}`)).toBe(TOTAL);
    ctx.close();
  });

  test('the same Idempotency-Key pays once and answers the first settlement; another body under it is refused', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    const first = await settle(ctx, token, { amount: '1.00', method: 'paid_outside', reason: 'Transfer' }, { key: 'p-1' });
    expect(first.status, first.text).toBe(201);
    const again = await settle(ctx, token, { amount: '1.00', method: 'paid_outside', reason: 'Transfer' }, { key: 'p-1' });
    expect([again.status, again.body.id]).toEqual([201, first.body.id]);
    const other = await settle(ctx, token, { amount: '2.00', method: 'paid_outside', reason: 'Transfer' }, { key: 'p-1' });
    expect([other.status, other.body.error?.code]).toEqual([400, 'idempotency_error']);
    // 20 at once under one key: once.
    const all = await Promise.all(
      Array.from({ length: 20 }, () => settle(ctx, token, { amount: '1.00', method: 'paid_outside', reason: 'Transfer' }, { key: 'p-2' })),
    );
    for (const r of all) expect(r.status, r.text).toBeLessThan(500);
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'payable.settled'")).toHaveLength(2);
    expect(await ledgerBalance(ctx, `payable:${owed.id}`)).toBe(TOTAL - 200);
    ctx.close();
  });

  test('20 settlements at once, each under its own key, never pay more than is owed', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    // $5.00 each: $35.90 owed fits 7 of them.
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) => settle(ctx, token, { amount: '5.00', method: 'paid_outside', reason: 'Transfer' }, { key: `many-${i}` })),
    );
    const ok = all.filter((r) => r.status === 201);
    const refused = all.filter((r) => r.status === 400);
    expect(ok).toHaveLength(Math.floor(TOTAL / 500));
    expect(refused).toHaveLength(20 - ok.length);
    for (const r of refused) expect(r.body.error.code).toBe('payable_settle_exceeds_owed');
    expect(await ledgerBalance(ctx, `payable:${owed.id}`)).toBe(TOTAL - ok.length * 500);
    expect(await ledgerBalance(ctx, 'bpay:payouts')).toBe(ok.length * 500);
    expect(await rows(ctx, "SELECT 1 FROM audit_log WHERE action = 'payable.settle'")).toHaveLength(ok.length);
    expect(await ledgerTotal(ctx.deps.db)).toBe(0);
    ctx.close();
  });

  test('a settlement whose notice cannot be written leaves nothing (no movement, no audit); the retry settles once', async () => {
    const ctx = await fork();
    const token = await adminToken(ctx);
    await ctx.handle.client.execute("CREATE TRIGGER refuse_notice BEFORE INSERT ON notifications BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      expect((await settle(ctx, token, { amount: '3.00', method: 'paid_outside', reason: 'Transfer' }, { key: 'crash' })).status).toBe(500);
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_notice');
    }
    expect(await rows(ctx, "SELECT 1 FROM ledger_movements WHERE kind = 'payable.settled'")).toHaveLength(0);
    expect(await rows(ctx, "SELECT 1 FROM audit_log WHERE action = 'payable.settle'")).toHaveLength(0);
    const again = await settle(ctx, token, { amount: '3.00', method: 'paid_outside', reason: 'Transfer' }, { key: 'crash' });
    expect(again.status, again.text).toBe(201);
    expect(await ledgerBalance(ctx, `payable:${owed.id}`)).toBe(TOTAL - 300);
    ctx.close();
  });
});
