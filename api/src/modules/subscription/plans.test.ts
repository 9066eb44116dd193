import { afterEach, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { call, interceptVendor, makeTestApp, type TestContext, type VendorMethod } from '../../../test-support/app';
import { addCard, CARD_DECLINES_CHARGES, CARDS_OK, login, postCard, registerUser } from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { VendorUnavailableError } from '../../vendors/types';
import { addCalendarMonth, PLAN_CHARGE_LEASE_MS, RENEWAL_GRACE_MS, RENEWAL_RETRY_MS } from './billing';
import { recoverPlanCharges } from './plan-charge';
import { renewSubscriptions } from './renewals';
import { PLAN_CHARGES_CSV_COLUMNS, PLAN_CHARGES_LIMIT } from './plans';

const DAY = 24 * 3600_000;
let ctx: TestContext | null = null;
afterEach(() => {
  ctx?.close();
  ctx = null;
});

let keyN = 0;
const newKey = () => `plan-test-${++keyN}`;

function upgrade(c: TestContext, cookie: string, body: Record<string, unknown>, key: string | null = newKey()) {
  return call(c, '/api/subscription/upgrade', { method: 'POST', cookie, body, headers: key === null ? {} : { 'idempotency-key': key } });
}
const plan = (c: TestContext, cookie: string) => call(c, '/api/subscription/plan', { cookie });
const planOf = async (w: { ctx: TestContext; cookie: string; relogin(): Promise<void> }) => {
  await w.relogin();
  return (await plan(w.ctx, w.cookie)).body;
};
const downgrade = (c: TestContext, cookie: string, tierId: string) => call(c, '/api/subscription/downgrade', { method: 'POST', cookie, body: { tierId } });

async function rows(c: TestContext, sql: string, args: Array<string | number> = []) {
  return (await c.handle.client.execute({ sql, args })).rows;
}
const charges = (c: TestContext, userId: string) =>
  rows(c, 'SELECT kind, status, amount_cents, failure_code FROM subscription_charges WHERE user_id = ? ORDER BY created_at, id', [userId]);
// The plan's own mail (sign-in notices go to the same outbox).
const mails = (c: TestContext, userId: string) =>
  rows(c, "SELECT kind, subject FROM email_outbox WHERE user_id = ? AND kind LIKE 'plan%' ORDER BY created_at, id", [userId]);
const simBalance = async (c: TestContext, sourceId: string) =>
  Number((await rows(c, 'SELECT s.available_cents AS a FROM sim_cards s JOIN funding_sources f ON f.vendor_token = s.token WHERE f.id = ?', [sourceId]))[0]?.a);

async function world(opts: Parameters<typeof makeTestApp>[0] = {}) {
  ctx = await makeTestApp(opts);
  const u = await registerUser(ctx);
  const card = await addCard(ctx, u.cookie, CARDS_OK[0]);
  const c = ctx;
  const w = {
    ctx: c,
    cookie: u.cookie,
    userId: u.user.id as string,
    card,
    /** Signs in again: a session ends after 14 days, and these tests move the clock by months. */
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

describe('upgrading', () => {
  test('charges the plan price to the chosen source, starts a calendar-month period, writes the ledger and the receipt', async () => {
    const w = await world();
    const res = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    expect(res.status).toBe(200);
    const now = w.ctx.clock.now();
    expect(res.body.plan.tier.name).toBe('pro');
    expect(res.body.plan.currentPeriodStart).toBe(now.toISOString());
    expect(res.body.plan.currentPeriodEnd).toBe(addCalendarMonth(now).toISOString());
    expect(res.body.plan.paymentSource.id).toBe(w.card.id);
    expect(res.body.receipt).toMatchObject({ kind: 'upgrade', status: 'succeeded', amount: '9.99', planName: 'Professional' });
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(999);
    expect(await ledgerBalance(w.ctx, `funding_source:${w.card.id}`)).toBe(-999);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - 999);
    expect((await mails(w.ctx, w.userId)).map((m) => m.kind)).toEqual(['plan_receipt']);
    const list = await call(w.ctx, '/api/subscription/charges', { cookie: w.cookie });
    expect(list.body.map((c: { id: string }) => c.id)).toEqual([res.body.receipt.id]);
    // The benefits the rest of the app reads follow at once.
    expect((await call(w.ctx, '/api/subscription/benefits', { cookie: w.cookie })).body.benefits.maxFundingSources).toBe(5);
    await expectMoneyConsistent(w.ctx);
  });

  test('raises the limits: a third source can be added after paying for Pro', async () => {
    const w = await world();
    await addCard(w.ctx, w.cookie, CARDS_OK[1]);
    expect((await postCard(w.ctx, w.cookie, CARDS_OK[2])).body.error.code).toBe('funding_source_limit_reached');
    expect((await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).status).toBe(200);
    expect((await postCard(w.ctx, w.cookie, CARDS_OK[2])).status).toBe(201);
    expect((await planOf(w)).usage.fundingSources).toEqual({ used: 3, limit: 5 });
  });

  test('refusals', async () => {
    const w = await world();
    const other = await registerUser(w.ctx);
    const foreign = await addCard(w.ctx, other.cookie, CARDS_OK[1]);
    const declining = await addCard(w.ctx, w.cookie, CARD_DECLINES_CHARGES);
    await w.ctx.handle.client.execute(
      "INSERT INTO subscription_tiers (id, name, display_name, monthly_price_cents, transaction_fee_bps, funding_sources_limit, monthly_transactions, bcard_generation_limit, api_calls_per_month, features, is_active, sort_order, created_at, updated_at) VALUES ('tier_gold', 'gold', 'Gold', 4999, 100, -1, -1, -1, -1, '[]', 0, 9, 0, 0)",
    );
    const table: Array<{ name: string; body: Record<string, unknown>; key?: string | null; status: number; code: string; param?: string }> = [
      { name: 'no Idempotency-Key', body: { tierId: 'tier_pro', fundingSourceId: w.card.id }, key: null, status: 400, code: 'invalid_idempotency_key' },
      { name: 'unknown plan', body: { tierId: 'tier_nope', fundingSourceId: w.card.id }, status: 404, code: 'resource_not_found', param: 'tierId' },
      { name: 'plan not offered', body: { tierId: 'tier_gold', fundingSourceId: w.card.id }, status: 400, code: 'tier_inactive', param: 'tierId' },
      { name: "another user's source", body: { tierId: 'tier_pro', fundingSourceId: foreign.id }, status: 404, code: 'resource_not_found', param: 'fundingSourceId' },
      { name: 'unknown source', body: { tierId: 'tier_pro', fundingSourceId: 'fs_nope' }, status: 404, code: 'resource_not_found', param: 'fundingSourceId' },
      { name: 'the same plan', body: { tierId: 'tier_free', fundingSourceId: w.card.id }, status: 409, code: 'plan_unchanged', param: 'tierId' },
      { name: 'missing source', body: { tierId: 'tier_pro' }, status: 400, code: 'validation_error' },
      { name: 'declined card', body: { tierId: 'tier_pro', fundingSourceId: declining.id }, status: 402, code: 'card_declined', param: 'fundingSourceId' },
    ];
    for (const row of table) {
      const res = await upgrade(w.ctx, w.cookie, row.body, row.key === undefined ? newKey() : row.key);
      expect({ name: row.name, status: res.status, code: res.body.error?.code }).toEqual({ name: row.name, status: row.status, code: row.code });
      if (row.param) expect(res.body.error.param).toBe(row.param);
    }
    const declined = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: declining.id });
    expect(declined.body.error.message).toContain(`•••• ${declining.last4}`);
    expect(declined.body.error.message).toContain('Nothing was charged');
    // A paused source cannot pay.
    await w.ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET is_active = 0 WHERE id = ?', args: [w.card.id] });
    const paused = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    expect([paused.status, paused.body.error.code, paused.body.error.param]).toEqual([400, 'validation_error', 'fundingSourceId']);
    // Nothing moved: still Free, the declines recorded as failed, no ledger entry, no receipt.
    expect((await planOf(w)).tier.name).toBe('free');
    expect((await charges(w.ctx, w.userId)).map((c) => c.status)).toEqual(['failed', 'failed']);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(0);
    expect(await mails(w.ctx, w.userId)).toEqual([]);
    await expectMoneyConsistent(w.ctx);
    // A cheaper plan is not an upgrade.
    await w.ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET is_active = 1 WHERE id = ?', args: [w.card.id] });
    expect((await upgrade(w.ctx, w.cookie, { tierId: 'tier_premium', fundingSourceId: w.card.id })).status).toBe(200);
    const cheaper = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    expect([cheaper.status, cheaper.body.error.code]).toEqual([400, 'plan_not_upgrade']);
  });

  test('the same Idempotency-Key twice charges once and replays the answer', async () => {
    const w = await world();
    const key = newKey();
    const first = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id }, key);
    const again = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id }, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.receipt.id).toBe(first.body.receipt.id);
    expect(await charges(w.ctx, w.userId)).toHaveLength(1);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - 999);
  });

  test('concurrent upgrades with different keys: one charge, the others refused clearly', async () => {
    const w = await world();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(409);
      expect(['plan_change_in_progress', 'plan_unchanged']).toContain(a.body.error.code);
    }
    expect((await charges(w.ctx, w.userId)).map((c) => c.status)).toEqual(['succeeded']);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - 999);
    await expectMoneyConsistent(w.ctx);
  });

  test('from Pro to Premium mid-period: prorated (proration.test.ts has the arithmetic), the period kept', async () => {
    const w = await world();
    const first = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    w.ctx.clock.advance(10 * DAY);
    expect((await downgrade(w.ctx, w.cookie, 'tier_free')).body.pendingTier.name).toBe('free');
    const res = await upgrade(w.ctx, w.cookie, { tierId: 'tier_premium', fundingSourceId: w.card.id });
    expect(res.status).toBe(200);
    expect(res.body.plan.tier.name).toBe('premium');
    expect(res.body.plan.currentPeriodStart).toBe(first.body.plan.currentPeriodStart);
    expect(res.body.plan.currentPeriodEnd).toBe(first.body.plan.currentPeriodEnd);
    // An upgrade replaces a scheduled downgrade.
    expect(res.body.plan.pendingTier).toBeNull();
    // 21 of 31 days left: round(1999 × 21/31) − round(999 × 21/31) = 1354 − 677.
    expect(res.body.receipt).toMatchObject({ kind: 'proration', amount: '6.77' });
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(999 + 677);
    await expectMoneyConsistent(w.ctx);
  });
});

