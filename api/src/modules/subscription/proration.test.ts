import { afterEach, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import type { PaymentVendor } from '../../vendors/types';
import { call, interceptVendor, makeTestApp, type TestContext, type VendorMethod } from '../../../test-support/app';
import { addBankAccount, addCard, CARDS_OK, login, registerUser } from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { renewSubscriptions } from './renewals';
import { PLAN_REFUND_LEASE_MS } from './plan-refunds';
import { prorate, prorationQuote } from './proration';

/*
 * Issue 26 part 4: plans paid the way users expect. Proration of an upgrade in the middle of a period, the plan's
 * payment card and a retry on it, and an admin's move of a paying user (at the period end, or now with a refund).
 * Prices: Pro $9.99, Premium $19.99 (the seed).
 */

const DAY = 24 * 3600_000;
const PRO = 999;
const PREMIUM = 1999;
let ctx: TestContext | null = null;
afterEach(() => {
  ctx?.close();
  ctx = null;
});

let keyN = 0;
const newKey = () => `proration-test-${++keyN}`;

async function rows(c: TestContext, sql: string, args: Array<string | number> = []) {
  return (await c.handle.client.execute({ sql, args })).rows;
}
const simBalance = async (c: TestContext, sourceId: string) =>
  Number((await rows(c, 'SELECT s.available_cents AS a FROM sim_cards s JOIN funding_sources f ON f.vendor_token = s.token WHERE f.id = ?', [sourceId]))[0]?.a);

async function world(opts: { start?: number; wrapVendor?: (v: PaymentVendor) => PaymentVendor } = {}) {
  ctx = await makeTestApp({ clock: new TestClock(opts.start), ...(opts.wrapVendor ? { wrapVendor: opts.wrapVendor } : {}) });
  const u = await registerUser(ctx);
  const card = await addCard(ctx, u.cookie, CARDS_OK[0]);
  const c = ctx;
  const w = {
    ctx: c,
    cookie: u.cookie,
    email: u.email as string,
    userId: u.user.id as string,
    card,
    upgrade: (tierId: string, fundingSourceId: string = card.id, key: string = newKey()) =>
      call(c, '/api/subscription/upgrade', { method: 'POST', cookie: w.cookie, body: { tierId, fundingSourceId }, headers: { 'idempotency-key': key } }),
    plan: async () => {
      await w.relogin();
      return (await call(c, '/api/subscription/plan', { cookie: w.cookie })).body;
    },
    /** Signs in again: a session ends after 14 days, and these tests move the clock by weeks. */
    async relogin() {
      const res = await login(c, u.email, u.password);
      if (!res.cookie) throw new Error(`login failed: ${res.status} ${res.text}`);
      w.cookie = res.cookie;
    },
  };
  return w;
}

async function expectMoneyConsistent(c: TestContext) {
  const report = await moneyReport(c);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.ledgerTotal).toBe(0);
  expect(report.heldHolds).toBe(0);
}

describe('the arithmetic', () => {
  test('price × part / whole in whole cents, half up; clamped to the period', () => {
    expect(prorate(999, 21, 31)).toBe(677); // 676.74
    expect(prorate(1999, 21, 31)).toBe(1354); // 1354.16
    expect(prorate(999, 14, 28)).toBe(500); // 499.5: half up
    expect(prorate(1999, 14, 28)).toBe(1000); // 999.5: half up
    expect(prorate(999, 0, 28)).toBe(0);
    expect(prorate(999, -5, 28)).toBe(0);
    expect(prorate(999, 40, 28)).toBe(999);
    expect(() => prorate(999, 1, 0)).toThrow();
    // The charge is the difference of the two rounded lines, so the receipt's lines add up to it exactly.
    const q = prorationQuote(999, 1999, { start: new Date(0), end: new Date(31 * DAY) }, new Date(10 * DAY));
    expect(q).toMatchObject({ creditCents: 677, listPriceCents: 1354, amountCents: 677 });
  });
});

