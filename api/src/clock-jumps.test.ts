import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { MONEY_SWEEP_MS, sweepMoney } from './boot';
import { CATCH_UP_SLOWDOWN } from './lib/clock';
import { call, interceptVendor, makeTestApp, merchantCall, type TestContext, type VendorMethod } from '../test-support/app';
import { addCard, bcardCard, CARDS_OK, createMerchant, login, merchantWorld, registerUser, type MerchantWorld, type TestCardDetails } from '../test-support/world';
import { totp } from './lib/totp';
import { SIGNATURE_HEADER } from './modules/webhooks/signature';
import { deliverDueWebhooks } from './modules/webhooks/worker';
import { ledgerBalance, moneyReport, moneyViolations } from '../test-support/money-invariants';
import { addCalendarMonth, RENEWAL_RETRY_MS } from './modules/subscription/billing';

/*
 * A system clock that is set back or forward by an hour (issue 27): an NTP step, an operator, a virtual machine
 * resumed. bpay reads time through a steady clock (lib/clock.ts): it follows a step forward, and never follows a
 * step back (it goes on, 1.5 % slow, until the system clock meets it). The money sweep runs every MONEY_SWEEP_MS of
 * real time (a timer); here `tick` is that timer: 30 s pass, the sweep runs, and then no bcard whose time has come
 * (on bpay's clock) is still active. Whatever the steps, a bcard is refunded at most one sweep after its time, is
 * never spendable after it, is never alive again after a step back, and a plan period is charged once.
 */

const HOUR = 3600_000;
let ctx: TestContext;
let w: MerchantWorld;

beforeAll(async () => {
  ctx = await makeTestApp();
  w = await merchantWorld(ctx);
});
afterAll(() => ctx.close());

const nowMs = () => ctx.clock.now().getTime();

async function bcardRow(id: string): Promise<{ status: string; expiresAt: number }> {
  const row = (await ctx.handle.client.execute({ sql: 'SELECT status, expires_at FROM bcards WHERE id = ?', args: [id] })).rows[0];
  return { status: String(row!.status), expiresAt: Number(row!.expires_at) };
}

async function refunds(id: string): Promise<number> {
  const rs = await ctx.handle.client.execute({
    sql: "SELECT count(*) AS n FROM ledger_movements WHERE kind = 'bcard.refunded' AND reference_id = ?",
    args: [id],
  });
  return Number(rs.rows[0]!.n);
}

/** Every bcard a test made: after each sweep, none whose time has come on bpay's clock may still be active. */
const tracked: string[] = [];

/** The sweep's timer: MONEY_SWEEP_MS of real time pass, then the sweep runs; then the rule is checked. */
async function tick(times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    ctx.clock.advance(MONEY_SWEEP_MS);
    await sweepMoney(ctx.deps);
    for (const id of tracked) {
      const b = await bcardRow(id);
      if (b.expiresAt <= nowMs()) expect({ id, status: b.status }).toEqual({ id, status: 'expired' });
    }
  }
}

async function issue(): Promise<{ id: string; card: TestCardDetails }> {
  const b = await bcardCard(ctx, w.consumer.cookie, w.sourceId, '25.00');
  tracked.push(b.id);
  return b;
}

