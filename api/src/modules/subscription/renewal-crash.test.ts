import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, interceptVendor, makeTestApp, type TestContext, type VendorMethod } from '../../../test-support/app';
import { addCard, CARD_DECLINES_CHARGES, CARDS_OK, registerUser } from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { addCalendarMonth, freeTier, PLAN_CHARGE_LEASE_MS, RENEWAL_GRACE_MS, RENEWAL_RETRY_MS, replaceSubscription, userOf } from './billing';
import { INTERRUPTED_RETRY_MS } from './renewal-failure';
import { retryRenewal } from './payment-card';

/*
 * Issue 27: the process dies at every processor call of a plan renewal (before the call reaches the processor, and
 * after the processor did its work but before bpay recorded the answer), as the bcard saga is tested
 * (bcards/faults.test.ts). A new app then starts over the same database and the same processor state and sweeps until
 * nothing changes. Whatever the crash point: the processor holds at most one charge for the period (its price, or
 * nothing), no hold is left placed, the ledger says what the processor says, the plan's period (and plan) moved
 * exactly when the charge was captured, the user got one notice, and a later sweep changes nothing. The next retry
 * then leaves exactly one charge of the period's price: never two.
 */

const PREMIUM = 1999;
const PRO = 999;

let template: TestContext;
let user: { id: string; cookie: string };
let A: { id: string };
let X: { id: string };
/** The paid period the template's upgrade started: its end is when the renewal is due. */
let end: Date;

beforeAll(async () => {
  template = await makeTestApp();
  const u = await registerUser(template);
  user = { id: u.user.id, cookie: u.cookie };
  A = await addCard(template, u.cookie, CARDS_OK[0]);
  X = await addCard(template, u.cookie, CARD_DECLINES_CHARGES);
  const res = await call(template, '/api/subscription/upgrade', {
    method: 'POST',
    cookie: u.cookie,
    body: { tierId: 'tier_premium', fundingSourceId: A.id },
    headers: { 'idempotency-key': 'renewal-crash-upgrade' },
  });
  if (res.status !== 200) throw new Error(`upgrade failed: ${res.status} ${res.text}`);
  end = new Date(res.body.plan.currentPeriodEnd);
});
afterAll(() => template.close());

class CrashError extends Error {
  override name = 'CrashError';
}

const rows = async (ctx: TestContext, sql: string, args: Array<string | number> = []) =>
  (await ctx.handle.client.execute({ sql, args })).rows.map((r) => Object.fromEntries(Object.entries(r)));

const toPeriodEnd = (ctx: TestContext) => ctx.clock.advance(end.getTime() - ctx.clock.now().getTime());
const payWith = (ctx: TestContext, sourceId: string) =>
  ctx.handle.client.execute({ sql: "UPDATE user_subscriptions SET payment_source_id = ? WHERE user_id = ? AND status = 'active'", args: [sourceId, user.id] });

interface Scenario {
  name: string;
  /** The plan the renewal pays for, and its price. */
  tier: 'tier_premium' | 'tier_pro';
  price: number;
  /** Run on the fork before the crash is armed: brings the renewal due. */
  setup(ctx: TestContext): Promise<void>;
  /** What runs the renewal (the sweep, or the user's retry). */
  act(ctx: TestContext): Promise<unknown>;
  /** The processor calls the renewal makes when nothing crashes. */
  calls: VendorMethod[];
  /** The n-th call (1-based) is refused by the card: the hold is then voided. */
  declineAt?: number;
  /** After the n-th call did its work, an admin moves the user to Free: the captured renewal is refunded. */
  movePlanAfter?: number;
}

const sweep = (ctx: TestContext) => sweepMoney(ctx.deps);

