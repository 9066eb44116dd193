import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from './boot';
import { isStorageFailure, STORAGE_RETRY_AFTER_S } from './errors';
import { TestClock } from './lib/clock';
import { LEASE_MS } from './modules/bcards/saga';
import { sweepBankDebits } from './modules/bcards/sweep';
import { PLAN_CHARGE_LEASE_MS } from './modules/subscription/billing';
import { REFUND_LEASE_MS } from './modules/refunds/lease';
import { resetRateWindows } from './modules/merchants/usage';
import { SIM_ACH_SETTLEMENT_MS } from './vendors/simulated-bank';
import { MAX_BACKOFF_MS, startPollWorker } from './lib/poll-worker';
import { startMailWorker } from './modules/email/worker';
import type { MailMessage } from './modules/email/transport';
import {
  call,
  forkTestApp,
  interceptVendor,
  makeTestApp,
  memoryLogger,
  merchantCall,
  type CallResult,
  type TestContext,
  type VendorMethod,
} from '../test-support/app';
import {
  addBankAccount,
  addCard,
  BANK_OK,
  bcardCard,
  CARDS_OK,
  createMerchant,
  login,
  makePremium,
  registerUser,
  type TestCardDetails,
  type TestMerchant,
} from '../test-support/world';
import { fillDisk, freeDisk, installFullDisk, readOnlyDisk } from '../test-support/full-disk';
import { moneyReport, moneyViolations } from '../test-support/money-invariants';

/*
 * A full disk (issue 27): the database refuses to grow (SQLITE_FULL). Every money path answers 503
 * storage_unavailable in the error shape, with Retry-After, never an opaque 500; what reached the processor before
 * the disk filled is released or finished by the money sweep once space returns; nothing half-written stays; and
 * once space returns each path works again, with the processor's holds and captures matching the ledger exactly.
 *
 * The simulated processor runs as a remote one here (its calls outside bpay's transactions, as Stripe's are), so a
 * hold it placed stays placed when bpay cannot record it: the case that needs the sweep. Its own tables stand for a
 * processor elsewhere and keep working (test-support/full-disk.ts).
 */

let template: TestContext;
let consumer: { cookie: string; id: string; email: string; password: string };
let card: string;
let card2: string;
let bank: string;
let live: TestMerchant;
/** A bcard issued before the disk fills, for the merchant's confirm. */
let unspent: { id: string; card: TestCardDetails };
/** A payment intent paid with a bcard before the disk fills, for the refund. */
let paid: string;
let planUser: { cookie: string; id: string; card: string };

beforeAll(async () => {
  template = await makeTestApp();
  const c = await registerUser(template);
  const o = await registerUser(template);
  await makePremium(template, c.user.id);
  await makePremium(template, o.user.id);
  consumer = { cookie: c.cookie, id: c.user.id, email: c.email, password: c.password };
  card = (await addCard(template, c.cookie, CARDS_OK[0])).id;
  card2 = (await addCard(template, c.cookie, CARDS_OK[1])).id;
  bank = (await addBankAccount(template, c.cookie, BANK_OK)).id;
  live = await createMerchant(template, o.cookie, 'production');
  unspent = await bcardCard(template, c.cookie, card, '25.00');
  const spent = await bcardCard(template, c.cookie, card2, '40.00');
  paid = await payIntent(template, spent.card, 4000);
  const p = await registerUser(template);
  planUser = { cookie: p.cookie, id: p.user.id, card: (await addCard(template, p.cookie, CARDS_OK[2])).id };
  await installFullDisk(template);
});
afterAll(() => template.close());
afterEach(() => {
  freeDisk();
  resetRateWindows();
});

async function payIntent(ctx: TestContext, c: TestCardDetails, amount: number): Promise<string> {
  const pi = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount, currency: 'usd' } });
  const confirmed = await confirm(ctx, pi.body.id, c);
  if (confirmed.body.status !== 'succeeded') throw new Error(`paying failed: ${confirmed.status} ${confirmed.text}`);
  return pi.body.id as string;
}

