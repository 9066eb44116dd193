import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createClient, type Client } from '@libsql/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answering, post, premiumUser, startServer, stopServers, type Server } from '../test-support/server-process';
import { TestClock } from './lib/clock';
import {
  call,
  interceptVendor,
  makeTestApp,
  merchantCall,
  TEST_SESSION_SECRET,
  type TestContext,
  type VendorMethod,
} from '../test-support/app';
import { addCard, bcardCard, cardBody, CARDS_OK, merchantWorld } from '../test-support/world';
import { moneyReport, moneyViolations } from '../test-support/money-invariants';

/*
 * Issue 14, beyond one process: two bpay server processes on one database file. The write lock and group commit are
 * per process, so what keeps money right across them is SQLite's own locking. Both start together (migrations and
 * the first admin race: one wins, the other finds it done), then 200 bcards drawn on one card's balance are sent
 * to both at once: exactly the affordable number succeed, nothing fails with a server error, and the ledger and the
 * processor's balance agree. Last, two more servers start together on a database a dead process left half-done, and
 * both run the money sweep at once: everything is finished or undone exactly once.
 */

let dir: string;
let servers: Bun.Subprocess[] = [];
const bases: string[] = [];
let db: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-2proc-'));
  const started = [0, 1].map(() => startServer(join(dir, 'bpay.db')));
  servers = started.map((s) => s.proc);
  bases.push(...started.map((s) => s.base));
  for (const [i, s] of started.entries()) await answering(s, `server ${i}`);
  db = createClient({ url: `file:${join(dir, 'bpay.db')}` });
  await db.execute('PRAGMA busy_timeout = 5000');
}, 60_000);

afterAll(async () => {
  db?.close();
  await stopServers(servers);
  rmSync(dir, { recursive: true, force: true });
});

const one = async (sql: string) => Number(Object.values((await db.execute(sql)).rows[0] ?? {})[0]);

test('both started on one database: one first admin, every migration applied once', async () => {
  expect(await one('SELECT count(*) FROM admins')).toBe(1);
  const applied = await one('SELECT count(*) FROM __drizzle_migrations');
  expect(applied).toBe(await one('SELECT count(DISTINCT hash) FROM __drizzle_migrations'));
});

test('200 bcards on one balance, half through each process: exactly the affordable number, no server error', async () => {
  const [a, b] = bases as [string, string];
  const cookie = await premiumUser(db, a, 'two.proc@example.com');
  const card = await post(b, '/api/funding-sources', cardBody('4242424242424242'), { cookie });
  expect(card.status).toBe(201);
  const source = (await card.json()).id as string;

  const statuses = await Promise.all(
    Array.from({ length: 200 }, (_, i) => {
      const base = i % 2 ? b : a;
      return post(base, '/api/virtual-cards', { name: `Card ${i}`, balance: '100.00', fundingSources: [{ fundingSourceId: source, percentage: 100 }] }, {
        cookie,
        'idempotency-key': `two-proc-${i}`,
      }).then((r) => r.status);
    }),
  );
  const byStatus: Record<number, number> = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  // $101.90 each (1.9 % fee): 98 fit in $10,000.00, a 99th does not.
  expect(byStatus).toEqual({ 201: 98, 402: 102 });
  expect(await one("SELECT count(*) FROM collections WHERE status = 'completed'")).toBe(98);
  expect(await one("SELECT count(*) FROM collections WHERE status = 'failed'")).toBe(102);
  // Every hold of a failed collection was voided; the completed ones' are captured.
  expect(await one("SELECT count(*) FROM sim_holds WHERE status = 'held'")).toBe(0);
  expect(await one("SELECT count(*) FROM sim_holds WHERE status = 'captured'")).toBe(98);
  expect(await one('SELECT available_cents FROM sim_cards')).toBe(1_000_000 - 98 * 10_190);
  expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings')).toBe(0);
  expect(await one(`SELECT -coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'funding_source:${source}'`)).toBe(98 * 10_190);
}, 60_000);

