import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import {
  call,
  forkTestApp,
  interceptVendor,
  makeTestApp,
  type CallResult,
  type TestContext,
  type VendorMethod,
} from '../../../test-support/app';
import { addCard, CARD_DECLINES_CHARGES, CARDS_OK, makePremium, registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { SEARCH_LAG_MS, VendorUnavailableError } from '../../vendors/types';
import { LEASE_MS } from './saga';

/*
 * All or nothing under faults: a share declined, a shortfall, a capture or card issue failing, the processor not
 * answering, and the process dying at every step of a collection, a cancel and a purchase's refund. Whatever
 * happens, no money stays held, nothing is charged without a bcard, and nothing is refunded twice.
 */

const START = 1_000_000;

type Source = { id: string; last4: string };
let template: TestContext;
let ada: { cookie: string; id: string };
let A: Source, B: Source, C: Source, X: Source;

beforeAll(async () => {
  template = await makeTestApp();
  const u = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  ada = { cookie: u.cookie, id: u.user.id };
  // Premium for more than two sources, at the 2.9 % fee the numbers below use.
  await makePremium(template, ada.id, 290);
  A = await addCard(template, ada.cookie, CARDS_OK[0]);
  B = await addCard(template, ada.cookie, CARDS_OK[1]);
  C = await addCard(template, ada.cookie, CARDS_OK[2]);
  X = await addCard(template, ada.cookie, CARD_DECLINES_CHARGES);
});
afterAll(() => template.close());

type Fault = (method: VendorMethod, args: unknown[], run: () => Promise<unknown>) => Promise<unknown>;

/**
 * A copy of the prepared database whose processor runs every call through `hook.fault` (when set). By default the
 * wrapped simulator acts as a remote processor (each saga phase calls it, then records the answers), which is what
 * has crash windows between a call and its record; `local` keeps it inside each phase's transaction, as in production.
 */
async function forkWithFaults(clock?: TestClock, local = false) {
  const hook: { fault: Fault | null; calls: VendorMethod[] } = { fault: null, calls: [] };
  const ctx = await forkTestApp(template, {
    clock,
    wrapVendor: (v) =>
      interceptVendor(v, <T,>(method: VendorMethod, args: unknown[], run: () => Promise<T>): Promise<T> => {
        hook.calls.push(method);
        return hook.fault ? (hook.fault(method, args, run) as Promise<T>) : run();
      }, { local }),
  });
  return { ctx, hook };
}

/** Fails the n-th call of `method`: before it reaches the processor, or after (the answer is lost). */
function failNth(method: VendorMethod, n: number, error: () => Error, when: 'before' | 'after' = 'before'): Fault {
  let seen = 0;
  return async (m, _args, run) => {
    if (m !== method || ++seen !== n) return run();
    if (when === 'after') await run();
    throw error();
  };
}

const split = (...parts: Array<[Source, number]>) => parts.map(([s, percentage]) => ({ fundingSourceId: s.id, percentage }));

function bcardRequest(ctx: TestContext, fundingSources: ReturnType<typeof split>, balance = '100.00') {
  return call(ctx, '/api/virtual-cards', { method: 'POST', cookie: ada.cookie, body: { name: 'Split', balance, fundingSources } });
}

const rows = async (ctx: TestContext, sql: string, args: Array<string | number> = []): Promise<Array<Record<string, unknown>>> =>
  (await ctx.handle.client.execute({ sql, args })).rows.map((r) => Object.fromEntries(Object.entries(r)));

async function lastCollection(ctx: TestContext): Promise<Record<string, unknown> & { id: string; status: string }> {
  const [c] = await rows(ctx, 'SELECT * FROM collections ORDER BY rowid DESC LIMIT 1');
  if (!c) throw new Error('no collection');
  return { ...c, id: String(c.id), status: String(c.status) };
}

/** Each share of a collection in order, with its hold at the processor (if any). */
async function sharesOf(ctx: TestContext, collectionId: string) {
  return (await rows(
    ctx,
    `SELECT cs.funding_source_id AS source, cs.status AS status, cs.amount_cents AS amount,
            h.status AS hold, h.refunded_cents AS holdRefunded
       FROM collection_shares cs LEFT JOIN sim_holds h ON h.idempotency_key = 'hold:' || cs.id
      WHERE cs.collection_id = ? ORDER BY cs.position`,
    [collectionId],
  )).map((r) => ({
    source: String(r.source),
    status: String(r.status),
    amount: Number(r.amount),
    hold: r.hold === null ? null : String(r.hold),
    holdRefunded: r.holdRefunded === null ? null : Number(r.holdRefunded),
  }));
}

async function simAvailable(ctx: TestContext): Promise<Record<string, number>> {
  const r = await rows(ctx, 'SELECT f.id AS id, s.available_cents AS available FROM funding_sources f JOIN sim_cards s ON s.token = f.vendor_token');
  return Object.fromEntries(r.map((x) => [String(x.id), Number(x.available)]));
}

const untouched = () => ({ [A.id]: START, [B.id]: START, [C.id]: START, [X.id]: START });

async function count(ctx: TestContext, sql: string, args: Array<string | number> = []) {
  const [r] = await rows(ctx, sql, args);
  return Number(r ? Object.values(r)[0] : 0);
}

async function expectSettled(ctx: TestContext) {
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.unsettledCollections).toBe(0);
  expect(report.heldHolds).toBe(0);
  return report;
}