describe('upgrading in the middle of a period', () => {
  test('31-day period (January), 10 days in: charged the difference for the 21 days left, the period kept, lines on the receipt', async () => {
    // 15 January 12:00 → 15 February 12:00: 31 days.
    const w = await world();
    const first = await w.upgrade('tier_pro');
    expect(first.status).toBe(200);
    const { currentPeriodStart: start, currentPeriodEnd: end } = first.body.plan;
    expect(new Date(end).getTime() - new Date(start).getTime()).toBe(31 * DAY);
    w.ctx.clock.advance(10 * DAY);
    await w.relogin();
    const res = await w.upgrade('tier_premium');
    expect(res.status).toBe(200);
    // credit round(999 × 21/31) = 677, rest round(1999 × 21/31) = 1354, charged 1354 − 677 = 677.
    expect(res.body.receipt).toMatchObject({
      kind: 'proration',
      status: 'succeeded',
      amount: '6.77',
      planName: 'Premium',
      periodStart: w.ctx.clock.now().toISOString(),
      periodEnd: end,
      proration: { unusedPlanName: 'Professional', credit: '6.77', remaining: '13.54' },
    });
    // The billing anchor stays: the same period, now on Premium.
    expect(res.body.plan.tier.name).toBe('premium');
    expect(res.body.plan.currentPeriodStart).toBe(start);
    expect(res.body.plan.currentPeriodEnd).toBe(end);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO + 677);
    expect(await ledgerBalance(w.ctx, `funding_source:${w.card.id}`)).toBe(-(PRO + 677));
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO - 677);
    // The receipt e-mail carries the lines.
    const mail = await rows(w.ctx, "SELECT text_body FROM email_outbox WHERE user_id = ? AND kind = 'plan_receipt' ORDER BY created_at DESC, id DESC LIMIT 1", [w.userId]);
    const text = String(mail[0]?.text_body);
    expect(text).toContain('Unused time on Professional (2026-01-25–2026-02-15): −$6.77');
    expect(text).toContain('Remaining time on Premium (2026-01-25–2026-02-15): $13.54');
    expect(text).toContain('Total: $6.77');
    // The list (the receipts screens) shows the same lines.
    const list = (await call(w.ctx, '/api/subscription/charges', { cookie: w.cookie })).body;
    expect(list[0].proration).toEqual({ unusedPlanName: 'Professional', credit: '6.77', remaining: '13.54' });
    expect(list[1].proration).toBeNull();
    await expectMoneyConsistent(w.ctx);
  });

  test('28-day period (February), half way: each line rounded half up; the renewal then charges the full Premium price on the same anchor', async () => {
    const w = await world({ start: Date.UTC(2026, 1, 1, 0, 0, 0) });
    const end = (await w.upgrade('tier_pro')).body.plan.currentPeriodEnd;
    expect(end).toBe('2026-03-01T00:00:00.000Z');
    w.ctx.clock.advance(14 * DAY);
    await w.relogin();
    const res = await w.upgrade('tier_premium');
    // credit round(999 × 14/28) = round(499.5) = 500, rest round(1999 × 14/28) = round(999.5) = 1000.
    expect(res.body.receipt).toMatchObject({ amount: '5.00', proration: { credit: '5.00', remaining: '10.00' } });
    expect(res.body.plan.currentPeriodEnd).toBe(end);
    w.ctx.clock.advance(new Date(end).getTime() - w.ctx.clock.now().getTime());
    expect(await renewSubscriptions(w.ctx.deps)).toBe(1);
    const plan = await w.plan();
    expect(plan.tier.name).toBe('premium');
    expect([plan.currentPeriodStart, plan.currentPeriodEnd]).toEqual([end, '2026-04-01T00:00:00.000Z']);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO + 500 + PREMIUM);
    await expectMoneyConsistent(w.ctx);
  });

  test('a rest worth nothing in whole cents answers 409 proration_zero and changes nothing', async () => {
    const w = await world();
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime() - 60_000);
    await w.relogin();
    const res = await w.upgrade('tier_premium');
    expect([res.status, res.body.error.code, res.body.error.param]).toEqual([409, 'proration_zero', 'tierId']);
    expect(res.body.error.message).toContain('nothing to charge');
    expect((await w.plan()).tier.name).toBe('pro');
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO);
  });

  test('a downgrade in the middle of a period credits nothing and waits for the period end', async () => {
    const w = await world();
    await w.upgrade('tier_premium');
    w.ctx.clock.advance(5 * DAY);
    await w.relogin();
    const down = await call(w.ctx, '/api/subscription/downgrade', { method: 'POST', cookie: w.cookie, body: { tierId: 'tier_pro' } });
    expect(down.body).toMatchObject({ tier: { name: 'premium' }, pendingTier: { name: 'pro' } });
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PREMIUM);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PREMIUM);
    expect(await rows(w.ctx, "SELECT id FROM subscription_charges WHERE kind != 'upgrade'")).toEqual([]);
    expect(await rows(w.ctx, 'SELECT id FROM plan_refunds')).toEqual([]);
  });

  test('from a past-due plan (its period over) or from Free: the full price and a new period from now', async () => {
    const w = await world();
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    await w.ctx.handle.client.execute('UPDATE sim_cards SET available_cents = 0');
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime() + DAY);
    await renewSubscriptions(w.ctx.deps);
    expect((await w.plan()).pastDueSince).not.toBeNull();
    await w.ctx.handle.client.execute({ sql: 'UPDATE sim_cards SET available_cents = ?', args: [1_000_000 - PRO] });
    const up = await w.upgrade('tier_premium');
    expect(up.body.receipt).toMatchObject({ kind: 'upgrade', amount: '19.99', proration: null });
    expect(up.body.plan).toMatchObject({ pastDueSince: null, currentPeriodStart: w.ctx.clock.now().toISOString() });
    await expectMoneyConsistent(w.ctx);
  });
});