/** The first attempt fails on a card that declines charges; the plan is then paid with a good card. */
async function declinedFirst(ctx: TestContext) {
  await payWith(ctx, X.id);
  toPeriodEnd(ctx);
  await sweepMoney(ctx.deps);
  const [sub] = await rows(ctx, "SELECT past_due_since FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [user.id]);
  if (sub?.past_due_since === null) throw new Error('the first attempt was expected to be declined');
  await payWith(ctx, A.id);
}

const SCENARIOS: Scenario[] = [
  { name: 'a renewal', tier: 'tier_premium', price: PREMIUM, setup: async (ctx) => void toPeriodEnd(ctx), act: sweep, calls: ['hold', 'capture'] },
  {
    name: 'a renewal that moves to the pending plan',
    tier: 'tier_pro',
    price: PRO,
    setup: async (ctx) => {
      const res = await call(ctx, '/api/subscription/downgrade', { method: 'POST', cookie: user.cookie, body: { tierId: 'tier_pro' } });
      if (res.status !== 200) throw new Error(`downgrade failed: ${res.status} ${res.text}`);
      toPeriodEnd(ctx);
    },
    act: sweep,
    calls: ['hold', 'capture'],
  },
  {
    name: "the sweep's retry of a declined renewal",
    tier: 'tier_premium',
    price: PREMIUM,
    setup: async (ctx) => {
      await declinedFirst(ctx);
      ctx.clock.advance(RENEWAL_RETRY_MS);
    },
    act: sweep,
    calls: ['hold', 'capture'],
  },
  {
    name: "the user's retry now of a declined renewal",
    tier: 'tier_premium',
    price: PREMIUM,
    setup: declinedFirst,
    act: async (ctx) => retryRenewal(ctx.deps, await userOf(ctx.deps.db, user.id)),
    calls: ['hold', 'capture'],
  },
  {
    name: 'a renewal whose capture is declined (the hold voided)',
    tier: 'tier_premium',
    price: PREMIUM,
    setup: async (ctx) => void toPeriodEnd(ctx),
    act: sweep,
    calls: ['hold', 'capture', 'voidHold'],
    declineAt: 2,
  },
  {
    name: 'a renewal whose plan an admin changed during the capture (refunded)',
    tier: 'tier_premium',
    price: PREMIUM,
    setup: async (ctx) => void toPeriodEnd(ctx),
    act: sweep,
    calls: ['hold', 'capture', 'refund'],
    movePlanAfter: 2,
  },
];

interface CrashPlan {
  /** The n-th processor call after arming (1-based); 0 never crashes. */
  at: number;
  when: 'before' | 'after';
}

/** The holds at the processor on the user's cards that were not there at arming (the processor's own view). */
async function newHolds(ctx: TestContext, before: Set<string>) {
  const all = await rows(
    ctx,
    `SELECT h.id AS id, h.status AS status, h.amount_cents AS amount, h.refunded_cents AS refunded
       FROM sim_holds h JOIN funding_sources f ON f.vendor_token = h.token WHERE f.user_id = ? ORDER BY h.rowid`,
    [user.id],
  );
  return all
    .filter((h) => !before.has(String(h.id)))
    .map((h) => ({ id: String(h.id), status: String(h.status), amount: Number(h.amount), refunded: Number(h.refunded) }));
}

/** What a later sweep could change: if it changes any of it, the first sweeps did not finish the job. */
async function snapshot(ctx: TestContext) {
  return {
    subs: await rows(ctx, 'SELECT * FROM user_subscriptions WHERE user_id = ? ORDER BY rowid', [user.id]),
    charges: await rows(ctx, 'SELECT id, status, vendor_charge_id, failure_code FROM subscription_charges WHERE user_id = ? ORDER BY rowid', [user.id]),
    holds: await rows(ctx, 'SELECT id, status, refunded_cents FROM sim_holds ORDER BY rowid'),
    refunds: await rows(ctx, 'SELECT count(*) AS n FROM sim_refunds'),
    movements: await rows(ctx, 'SELECT count(*) AS n FROM ledger_movements'),
    notices: await rows(ctx, 'SELECT count(*) AS n FROM notifications WHERE user_id = ?', [user.id]),
    mails: await rows(ctx, 'SELECT count(*) AS n FROM email_outbox WHERE user_id = ?', [user.id]),
  };
}

/**
 * Runs the scenario on a fork whose process dies at the planned processor call (armed after the setup), then starts
 * a new app on the same database (the simulator's state is in it: the same processor), and sweeps until quiet.
 */
async function crashAndRecover(s: Scenario, plan: CrashPlan) {
  const clock = new TestClock(template.clock.now().getTime());
  const state = { armed: false, calls: [] as VendorMethod[], crashed: false };
  let victim: TestContext | null = null;
  const ctx = await forkTestApp(template, {
    clock,
    wrapVendor: (v) =>
      interceptVendor(v, async <T,>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        if (state.crashed) throw new CrashError('the process is gone');
        if (!state.armed) return run();
        state.calls.push(method);
        const n = state.calls.length;
        const work =
          n === s.declineAt
            ? () => Promise.reject(new VendorDeclineError('card_declined', 'Your card was declined.'))
            : async () => {
                const out = await run();
                if (n === s.movePlanAfter) {
                  const db = victim!.deps.db;
                  await db.transaction(async (tx) => void (await replaceSubscription(tx, clock.now(), user.id, await freeTier(tx), null)));
                }
                return out;
              };
        if (n !== plan.at) return work();
        if (plan.when === 'after') await work().catch(() => undefined);
        state.crashed = true;
        victim!.handle.close();
        throw new CrashError(`crashed ${plan.when} ${method} (call ${plan.at})`);
      }),
  });
  victim = ctx;
  try {
    await s.setup(ctx);
  } catch (e) {
    ctx.close();
    throw e;
  }
  const [armedSub] = await rows(ctx, "SELECT * FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [user.id]);
  const armed = {
    sub: armedSub!,
    holds: new Set((await rows(ctx, 'SELECT id FROM sim_holds')).map((h) => String(h.id))),
    noticeSeq: Number((await rows(ctx, 'SELECT coalesce(max(seq), 0) AS s FROM notifications'))[0]!.s),
    mailCount: Number((await rows(ctx, 'SELECT count(*) AS n FROM email_outbox WHERE user_id = ?', [user.id]))[0]!.n),
    subscriptions: await ledgerBalance(ctx, 'bpay:subscriptions'),
  };
  state.armed = true;
  try {
    await s.act(ctx);
  } catch (e) {
    // A crash ends the act (the dead process's errors are not answers); a decline is the user's retry's answer.
    if (!state.crashed && !(e instanceof Error && /declined/i.test(e.message))) {
      ctx.close();
      throw e;
    }
  }
  // The old process is gone: its connection is closed (at the crash, or now); its files stay for the new one.
  if (!state.crashed) ctx.handle.close();

  const next = await makeTestApp({ dir: ctx.dir, clock });
  // The dead worker's lease runs out; then the sweep runs until it has nothing left to do.
  clock.advance(PLAN_CHARGE_LEASE_MS + 1);
  for (let i = 0; i < 5; i++) if ((await sweepMoney(next.deps)).recovered === 0) break;
  return { next, calls: state.calls, crashed: state.crashed, armed };
}

type Outcome = Awaited<ReturnType<typeof crashAndRecover>>;

/** The rules every crash point keeps, checked after the sweeps. */
async function expectOneChargeAtMost(s: Scenario, r: Outcome) {
  const ctx = r.next;
  const holds = await newHolds(ctx, r.armed.holds);
  // The processor: no hold left placed; at most one capture kept, of the price.
  expect(holds.filter((h) => h.status === 'held')).toEqual([]);
  const kept = holds.filter((h) => h.status === 'captured' && h.refunded < h.amount);
  expect(kept.length).toBeLessThanOrEqual(1);
  const net = kept.reduce((sum, h) => sum + h.amount - h.refunded, 0);
  expect([0, s.price]).toContain(net);
  const paid = net === s.price;

  // The ledger says what the processor says.
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.heldHolds).toBe(0);
  expect((await ledgerBalance(ctx, 'bpay:subscriptions')) - r.armed.subscriptions).toBe(net);

  // The plan moved exactly when it was paid.
  const [sub] = await rows(ctx, "SELECT * FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [user.id]);
  const periodEnd = Number(r.armed.sub.current_period_end);
  const wasPastDue = r.armed.sub.past_due_since !== null;
  const charges = await rows(ctx, 'SELECT status FROM subscription_charges WHERE user_id = ? AND created_at >= ? ', [user.id, periodEnd]);
  expect(charges.filter((c) => c.status === 'pending')).toEqual([]);
  if (paid) {
    expect({ tier: sub!.tier_id, start: Number(sub!.current_period_start), end: Number(sub!.current_period_end), pastDue: sub!.past_due_since }).toEqual({
      tier: s.tier,
      start: periodEnd,
      end: addCalendarMonth(new Date(periodEnd)).getTime(),
      pastDue: null,
    });
    expect(charges.filter((c) => c.status === 'succeeded')).toHaveLength(1);
  } else if (sub!.tier_id === 'tier_free') {
    // The admin's move (during the capture) won: the renewal's money went back.
    expect(s.movePlanAfter).toBeDefined();
    expect(sub!.current_period_end).toBeNull();
  } else {
    expect({ tier: sub!.tier_id, end: Number(sub!.current_period_end), pending: sub!.pending_tier_id }).toEqual({
      tier: r.armed.sub.tier_id,
      end: periodEnd,
      pending: r.armed.sub.pending_tier_id,
    });
    expect(sub!.past_due_since).not.toBeNull();
    expect(charges.filter((c) => c.status === 'succeeded')).toHaveLength(0);
  }

  // One notice: the receipt when paid; the failure when the card refused and the plan first went past due; never one
  // for an attempt bpay itself did not finish (its crash is not the card's failure).
  const notices = (await rows(ctx, 'SELECT kind FROM notifications WHERE user_id = ? AND seq > ? ORDER BY seq', [user.id, r.armed.noticeSeq])).map((n) => n.kind);
  const declined = !r.crashed && s.declineAt !== undefined;
  expect(notices).toEqual(paid ? ['plan_charged'] : declined && !wasPastDue ? ['plan_renewal_failed'] : []);
  const receipts = await rows(ctx, "SELECT count(*) AS n FROM email_outbox WHERE user_id = ? AND kind = 'plan_receipt' AND created_at >= ?", [user.id, periodEnd]);
  expect(Number(receipts[0]!.n)).toBe(paid ? 1 : 0);

  // A later sweep (the leases long over) changes nothing.
  const before = await snapshot(ctx);
  ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
  await sweepMoney(ctx.deps);
  expect(await snapshot(ctx)).toEqual(before);

  // The next retry (a day on): the period is paid exactly once in all, never twice.
  ctx.clock.advance(RENEWAL_RETRY_MS);
  await sweepMoney(ctx.deps);
  const after = await newHolds(ctx, r.armed.holds);
  expect(after.filter((h) => h.status === 'held')).toEqual([]);
  const keptAfter = after.filter((h) => h.status === 'captured' && h.refunded < h.amount);
  const [subAfter] = await rows(ctx, "SELECT * FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [user.id]);
  if (subAfter!.tier_id === 'tier_free') {
    expect(keptAfter).toEqual([]);
  } else {
    expect(keptAfter.map((h) => h.amount - h.refunded)).toEqual([s.price]);
    expect(Number(subAfter!.current_period_start)).toBe(periodEnd);
    expect(subAfter!.tier_id).toBe(s.tier);
  }
  expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  return { paid, net };
}

for (const s of SCENARIOS) {
  describe(s.name, () => {
    test(`makes these processor calls, in this order: ${s.calls.join(', ')}`, async () => {
      const r = await crashAndRecover(s, { at: 0, when: 'before' });
      try {
        expect(r.crashed).toBe(false);
        expect(r.calls).toEqual(s.calls);
        const { paid } = await expectOneChargeAtMost(s, r);
        expect(paid).toBe(s.declineAt === undefined && s.movePlanAfter === undefined);
      } finally {
        r.next.close();
      }
    });

    for (let at = 1; at <= s.calls.length; at++) {
      for (const when of ['before', 'after'] as const) {
        const method = s.calls[at - 1];
        // A declined call does nothing at the processor: the crash after it is the crash before it.
        if (when === 'after' && at === s.declineAt) continue;
        test(`crash ${when} call ${at} (${method}): one charge at most, the plan moved exactly when it was paid`, async () => {
          const r = await crashAndRecover(s, { at, when });
          try {
            expect(r.crashed).toBe(true);
            expect(r.calls).toEqual(s.calls.slice(0, at));
            const { paid } = await expectOneChargeAtMost(s, r);
            // A capture that reached the processor is completed by the sweep; an attempt bpay did not finish is undone
            // and tried again at once (the restarted processor accepts it). Only the admin's move, once made, stands.
            const moved = s.movePlanAfter !== undefined && (at > s.movePlanAfter || (at === s.movePlanAfter && when === 'after'));
            expect(paid).toBe(!moved);
          } finally {
            r.next.close();
          }
        });
      }
    }
  });
}

test('a renewal bpay never finishes (every hold placed, its answer lost): no notice of a card failure, no charge, and the plan ends when the grace period does', async () => {
  const ctx = await forkTestApp(template, {
    wrapVendor: (v) =>
      interceptVendor(v, async <T,>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        const out = await run();
        if (method === 'hold') throw new VendorUnavailableError('the answer was lost');
        return out;
      }),
  });
  try {
    const armedSeq = Number((await rows(ctx, 'SELECT coalesce(max(seq), 0) AS s FROM notifications'))[0]!.s);
    toPeriodEnd(ctx);
    const sub = async () => (await rows(ctx, "SELECT * FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [user.id]))[0]!;
    const notices = async () =>
      (await rows(ctx, 'SELECT kind FROM notifications WHERE user_id = ? AND seq > ? ORDER BY seq', [user.id, armedSeq])).map((n) => n.kind);
    await sweepMoney(ctx.deps);
    // A sweep (the lease over) undoes the attempt and makes the next at once; the one after waits (INTERRUPTED_RETRY_MS,
    // doubling): the card never refused, so the plan is not past due and the user is not told it failed.
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
      await sweepMoney(ctx.deps);
    }
    ctx.clock.advance(INTERRUPTED_RETRY_MS);
    await sweepMoney(ctx.deps);
    expect((await sub()).tier_id).toBe('tier_premium');
    expect((await sub()).past_due_since).toBeNull();
    expect(await notices()).toEqual([]);
    const attempts = await rows(ctx, "SELECT status, failure_code FROM subscription_charges WHERE user_id = ? AND kind = 'renewal'", [user.id]);
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    expect(attempts.filter((c) => c.status === 'failed').every((c) => c.failure_code === 'interrupted')).toBe(true);

    // The grace is counted from the period's end all the same: past it, the plan moves to Free, with one notice.
    ctx.clock.advance(end.getTime() + RENEWAL_GRACE_MS - ctx.clock.now().getTime());
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(PLAN_CHARGE_LEASE_MS + 1);
      await sweepMoney(ctx.deps);
    }
    expect((await sub()).tier_id).toBe('tier_free');
    expect(await notices()).toEqual(['plan_renewal_failed']);
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.heldHolds).toBe(0);
    expect(await rows(ctx, "SELECT count(*) AS n FROM subscription_charges WHERE user_id = ? AND status != 'failed' AND kind = 'renewal'", [user.id])).toEqual([{ n: 0 }]);
  } finally {
    ctx.close();
  }
});

test('a renewal interrupted again and again is not retried at every sweep: the card sees a bounded number of holds (hostile review of issue 27)', async () => {
  let holds = 0;
  const ctx = await forkTestApp(template, {
    wrapVendor: (v) =>
      interceptVendor(v, async <T,>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        const out = await run();
        if (method === 'hold') {
          holds++;
          throw new VendorUnavailableError('the answer was lost');
        }
        return out;
      }),
  });
  try {
    toPeriodEnd(ctx);
    await sweepMoney(ctx.deps);
    // Six hours of sweeps, each after the last attempt's lease ran out. Retrying at once every time placed (and
    // voided) a hold on the user's card at every pass: 73 authorizations here, about 10,000 over the grace period.
    for (let i = 0; i < 72; i++) {
      ctx.clock.advance(5 * 60_000);
      await sweepMoney(ctx.deps);
    }
    expect(holds).toBeLessThanOrEqual(8);
    const sub = (await rows(ctx, "SELECT * FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [user.id]))[0]!;
    expect(sub.tier_id).toBe('tier_premium');
    expect(sub.past_due_since).toBeNull();
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
    expect((await moneyReport(ctx)).heldHolds).toBe(0);
  } finally {
    ctx.close();
  }
});