/** Nothing happened to anyone's money: no bcard, nothing held, every card whole, the ledger empty. */
async function expectNothingCharged(ctx: TestContext) {
  expect(await count(ctx, 'SELECT count(*) FROM bcards')).toBe(0);
  expect(await simAvailable(ctx)).toEqual(untouched());
  const report = await expectSettled(ctx);
  expect(report.movementsByKind).toEqual({});
}

async function expectListedFailed(ctx: TestContext, collectionId: string) {
  const res = await call(ctx, '/api/transactions?status=failed', { cookie: ada.cookie });
  expect(res.status).toBe(200);
  expect(res.body).toContainEqual(expect.objectContaining({ id: collectionId, status: 'failed', virtualCardId: null }));
}

describe('a share is declined', () => {
  for (const k of [1, 2, 3]) {
    test(`share ${k} of 3 declined: 402 card_declined naming it, every other hold voided, nothing charged`, async () => {
      const { ctx } = await forkWithFaults();
      try {
        const others = [A, B];
        const order = [0, 1, 2].map((i) => (i === k - 1 ? X : others.shift()!));
        const res = await bcardRequest(ctx, split([order[0]!, 40], [order[1]!, 30], [order[2]!, 30]));
        expect(res.status).toBe(402);
        expect(res.body.error).toMatchObject({ type: 'card_error', code: 'card_declined', param: 'fundingSources' });
        expect(res.body.error.message).toContain('0341');
        expect(res.body.error.details.declines).toEqual([
          { fundingSourceId: X.id, name: 'Ada Lovelace', last4: '0341', code: 'card_declined', message: 'Your card was declined.' },
        ]);

        const col = await lastCollection(ctx);
        expect(col).toMatchObject({ status: 'failed', failure_code: 'card_declined' });
        const shares = await sharesOf(ctx, col.id);
        expect(shares.map((s) => s.source)).toEqual(order.map((s) => s.id));
        // Holds placed before the declined share are voided; none is placed after it.
        expect(shares.map((s) => s.hold)).toEqual([0, 1, 2].map((i) => (i < k - 1 ? 'voided' : null)));
        expect(shares.map((s) => s.status)).toEqual([0, 1, 2].map((i) => (i === k - 1 ? 'declined' : 'voided')));
        await expectNothingCharged(ctx);
        await expectListedFailed(ctx, col.id);
        const list = await call(ctx, '/api/funding-sources', { cookie: ada.cookie });
        expect(list.body.map((s: { balance: string }) => s.balance)).toEqual(['10000.00', '10000.00', '10000.00', '10000.00']);
      } finally {
        ctx.close();
      }
    });
  }
});