const confirm = (ctx: TestContext, intentId: string, c: TestCardDetails) =>
  merchantCall(ctx, live.secretKey, `/payment_intents/${intentId}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: c } },
  });

type Fault = (method: VendorMethod, n: number) => Promise<void> | void;

/**
 * A copy of the prepared database on its own clock, whose processor acts as a remote one; `hook.after` runs after
 * each processor call has done its work (with the call's method and how many calls of it there were), to fill the
 * disk at a chosen step.
 */
async function fork() {
  const hook: { after: Fault | null; calls: VendorMethod[] } = { after: null, calls: [] };
  const log = memoryLogger();
  const ctx = await forkTestApp(template, {
    clock: new TestClock(template.clock.now().getTime()),
    log,
    wrapVendor: (v) =>
      interceptVendor(v, async <T,>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        const out = await run();
        hook.calls.push(method);
        await hook.after?.(method, hook.calls.filter((m) => m === method).length);
        return out;
      }),
  });
  return { ctx, hook, log };
}

/** Fills the disk right after the n-th call of `method` reached the processor. */
const fillAfter = (ctx: TestContext, method: VendorMethod, n = 1): Fault => async (m, k) => {
  if (m === method && k === n) await fillDisk(ctx);
};

function expectStorageUnavailable(res: CallResult) {
  expect(res.status, res.text).toBe(503);
  expect(res.body.error).toEqual({
    type: 'api_error',
    code: 'storage_unavailable',
    message: expect.stringContaining('storage is full or failing'),
    request_id: expect.stringMatching(/^req_/),
  });
  expect(res.headers.get('retry-after')).toBe(String(STORAGE_RETRY_AFTER_S));
  // Nothing of the SQL or the driver's words reaches the client.
  expect(res.text).not.toContain('SQLITE');
  expect(res.text).not.toContain('INSERT');
}

const rows = async (ctx: TestContext, sql: string, args: Array<string | number> = []) =>
  (await ctx.handle.client.execute({ sql, args })).rows.map((r) => Object.fromEntries(Object.entries(r)));

/** What the money looks like: compared before and after a refused request, it shows nothing was half-written. */
async function snapshot(ctx: TestContext) {
  const report = await moneyReport(ctx);
  const tables = ['collections', 'collection_shares', 'bcards', 'payment_intents', 'refunds', 'subscription_charges', 'bank_debits', 'ledger_movements', 'ledger_postings', 'email_outbox', 'webhook_deliveries', 'notifications'];
  const counts: Record<string, number> = {};
  for (const t of tables) counts[t] = Number((await rows(ctx, `SELECT count(*) AS n FROM ${t}`))[0]!.n);
  const holds = await rows(ctx, 'SELECT status, count(*) AS n FROM sim_holds GROUP BY status ORDER BY status');
  return { report, counts, holds };
}

/**
 * The invariants once everything has settled: the ledger balances, every source's balance at the processor is what
 * the ledger says (so nothing captured twice or left unrecorded), no hold left placed, no collection or charge left
 * under way, and no captured share without its bcard.
 */
async function expectSettled(ctx: TestContext) {
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.heldHolds).toBe(0);
  expect(report.unsettledCollections).toBe(0);
  expect(await rows(ctx, "SELECT id FROM subscription_charges WHERE status = 'pending'")).toEqual([]);
  expect(await rows(ctx, "SELECT id FROM refunds WHERE status = 'pending'")).toEqual([]);
  // A collection whose shares were captured (and not given back) has its bcard.
  expect(
    await rows(
      ctx,
      `SELECT c.id FROM collections c WHERE c.status = 'completed' AND NOT EXISTS (SELECT 1 FROM bcards b WHERE b.collection_id = c.id)`,
    ),
  ).toEqual([]);
  // Every bcard that can be spent has a live card at the processor, and no spent or ended one does.
  expect(
    await rows(
      ctx,
      `SELECT b.id, b.status, c.status AS processor FROM bcards b JOIN sim_issued_cards c ON c.id = b.vendor_card_id
        WHERE (b.status = 'active') != (c.status = 'active')`,
    ),
  ).toEqual([]);
  // Every plan charge that succeeded is in the ledger, once; none that failed is.
  expect(
    await rows(
      ctx,
      `SELECT s.id, s.status, (SELECT count(*) FROM ledger_movements m WHERE m.reference_id = s.id AND m.kind = 'plan.charged') AS n
         FROM subscription_charges s WHERE (s.status = 'succeeded') != (n = 1)`,
    ),
  ).toEqual([]);
  return report;
}

/** The lease of the request the disk interrupted runs out, and the money sweep finishes or undoes its work. */
async function sweepAfterLeases(ctx: TestContext) {
  ctx.clock.advance(Math.max(LEASE_MS, PLAN_CHARGE_LEASE_MS, REFUND_LEASE_MS) + 1);
  await sweepMoney(ctx.deps);
}

const newBcard = (ctx: TestContext, split: Array<[string, number]>, balance = '100.00', key = crypto.randomUUID()) =>
  call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: consumer.cookie,
    headers: { 'idempotency-key': key },
    body: { name: 'Split', balance, fundingSources: split.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })) },
  });
const refund = (ctx: TestContext, amount: number) =>
  merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: paid, amount } });
const upgrade = (ctx: TestContext) =>
  call(ctx, '/api/subscription/upgrade', {
    method: 'POST',
    cookie: planUser.cookie,
    headers: { 'idempotency-key': crypto.randomUUID() },
    body: { tierId: 'tier_pro', fundingSourceId: planUser.card },
  });
const planOf = async (ctx: TestContext) =>
  String((await rows(ctx, "SELECT tier_id AS t FROM user_subscriptions WHERE user_id = ? AND status = 'active'", [planUser.id]))[0]?.t);

/** Each money path: its request, and what shows that it worked once space returned. */
const PATHS: Array<{ name: string; run: (ctx: TestContext) => Promise<CallResult>; worked: (ctx: TestContext, res: CallResult) => Promise<void> }> = [
  {
    name: 'a bcard split over two cards',
    run: (ctx) => newBcard(ctx, [[card, 60], [card2, 40]]),
    worked: async (_ctx, res) => expect(res.status, res.text).toBe(201),
  },
  {
    name: 'a bcard split over a card and a bank account (a bank debit)',
    run: (ctx) => newBcard(ctx, [[card, 50], [bank, 50]]),
    worked: async (ctx, res) => {
      expect(res.status, res.text).toBe(201);
      expect((await rows(ctx, "SELECT status FROM bank_debits WHERE collection_id = (SELECT collection_id FROM bcards WHERE id = ?)", [res.body.id])).map((r) => r.status)).toEqual(['pending']);
    },
  },
  {
    name: "a merchant's confirm paid with a bcard",
    run: async (ctx) => {
      const pi = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd' } });
      return confirm(ctx, pi.body.id, unspent.card);
    },
    worked: async (_ctx, res) => expect(res.body.status, res.text).toBe('succeeded'),
  },
  {
    name: "a merchant's refund",
    run: (ctx) => refund(ctx, 1500),
    worked: async (_ctx, res) => expect([res.status, res.body.status], res.text).toEqual([200, 'succeeded']),
  },
  {
    name: 'a plan charge (upgrade)',
    run: (ctx) => upgrade(ctx),
    worked: async (ctx, res) => {
      expect(res.status, res.text).toBe(200);
      expect(await planOf(ctx)).toBe('tier_pro');
    },
  },
];

describe('the disk is full before the request', () => {
  for (const path of PATHS) {
    test(`${path.name}: 503 storage_unavailable, nothing written or held; once space returns it works`, async () => {
      const { ctx, log } = await fork();
      try {
        // The confirm's intent is made while there is space: the confirm is the money path.
        let intentFirst: string | null = null;
        if (path.name.includes('confirm')) {
          intentFirst = (await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd' } })).body.id;
        }
        const before = await snapshot(ctx);
        await fillDisk(ctx);
        const res = intentFirst ? await confirm(ctx, intentFirst, unspent.card) : await path.run(ctx);
        expectStorageUnavailable(res);
        expect(log.lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
        expect(log.lines.some((l) => l.level === 'error' && l.msg.startsWith('storage unavailable'))).toBe(true);
        // Nothing half-written, nothing left held at the processor.
        expect(await snapshot(ctx)).toEqual(before);
        // Reads still work while the disk is full.
        expect((await call(ctx, '/api/funding-sources', { cookie: consumer.cookie })).status).toBe(200);
        expect((await call(ctx, '/api/transactions', { cookie: consumer.cookie })).status).toBe(200);
        expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${paid}`)).status).toBe(200);
        // The sweep under a full disk neither throws nor changes anything.
        await sweepAfterLeases(ctx);

        freeDisk();
        await sweepAfterLeases(ctx);
        await expectSettled(ctx);
        const again = intentFirst ? await confirm(ctx, intentFirst, unspent.card) : await path.run(ctx);
        await path.worked(ctx, again);
        await expectSettled(ctx);
      } finally {
        ctx.close();
      }
    });
  }
});