test('50 confirms of one intent with one bcard, half through each process: one succeeds, the bcard is spent once', async () => {
  const [a, b] = bases as [string, string];
  const cookie = await premiumUser(db, a, 'two.proc.merchant@example.com');
  // Production: a consumer's bcard pays only production intents.
  const merchant = await post(a, '/api/merchants', { businessName: 'Two Shops', businessEmail: 'shop@example.com', platformType: 'custom', environment: 'production' }, { cookie });
  expect(merchant.status).toBe(201);
  const secretKey = (await merchant.json()).secretApiKey as string;
  const source = (await (await post(b, '/api/funding-sources', cardBody('5555555555554444'), { cookie })).json()).id as string;
  const bcardRes = await post(b, '/api/virtual-cards', { name: 'Checkout card', balance: '25.00', fundingSources: [{ fundingSourceId: source, percentage: 100 }] }, {
    cookie,
    'idempotency-key': 'two-proc-checkout-card',
  });
  expect(bcardRes.status).toBe(201);
  const bcardId = (await bcardRes.json()).id as string;
  const details = await (await fetch(`${a}/api/virtual-cards/${bcardId}/checkout-details`, { headers: { cookie } })).json();
  const card = { number: details.cardNumber, exp_month: details.expiryMonth, exp_year: details.expiryYear, cvc: details.cvv };
  const merchantApi = (base: string, path: string, body: unknown) =>
    fetch(`${base}/api/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` }, body: JSON.stringify(body) });
  const pi = await (await merchantApi(a, '/payment_intents', { amount: 2500, currency: 'usd' })).json();

  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      merchantApi(i % 2 ? b : a, `/payment_intents/${pi.id}/confirm`, { payment_method_data: { type: 'card', card } }).then(async (r) => {
        const body = await r.json();
        return r.status === 200 ? `200 ${body.status}` : `${r.status} ${body.error.code}`;
      }),
    ),
  );
  const tally: Record<string, number> = {};
  for (const x of answers) tally[x] = (tally[x] ?? 0) + 1;
  expect(tally).toEqual({ '200 succeeded': 1, '400 payment_intent_unexpected_state': 49 });
  expect(await one(`SELECT spent_cents FROM bcards WHERE id = '${bcardId}'`)).toBe(2500);
  expect(await one(`SELECT count(*) FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = '${bcardId}'`)).toBe(1);
  expect(await one(`SELECT count(*) FROM events WHERE type = 'payment_intent.succeeded' AND json_extract(data, '$.id') = '${pi.id}'`)).toBe(1);
  expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings')).toBe(0);
}, 60_000);

/* ------------------------------------------------------------------------------------------------------------- */

/*
 * The money sweep in both processes. A database is left as a process that died eight days ago would leave it:
 * collections interrupted while holding, while capturing and while refunding, unused bcards whose session ended, and
 * manual-capture authorizations nobody captured within 7 days. Two servers then start on it together. Each runs the
 * sweep at start (boot.ts), before it answers, so once both answer both sweeps are over; they overlap because the
 * processes start together. (The interval is a constant, MONEY_SWEEP_MS = 30 s, with no setting to shorten it; the
 * servers are stopped as soon as both answer.) The sweep's guarded statements (a lease taken only while expired, a
 * bcard moved only from active or authorized) must let each item be handled by one process alone: each logs what it
 * handled, and the two logs add up to exactly what there was.
 */

const DAY = 24 * 3600_000;
/** Of each kind of half-done collection; with the others, well under the sweep's 100 per kind and pass. */
const INTERRUPTED = 8;
const EXPIRED = 16;
const STALE_AUTHORIZATIONS = 4;

/** Not a processor error: the process is gone, and its connection with it. */
class ProcessDied extends Error {
  override name = 'ProcessDied';
}

/**
 * Runs `act` in a process of its own on the database in `dbDir` that dies once processor call number `at` is done:
 * its connection is closed there, so nothing after that call is written (no rollback, no cleanup), as in a crash.
 * The simulator acts as a remote processor here (each call commits on its own), which is what leaves work that
 * reached the processor but not bpay's record.
 */
async function dieAfterCall(dbDir: string, clock: TestClock, at: number, act: (ctx: TestContext) => Promise<unknown>): Promise<void> {
  let calls = 0;
  let victim: TestContext | null = null;
  const ctx = await makeTestApp({
    dir: dbDir,
    clock,
    wrapVendor: (v) =>
      interceptVendor(v, async <T>(method: VendorMethod, _args: unknown[], run: () => Promise<T>): Promise<T> => {
        if (calls >= at) throw new ProcessDied('the process is gone');
        const answer = await run();
        if (++calls === at) {
          victim!.handle.close();
          throw new ProcessDied(`died after ${method}`);
        }
        return answer;
      }),
  });
  victim = ctx;
  await act(ctx).catch(() => undefined);
  if (calls < at) throw new Error(`the process made ${calls} processor calls, never reaching call ${at}`);
}