describe('insufficient funds', () => {
  /** Leaves B with $50.00: a $9,669.58 bcard costs 9,669.58 + 280.42 = $9,950.00. */
  async function drainB(ctx: TestContext) {
    const res = await bcardRequest(ctx, split([B, 100]), '9669.58');
    expect(res.status).toBe(201);
    expect((await simAvailable(ctx))[B.id]).toBe(5000);
  }

  test('one share short: 402 with the shortfall in decimal strings, the other hold voided', async () => {
    const { ctx } = await forkWithFaults();
    try {
      await drainB(ctx);
      const res = await bcardRequest(ctx, split([A, 50], [B, 50]), '1000.00');
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('insufficient_funds');
      expect(res.body.error.message).toContain('Insufficient funds');
      expect(res.body.error.message).toContain('Ada Lovelace (•••• 5556) needs $514.50, has $50.00');
      expect(res.body.error.details).toEqual({
        totalRequired: '1029.00',
        totalAvailable: '10050.00',
        insufficientSources: [{ fundingSourceId: B.id, name: 'Ada Lovelace (•••• 5556)', requiredAmount: '514.50', availableBalance: '50.00' }],
      });
      const col = await lastCollection(ctx);
      expect(col).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
      // The stored details are what a retry with the same key will answer.
      expect(JSON.parse(String(col.failure_details))).toEqual(res.body.error.details);
      expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold])).toEqual([
        ['voided', 'voided'],
        ['declined', null],
      ]);
      expect(await simAvailable(ctx)).toEqual({ ...untouched(), [B.id]: 5000 });
      await expectSettled(ctx);
      await expectListedFailed(ctx, col.id);
    } finally {
      ctx.close();
    }
  });

  test('every share short: each is listed with what it needs and what it has', async () => {
    const { ctx } = await forkWithFaults();
    try {
      await drainB(ctx);
      const res = await bcardRequest(ctx, split([A, 50], [B, 50]), '20000.00');
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('insufficient_funds');
      expect(res.body.error.details).toEqual({
        totalRequired: '20580.00',
        totalAvailable: '10050.00',
        insufficientSources: [
          { fundingSourceId: A.id, name: 'Ada Lovelace (•••• 4242)', requiredAmount: '10290.00', availableBalance: '10000.00' },
          { fundingSourceId: B.id, name: 'Ada Lovelace (•••• 5556)', requiredAmount: '10290.00', availableBalance: '50.00' },
        ],
      });
      expect(await simAvailable(ctx)).toEqual({ ...untouched(), [B.id]: 5000 });
      await expectSettled(ctx);
    } finally {
      ctx.close();
    }
  });
});

describe('capture fails', () => {
  test('the 2nd capture is refused: the 1st is refunded, the rest voided, no bcard, the collection failed', async () => {
    const { ctx, hook } = await forkWithFaults();
    try {
      hook.fault = failNth('capture', 2, () => new Error('the processor refused the capture'));
      const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('processing_error');
      const col = await lastCollection(ctx);
      expect(col).toMatchObject({ status: 'failed', refunded_cents: 5145 });
      expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold, s.holdRefunded])).toEqual([
        ['refunded', 'captured', 5145],
        ['voided', 'voided', 0],
        ['voided', 'voided', 0],
      ]);
      expect(await count(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(1);
      expect(await count(ctx, 'SELECT count(*) FROM sim_issued_cards')).toBe(0);
      await expectNothingCharged(ctx);
      await expectListedFailed(ctx, col.id);
    } finally {
      ctx.close();
    }
  });

  test("the processor's search lags (as Stripe's does): holds bpay recorded are read by id, so the undo still refunds and voids them", async () => {
    const { ctx, hook } = await forkWithFaults();
    try {
      const refuse = failNth('capture', 2, () => new Error('the processor refused the capture'));
      // A search by key finds nothing yet; everything else answers normally.
      hook.fault = async (m, args, run) => (m === 'findHold' ? null : refuse(m, args, run));
      const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
      expect(res.status).toBe(402);
      const col = await lastCollection(ctx);
      expect(col).toMatchObject({ status: 'failed', refunded_cents: 5145 });
      expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold])).toEqual([
        ['refunded', 'captured'],
        ['voided', 'voided'],
        ['voided', 'voided'],
      ]);
      await expectNothingCharged(ctx);
    } finally {
      ctx.close();
    }
  });

  test('the 2nd capture happens but its answer is lost: both captured shares are refunded, 503', async () => {
    const { ctx, hook } = await forkWithFaults();
    try {
      hook.fault = failNth('capture', 2, () => new VendorUnavailableError('timeout'), 'after');
      const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('vendor_unavailable');
      const col = await lastCollection(ctx);
      expect(col).toMatchObject({ status: 'failed', refunded_cents: 5145 + 3087 });
      expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold, s.holdRefunded])).toEqual([
        ['refunded', 'captured', 5145],
        ['refunded', 'captured', 3087],
        ['voided', 'voided', 0],
      ]);
      await expectNothingCharged(ctx);
    } finally {
      ctx.close();
    }
  });
});