/*
 * The disk fills in the middle: right after a processor call has done its work, before bpay records it. The request
 * answers 503; once space returns the sweep releases or finishes what the processor did, exactly once.
 */
const MIDWAY: Array<{
  name: string;
  path: number;
  method: VendorMethod;
  n?: number;
  /**
   * What the request answers: 503, or, when the payment or refund committed before the disk filled and only the
   * processor's follow-up could not be recorded, 200 with the committed state (the sweep finishes the rest).
   */
  answer?: 'pending' | 'succeeded';
  /** The path cannot be taken again once it went through (the bcard is spent, the plan paid). */
  once?: true;
  outcome: (ctx: TestContext) => Promise<void>;
}> = [
  {
    name: 'a bcard, after its first hold',
    path: 0,
    method: 'hold',
    outcome: async (ctx) => {
      // Undone: the collection failed, its holds voided.
      expect((await rows(ctx, 'SELECT status FROM collections ORDER BY rowid DESC LIMIT 1'))[0]!.status).toBe('failed');
      expect(await rows(ctx, "SELECT 1 FROM sim_holds WHERE status = 'held'")).toEqual([]);
    },
  },
  {
    name: 'a bcard, after its last capture',
    path: 0,
    method: 'capture',
    n: 2,
    outcome: async (ctx) => expect((await rows(ctx, 'SELECT status FROM bcards ORDER BY rowid DESC LIMIT 1'))[0]!.status).toBe('active'),
  },
  {
    name: 'a bcard, after its card was issued',
    path: 0,
    method: 'issueCard',
    outcome: async (ctx) => {
      // Finished forward: the captured money became the bcard, whose card at the processor is live.
      const [b] = await rows(ctx, `SELECT b.status AS s, c.status AS processor FROM bcards b JOIN sim_issued_cards c ON c.id = b.vendor_card_id ORDER BY b.rowid DESC LIMIT 1`);
      expect(b).toEqual({ s: 'active', processor: 'active' });
    },
  },
  {
    name: 'a bcard with a bank share, after the debit was initiated',
    path: 1,
    method: 'debitBank',
    outcome: async (ctx) => {
      expect((await rows(ctx, 'SELECT status FROM bank_debits')).map((r) => r.status)).toEqual(['pending']);
      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      expect(await sweepBankDebits(ctx.deps)).toBe(1);
      expect((await rows(ctx, 'SELECT status FROM bank_debits')).map((r) => r.status)).toEqual(['settled']);
    },
  },
  {
    name: "a merchant's confirm, after the spent bcard's card was deactivated",
    path: 2,
    method: 'deactivateCard',
    answer: 'succeeded',
    once: true,
    outcome: async (ctx) => {
      const [b] = await rows(ctx, `SELECT b.status AS s, c.status AS processor FROM bcards b JOIN sim_issued_cards c ON c.id = b.vendor_card_id WHERE b.id = ?`, [unspent.id]);
      expect(b).toEqual({ s: 'used', processor: 'inactive' });
    },
  },
  {
    name: 'a refund, after the first share went back',
    path: 3,
    method: 'refund',
    answer: 'pending',
    outcome: async (ctx) => expect((await rows(ctx, 'SELECT status FROM refunds')).map((r) => r.status)).toEqual(['succeeded']),
  },
  {
    name: 'a plan charge, after its hold',
    path: 4,
    method: 'hold',
    outcome: async (ctx) => {
      expect((await rows(ctx, 'SELECT status FROM subscription_charges')).map((r) => r.status)).toEqual(['failed']);
      expect(await planOf(ctx)).toBe('tier_free');
    },
  },
  {
    name: 'a plan charge, after its capture',
    path: 4,
    method: 'capture',
    once: true,
    outcome: async (ctx) => {
      expect((await rows(ctx, 'SELECT status FROM subscription_charges')).map((r) => r.status)).toEqual(['succeeded']);
      expect(await planOf(ctx)).toBe('tier_pro');
    },
  },
];