describe('downgrading and cancelling', () => {
  test('waits for the period end, can be undone, then moves to Free without a charge; sources above the limit stay', async () => {
    const w = await world();
    await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    await addCard(w.ctx, w.cookie, CARDS_OK[1]);
    await addCard(w.ctx, w.cookie, CARDS_OK[2]);
    const end = new Date((await planOf(w)).currentPeriodEnd);

    const scheduled = await downgrade(w.ctx, w.cookie, 'tier_free');
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.tier.name).toBe('pro');
    expect(scheduled.body.pendingTier.name).toBe('free');
    const undone = await call(w.ctx, '/api/subscription/keep', { method: 'POST', cookie: w.cookie });
    expect(undone.body.pendingTier).toBeNull();
    const nothing = await call(w.ctx, '/api/subscription/keep', { method: 'POST', cookie: w.cookie });
    expect([nothing.status, nothing.body.error.code]).toEqual([409, 'no_pending_plan_change']);
    await downgrade(w.ctx, w.cookie, 'tier_free');

    // Still Pro until the period ends.
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime() - 1);
    expect(await renewSubscriptions(w.ctx.deps)).toBe(0);
    expect((await planOf(w)).tier.name).toBe('pro');
    w.ctx.clock.advance(1);
    expect(await renewSubscriptions(w.ctx.deps)).toBe(1);
    const after = (await planOf(w));
    expect(after.tier.name).toBe('free');
    expect(after.currentPeriodEnd).toBeNull();
    expect(after.usage.fundingSources).toEqual({ used: 3, limit: 2 });
    expect((await charges(w.ctx, w.userId)).map((c) => c.kind)).toEqual(['upgrade']);
    expect((await mails(w.ctx, w.userId)).map((m) => m.kind)).toEqual(['plan_receipt', 'plan_notice']);
    // Over the limit: the three sources stay, a fourth is refused.
    expect((await call(w.ctx, '/api/funding-sources', { cookie: w.cookie })).body).toHaveLength(3);
    expect((await postCard(w.ctx, w.cookie, CARDS_OK[3])).body.error.code).toBe('funding_source_limit_reached');
  });

  test('Premium to Pro: at the period end the Pro price is charged and the Pro period starts', async () => {
    const w = await world();
    await upgrade(w.ctx, w.cookie, { tierId: 'tier_premium', fundingSourceId: w.card.id });
    const end = new Date((await downgrade(w.ctx, w.cookie, 'tier_pro')).body.currentPeriodEnd);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await sweepMoney(w.ctx.deps);
    const after = (await planOf(w));
    expect(after.tier.name).toBe('pro');
    expect(after.currentPeriodStart).toBe(end.toISOString());
    expect(after.currentPeriodEnd).toBe(addCalendarMonth(end).toISOString());
    expect((await charges(w.ctx, w.userId)).map((c) => [c.kind, c.amount_cents])).toEqual([
      ['upgrade', 1999],
      ['renewal', 999],
    ]);
    await expectMoneyConsistent(w.ctx);
  });

  test('refusals', async () => {
    const w = await world();
    const up = await downgrade(w.ctx, w.cookie, 'tier_pro');
    expect([up.status, up.body.error.code]).toEqual([400, 'plan_not_downgrade']);
    const same = await downgrade(w.ctx, w.cookie, 'tier_free');
    expect([same.status, same.body.error.code]).toEqual([409, 'plan_unchanged']);
    const unknown = await downgrade(w.ctx, w.cookie, 'tier_nope');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'resource_not_found']);
  });

  test('a plan that was never paid for (given by an admin) moves at once', async () => {
    const w = await world();
    await w.ctx.handle.client.execute({ sql: "UPDATE user_subscriptions SET tier_id = 'tier_pro' WHERE user_id = ?", args: [w.userId] });
    const res = await downgrade(w.ctx, w.cookie, 'tier_free');
    expect(res.body.tier.name).toBe('free');
    expect(res.body.pendingTier).toBeNull();
  });
});