describe("the plan's payment card", () => {
  test('changed to another own card: the next renewal is charged to it; refusals are clear', async () => {
    const w = await world();
    const other = await addCard(w.ctx, w.cookie, CARDS_OK[1]);
    const put = (fundingSourceId: string) => call(w.ctx, '/api/subscription/payment-source', { method: 'PUT', cookie: w.cookie, body: { fundingSourceId } });
    // Free: nothing renews.
    expect([(await put(other.id)).status, (await put(other.id)).body.error.code]).toEqual([409, 'plan_not_billed']);
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    const stranger = await registerUser(w.ctx);
    const foreign = await addCard(w.ctx, stranger.cookie, CARDS_OK[2]);
    const bank = await addBankAccount(w.ctx, w.cookie);
    const paused = await addCard(w.ctx, w.cookie, CARDS_OK[3]);
    await w.ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET is_active = 0 WHERE id = ?', args: [paused.id] });
    const removed = await addCard(w.ctx, w.cookie, CARDS_OK[4]);
    expect((await call(w.ctx, `/api/funding-sources/${removed.id}`, { method: 'DELETE', cookie: w.cookie })).status).toBeLessThan(300);
    const table: Array<{ name: string; id: string; status: number; code: string; says?: string }> = [
      { name: "another user's card", id: foreign.id, status: 404, code: 'resource_not_found' },
      { name: 'unknown', id: 'fs_nope', status: 404, code: 'resource_not_found' },
      { name: 'removed', id: removed.id, status: 404, code: 'resource_not_found' },
      { name: 'bank account', id: bank.id, status: 400, code: 'validation_error', says: 'is a bank account' },
      { name: 'paused', id: paused.id, status: 400, code: 'validation_error', says: 'is paused' },
    ];
    for (const row of table) {
      const res = await put(row.id);
      expect({ name: row.name, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
        name: row.name,
        status: row.status,
        code: row.code,
        param: 'fundingSourceId',
      });
      if (row.says) expect(res.body.error.message).toContain(row.says);
    }
    expect((await w.plan()).paymentSource.id).toBe(w.card.id);
    const ok = await put(other.id);
    expect(ok.status).toBe(200);
    expect(ok.body.paymentSource).toMatchObject({ id: other.id, last4: other.last4 });
    // Nothing charged now; the renewal goes to the new card.
    expect(await simBalance(w.ctx, other.id)).toBe(1_000_000);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    expect(await renewSubscriptions(w.ctx.deps)).toBe(1);
    expect(await simBalance(w.ctx, other.id)).toBe(1_000_000 - PRO);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO);
    expect(await ledgerBalance(w.ctx, `funding_source:${other.id}`)).toBe(-PRO);
    await expectMoneyConsistent(w.ctx);
  });

  test('past due: after changing the card the renewal is retried at once on it, once per key', async () => {
    const w = await world();
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    const other = await addCard(w.ctx, w.cookie, CARDS_OK[1]);
    const retry = (key: string | null = newKey()) =>
      call(w.ctx, '/api/subscription/retry-renewal', { method: 'POST', cookie: w.cookie, headers: key === null ? {} : { 'idempotency-key': key } });
    // Not past due: nothing to retry.
    expect((await retry()).body.error.code).toBe('plan_not_past_due');
    // The first card is empty: the renewal fails, the plan is past due.
    await w.ctx.handle.client.execute({ sql: 'UPDATE sim_cards SET available_cents = 0 WHERE token = (SELECT vendor_token FROM funding_sources WHERE id = ?)', args: [w.card.id] });
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await renewSubscriptions(w.ctx.deps);
    await w.relogin();
    expect((await w.plan()).pastDueSince).toBe(end.toISOString());
    // A retry on the same card is declined (402) and counted; no key is refused.
    expect((await retry(null)).body.error.code).toBe('invalid_idempotency_key');
    const declined = await retry();
    expect([declined.status, declined.body.error.code]).toEqual([402, 'insufficient_funds']);
    // Change the card, retry at once: paid, no longer past due, the next period started from the old anchor.
    expect((await call(w.ctx, '/api/subscription/payment-source', { method: 'PUT', cookie: w.cookie, body: { fundingSourceId: other.id } })).status).toBe(200);
    const key = newKey();
    const paid = await retry(key);
    expect(paid.status).toBe(200);
    expect(paid.body.receipt).toMatchObject({ kind: 'renewal', status: 'succeeded', amount: '9.99', fundingSource: { id: other.id } });
    expect(paid.body.plan.pastDueSince).toBeNull();
    expect(paid.body.plan.currentPeriodStart).toBe(end.toISOString());
    // The same key again: the first answer, nothing charged again; a new key: not past due any more.
    const again = await retry(key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.receipt.id).toBe(paid.body.receipt.id);
    expect((await retry()).body.error.code).toBe('plan_not_past_due');
    expect(await simBalance(w.ctx, other.id)).toBe(1_000_000 - PRO);
    // The daily sweep finds nothing left to do.
    expect(await renewSubscriptions(w.ctx.deps)).toBe(0);
    // The first card's funds back as the processor had them (the invariants compare them to the ledger).
    await w.ctx.handle.client.execute({ sql: 'UPDATE sim_cards SET available_cents = ? WHERE token = (SELECT vendor_token FROM funding_sources WHERE id = ?)', args: [1_000_000 - PRO, w.card.id] });
    const paidRenewals = await rows(w.ctx, "SELECT id FROM subscription_charges WHERE kind = 'renewal' AND status = 'succeeded'");
    expect(paidRenewals).toHaveLength(1);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(2 * PRO);
    await expectMoneyConsistent(w.ctx);
  });
});