describe('the processor does not answer a hold', () => {
  for (const [n, when] of [
    [1, 'before'],
    [2, 'before'],
    [2, 'after'],
    [3, 'after'],
  ] as const) {
    test(`hold ${n} times out ${when === 'before' ? 'before reaching' : 'after reaching'} the processor: 503, nothing held`, async () => {
      const { ctx, hook } = await forkWithFaults();
      try {
        hook.fault = failNth('hold', n, () => new VendorUnavailableError('timeout'), when);
        const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
        expect(res.status).toBe(503);
        expect(res.body.error).toMatchObject({ type: 'api_error', code: 'vendor_unavailable' });
        const col = await lastCollection(ctx);
        expect(col).toMatchObject({ status: 'failed', failure_code: 'vendor_unavailable' });
        const placed = when === 'after' ? n : n - 1;
        // A hold that reached the processor is found by its key and voided like the others.
        expect((await sharesOf(ctx, col.id)).map((s) => s.hold)).toEqual([0, 1, 2].map((i) => (i < placed ? 'voided' : null)));
        await expectNothingCharged(ctx);
        await expectListedFailed(ctx, col.id);
      } finally {
        ctx.close();
      }
    });
  }

  test('the processor stays down while the holds are released: 503 now, the sweep releases them later', async () => {
    const clock = new TestClock(template.clock.now().getTime());
    const { ctx, hook } = await forkWithFaults(clock);
    try {
      let down = false;
      hook.fault = async (method, _args, run) => {
        if (method === 'hold' && hook.calls.filter((m) => m === 'hold').length === 2) down = true;
        if (down) throw new VendorUnavailableError('the processor is down');
        return run();
      };
      const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('vendor_unavailable');
      // The first hold is still placed; the collection waits for the sweep.
      expect((await simAvailable(ctx))[A.id]).toBe(START - 5145);
      expect((await lastCollection(ctx)).status).toBe('holding');

      hook.fault = null;
      clock.advance(LEASE_MS + 1);
      expect((await sweepMoney(ctx.deps)).recovered).toBe(1);
      expect(await lastCollection(ctx)).toMatchObject({ status: 'failed', failure_code: 'interrupted' });
      await expectNothingCharged(ctx);
    } finally {
      ctx.close();
    }
  });
});

test("a processor whose search lags (Stripe): a hold whose answer was lost is not called voided until the search can see it", async () => {
  const clock = new TestClock(template.clock.now().getTime());
  const state = { lag: true, holds: 0 };
  const ctx = await forkTestApp(template, {
    clock,
    wrapVendor: (v) => ({
      ...interceptVendor(v, async <T,>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        if (method === 'findHold' && state.lag) return null as T;
        // The 2nd hold is placed, and its answer lost.
        if (method === 'hold' && ++state.holds === 2) {
          await run();
          throw new VendorUnavailableError('timeout');
        }
        return run();
      }),
      searchLags: true,
    }),
  });
  try {
    const res = await bcardRequest(ctx, threeWay());
    expect(res.status).toBe(503);
    // The 1st hold (recorded) is voided; the 2nd is still placed, and the collection waits.
    expect(await lastCollection(ctx)).toMatchObject({ status: 'holding' });
    expect((await simAvailable(ctx))[B.id]).toBe(START - SHARES[1]!);
    // A sweep while the search still lags leaves it.
    clock.advance(LEASE_MS + 1);
    expect((await sweepMoney(ctx.deps)).recovered).toBe(0);
    expect(await lastCollection(ctx)).toMatchObject({ status: 'holding' });
    // Once the search shows it, the hold is voided; a share bpay has no record of (the 3rd, never asked) is called
    // voided only when the search has had SEARCH_LAG_MS to catch up.
    state.lag = false;
    clock.advance(LEASE_MS + 1);
    expect((await sweepMoney(ctx.deps)).recovered).toBe(0);
    expect((await simAvailable(ctx))[B.id]).toBe(START);
    clock.advance(SEARCH_LAG_MS);
    expect((await sweepMoney(ctx.deps)).recovered).toBe(1);
    expect(await lastCollection(ctx)).toMatchObject({ status: 'failed', failure_code: 'interrupted' });
    await expectNothingCharged(ctx);
  } finally {
    ctx.close();
  }
});