/** A purchase with the bcard at the live merchant: the confirm's status and error code. */
async function spend(card: TestCardDetails): Promise<[number, string | null]> {
  const pi = await merchantCall(ctx, w.live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd' } });
  expect(pi.status).toBe(200);
  const res = await merchantCall(ctx, w.live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  return [res.status, res.body.error?.code ?? null];
}

/** Whether the cardholder can still read the bcard's number (200) or it is over (409 bcard_not_active). */
const reveal = async (id: string) => (await call(ctx, `/api/virtual-cards/${id}/checkout-details`, { cookie: w.consumer.cookie })).status;

async function expectSettled() {
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.unsettledCollections).toBe(0);
  expect(report.heldHolds).toBe(0);
}

describe('a bcard while the system clock jumps', () => {
  test('back an hour during its life, then forward past its time: refunded within one sweep, declined before it', async () => {
    const b = await issue();
    const { expiresAt } = await bcardRow(b.id);
    await tick(20);
    const before = nowMs();
    ctx.clock.stepSystemClock(-HOUR);
    // bpay does not go back: its 30 minutes are not made an hour longer.
    expect(nowMs()).toBe(before);
    await tick(20);
    expect(nowMs()).toBeGreaterThan(before + 20 * MONEY_SWEEP_MS * (1 - CATCH_UP_SLOWDOWN) - 1);
    expect(await reveal(b.id)).toBe(200);
    expect((await bcardRow(b.id)).status).toBe('active');

    // The system clock is set two hours forward: past the bcard's time at once, before the sweep has run.
    ctx.clock.stepSystemClock(2 * HOUR);
    expect(nowMs()).toBeGreaterThan(expiresAt);
    expect(await spend(b.card)).toEqual([402, 'expired_card']);
    expect(await reveal(b.id)).toBe(409);
    await tick();
    expect((await bcardRow(b.id)).status).toBe('expired');
    expect(await refunds(b.id)).toBe(1);
    await tick(4);
    expect(await refunds(b.id)).toBe(1);
    await expectSettled();
  });

  test('forward an hour during its life, then back: expired at the first sweep, and the step back does not revive it', async () => {
    const b = await issue();
    await tick(10);
    ctx.clock.stepSystemClock(HOUR);
    expect(await spend(b.card)).toEqual([402, 'expired_card']);
    await tick();
    expect((await bcardRow(b.id)).status).toBe('expired');

    ctx.clock.stepSystemClock(-HOUR);
    // The system clock is before the bcard's time again; bpay is not.
    expect(ctx.clock.system().getTime()).toBeLessThan((await bcardRow(b.id)).expiresAt);
    expect(await reveal(b.id)).toBe(409);
    expect(await spend(b.card)).toEqual([402, 'card_declined']);
    await tick(10);
    expect((await bcardRow(b.id)).status).toBe('expired');
    expect(await refunds(b.id)).toBe(1);
    await expectSettled();
  });

  test('back an hour after its time but before the sweep ran: still over, never spendable, refunded at the next sweep', async () => {
    const b = await issue();
    const { expiresAt } = await bcardRow(b.id);
    // The timer's runs go on until just before the bcard's time; 10 s after it, the next run is 20 s away.
    while (nowMs() + MONEY_SWEEP_MS < expiresAt) await tick();
    ctx.clock.advance(expiresAt + 10_000 - nowMs());
    expect((await bcardRow(b.id)).status).toBe('active');
    expect(await spend(b.card)).toEqual([402, 'expired_card']);

    ctx.clock.stepSystemClock(-HOUR);
    // On the system clock the bcard has 50 minutes left; a clock that followed it would let it be spent now.
    expect(ctx.clock.system().getTime()).toBeLessThan(expiresAt - 45 * 60_000);
    expect(await spend(b.card)).toEqual([402, 'expired_card']);
    expect(await reveal(b.id)).toBe(409);
    ctx.clock.advance(MONEY_SWEEP_MS - 10_000);
    await sweepMoney(ctx.deps);
    expect((await bcardRow(b.id)).status).toBe('expired');
    expect(await refunds(b.id)).toBe(1);
    await tick(2);
    await expectSettled();
  });
});

/* Plans: a renewal at the period's end, the system clock stepping around it. */

async function planUser(c: TestContext) {
  const u = await registerUser(c);
  const card = await addCard(c, u.cookie, CARDS_OK[0]);
  const up = await call(c, '/api/subscription/upgrade', {
    method: 'POST',
    cookie: u.cookie,
    body: { tierId: 'tier_pro', fundingSourceId: card.id },
    headers: { 'idempotency-key': `clock-jumps-${u.user.id}` },
  });
  expect(up.status).toBe(200);
  return { userId: u.user.id as string, end: new Date(up.body.plan.currentPeriodEnd) };
}

async function planState(c: TestContext, userId: string) {
  const q = async (sql: string, args: Array<string | number> = [userId]) => (await c.handle.client.execute({ sql, args })).rows;
  const charges = await q('SELECT kind, status, failure_code FROM subscription_charges WHERE user_id = ? ORDER BY created_at, id');
  const captured = await q(
    `SELECT count(*) AS n FROM sim_holds WHERE status = 'captured' AND idempotency_key IN
       (SELECT 'plan:' || id FROM subscription_charges WHERE user_id = ?)`,
  );
  const movements = await q(
    `SELECT count(*) AS n FROM ledger_movements WHERE kind = 'plan.charged' AND reference_id IN
       (SELECT id FROM subscription_charges WHERE user_id = ?)`,
  );
  const sub = await q("SELECT current_period_end AS e FROM user_subscriptions WHERE user_id = ? AND status = 'active'");
  return {
    charges: charges.map((r) => [r.kind, r.status, r.failure_code]),
    captured: Number(captured[0]!.n),
    movements: Number(movements[0]!.n),
    periodEnd: new Date(Number(sub[0]!.e)).toISOString(),
  };
}

describe('a plan period while the system clock jumps', () => {
  test('renewed at the period end; an hour back and forward again over the same end: one charge, the period moved once', async () => {
    // Its own app: the clock above is still catching up with the steps of the bcard tests.
    const c = await makeTestApp();
    const sweeps = async (n: number) => {
      for (let i = 0; i < n; i++) {
        c.clock.advance(MONEY_SWEEP_MS);
        await sweepMoney(c.deps);
      }
    };
    try {
      const p = await planUser(c);
      c.clock.advance(p.end.getTime() - 60_000 - c.clock.now().getTime());
      await sweeps(3);
      const renewed = {
        charges: [
          ['upgrade', 'succeeded', null],
          ['renewal', 'succeeded', null],
        ],
        captured: 2,
        movements: 2,
        periodEnd: addCalendarMonth(p.end).toISOString(),
      };
      expect(await planState(c, p.userId)).toEqual(renewed);

      // Back an hour: the system clock is before the period end again for an hour; then forward over it again.
      c.clock.stepSystemClock(-HOUR);
      expect(c.clock.system().getTime()).toBeLessThan(p.end.getTime());
      await sweeps(130);
      c.clock.stepSystemClock(HOUR);
      await sweeps(4);
      expect(await planState(c, p.userId)).toEqual(renewed);
      expect(await ledgerBalance(c, 'bpay:subscriptions')).toBe(2 * 999);
      const report = await moneyReport(c);
      expect(moneyViolations(report)).toEqual([]);
      expect(report.heldHolds).toBe(0);
    } finally {
      c.close();
    }
  });

  test('forward an hour while the renewal waits on the processor: the lease looks run out, yet one charge for the period', async () => {
    // A forward step makes every lease look run out at once, as a worker stalled for an hour would: the sweep takes
    // the charge over while its worker is still inside the processor's capture.
    const gate = { armed: false, entered: () => {}, release: () => {} };
    const entered = new Promise<void>((r) => (gate.entered = r));
    const released = new Promise<void>((r) => (gate.release = r));
    const c = await makeTestApp({
      wrapVendor: (v) =>
        interceptVendor(v, async <T,>(m: VendorMethod, _a: unknown[], run: () => Promise<T>): Promise<T> => {
          if (m === 'capture' && gate.armed) {
            gate.armed = false;
            gate.entered();
            await released;
          }
          return run();
        }),
    });
    try {
      const p = await planUser(c);
      c.clock.advance(p.end.getTime() - c.clock.now().getTime());
      gate.armed = true;
      const first = sweepMoney(c.deps);
      await entered;
      c.clock.stepSystemClock(HOUR);
      await sweepMoney(c.deps);
      gate.release();
      await first;
      // The sweep found the hold not captured yet: released it and failed that attempt as interrupted (no money
      // moved), and the renewal ran again at once under a new key and was paid. The stalled worker's capture then
      // met a released hold and its lease gone: it captured nothing and recorded nothing.
      const paid = {
        charges: [
          ['upgrade', 'succeeded', null],
          ['renewal', 'failed', 'interrupted'],
          ['renewal', 'succeeded', null],
        ],
        captured: 2,
        movements: 2,
        periodEnd: addCalendarMonth(p.end).toISOString(),
      };
      expect(await planState(c, p.userId)).toEqual(paid);
      // And nothing more for that period in the days after.
      for (let i = 0; i < 3; i++) {
        c.clock.advance(RENEWAL_RETRY_MS);
        await sweepMoney(c.deps);
      }
      expect(await planState(c, p.userId)).toEqual(paid);
      const report = await moneyReport(c);
      expect(moneyViolations(report)).toEqual([]);
      expect(report.heldHolds).toBe(0);
    } finally {
      c.close();
    }
  });
});

/*
 * What must agree with another party's clock is read from the system clock as it is (Clock.system): bpay's own time
 * stays ahead of it after a step back, and an authenticator app or a merchant's server would disagree by that much.
 */
describe('agreeing with other clocks after a step back', () => {
  test("the authenticator's code (the system clock's) signs in; the webhook signature carries the system clock's time", async () => {
    const c = await makeTestApp();
    try {
      const u = await registerUser(c, { password: 'correct horse battery' });
      const setup = await call(c, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
      const secret: string = setup.body.secret;
      const confirm = await call(c, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: totp(secret, c.clock.now().getTime()) } });
      expect(confirm.status).toBe(200);

      c.clock.advance(2 * HOUR);
      c.clock.stepSystemClock(-HOUR);
      const system = c.clock.system().getTime();
      expect(c.clock.now().getTime() - system).toBe(HOUR);
      // A code of bpay's own time is not what the phone shows; the phone's is accepted.
      const ahead = await login(c, u.email, 'correct horse battery', { totpCode: totp(secret, c.clock.now().getTime()) });
      expect(ahead.status).toBe(400);
      const phone = await login(c, u.email, 'correct horse battery', { totpCode: totp(secret, system) });
      expect(phone.status).toBe(200);

      const m = await createMerchant(c, u.cookie, 'sandbox');
      const seen: string[] = [];
      c.deps.webhooks.fetch = async (_url, init) => {
        seen.push(new Headers(init.headers).get(SIGNATURE_HEADER) ?? '');
        return new Response('ok');
      };
      const ep = await merchantCall(c, m.secretKey, '/webhook_endpoints', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] } });
      expect(ep.status).toBe(200);
      expect((await merchantCall(c, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } })).status).toBe(200);
      expect((await deliverDueWebhooks(c.deps)).succeeded).toBe(1);
      expect(seen).toEqual([expect.stringMatching(new RegExp(`^t=${Math.floor(c.clock.system().getTime() / 1000)},v1=`))]);
    } finally {
      c.close();
    }
  });
});