describe('renewals', () => {
  test('at the period end the plan price is charged again: next period, receipt, ledger', async () => {
    const w = await world();
    const first = (await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).body.plan;
    const end = new Date(first.currentPeriodEnd);
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    expect(await renewSubscriptions(w.ctx.deps)).toBe(1);
    // Running again charges nothing more: the period has moved on.
    expect(await renewSubscriptions(w.ctx.deps)).toBe(0);
    const after = (await planOf(w));
    expect(after.tier.name).toBe('pro');
    expect(after.currentPeriodStart).toBe(end.toISOString());
    expect(after.currentPeriodEnd).toBe(addCalendarMonth(end).toISOString());
    expect((await charges(w.ctx, w.userId)).map((c) => [c.kind, c.status])).toEqual([
      ['upgrade', 'succeeded'],
      ['renewal', 'succeeded'],
    ]);
    expect((await mails(w.ctx, w.userId)).map((m) => m.kind)).toEqual(['plan_receipt', 'plan_receipt']);
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(2 * 999);
    await expectMoneyConsistent(w.ctx);
  });

  test('a failed renewal keeps the plan past due, retries daily, and recovers when the card has funds again', async () => {
    const w = await world();
    const end = new Date((await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).body.plan.currentPeriodEnd);
    await w.ctx.handle.client.execute('UPDATE sim_cards SET available_cents = 0');
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await renewSubscriptions(w.ctx.deps);
    let now = (await planOf(w));
    expect(now.tier.name).toBe('pro');
    expect(now.pastDueSince).toBe(end.toISOString());
    expect(now.graceEndsAt).toBe(new Date(end.getTime() + RENEWAL_GRACE_MS).toISOString());
    expect(now.nextRenewalAttemptAt).toBe(new Date(end.getTime() + RENEWAL_RETRY_MS).toISOString());
    // Not retried before the day is up.
    w.ctx.clock.advance(RENEWAL_RETRY_MS - 1);
    expect(await renewSubscriptions(w.ctx.deps)).toBe(0);
    w.ctx.clock.advance(1);
    expect(await renewSubscriptions(w.ctx.deps)).toBe(1);
    expect((await charges(w.ctx, w.userId)).map((c) => [c.kind, c.status, c.failure_code])).toEqual([
      ['upgrade', 'succeeded', null],
      ['renewal', 'failed', 'insufficient_funds'],
      ['renewal', 'failed', 'insufficient_funds'],
    ]);
    // One notice for the failure, not one per retry.
    expect((await mails(w.ctx, w.userId)).map((m) => m.kind)).toEqual(['plan_receipt', 'plan_notice']);
    await w.ctx.handle.client.execute('UPDATE sim_cards SET available_cents = 1000000 - 999');
    w.ctx.clock.advance(RENEWAL_RETRY_MS);
    await renewSubscriptions(w.ctx.deps);
    now = (await planOf(w));
    expect(now.pastDueSince).toBeNull();
    expect(now.nextRenewalAttemptAt).toBeNull();
    // The period paid for follows the last one: the grace days were on the plan.
    expect(now.currentPeriodStart).toBe(end.toISOString());
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(2 * 999);
    await expectMoneyConsistent(w.ctx);
  });

  test('after the grace period without a paid renewal the account moves to Free, with a notice', async () => {
    const w = await world();
    const end = new Date((await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).body.plan.currentPeriodEnd);
    await w.ctx.handle.client.execute('UPDATE sim_cards SET available_cents = 0');
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    for (let i = 0; i < 8; i++) {
      await renewSubscriptions(w.ctx.deps);
      if ((await planOf(w)).tier.name === 'free') break;
      w.ctx.clock.advance(RENEWAL_RETRY_MS);
    }
    const now = (await planOf(w));
    expect(now.tier.name).toBe('free');
    expect(w.ctx.clock.now().getTime() - end.getTime()).toBe(RENEWAL_GRACE_MS);
    expect((await mails(w.ctx, w.userId)).map((m) => m.kind)).toEqual(['plan_receipt', 'plan_notice', 'plan_notice']);
    expect((await charges(w.ctx, w.userId)).filter((c) => c.status === 'succeeded')).toHaveLength(1);
    // Nothing more is tried once on Free.
    w.ctx.clock.advance(30 * DAY);
    expect(await renewSubscriptions(w.ctx.deps)).toBe(0);
  });

  test('a removed payment source fails the renewal without a charge', async () => {
    const w = await world();
    const end = new Date((await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).body.plan.currentPeriodEnd);
    await w.ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET deleted_at = 1 WHERE id = ?', args: [w.card.id] });
    w.ctx.clock.advance(end.getTime() - w.ctx.clock.now().getTime());
    await renewSubscriptions(w.ctx.deps);
    const now = (await planOf(w));
    expect(now.pastDueSince).toBe(end.toISOString());
    expect(now.paymentSource).toBeNull();
    expect(await charges(w.ctx, w.userId)).toHaveLength(1);
  });
});

