// Hostile review of issue 26 part 4 (plans paid the way users expect): odd input on the new routes, parallel
// retries, careless admin moves, a tier's price changed in the middle of a paid period, and the refund bound.
import { afterEach, describe, expect, test } from 'bun:test';
import { TestClock } from '../../lib/clock';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addBankAccount, addCard, CARDS_OK, login, registerUser } from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { renewSubscriptions } from './renewals';
import { interceptVendor } from '../../../test-support/app';
import { VendorUnavailableError } from '../../vendors/types';
import { PLAN_CHARGE_LEASE_MS } from './billing';
import { sweepMoney } from '../../boot';

const DAY = 24 * 3600_000;
const PRO = 999;
let ctx: TestContext | null = null;
afterEach(() => {
  ctx?.close();
  ctx = null;
});
let keyN = 0;
const newKey = () => `plans-audit-${++keyN}`;
const rows = async (c: TestContext, sql: string, args: Array<string | number> = []) => (await c.handle.client.execute({ sql, args })).rows;

const crash = { after: null as null | 'hold' | 'capture' };
async function world(opts: { crashable?: boolean } = {}) {
  ctx = await makeTestApp({
    clock: new TestClock(Date.parse('2026-01-15T12:00:00Z')),
    ...(opts.crashable
      ? {
          wrapVendor: (v: Parameters<typeof interceptVendor>[0]) =>
            interceptVendor(v, async <T,>(m: string, _a: unknown[], run: () => Promise<T>): Promise<T> => {
              const out = await run();
              if (m === crash.after) {
                crash.after = null;
                throw new VendorUnavailableError(`crash after ${m}`);
              }
              return out;
            }),
        }
      : {}),
  });
  const c = ctx;
  const u = await registerUser(c);
  const card = await addCard(c, u.cookie, CARDS_OK[0]);
  await makeAdmin(c);
  const w = {
    ctx: c,
    cookie: u.cookie,
    userId: u.user.id as string,
    card,
    upgrade: (tierId: string, fundingSourceId: string = card.id, key: string = newKey()) =>
      call(c, '/api/subscription/upgrade', { method: 'POST', cookie: w.cookie, body: { tierId, fundingSourceId }, headers: { 'idempotency-key': key } }),
    relogin: async () => {
      w.cookie = (await login(c, u.email, u.password)).cookie!;
    },
    change: async (body: unknown, token?: string | null) =>
      adminCall(c, token === undefined ? await adminToken(c) : token, `/api/admin/users/${w.userId}/subscription`, { method: 'PATCH', body: body as Record<string, unknown> }),
  };
  return w;
}
async function consistent(c: TestContext) {
  const r = await moneyReport(c);
  expect(moneyViolations(r)).toEqual([]);
  expect(r.ledgerTotal).toBe(0);
}