describe('the disk fills between a processor call and its record', () => {
  for (const m of MIDWAY) {
    test(`${m.name}: 503, then the sweep settles it once space returns, and the path works again`, async () => {
      const { ctx, hook } = await fork();
      try {
        const path = PATHS[m.path]!;
        hook.after = fillAfter(ctx, m.method, m.n);
        const res = await path.run(ctx);
        hook.after = null;
        if (m.answer) expect([res.status, res.body.status], res.text).toEqual([200, m.answer]);
        else expectStorageUnavailable(res);
        // While the disk stays full the sweep cannot record anything: it logs and leaves it.
        await sweepAfterLeases(ctx);

        freeDisk();
        await sweepAfterLeases(ctx);
        await expectSettled(ctx);
        await m.outcome(ctx);
        await expectSettled(ctx);
        if (!m.once) await path.worked(ctx, await path.run(ctx));
        await expectSettled(ctx);
      } finally {
        ctx.close();
      }
    });
  }
});

describe('beside the money', () => {
  test('sign-in answers 503 storage_unavailable, not 500; once space returns it works', async () => {
    const { ctx } = await fork();
    try {
      await fillDisk(ctx);
      expectStorageUnavailable(await login(ctx, consumer.email, consumer.password));
      freeDisk();
      const res = await login(ctx, consumer.email, consumer.password);
      expect(res.status, res.text).toBe(200);
    } finally {
      ctx.close();
    }
  });

  test('a disk remounted read-only (a failing disk, SQLITE_READONLY) is a storage failure too: 503, not 500 (hostile review of issue 27)', async () => {
    const { ctx } = await fork();
    try {
      readOnlyDisk();
      expectStorageUnavailable(await login(ctx, consumer.email, consumer.password));
      freeDisk();
      const res = await login(ctx, consumer.email, consumer.password);
      expect(res.status, res.text).toBe(200);
    } finally {
      ctx.close();
    }
  });

  test('a renewal due while the disk is full is not charged twice: the sweep renews it once space returns', async () => {
    const { ctx } = await fork();
    try {
      expect((await upgrade(ctx)).status).toBe(200);
      ctx.clock.advance(32 * 24 * 3600_000);
      await fillDisk(ctx);
      await sweepMoney(ctx.deps);
      await sweepAfterLeases(ctx);
      freeDisk();
      await sweepAfterLeases(ctx);
      await sweepAfterLeases(ctx);
      const charges = await rows(ctx, 'SELECT kind, status FROM subscription_charges ORDER BY created_at');
      expect(charges).toEqual([
        { kind: 'upgrade', status: 'succeeded' },
        { kind: 'renewal', status: 'succeeded' },
      ]);
      await expectSettled(ctx);
    } finally {
      ctx.close();
    }
  });
});