describe('crash recovery', () => {
  /** The processor does its part and the answer never comes back (the process "crashes" there). */
  function crashAfter(method: VendorMethod) {
    return (v: Parameters<typeof interceptVendor>[0]) =>
      interceptVendor(v, async <T,>(m: VendorMethod, _a: unknown[], run: () => Promise<T>): Promise<T> => {
        const out = await run();
        if (m === method && state.crash) throw new Error(`crash after ${m}`);
        return out;
      });
  }
  const state = { crash: true };

  test('captured before the crash: the sweep gives the plan and records the ledger once', async () => {
    state.crash = true;
    const w = await world({ wrapVendor: crashAfter('capture') });
    const res = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    expect(res.status).toBe(500);
    expect((await charges(w.ctx, w.userId)).map((c) => c.status)).toEqual(['pending']);
    state.crash = false;
    // Not while the lease holds.
    expect(await recoverPlanCharges(w.ctx.deps)).toBe(0);
    w.ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
    await sweepMoney(w.ctx.deps);
    expect((await charges(w.ctx, w.userId)).map((c) => c.status)).toEqual(['succeeded']);
    expect((await planOf(w)).tier.name).toBe('pro');
    expect(await ledgerBalance(w.ctx, 'bpay:subscriptions')).toBe(999);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000 - 999);
    await expectMoneyConsistent(w.ctx);
  });

  test('held but not captured: the sweep releases the hold; nothing charged, the plan unchanged', async () => {
    state.crash = true;
    const w = await world({ wrapVendor: crashAfter('hold') });
    expect((await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).status).toBe(500);
    // Another upgrade meanwhile is refused clearly, not charged a second time.
    const meanwhile = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    expect([meanwhile.status, meanwhile.body.error.code]).toEqual([409, 'plan_change_in_progress']);
    state.crash = false;
    w.ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
    expect(await recoverPlanCharges(w.ctx.deps)).toBe(1);
    expect((await charges(w.ctx, w.userId)).map((c) => [c.status, c.failure_code])).toEqual([['failed', 'interrupted']]);
    expect((await planOf(w)).tier.name).toBe('free');
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000);
    await expectMoneyConsistent(w.ctx);
  });

  test('the processor does not answer the hold: 503, and the sweep settles it by its key', async () => {
    const w = await world({
      wrapVendor: (v) =>
        interceptVendor(v, async <T,>(m: VendorMethod, _a: unknown[], run: () => Promise<T>): Promise<T> => {
          if (m === 'hold') {
            await run();
            throw new VendorUnavailableError('timeout');
          }
          return run();
        }),
    });
    const res = await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id });
    expect([res.status, res.body.error.code]).toEqual([503, 'vendor_unavailable']);
    w.ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
    expect(await recoverPlanCharges(w.ctx.deps)).toBe(1);
    expect((await charges(w.ctx, w.userId)).map((c) => c.status)).toEqual(['failed']);
    expect(await simBalance(w.ctx, w.card.id)).toBe(1_000_000);
    await expectMoneyConsistent(w.ctx);
  });
});