describe('odd input', () => {
  test('admin timing of every odd type is 400 and changes nothing; no token 401; an unknown user 404', async () => {
    const w = await world();
    expect((await w.upgrade('tier_pro')).status).toBe(200);
    for (const timing of [5, null, 'NOW_WITH_REFUND', '', ['period_end'], { x: 1 }, true]) {
      const r = await w.change({ tierId: 'tier_premium', timing });
      expect({ timing, status: r.status }).toEqual({ timing, status: 400 });
    }
    expect((await w.change({ tierId: 'tier_premium', timing: 'period_end' }, null)).status).toBe(401);
    expect((await adminCall(w.ctx, await adminToken(w.ctx), '/api/admin/users/usr_nobody/subscription', { method: 'PATCH', body: { tierId: 'tier_free', timing: 'now_with_refund' } })).status).toBe(404);
    expect((await rows(w.ctx, 'SELECT count(*) AS n FROM plan_refunds'))[0]!.n).toBe(0);
    expect((await rows(w.ctx, "SELECT tier_id, pending_tier_id FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [w.userId]))[0]).toMatchObject({ tier_id: 'tier_pro', pending_tier_id: null });
  });

  test('payment source: another user’s card 404, a bank account or a paused card 400, removed 404, odd types 400', async () => {
    const w = await world();
    expect((await w.upgrade('tier_pro')).status).toBe(200);
    const other = await registerUser(w.ctx);
    const theirs = await addCard(w.ctx, other.cookie, CARDS_OK[1]);
    const bank = await addBankAccount(w.ctx, w.cookie);
    const put = (body: unknown) => call(w.ctx, '/api/subscription/payment-source', { method: 'PUT', cookie: w.cookie, body });
    expect((await put({ fundingSourceId: theirs.id })).status).toBe(404);
    expect((await put({ fundingSourceId: bank.id })).status).toBe(400);
    for (const body of [{ fundingSourceId: 5 }, { fundingSourceId: '' }, { fundingSourceId: null }, {}, { fundingSourceId: 'x'.repeat(5000) }, []]) {
      const r = await put(body);
      expect({ body, status: r.status }).toEqual({ body, status: r.status >= 400 && r.status < 500 ? r.status : -1 });
    }
    const paused = await addCard(w.ctx, w.cookie, CARDS_OK[2]);
    await rows(w.ctx, 'UPDATE funding_sources SET is_active = 0 WHERE id = ?', [paused.id]);
    expect((await put({ fundingSourceId: paused.id })).status).toBe(400);
    await rows(w.ctx, 'UPDATE funding_sources SET deleted_at = 1 WHERE id = ?', [paused.id]);
    expect((await put({ fundingSourceId: paused.id })).status).toBe(404);
    expect((await rows(w.ctx, "SELECT payment_source_id FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [w.userId]))[0]!.payment_source_id).toBe(w.card.id);
  });
});

describe('retry-renewal', () => {
  test('20 at once (10 on one key, 10 on their own): one renewal charged', async () => {
    const w = await world();
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    await rows(w.ctx, 'UPDATE sim_cards SET available_cents = 0 WHERE token = (SELECT vendor_token FROM funding_sources WHERE id = ?)', [w.card.id]);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await renewSubscriptions(w.ctx.deps);
    await w.relogin();
    const other = await addCard(w.ctx, w.cookie, CARDS_OK[1]);
    expect((await call(w.ctx, '/api/subscription/payment-source', { method: 'PUT', cookie: w.cookie, body: { fundingSourceId: other.id } })).status).toBe(200);
    const shared = newKey();
    const res = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(w.ctx!, '/api/subscription/retry-renewal', { method: 'POST', cookie: w.cookie, headers: { 'idempotency-key': i % 2 ? shared : newKey() } }),
      ),
    );
    expect(res.every((r) => r.status < 500)).toBe(true);
    expect(res.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect((await rows(w.ctx, "SELECT count(*) AS n FROM subscription_charges WHERE kind = 'renewal' AND status = 'succeeded'"))[0]!.n).toBe(1);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(2 * PRO);
    await rows(w.ctx, 'UPDATE sim_cards SET available_cents = ? WHERE token = (SELECT vendor_token FROM funding_sources WHERE id = ?)', [1_000_000 - PRO, w.card.id]);
    await consistent(w.ctx);
  });
});

describe('admin moves and what was paid', () => {
  test('upgrade twice in a period then now_with_refund: the refund never exceeds what was paid for the period', async () => {
    const w = await world();
    // A dearer tier than Premium, so that two upgrades fit in one period.
    const token = await adminToken(w.ctx);
    const made = await adminCall(w.ctx, token, '/api/admin/subscription-tiers', { method: 'POST', body: { name: 'ultra', displayName: 'Ultra', monthlyPrice: 49.99, features: [], limits: { fundingSources: -1, bcardsPerMonth: -1 } } });
    const ultra = made.body?.id as string;
    expect((await w.upgrade('tier_pro')).status).toBe(200);
    w.ctx.clock.advance(5 * DAY);
    await w.relogin();
    expect((await w.upgrade('tier_premium')).status).toBe(200);
    if (ultra) {
      w.ctx.clock.advance(5 * DAY);
      await w.relogin();
      expect((await w.upgrade(ultra)).status).toBe(200);
    }
    w.ctx.clock.advance(DAY);
    const paid = Number((await rows(w.ctx, "SELECT sum(amount_cents) AS s FROM subscription_charges WHERE user_id = ? AND status = 'succeeded'", [w.userId]))[0]!.s);
    const res = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
    expect(res.status).toBe(200);
    const refunded = Number((await rows(w.ctx, "SELECT coalesce(sum(amount_cents), 0) AS s FROM plan_refunds WHERE status = 'succeeded'"))[0]!.s);
    expect(refunded).toBeLessThanOrEqual(paid);
    expect(refunded).toBeGreaterThan(0);
    await consistent(w.ctx);
  });

  test('a tier whose price an admin raised mid-period: the upgrade credits and the refund pay back what the user paid, not the new price', async () => {
    const w = await world();
    const token = await adminToken(w.ctx);
    const made = await adminCall(w.ctx, token, '/api/admin/subscription-tiers', { method: 'POST', body: { name: 'ultra', displayName: 'Ultra', monthlyPrice: 199.99, features: [], limits: { fundingSources: -1, bcardsPerMonth: -1 } } });
    expect(made.status).toBe(201);
    const first = await w.upgrade('tier_pro');
    const { currentPeriodStart: start, currentPeriodEnd: end } = first.body.plan;
    const periodMs = new Date(end).getTime() - new Date(start).getTime();
    // Half the period later Pro costs $99.99 for new subscribers; this user paid $9.99 for this period.
    w.ctx.clock.advance(periodMs / 2);
    expect((await adminCall(w.ctx, await adminToken(w.ctx), '/api/admin/subscription-tiers/tier_pro', { method: 'PATCH', body: { monthlyPrice: 99.99 } })).status).toBe(200);
    await w.relogin();
    const up = await w.upgrade(made.body.id);
    expect(up.status).toBe(200);
    // Half of what was paid is unused (less the admin's sign-ins, 30 s each): about $5.00, not half of $99.99.
    expect(Math.abs(Math.round(Number(up.body.receipt.proration.credit) * 100) - 500)).toBeLessThanOrEqual(1);
    await consistent(w.ctx);
  });

  test('a tier whose price an admin changed mid-period: now_with_refund refunds the unused part of what was paid', async () => {
    const w = await world();
    const first = await w.upgrade('tier_pro');
    const { currentPeriodStart: start, currentPeriodEnd: end } = first.body.plan;
    const periodMs = new Date(end).getTime() - new Date(start).getTime();
    w.ctx.clock.advance(periodMs / 2);
    // Lowered to $1.00 for everyone: this user paid $9.99 and half of it is unused.
    expect((await adminCall(w.ctx, await adminToken(w.ctx), '/api/admin/subscription-tiers/tier_pro', { method: 'PATCH', body: { monthlyPrice: 1 } })).status).toBe(200);
    const res = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
    expect(res.body.refund.status).toBe('succeeded');
    expect(Math.abs(Math.round(Number(res.body.refund.amount) * 100) - 500)).toBeLessThanOrEqual(1);
    await consistent(w.ctx);
  });
});

describe('a crash while recording a plan refund', () => {
  test('the refund paid but its recording fails: the admin is not told 500 for a committed move; the sweep records it once', async () => {
    const { sweepMoney } = await import('../../boot');
    const { PLAN_REFUND_LEASE_MS } = await import('./plan-refunds');
    const w = await world();
    expect((await w.upgrade('tier_pro')).status).toBe(200);
    w.ctx.clock.advance(10 * DAY);
    await w.ctx.handle.client.execute("CREATE TRIGGER refuse_plan_notice BEFORE INSERT ON notifications WHEN NEW.kind = 'plan_refunded' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    const res = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
    await w.ctx.handle.client.execute('DROP TRIGGER refuse_plan_notice');
    expect(res.status).toBe(200);
    expect(res.body.refund.status).toBe('pending');
    w.ctx.clock.advance(PLAN_REFUND_LEASE_MS + 1);
    await sweepMoney(w.ctx.deps);
    expect((await rows(w.ctx, 'SELECT status FROM plan_refunds')).map((r) => r.status)).toEqual(['succeeded']);
    expect(await rows(w.ctx, "SELECT id FROM ledger_movements WHERE kind = 'plan.refunded'")).toHaveLength(1);
    await consistent(w.ctx);
  });
});

describe('odd keys and extra fields', () => {
  test('retry-renewal and payment-source: odd Idempotency-Keys and extra fields are 4xx or ignored, never 500', async () => {
    const w = await world();
    expect((await w.upgrade('tier_pro')).status).toBe(200);
    for (const key of ['', ' ', 'k'.repeat(5000), '../../x', '%00']) {
      const r = await call(w.ctx, '/api/subscription/retry-renewal', { method: 'POST', cookie: w.cookie, headers: { 'idempotency-key': key } });
      expect({ key: key.slice(0, 10), status: r.status }).toEqual({ key: key.slice(0, 10), status: r.status < 500 ? r.status : -1 });
    }
    const other = await addCard(w.ctx, w.cookie, CARDS_OK[1]);
    const r = await call(w.ctx, '/api/subscription/payment-source', { method: 'PUT', cookie: w.cookie, body: { fundingSourceId: other.id, userId: 'usr_x', paymentSourceId: w.card.id } });
    expect(r.status).toBeLessThan(500);
    const extra = await w.change({ tierId: 'tier_free', timing: 'period_end', refundCents: 100000, adminId: 'x' });
    expect(extra.status).toBeLessThan(500);
    expect((await rows(w.ctx, 'SELECT count(*) AS n FROM plan_refunds'))[0]!.n).toBe(0);
  });
});

describe('a careless admin', () => {
  test('period_end to a dearer plan is refused: the renewal would charge the user a price they never chose', async () => {
    const w = await world();
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    const res = await w.change({ tierId: 'tier_premium', timing: 'period_end' });
    expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([400, 'validation_error', 'timing']);
    expect((await rows(w.ctx, "SELECT pending_tier_id FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [w.userId]))[0]!.pending_tier_id).toBeNull();
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await renewSubscriptions(w.ctx.deps);
    expect((await rows(w.ctx, "SELECT amount_cents FROM subscription_charges WHERE kind = 'renewal'")).map((r) => Number(r.amount_cents))).toEqual([PRO]);
    // A cheaper plan at the period end is still the admin's to schedule.
    w.ctx.close();
    const t2 = await world();
    expect((await t2.upgrade('tier_premium')).status).toBe(200);
    expect((await t2.change({ tierId: 'tier_pro', timing: 'period_end' })).status).toBe(200);
  });
});

describe('odd moments', () => {
  test('downgrade scheduled, then an upgrade: prorated from the plan paid, the pending downgrade dropped, ledger whole', async () => {
    const w = await world();
    expect((await w.upgrade('tier_premium')).status).toBe(200);
    w.ctx.clock.advance(3 * DAY);
    await w.relogin();
    const down = await call(w.ctx, '/api/subscription/downgrade', { method: 'POST', cookie: w.cookie, body: { tierId: 'tier_pro' } });
    expect(down.status).toBeLessThan(500);
    const token = await adminToken(w.ctx);
    const made = await adminCall(w.ctx, token, '/api/admin/subscription-tiers', { method: 'POST', body: { name: 'ultra', displayName: 'Ultra', monthlyPrice: 49.99, features: [], limits: { fundingSources: -1, bcardsPerMonth: -1 } } });
    await w.relogin();
    const up = await w.upgrade(made.body.id);
    expect(up.status).toBe(200);
    expect(up.body.receipt.kind).toBe('proration');
    expect(up.body.plan.pendingTier ?? null).toBeNull();
    await consistent(w.ctx);
  });

  test('the last millisecond of a period: 409 proration_zero, nothing charged; at its end: a full-price new period', async () => {
    const w = await world();
    const end = new Date((await w.upgrade('tier_pro')).body.plan.currentPeriodEnd);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime() - 60_000);
    await w.relogin();
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime() - 1);
    const key = newKey();
    const last = await call(w.ctx, '/api/subscription/upgrade', { method: 'POST', cookie: w.cookie, body: { tierId: 'tier_premium', fundingSourceId: w.card.id }, headers: { 'idempotency-key': key } });
    expect([last.status, last.body.error?.code]).toEqual([409, 'proration_zero']);
    w.ctx.clock.advance(1);
    const at = await w.upgrade('tier_premium');
    expect(at.status).toBe(200);
    expect(at.body.receipt).toMatchObject({ kind: 'upgrade', amount: '19.99' });
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(PRO + 1999);
    await consistent(w.ctx);
  });

  test('a leap year: 29 January 2028 to 29 February is 31 days, the renewal to 29 March 29 days; the ledger whole', async () => {
    ctx = await makeTestApp({ clock: new TestClock(Date.parse('2028-01-29T00:00:00Z')) });
    const c = ctx;
    const u = await registerUser(c);
    const card = await addCard(c, u.cookie, CARDS_OK[0]);
    const pay = (tierId: string) => call(c, '/api/subscription/upgrade', { method: 'POST', cookie: u.cookie, body: { tierId, fundingSourceId: card.id }, headers: { 'idempotency-key': newKey() } });
    const first = await pay('tier_pro');
    const { currentPeriodStart: start, currentPeriodEnd: end } = first.body.plan;
    expect(new Date(end).getTime() - new Date(start).getTime()).toBe(31 * DAY);
    c.clock.advance(31 * DAY);
    await renewSubscriptions(c.deps);
    const plan = (await call(c, '/api/subscription/plan', { cookie: (await login(c, u.email, u.password)).cookie })).body;
    expect(new Date(plan.currentPeriodEnd).getTime() - new Date(plan.currentPeriodStart).getTime()).toBe(29 * DAY);
    await consistent(c);
  });
});

describe('a crash in the middle of a proration charge', () => {
  for (const step of ['hold', 'capture'] as const) {
    test(`after the ${step}: 503, an admin's move waits (409), the sweep settles it once`, async () => {
      const w = await world({ crashable: true });
      const first = await w.upgrade('tier_pro');
      expect(first.status).toBe(200);
      w.ctx.clock.advance(10 * DAY);
      await w.relogin();
      crash.after = step;
      const key = newKey();
      const res = await w.upgrade('tier_premium', w.card.id, key);
      expect(res.status).toBe(503);
      const admin = await w.change({ tierId: 'tier_free', timing: 'now_with_refund' });
      expect([admin.status, admin.body.error?.code]).toEqual([409, 'plan_change_in_progress']);
      w.ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
      await sweepMoney(w.ctx.deps);
      await sweepMoney(w.ctx.deps);
      const charges = await rows(w.ctx, "SELECT status FROM subscription_charges WHERE kind = 'proration'");
      const paid = step === 'capture';
      expect(charges.map((c) => c.status)).toEqual([paid ? 'succeeded' : 'failed']);
      await w.relogin();
      const plan = (await call(w.ctx, '/api/subscription/plan', { cookie: w.cookie })).body;
      expect(plan.tier.name).toBe(paid ? 'premium' : 'pro');
      expect(plan.currentPeriodEnd).toBe(first.body.plan.currentPeriodEnd);
      // The same request again: its outcome, nothing charged twice.
      const again = await w.upgrade('tier_premium', w.card.id, key);
      expect(again.status).toBeLessThan(500);
      expect(Number((await rows(w.ctx, "SELECT count(*) AS n FROM ledger_movements WHERE kind = 'plan.charged'"))[0]!.n)).toBe(paid ? 2 : again.status === 200 ? 2 : 1);
      await consistent(w.ctx);
    });
  }
});