test('storage failures are told from other database errors, wrapped or not', () => {
  const libsql = (code: string, rawCode: number, message: string) => Object.assign(new Error(`${code}: ${message}`), { code, rawCode });
  // Drizzle wraps what the driver threw: the driver's error is its cause.
  const drizzle = (cause: Error) => Object.assign(new Error('Failed query: insert into "bcards" ...'), { cause });
  const storage = [
    libsql('SQLITE_FULL', 13, 'database or disk is full'),
    libsql('SQLITE_IOERR_WRITE', 778, 'disk I/O error'),
    libsql('SQLITE_IOERR', 10, 'disk I/O error'),
    // An extended code given only as a number (the low byte is the primary code).
    Object.assign(new Error('write failed'), { rawCode: (4 << 8) | 10 }),
    // A remote libSQL server's answer may carry only the words.
    new Error('SQLite error: database or disk is full'),
    drizzle(libsql('SQLITE_FULL', 13, 'database or disk is full')),
    drizzle(drizzle(new Error('disk I/O error'))),
    // A filesystem remounted read-only after I/O errors (and its extended codes, such as SQLITE_READONLY_DBMOVED).
    libsql('SQLITE_READONLY', 8, 'attempt to write a readonly database'),
    drizzle(libsql('SQLITE_READONLY_DBMOVED', (4 << 8) | 8, 'attempt to write a readonly database')),
    new Error('SQLite error: attempt to write a readonly database'),
  ];
  const others = [
    libsql('SQLITE_CONSTRAINT_UNIQUE', 2067, 'UNIQUE constraint failed: bcards.id'),
    libsql('SQLITE_BUSY', 5, 'database is locked'),
    drizzle(libsql('SQLITE_CONSTRAINT_CHECK', 275, 'CHECK constraint failed')),
    new Error('something else'),
    null,
    'SQLITE_FULL',
  ];
  expect(storage.map(isStorageFailure)).toEqual(storage.map(() => true));
  expect(others.map(isStorageFailure)).toEqual(others.map(() => false));
});