describe('card issuing fails', () => {
  test('issuing fails and the processor goes down during the refunds: 503 now, the sweep refunds the rest once', async () => {
    const clock = new TestClock(template.clock.now().getTime());
    const { ctx, hook } = await forkWithFaults(clock);
    try {
      let refunds = 0;
      hook.fault = async (method, _args, run) => {
        if (method === 'issueCard') throw new Error('issuing is disabled');
        // The first refund goes through; then the processor stops answering.
        if (method === 'refund' && ++refunds > 1) throw new VendorUnavailableError('the processor is down');
        return run();
      };
      const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('vendor_unavailable');
      expect((await lastCollection(ctx)).status).toBe('refunding');
      expect(await simAvailable(ctx)).toEqual({ ...untouched(), [B.id]: START - 3087, [C.id]: START - 2058 });

      hook.fault = null;
      clock.advance(LEASE_MS + 1);
      expect((await sweepMoney(ctx.deps)).recovered).toBe(1);
      const col = await lastCollection(ctx);
      expect(col).toMatchObject({ status: 'failed', refunded_cents: 10290 });
      expect(await count(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(3);
      await expectNothingCharged(ctx);
    } finally {
      ctx.close();
    }
  });

  for (const [label, error, status, code] of [
    ['is refused', () => new Error('issuing is disabled'), 402, 'processing_error'],
    ['times out', () => new VendorUnavailableError('timeout'), 503, 'vendor_unavailable'],
  ] as const) {
    test(`issuing ${label}: every captured share is refunded, no bcard`, async () => {
      const { ctx, hook } = await forkWithFaults();
      try {
        hook.fault = failNth('issueCard', 1, error);
        const res = await bcardRequest(ctx, split([A, 50], [B, 30], [C, 20]));
        expect(res.status).toBe(status);
        expect(res.body.error.code).toBe(code);
        const col = await lastCollection(ctx);
        expect(col).toMatchObject({ status: 'failed', refunded_cents: 10290 });
        expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold, s.holdRefunded])).toEqual([
          ['refunded', 'captured', 5145],
          ['refunded', 'captured', 3087],
          ['refunded', 'captured', 2058],
        ]);
        expect(await count(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(3);
        await expectNothingCharged(ctx);
        await expectListedFailed(ctx, col.id);
      } finally {
        ctx.close();
      }
    });
  }
});

/* ------------------------------------------------------------------------------------------------------------- */

/** Not a vendor error: the process is gone. Nothing after it runs, and its database connection is closed. */
class CrashError extends Error {
  override name = 'CrashError';
}

interface CrashPlan {
  /** The n-th vendor call after arming (1-based); 0 never crashes. */
  at: number;
  /** Crash just before the call reaches the processor, or just after it did its work. */
  when: 'before' | 'after';
}

/**
 * Runs `act` on a fork whose process "dies" at the planned vendor call (arming after `setup`), then starts a new
 * app on the same database, lets the dead worker's lease run out and sweeps. Returns the new app.
 */
async function crashAndRecover<S>(
  plan: CrashPlan,
  setup: (ctx: TestContext) => Promise<S>,
  act: (ctx: TestContext, s: S) => Promise<CallResult>,
  local = false,
) {
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
        if (state.calls.length !== plan.at) return run();
        if (plan.when === 'after') await run();
        state.crashed = true;
        victim!.handle.close();
        throw new CrashError(`crashed ${plan.when} ${method} (call ${plan.at})`);
      }, { local }),
  });
  victim = ctx;
  let s: S;
  let answer: CallResult;
  try {
    s = await setup(ctx);
    state.armed = true;
    answer = await act(ctx, s);
  } catch (e) {
    ctx.close();
    throw e;
  }
  // The old process is gone: its connection is closed (at the crash, or now), its files stay for the new one.
  if (!state.crashed) ctx.handle.close();

  const next = await makeTestApp({ dir: ctx.dir, clock });
  const before = await lastCollection(next);
  // The dead worker's lease still runs: the sweep leaves its collection alone until it ends.
  const early = await sweepMoney(next.deps);
  clock.advance(LEASE_MS + 1);
  const swept = await sweepMoney(next.deps);
  return { next, answer, calls: state.calls, crashed: state.crashed, s, before, early, swept };
}