describe('an admin changing a paying user\'s plan', () => {
  async function adminWorld(opts: Parameters<typeof world>[0] = {}) {
    const w = await world(opts);
    const admin = await makeAdmin(w.ctx);
    // A fresh admin sign-in per call (these tests move the clock by days; each sign-in moves it 30 s).
    const change = async (body: Record<string, unknown>) =>
      adminCall(w.ctx, await adminToken(w.ctx), `/api/admin/users/${w.userId}/subscription`, { method: 'PATCH', body });
    return { ...w, adminId: admin.id as string, change };
  }
  const audits = (c: TestContext, userId: string) =>
    rows(c, "SELECT admin_id, action, after FROM audit_log WHERE target_id = ? AND action LIKE 'user.subscription.%' ORDER BY at", [userId]);

  test('refusals: free plan proration, no timing for a paying user, period_end for one not paying', async () => {
    const w = await adminWorld();
    const free = await w.change({ tierId: 'tier_pro', timing: 'now_with_refund' });
    expect([free.status, free.body.error.code, free.body.error.param]).toEqual([400, 'proration_not_paid', 'timing']);
    expect(free.body.error.message).toContain('Free plan: nothing was paid');
    expect((await w.change({ tierId: 'tier_pro', timing: 'period_end' })).body.error).toMatchObject({ code: 'validation_error', param: 'timing' });
    expect((await w.change({ tierId: 'tier_pro', timing: 'soon' })).body.error.code).toBe('validation_error');
    expect((await w.upgrade('tier_pro')).status).toBe(200);
    const none = await w.change({ tierId: 'tier_premium' });
    expect([none.status, none.body.error.code, none.body.error.param]).toEqual([400, 'validation_error', 'timing']);
    expect(none.body.error.message).toContain('choose period_end or now_with_refund');
    // Nothing changed.
    expect((await w.plan()).tier.name).toBe('pro');
    expect(await audits(w.ctx, w.userId)).toEqual([]);
    // A plan an admin gave (not billed) is not prorated either.
    const v = await adminWorld();
    expect((await v.change({ tierId: 'tier_premium' })).status).toBe(200);
    const given = await v.change({ tierId: 'tier_pro', timing: 'now_with_refund' });
    expect([given.status, given.body.error.code]).toEqual([400, 'proration_not_paid']);
  });

  test('at the period end: scheduled, no money moves, audited; the renewal then moves the user', async () => {
    const w = await adminWorld();
    const end = new Date((await w.upgrade('tier_premium')).body.plan.currentPeriodEnd);
    w.ctx.clock.advance(3 * DAY);
    // The admin's user list says the user pays until then (the panel asks for the timing).
    const listed = await adminCall(w.ctx, await adminToken(w.ctx), `/api/admin/users?search=${encodeURIComponent(w.email)}`);
    expect(listed.body.map((u: { planPeriodEnd: string | null }) => u.planPeriodEnd)).toEqual([end.toISOString()]);
    const res = await w.change({ tierId: 'tier_pro', timing: 'period_end' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tierId: 'tier_premium', tier: { name: 'premium' }, pendingTierId: 'tier_pro', billed: true });
    expect(res.body.refund).toBeUndefined();
    expect((await w.plan()).pendingTier.name).toBe('pro');
    expect(await rows(w.ctx, 'SELECT id FROM plan_refunds')).toEqual([]);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PREMIUM);
    expect((await audits(w.ctx, w.userId)).map((a) => [a.admin_id, a.action])).toEqual([[w.adminId, 'user.subscription.schedule']]);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await renewSubscriptions(w.ctx.deps);
    expect((await w.plan()).tier.name).toBe('pro');
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PREMIUM + PRO);
    await expectMoneyConsistent(w.ctx);
  });

  test('now with a refund: the unused part back to the card, a ledger reversal, audited with the admin id', async () => {
    const w = await adminWorld();
    await w.upgrade('tier_pro');
    w.ctx.clock.advance(10 * DAY);
    const res = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
    expect(res.status).toBe(200);
    // round(999 × 21/31) = 677 back.
    expect(res.body).toMatchObject({ tierId: 'tier_free', billed: false, refund: { amount: '6.77', status: 'succeeded' } });
    expect((await w.plan()).tier.name).toBe('free');
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO + 677);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO - 677);
    expect(await ledgerBalance(w.ctx, `funding_source:${w.card.id}`)).toBe(-PRO + 677);
    const refunds = await rows(w.ctx, 'SELECT amount_cents, status, admin_id, funding_source_id FROM plan_refunds');
    expect(refunds.map((r) => [r.amount_cents, r.status, r.admin_id, r.funding_source_id])).toEqual([[677, 'succeeded', w.adminId, w.card.id]]);
    const audit = await audits(w.ctx, w.userId);
    expect(audit.map((a) => [a.admin_id, a.action])).toEqual([[w.adminId, 'user.subscription.change']]);
    expect(JSON.parse(String(audit[0]!.after))).toMatchObject({ tierId: 'tier_free', timing: 'now_with_refund', refundCents: 677 });
    // The consumer is told where the money went (a notice, once).
    const told = await rows(w.ctx, "SELECT params FROM notifications WHERE user_id = ? AND kind = 'plan_refunded'", [w.userId]);
    expect(told.map((r) => JSON.parse(String(r.params)))).toEqual([{ plan: 'Professional', amount: '6.77', sourceName: w.card.name, last4: w.card.last4 }]);
    // The admin's revenue for the month is net of it.
    const figures = await adminCall(w.ctx, await adminToken(w.ctx), '/api/admin/subscription-analytics');
    expect(figures.body.subscriptionsByTier.find((x: { tierId: string }) => x.tierId === 'tier_pro').monthlyRevenue).toBe(3.22);
    expect(figures.body.totalSubscriptionRevenue).toBe(3.22);
    // Moving again now: the user is on Free, nothing more to refund.
    expect((await w.change({ tierId: 'tier_pro', timing: 'now_with_refund' })).body.error.code).toBe('proration_not_paid');
    await expectMoneyConsistent(w.ctx);
  });

  test('a period paid by an upgrade and a proration: the refund comes out of both charges, newest first', async () => {
    const w = await adminWorld();
    await w.upgrade('tier_pro');
    w.ctx.clock.advance(10 * DAY);
    await w.relogin();
    expect((await w.upgrade('tier_premium')).body.receipt.amount).toBe('6.77');
    w.ctx.clock.advance(DAY);
    // 20 of 31 days left on Premium: round(1999 × 20/31) = 1290, more than the proration's 677.
    const res = await w.change({ tierId: 'tier_pro', timing: 'now_with_refund' });
    expect(res.body.refund).toEqual({ amount: '12.90', status: 'succeeded' });
    const parts = await rows(w.ctx, 'SELECT r.amount_cents AS a, c.kind AS k FROM plan_refunds r JOIN subscription_charges c ON c.id = r.charge_id ORDER BY r.amount_cents');
    expect(parts.map((p) => [p.k, p.a])).toEqual([
      ['upgrade', 1290 - 677],
      ['proration', 677],
    ]);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO + 677 - 1290);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO - 677 + 1290);
    await expectMoneyConsistent(w.ctx);
  });

  describe('a crash in the middle of the refund', () => {
    const state = { crash: false, before: false, calls: 0 };
    /** The processor refunds, and the answer never comes back (the process "crashes" there). */
    const crashAfterRefund = (v: Parameters<typeof interceptVendor>[0]) =>
      interceptVendor(v, async <T,>(m: VendorMethod, _a: unknown[], run: () => Promise<T>): Promise<T> => {
        if (m === 'refund' && state.before) throw new Error('crash before refund');
        const out = await run();
        if (m === 'refund') {
          state.calls++;
          if (state.crash) throw new Error('crash after refund');
        }
        return out;
      });

    test('refunded but not recorded: pending, no ledger; the sweep records it once, never paying twice', async () => {
      state.crash = false;
      state.before = false;
      state.calls = 0;
      const w = await adminWorld({ wrapVendor: crashAfterRefund });
      await w.upgrade('tier_pro');
      w.ctx.clock.advance(10 * DAY);
      state.crash = true;
      const res = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
      expect(res.status).toBe(200);
      expect(res.body.refund).toEqual({ amount: '6.77', status: 'pending' });
      // The money went back at the processor; bpay has not recorded it: no ledger movement yet, the row pending.
      expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO + 677);
      expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO);
      expect((await rows(w.ctx, 'SELECT status FROM plan_refunds')).map((r) => r.status)).toEqual(['pending']);
      // A new change waits for it.
      const waits = await w.change({ tierId: 'tier_pro' });
      expect(waits.body.error.code).toBe('plan_change_in_progress');
      // Within the lease the sweep leaves it to its worker.
      state.crash = false;
      await sweepMoney(w.ctx.deps);
      expect((await rows(w.ctx, 'SELECT status FROM plan_refunds')).map((r) => r.status)).toEqual(['pending']);
      w.ctx.clock.advance(PLAN_REFUND_LEASE_MS + 1);
      await sweepMoney(w.ctx.deps);
      await sweepMoney(w.ctx.deps);
      expect((await rows(w.ctx, 'SELECT status FROM plan_refunds')).map((r) => r.status)).toEqual(['succeeded']);
      // Asked again with the same key: the processor paid it once.
      expect(state.calls).toBe(2);
      expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO + 677);
      const refunded = await rows(w.ctx, "SELECT refunded_cents FROM sim_holds WHERE id = (SELECT vendor_charge_id FROM subscription_charges WHERE kind = 'upgrade')");
      expect(Number(refunded[0]?.refunded_cents)).toBe(677);
      expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO - 677);
      expect((await rows(w.ctx, "SELECT id FROM ledger_movements WHERE kind = 'plan.refunded'"))).toHaveLength(1);
      // Told once, by whichever run recorded it.
      expect(await rows(w.ctx, "SELECT id FROM notifications WHERE kind = 'plan_refunded'")).toHaveLength(1);
      await expectMoneyConsistent(w.ctx);
    });

    test('recorded but the processor never asked (a crash before the call): nothing paid; the sweep pays it once', async () => {
      state.crash = false;
      state.before = false;
      state.calls = 0;
      const w = await adminWorld({ wrapVendor: crashAfterRefund });
      await w.upgrade('tier_pro');
      w.ctx.clock.advance(10 * DAY);
      state.before = true;
      const res = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
      expect(res.body.refund).toEqual({ amount: '6.77', status: 'pending' });
      // The move and the pending refund committed together; no money has gone back yet.
      expect((await w.plan()).tier.name).toBe('free');
      expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO);
      expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO);
      state.before = false;
      w.ctx.clock.advance(PLAN_REFUND_LEASE_MS + 1);
      await sweepMoney(w.ctx.deps);
      await sweepMoney(w.ctx.deps);
      expect((await rows(w.ctx, 'SELECT status FROM plan_refunds')).map((r) => r.status)).toEqual(['succeeded']);
      expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - PRO + 677);
      expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO - 677);
      await expectMoneyConsistent(w.ctx);
    });
  });
});