test('calendar months: the same day next month, or that month\'s last day', () => {
  expect(addCalendarMonth(new Date('2026-01-15T12:00:00Z')).toISOString()).toBe('2026-02-15T12:00:00.000Z');
  expect(addCalendarMonth(new Date('2026-01-31T08:30:00Z')).toISOString()).toBe('2026-02-28T08:30:00.000Z');
  expect(addCalendarMonth(new Date('2028-01-31T00:00:00Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  expect(addCalendarMonth(new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-31T23:59:59.000Z');
});

/** RFC 4180 as the export writes it: CRLF after every line (the last included), quoted cells with doubled quotes. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += ch;
  }
  if (cell !== '' || row.length > 0) throw new Error('the CSV does not end with CRLF');
  return rows;
}

describe('GET /api/subscription/charges/export.csv', () => {
  const csv = (w: { ctx: TestContext; cookie: string }, query = '') => call(w.ctx, `/api/subscription/charges/export.csv${query}`, { cookie: w.cookie });

  test('every plan payment of the user, newest first, filtered by status, formulas neutralised; not in the transactions CSV', async () => {
    const w = await world();
    const declining = await addCard(w.ctx, w.cookie, CARD_DECLINES_CHARGES);
    expect((await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: declining.id })).status).toBe(402);
    w.ctx.clock.advance(60_000);
    const paid = (await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).body.receipt;
    // Another user's plan payment never shows.
    const other = await registerUser(w.ctx);
    const otherCard = await addCard(w.ctx, other.cookie, CARDS_OK[1]);
    expect((await upgrade(w.ctx, other.cookie, { tierId: 'tier_pro', fundingSourceId: otherCard.id })).status).toBe(200);
    await w.ctx.handle.client.execute({ sql: "UPDATE funding_sources SET name = '=HYPERLINK(\"x\")' WHERE id = ?", args: [w.card.id] });

    const res = await csv(w);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/csv');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="bpay-plan-payments-all.csv"');
    const rows = csvRows(res.text);
    expect(rows[0]).toEqual([...PLAN_CHARGES_CSV_COLUMNS]);
    const col = (name: (typeof PLAN_CHARGES_CSV_COLUMNS)[number]) => PLAN_CHARGES_CSV_COLUMNS.indexOf(name);
    for (const r of rows) expect(r).toHaveLength(PLAN_CHARGES_CSV_COLUMNS.length);
    expect(rows.slice(1).map((r) => [r[col('status')], r[col('plan')], r[col('amount')], r[col('card_last4')], r[col('kind')]])).toEqual([
      ['succeeded', 'Professional', '9.99', w.card.last4, 'upgrade'],
      ['failed', 'Professional', '9.99', declining.last4, 'upgrade'],
    ]);
    expect(rows[1]![col('id')]).toBe(paid.id);
    expect(rows[1]![col('period_start')]).toBe(paid.periodStart);
    expect(rows[1]![col('period_end')]).toBe(paid.periodEnd);
    expect(rows[1]![col('funding_source')]).toBe(`'=HYPERLINK("x")`);
    expect(rows[1]![col('failure_message')]).toBe('');
    expect(rows[2]![col('failure_message')]).toBe('Your card was declined.');

    expect(csvRows((await csv(w, '?status=failed')).text).slice(1).map((r) => r[col('status')])).toEqual(['failed']);
    expect(csvRows((await csv(w, '?status=succeeded')).text).slice(1).map((r) => r[col('id')])).toEqual([paid.id]);
    expect(csvRows((await csv(w, '?status=pending')).text)).toEqual([[...PLAN_CHARGES_CSV_COLUMNS]]);
    const bogus = await csv(w, '?status=completed');
    expect([bogus.status, bogus.body.error.code, bogus.body.error.param]).toEqual([400, 'validation_error', 'status']);
    const anonymous = await call(w.ctx, '/api/subscription/charges/export.csv');
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthenticated']);
    // Plan payments are not bcard purchases: the transactions CSV keeps its columns and lists none of them.
    expect((await call(w.ctx, '/api/transactions/export.csv', { cookie: w.cookie })).text.split('\r\n').filter(Boolean)).toHaveLength(1);
  });

  test('lists every payment, not only the last PLAN_CHARGES_LIMIT the JSON list shows', async () => {
    const w = await world();
    const first = (await upgrade(w.ctx, w.cookie, { tierId: 'tier_pro', fundingSourceId: w.card.id })).body.receipt;
    // Older failed attempts, written straight into the table (paying a hundred times through the API is slow).
    await w.ctx.handle.client.execute({
      sql: `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO subscription_charges (id, user_id, subscription_id, tier_id, funding_source_id, kind, status, amount_cents,
              period_start, period_end, vendor, vendor_charge_id, failure_code, failure_message, idempotency_key, lease_owner, lease_until,
              created_at, updated_at)
            SELECT c.id || '_old' || n.i, c.user_id, NULL, c.tier_id, c.funding_source_id, 'upgrade', 'failed', c.amount_cents,
              c.period_start, c.period_end, c.vendor, NULL, 'card_declined', 'Declined', c.idempotency_key || '_old' || n.i, c.lease_owner,
              c.lease_until, c.created_at - n.i * 1000, c.updated_at
            FROM subscription_charges c, n WHERE c.id = ?`,
      args: [PLAN_CHARGES_LIMIT, first.id],
    });
    expect((await call(w.ctx, '/api/subscription/charges', { cookie: w.cookie })).body).toHaveLength(PLAN_CHARGES_LIMIT);
    const rows = csvRows((await csv(w)).text);
    expect(rows).toHaveLength(1 + PLAN_CHARGES_LIMIT + 1);
    expect(rows[1]![0]).toBe(first.id);
    expect(rows.at(-1)![0]).toBe(`${first.id}_old${PLAN_CHARGES_LIMIT}`);
  });
});