/** One process's start-up sweep, as it logged it (nothing logged: it found nothing left to do). */
function sweepLogged(s: Server): { recovered: number; expired: number; canceled: number } {
  const total = { recovered: 0, expired: 0, canceled: 0 };
  for (const line of s.output.join('').split('\n')) {
    if (!line.includes('"money sweep"')) continue;
    const x = JSON.parse(line) as { recovered: number; expired: number; canceled: number };
    total.recovered += x.recovered;
    total.expired += x.expired;
    total.canceled += x.canceled;
  }
  return total;
}

const errorLines = (s: Server) =>
  s.output
    .join('')
    .split('\n')
    .filter((l) => l.trim() && !/"level":"(info|warn)"/.test(l));

test('the sweep in both processes at once: every half-done collection, expired bcard and stale authorization handled once', async () => {
  const sweepDir = mkdtempSync(join(tmpdir(), 'bpay-2proc-sweep-'));
  const clock = new TestClock(Date.now() - 8 * DAY);
  let sweepers: Server[] = [];
  try {
    // What the dead process left, made through the API in-process (the test kit's database is test.db in sweepDir).
    const setup = await makeTestApp({ dir: sweepDir, clock });
    const { consumer, sourceId, live } = await merchantWorld(setup);
    const second = (await addCard(setup, consumer.cookie, CARDS_OK[1])).id;
    const twoWay = { name: 'Swept', balance: '10.00', fundingSources: [{ fundingSourceId: sourceId, percentage: 60 }, { fundingSourceId: second, percentage: 40 }] };
    const createBcard = (ctx: TestContext) => call(ctx, '/api/virtual-cards', { method: 'POST', cookie: consumer.cookie, body: twoWay });
    const issued = async () => {
      const res = await createBcard(setup);
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const expiredIds: string[] = [];
    for (let i = 0; i < EXPIRED; i++) expiredIds.push(await issued());
    const authorized: Array<{ piId: string; bcardId: string }> = [];
    for (let i = 0; i < STALE_AUTHORIZATIONS; i++) {
      const pi = await merchantCall(setup, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', capture_method: 'manual' } });
      const bcard = await bcardCard(setup, consumer.cookie, sourceId, '25.00');
      const confirmed = await merchantCall(setup, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
        method: 'POST',
        body: { payment_method_data: { type: 'card', card: bcard.card } },
      });
      expect(confirmed.body.status).toBe('requires_capture');
      authorized.push({ piId: pi.body.id, bcardId: bcard.id });
    }
    // A collection's calls are hold, hold, capture, capture, issueCard; a cancel's deactivateCard, refund, refund.
    for (let i = 0; i < INTERRUPTED; i++) {
      await dieAfterCall(sweepDir, clock, 1, createBcard); // first share held, the second never asked
      await dieAfterCall(sweepDir, clock, 3, createBcard); // both held, the first captured
      const id = await issued();
      await dieAfterCall(sweepDir, clock, 2, (ctx) => call(ctx, `/api/virtual-cards/${id}/cancel`, { method: 'POST', cookie: consumer.cookie })); // the first share refunded
    }
    const q = async (sql: string) => (await setup.handle.client.execute(sql)).rows.map((r) => Object.fromEntries(Object.entries(r)));
    const halfDone = await q("SELECT id, status FROM collections WHERE status IN ('holding', 'capturing', 'refunding')");
    const idsIn = (status: string) => halfDone.filter((c) => c.status === status).map((c) => `'${String(c.id)}'`).join(', ');
    expect(halfDone.map((c) => c.status).sort()).toEqual(
      ['capturing', 'holding', 'refunding'].flatMap((s) => Array.from({ length: INTERRUPTED }, () => s)),
    );
    // Before the sweep the dead process's work is visible at the processor: a hold left placed by each interrupted
    // holding (its first share) and capturing (its second), and one share of each interrupted cancel refunded.
    expect((await q("SELECT count(*) AS n FROM sim_holds WHERE status = 'held'"))[0]!.n).toBe(2 * INTERRUPTED);
    expect((await q('SELECT count(*) AS n FROM sim_refunds'))[0]!.n).toBe(INTERRUPTED);
    setup.handle.close();

    sweepers = [0, 1].map(() =>
      startServer(join(sweepDir, 'test.db'), {
        // The simulator's card numbers and fingerprints are keyed with the secret the data was made with.
        BPAY_SESSION_SECRET: TEST_SESSION_SECRET,
        // The sweep's own summary is an info line.
        BPAY_LOG_LEVEL: 'info',
      }),
    );
    await Promise.all(sweepers.map((s, i) => answering(s, `sweeping server ${i}`)));
    await stopServers(sweepers.map((s) => s.proc));
    expect(sweepers.map(errorLines)).toEqual([[], []]);
    // Each item counted by the one process that handled it: between them, exactly what there was.
    const [a, b] = sweepers.map(sweepLogged) as [ReturnType<typeof sweepLogged>, ReturnType<typeof sweepLogged>];
    expect({ recovered: a.recovered + b.recovered, expired: a.expired + b.expired, canceled: a.canceled + b.canceled }).toEqual({
      recovered: 3 * INTERRUPTED,
      expired: EXPIRED,
      canceled: STALE_AUTHORIZATIONS,
    });

    const after = await makeTestApp({ dir: sweepDir });
    try {
      const rows = async (sql: string) => (await after.handle.client.execute(sql)).rows.map((r) => Object.fromEntries(Object.entries(r)));
      const n = async (sql: string) => Number(Object.values((await rows(sql))[0] ?? {})[0]);
      // Holding: undone; capturing: finished, one bcard each; refunding: settled.
      expect(await n(`SELECT count(*) FROM collections WHERE id IN (${idsIn('holding')}) AND status = 'failed' AND failure_code = 'interrupted'`)).toBe(INTERRUPTED);
      expect(await n(`SELECT count(*) FROM collections WHERE id IN (${idsIn('capturing')}) AND status = 'completed'`)).toBe(INTERRUPTED);
      expect(await n(`SELECT count(*) FROM bcards WHERE collection_id IN (${idsIn('capturing')}) AND status = 'active'`)).toBe(INTERRUPTED);
      expect(await n(`SELECT count(*) FROM collections WHERE id IN (${idsIn('refunding')}) AND status = 'refunded'`)).toBe(INTERRUPTED);
      expect(await n(`SELECT count(*) FROM bcards WHERE collection_id IN (${idsIn('refunding')}) AND status = 'canceled'`)).toBe(INTERRUPTED);
      expect(await n(`SELECT count(*) FROM bcards WHERE id IN (${expiredIds.map((id) => `'${id}'`).join(', ')}) AND status = 'expired'`)).toBe(EXPIRED);
      for (const { piId, bcardId } of authorized) {
        expect(await rows(`SELECT status, cancellation_reason FROM payment_intents WHERE id = '${piId}'`)).toEqual([{ status: 'canceled', cancellation_reason: 'automatic' }]);
        expect(await n(`SELECT count(*) FROM events WHERE type = 'payment_intent.canceled' AND json_extract(data, '$.id') = '${piId}'`)).toBe(1);
        expect(await n(`SELECT count(*) FROM bcards WHERE id = '${bcardId}' AND status = 'canceled'`)).toBe(1);
      }
      // Nothing twice at the processor: every card issued once per collection, no hold refunded twice, and every
      // share of a refunded bcard refunded in full, once (the refunds' total is exactly those shares).
      expect(await n("SELECT count(*) FROM (SELECT idempotency_key FROM sim_issued_cards GROUP BY idempotency_key HAVING count(*) > 1)")).toBe(0);
      expect(await n('SELECT count(*) FROM (SELECT hold_id FROM sim_refunds GROUP BY hold_id HAVING count(*) > 1)')).toBe(0);
      expect(await n('SELECT coalesce(sum(amount_cents), 0) FROM sim_refunds')).toBe(
        await n("SELECT sum(cs.amount_cents) FROM collection_shares cs JOIN collections c ON c.id = cs.collection_id WHERE c.status = 'refunded'"),
      );
      expect(await n("SELECT count(*) FROM sim_holds WHERE status = 'held'")).toBe(0);
      // Nothing twice in the ledger: one capture per collection, one refund per bcard.
      for (const kind of ['collection.captured', 'bcard.refunded']) {
        expect(await n(`SELECT count(*) FROM (SELECT reference_id FROM ledger_movements WHERE kind = '${kind}' GROUP BY reference_id HAVING count(*) > 1)`)).toBe(0);
      }
      const report = await moneyReport(after);
      expect(moneyViolations(report)).toEqual([]);
      expect(report.unsettledCollections).toBe(0);
      expect(report.movementsByKind).toEqual({
        'collection.captured': EXPIRED + STALE_AUTHORIZATIONS + 2 * INTERRUPTED,
        'bcard.refunded': EXPIRED + STALE_AUTHORIZATIONS + INTERRUPTED,
      });
    } finally {
      after.handle.close();
    }
  } finally {
    await stopServers(sweepers.map((s) => s.proc));
    rmSync(sweepDir, { recursive: true, force: true });
  }
}, 60_000);

/*
 * Issue 29 part 4: the merchant API's usage is leased in blocks (merchants/usage.ts). A free owner's merchant (1,000
 * calls a month, blocks of at most 10) starts at 900 this month. A third process takes a block for one call and is
 * stopped with SIGTERM: its 9 unused calls go back. A fourth takes a block and is killed (SIGKILL): its 9 unused calls
 * stay counted as used. Then 200 calls at once, half through each of the two servers: exactly what is left passes,
 * every other call is 429 monthly_quota_exceeded, and the month ends at 1,000.
 */
test("the plan's monthly API allowance across two processes, a lease given back at shutdown, one lost in a crash", async () => {
  const email = 'quota-two-processes@example.com';
  const reg = await post(bases[0]!, '/api/auth/register', { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' });
  expect(reg.status).toBe(201);
  const cookie = /^([^=;]+=[^;]+)/.exec(reg.headers.get('set-cookie') ?? '')![1]!;
  const made = await post(bases[0]!, '/api/merchants', { businessName: 'Quota Shop', businessEmail: 'shop@example.com', platformType: 'custom', environment: 'sandbox' }, { cookie });
  expect(made.status).toBe(201);
  const merchant = (await made.json()) as { id: string; secretApiKey: string };
  const day = new Date().toISOString().slice(0, 10);
  await db.execute({ sql: 'INSERT INTO merchant_usage (merchant_id, day, requests) VALUES (?, ?, 900)', args: [merchant.id, day] });
  const month = () => one(`SELECT sum(requests) FROM merchant_usage WHERE merchant_id = '${merchant.id}' AND day LIKE '${day.slice(0, 7)}-%'`);
  const read = (base: string) =>
    fetch(`${base}/api/v1/payment_intents?limit=1`, { headers: { authorization: `Bearer ${merchant.secretApiKey}` } }).then(async (r) => ({
      status: r.status,
      code: r.status === 200 ? null : ((await r.json()) as { error: { code: string } }).error.code,
    }));

  const stopped = startServer(join(dir, 'bpay.db'));
  const killed = startServer(join(dir, 'bpay.db'));
  try {
    await answering(stopped, 'the server stopped with SIGTERM');
    await answering(killed, 'the server killed');
    expect((await read(stopped.base)).status).toBe(200);
    expect(await month()).toBe(910); // a block of min(10, 100 / 4)
    stopped.proc.kill('SIGTERM');
    await stopped.proc.exited;
    expect(await month()).toBe(901); // the 9 unused given back

    expect((await read(killed.base)).status).toBe(200);
    expect(await month()).toBe(911);
    killed.proc.kill('SIGKILL');
    await killed.proc.exited;
    expect(await month()).toBe(911); // counted as used: 89 calls are left, not 98
  } finally {
    for (const s of [stopped, killed]) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
  }

  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => read(bases[i % 2]!)));
  const passed = results.filter((r) => r.status === 200).length;
  expect(passed).toBe(89);
  expect(results.filter((r) => r.status === 429 && r.code === 'monthly_quota_exceeded')).toHaveLength(200 - 89);
  // Each process sent 100, more than was left, so each was refused at least once, and a process is refused only with
  // its block spent and nothing left to lease: neither holds unused calls at the end, so every call left was made.
  expect(await month()).toBe(1000);
}, 60_000);