const threeWay = () => split([A, 50], [B, 30], [C, 20]);
const SHARES = [5145, 3087, 2058];

describe('crash and recovery', () => {
  test('a 3-share collection makes these processor calls, in this order', async () => {
    const r = await crashAndRecover({ at: 0, when: 'before' }, async () => null, (ctx) => bcardRequest(ctx, threeWay()));
    try {
      expect(r.answer.status).toBe(201);
      expect(r.calls).toEqual(['hold', 'hold', 'hold', 'capture', 'capture', 'capture', 'issueCard']);
      expect(r.swept).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
    } finally {
      r.next.close();
    }
  });

  const COLLECTION_CALLS = 7;
  for (let at = 1; at <= COLLECTION_CALLS; at++) {
    for (const when of ['before', 'after'] as const) {
      // Interrupted while holding: undone. Once every share is held: finished.
      const expected = at <= 3 ? 'failed' : 'completed';
      test(`crash ${when} call ${at} of a collection: the sweep leaves it ${expected}, never in between`, async () => {
        const r = await crashAndRecover({ at, when }, async () => null, (ctx) => bcardRequest(ctx, threeWay()));
        const ctx = r.next;
        try {
          expect(r.crashed).toBe(true);
          expect(r.answer.status).toBe(500);
          expect(r.before.status).toBe(at <= 3 ? 'holding' : 'capturing');
          expect(r.early.recovered).toBe(0);
          expect(r.swept.recovered).toBe(1);

          const col = await lastCollection(ctx);
          expect(col.status).toBe(expected);
          const shares = await sharesOf(ctx, col.id);
          const report = await expectSettled(ctx);
          const available = await simAvailable(ctx);
          if (expected === 'completed') {
            const cards = await rows(ctx, 'SELECT id, status, limit_cents FROM bcards WHERE collection_id = ?', [col.id]);
            expect(cards).toEqual([{ id: expect.any(String), status: 'active', limit_cents: 10000 }]);
            expect(shares.map((s) => [s.status, s.hold])).toEqual([0, 1, 2].map(() => ['captured', 'captured']));
            expect(await count(ctx, 'SELECT count(*) FROM sim_issued_cards')).toBe(1);
            expect(report.movementsByKind).toEqual({ 'collection.captured': 1 });
            expect(available).toEqual({ ...untouched(), [A.id]: START - 5145, [B.id]: START - 3087, [C.id]: START - 2058 });
            // The recovered bcard is a working one: it can be revealed, and canceling gives everything back.
            const cardId = String(cards[0]!.id);
            expect((await call(ctx, `/api/virtual-cards/${cardId}/checkout-details`, { cookie: ada.cookie })).status).toBe(200);
            expect((await call(ctx, `/api/virtual-cards/${cardId}/cancel`, { method: 'POST', cookie: ada.cookie })).status).toBe(200);
            expect(await simAvailable(ctx)).toEqual(untouched());
            await expectSettled(ctx);
          } else {
            expect(col.failure_code).toBe('interrupted');
            expect(shares.every((s) => s.status === 'voided' && (s.hold === null || s.hold === 'voided'))).toBe(true);
            // What reached the processor before the crash is exactly what was voided.
            const reached = when === 'after' ? at : at - 1;
            expect(shares.filter((s) => s.hold === 'voided')).toHaveLength(reached);
            await expectNothingCharged(ctx);
            await expectListedFailed(ctx, col.id);
          }
          // Money left a card only through the ledger: the processor agrees with it to the cent.
          for (const s of report.sources) expect(available[s.id]).toBe(START + s.ledger);
          // A later sweep has nothing left to do.
          ctx.clock.advance(LEASE_MS + 1);
          expect((await sweepMoney(ctx.deps)).recovered).toBe(0);
        } finally {
          ctx.close();
        }
      });
    }
  }

  const issueBcard = async (ctx: TestContext) => {
    const res = await bcardRequest(ctx, threeWay());
    expect(res.status).toBe(201);
    return res.body as { id: string; transactionId: string };
  };

  test('a cancel makes these processor calls, in this order', async () => {
    const r = await crashAndRecover({ at: 0, when: 'before' }, issueBcard, (ctx, card) =>
      call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: ada.cookie }),
    );
    try {
      expect(r.answer.status).toBe(200);
      expect(r.calls).toEqual(['deactivateCard', 'refund', 'refund', 'refund']);
    } finally {
      r.next.close();
    }
  });

  for (let at = 1; at <= 4; at++) {
    for (const when of ['before', 'after'] as const) {
      test(`crash ${when} call ${at} of a cancel: the sweep finishes the refund, exactly once`, async () => {
        const r = await crashAndRecover({ at, when }, issueBcard, (ctx, card) =>
          call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: ada.cookie }),
        );
        const ctx = r.next;
        try {
          expect(r.crashed).toBe(true);
          expect(r.answer.status).toBe(500);
          expect(r.before.status).toBe('refunding');
          expect(r.early.recovered).toBe(0);
          expect(r.swept.recovered).toBe(1);
          expect(await lastCollection(ctx)).toMatchObject({ status: 'refunded', refunded_cents: 10290 });
          expect(await rows(ctx, 'SELECT status FROM bcards')).toEqual([{ status: 'canceled' }]);
          expect(await count(ctx, "SELECT count(*) FROM sim_issued_cards WHERE status = 'active'")).toBe(0);
          // One refund per share, each for the whole share, and every card whole again (fee included).
          const refunds = await rows(
            ctx,
            `SELECT r.amount_cents AS amount FROM sim_refunds r JOIN sim_holds h ON h.id = r.hold_id
               JOIN collection_shares cs ON h.idempotency_key = 'hold:' || cs.id ORDER BY cs.position`,
          );
          expect(refunds.map((x) => Number(x.amount))).toEqual(SHARES);
          expect(await simAvailable(ctx)).toEqual(untouched());
          const report = await expectSettled(ctx);
          expect(report.movementsByKind).toEqual({ 'collection.captured': 1, 'bcard.refunded': 1 });
          // Sweeping again refunds nothing twice.
          ctx.clock.advance(LEASE_MS + 1);
          expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
          expect(await simAvailable(ctx)).toEqual(untouched());
        } finally {
          ctx.close();
        }
      });
    }
  }

  for (let at = 1; at <= 4; at++) {
    test(`crash after call ${at} of a purchase's remainder refund: the sweep refunds the remainder pro rata, once`, async () => {
      const r = await crashAndRecover({ at, when: 'after' }, issueBcard, (ctx, card) =>
        call(ctx, '/api/process-payment', { method: 'POST', cookie: ada.cookie, body: { amount: '33.33', merchant: 'Acme', virtualCardId: card.id } }),
      );
      const ctx = r.next;
      try {
        expect(r.crashed).toBe(true);
        expect(r.calls).toEqual((['deactivateCard', 'refund', 'refund', 'refund'] as VendorMethod[]).slice(0, at));
        expect(r.before.status).toBe('refunding');
        expect(r.swept.recovered).toBe(1);
        expect(await lastCollection(ctx)).toMatchObject({ status: 'completed', refunded_cents: 6860 });
        expect(await rows(ctx, 'SELECT status, spent_cents FROM bcards')).toEqual([{ status: 'used', spent_cents: 3333 }]);
        // $66.67 and its part of the fee, floor(2.90 × 66.67 / 100) = $1.93, back over 51.45/30.87/20.58: 34.30, 20.58, 13.72.
        expect(await simAvailable(ctx)).toEqual({ ...untouched(), [A.id]: START - 5145 + 3430, [B.id]: START - 3087 + 2058, [C.id]: START - 2058 + 1372 });
        expect(await count(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(3);
        const report = await expectSettled(ctx);
        expect(report.movementsByKind).toEqual({ 'collection.captured': 1, 'bcard.spent': 1, 'bcard.remainder_refunded': 1 });
      } finally {
        ctx.close();
      }
    });
  }
});