describe('background workers under a full disk', () => {
  test('a poll worker whose runs fail logs and backs off (doubling, at most a minute), and runs again once they succeed', async () => {
    let t = 0;
    let failing = true;
    let runs = 0;
    const log = memoryLogger();
    const worker = startPollWorker({
      name: 'test worker',
      log,
      limit: 10,
      intervalMs: 1000,
      now: () => t,
      runBatch: async () => {
        runs++;
        if (failing) throw new Error('SQLITE_FULL: database or disk is full');
        return { claimed: 0 };
      },
    });
    try {
      const waits: number[] = [];
      for (let i = 0; i < 8; i++) {
        const before = runs;
        await worker.tick();
        expect(runs).toBe(before + 1);
        // Ticks before the wait is over do nothing: no run, no log line.
        const wait = log.lines.at(-1)!.fields.nextRunInMs as number;
        waits.push(wait);
        t += wait - 1;
        await worker.tick();
        expect(runs).toBe(before + 1);
        t += 1;
      }
      expect(waits).toEqual([2000, 4000, 8000, 16_000, 32_000, MAX_BACKOFF_MS, MAX_BACKOFF_MS, MAX_BACKOFF_MS]);
      expect(log.lines.filter((l) => l.level === 'error')).toHaveLength(8);
      failing = false;
      await worker.tick();
      expect(log.lines.at(-1)).toMatchObject({ level: 'info', msg: 'test worker runs again', fields: { failedRuns: 8 } });
      // Back to every tick.
      await worker.tick();
      await worker.tick();
      expect(runs).toBe(8 + 3);
    } finally {
      worker.stop();
    }
  });

  test('the mail worker cannot claim while the disk is full: it backs off without sending, and sends each message once when space returns', async () => {
    const sent: MailMessage[] = [];
    const log = memoryLogger();
    const ctx = await forkTestApp(template, {
      clock: new TestClock(template.clock.now().getTime()),
      log,
      mail: { transport: { send: async (m) => void sent.push(m), close: () => undefined } },
    });
    const worker = startMailWorker(ctx.deps, { intervalMs: 1000 });
    try {
      const pending = Number((await rows(ctx, "SELECT count(*) AS n FROM email_outbox WHERE status = 'pending'"))[0]!.n);
      expect(pending).toBeGreaterThan(0);
      await fillDisk(ctx);
      for (let i = 0; i < 5; i++) await worker.tick();
      expect(sent).toEqual([]);
      expect(log.lines.filter((l) => l.msg.startsWith('mail worker run failed'))).toHaveLength(1);
      freeDisk();
      ctx.clock.advance(MAX_BACKOFF_MS);
      await worker.tick();
      expect(sent).toHaveLength(pending);
      expect(await rows(ctx, "SELECT id FROM email_outbox WHERE status = 'pending'")).toEqual([]);
    } finally {
      worker.stop();
      ctx.close();
    }
  });
});