/* ------------------------------------------------------------------------------------------------------------- */

/*
 * In production the simulator runs inside each saga phase's transaction (issue 14: one commit per phase): its holds,
 * captures and issued card commit with bpay's record of them, or not at all. A failure or a crash in the middle of a
 * phase therefore leaves the processor as it was before the phase began.
 */
describe('the simulator inside each phase\'s transaction', () => {
  for (const [label, method, n] of [
    ['the 2nd capture is refused', 'capture', 2],
    ['issuing is refused', 'issueCard', 1],
  ] as const) {
    test(`${label}: the phase's captures roll back with it, so every hold is voided and nothing is refunded`, async () => {
      const { ctx, hook } = await forkWithFaults(undefined, true);
      try {
        hook.fault = failNth(method, n, () => new Error('the processor refused'));
        const res = await bcardRequest(ctx, threeWay());
        expect(res.status).toBe(402);
        expect(res.body.error.code).toBe('processing_error');
        const col = await lastCollection(ctx);
        expect(col).toMatchObject({ status: 'failed', refunded_cents: 0 });
        expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold])).toEqual([0, 1, 2].map(() => ['voided', 'voided']));
        expect(await count(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(0);
        await expectNothingCharged(ctx);
      } finally {
        ctx.close();
      }
    });
  }

  test('share 2 declined: the 1st hold, committed with the decline, is voided; nothing charged', async () => {
    const { ctx } = await forkWithFaults(undefined, true);
    try {
      const res = await bcardRequest(ctx, split([A, 40], [X, 30], [B, 30]));
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('card_declined');
      const col = await lastCollection(ctx);
      expect((await sharesOf(ctx, col.id)).map((s) => [s.status, s.hold])).toEqual([
        ['voided', 'voided'],
        ['declined', null],
        ['voided', null],
      ]);
      await expectNothingCharged(ctx);
    } finally {
      ctx.close();
    }
  });

  for (let at = 1; at <= 7; at++) {
    for (const when of ['before', 'after'] as const) {
      // A crash inside the holds' phase loses all of it; inside the capture's phase, only that phase.
      const expected = at <= 3 ? 'failed' : 'completed';
      test(`crash ${when} call ${at}: the open phase is lost whole, and the sweep leaves the collection ${expected}`, async () => {
        const r = await crashAndRecover({ at, when }, async () => null, (ctx) => bcardRequest(ctx, threeWay()), true);
        const ctx = r.next;
        try {
          expect(r.crashed).toBe(true);
          expect(r.before.status).toBe(at <= 3 ? 'holding' : 'capturing');
          expect(r.swept.recovered).toBe(1);
          const col = await lastCollection(ctx);
          expect(col.status).toBe(expected);
          const shares = await sharesOf(ctx, col.id);
          if (expected === 'failed') {
            // Not even a hold placed "after" survived: it was in the transaction that never committed.
            expect(shares.map((s) => [s.status, s.hold])).toEqual([0, 1, 2].map(() => ['voided', null]));
            await expectNothingCharged(ctx);
          } else {
            expect(shares.map((s) => [s.status, s.hold])).toEqual([0, 1, 2].map(() => ['captured', 'captured']));
            expect(await count(ctx, 'SELECT count(*) FROM sim_issued_cards')).toBe(1);
            const report = await expectSettled(ctx);
            expect(report.movementsByKind).toEqual({ 'collection.captured': 1 });
            expect(await simAvailable(ctx)).toEqual({ ...untouched(), [A.id]: START - SHARES[0]!, [B.id]: START - SHARES[1]!, [C.id]: START - SHARES[2]! });
          }
        } finally {
          ctx.close();
        }
      });
    }
  }
});
