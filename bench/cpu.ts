/*
 * CPU time per request on the write and read paths (issue 29 §1): a figure that the machine's load moves little,
 * because it counts the CPU this process used (process.cpuUsage(), user + system) and not the time it waited for a core.
 *
 * What it does, per run, in one process:
 *   1. A fresh app from the test kit (makeTestApp: temporary libSQL file, migrations, production PRAGMAs with
 *      synchronous=FULL, group-commit writer), BPAY_RATE_LIMITS off. A consumer with three cards and a merchant owner
 *      with a sandbox merchant, both on premium, made through the API.
 *   2. Each case sends its requests one at a time through `app.handle` (no HTTP, no sockets): --warmup of them first,
 *      then --requests of them measured. Before the measured ones the database is copied (VACUUM INTO), and while they
 *      run every statement the driver executes is written down (its SQL, its bound arguments, whether it returned
 *      rows, and on which connection: BEGIN, SAVEPOINT, RELEASE and COMMIT included). Cases, in order (each leaves
 *      what the next needs):
 *        - POST /api/v1/payment_intents ($10.00, sandbox secret key, Idempotency-Key);
 *        - (not measured) one sandbox test bcard per intent, split 334/333/333 cents over three magic sources;
 *        - POST /api/v1/payment_intents/:id/confirm with that test bcard (a 3-way split bcard);
 *        - POST /api/v1/refunds of each confirmed intent in full (back through its three shares);
 *        - GET /api/v1/payment_intents/:id;
 *        - POST /api/virtual-cards, the consumer's $1.00 bcard over three sources (34/33/33 %);
 *        - GET /api/transactions, the consumer's first page;
 *        - GET /api/subscription/tiers: reference A, a trivial route through the same app (one small SELECT), last,
 *          when the JIT has compiled the request path every case shares.
 *   3. Reference B, the same statements raw: each case's written-down statements replayed, in order, with the same
 *      arguments and the same transactions, through libsql's driver (the `libsql` package @libsql/client runs on) on a
 *      copy of the database as it was before the case, each statement prepared once beforehand (as the app's
 *      statement cache does). That is what SQLite itself costs for the request; the rest of the app's figure is
 *      Elysia, TypeBox, Drizzle, @libsql/client and bpay's own code.
 *   4. Statements and commits per request, from the handle's group-commit counters (what commit-counts.test.ts counts),
 *      and the driver-level statements per request including transaction control.
 *
 * The table: per case the median over runs of CPU per request, with the min–max of runs; the trivial route's and the
 * raw statements' CPU per request of the same runs; "ours" = app − raw SQL − trivial route (what is left for bpay's
 * own code, Drizzle building SQL and the framework's per-route work beyond the trivial route's); ratios; the target of
 * issue 29 where it has one. Building each Request and reading each Response's text are in every app figure,
 * the trivial route's included. Writing the statements down costs one array push per statement while it runs.
 *
 * Two CPU figures per case: the whole process's (process.cpuUsage(), as the issue asks; it includes the JIT's and
 * the garbage collector's helper threads, which can run on the other core) and the main thread's alone
 * (process.threadCpuUsage(): what the one JavaScript thread spends, the figure that bounds a single server's rate).
 *
 * Run: bun run bench:cpu [--runs=3] [--requests=2000] [--warmup=200]. No target is asserted anywhere; the figures
 * depend on the machine, and nothing runs this bench in `npm test` (bench/profile.test.ts checks the profile's
 * grouping only).
 */
import { ConnectionPool } from '@libsql/client/sqlite3';
import Database from 'libsql';
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { BUSY_TIMEOUT_MS, CONNECTION_PRAGMAS } from '../db/client';
import { makeTestApp, TEST_ORIGIN, type TestContext } from '../api/test-support/app';
import { setPeerAddress } from '../api/src/lib/request-context';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../api/test-support/world';

/** One statement as the driver ran it. */
export interface Recorded {
  conn: number;
  sql: string;
  rows: boolean;
  args: unknown;
}

// ---- Writing statements down, at the driver (below the app's statement cache, above SQLite) ----

let tape: Recorded[] | null = null;
let nextConn = 0;
const watched = new WeakSet<object>();
interface DriverStatement {
  safeIntegers(toggle?: boolean): DriverStatement;
  raw(raw?: boolean): DriverStatement;
  columns(): unknown[];
  all(...args: unknown[]): unknown[];
  run(...args: unknown[]): unknown;
}
type Conn = { prepare(sql: string): DriverStatement };
type Acquire = (this: ConnectionPool, forTransaction?: boolean) => Conn;
const poolProto = ConnectionPool.prototype as unknown as { acquireSync: Acquire; __bpayCpuBench?: boolean };
if (!poolProto.__bpayCpuBench) {
  const acquire = poolProto.acquireSync;
  poolProto.acquireSync = function acquireSync(forTransaction?: boolean) {
    const conn = acquire.call(this, forTransaction);
    if (!watched.has(conn)) {
      watched.add(conn);
      const id = ++nextConn;
      const prepare = conn.prepare.bind(conn);
      const wrappers = new WeakMap<object, DriverStatement>();
      conn.prepare = (sql: string) => {
        const stmt = prepare(sql);
        let w = wrappers.get(stmt);
        if (!w) {
          const self: DriverStatement = {
            safeIntegers: (t?: boolean) => (stmt.safeIntegers(t), self),
            raw: (r?: boolean) => (stmt.raw(r), self),
            columns: () => stmt.columns(),
            all: (...a: unknown[]) => {
              const out = stmt.all(...a);
              tape?.push({ conn: id, sql, rows: true, args: a[0] });
              return out;
            },
            run: (...a: unknown[]) => {
              const out = stmt.run(...a);
              tape?.push({ conn: id, sql, rows: false, args: a[0] });
              return out;
            },
          };
          wrappers.set(stmt, (w = self));
        }
        return w;
      };
    }
    return conn;
  };
  poolProto.__bpayCpuBench = true;
}

/**
 * Replays `statements` on a copy of the database taken before they first ran: one driver connection per connection
 * they used, every distinct statement prepared before the clock starts. Returns the CPU milliseconds the replay took
 * and how many statements failed (none should: the same statements on the same data).
 */
export function replay(path: string, statements: Recorded[]): { cpuMs: number; failed: number } {
  type Prepared = { all(a?: unknown): unknown; run(a?: unknown): unknown; safeIntegers(t: boolean): unknown; raw(t: boolean): unknown };
  const conns = new Map<number, { db: InstanceType<typeof Database>; stmts: Map<string, Prepared> }>();
  for (const r of statements) {
    let c = conns.get(r.conn);
    if (!c) {
      const db = new Database(path, { timeout: BUSY_TIMEOUT_MS } as never);
      db.exec(CONNECTION_PRAGMAS.join(';\n'));
      conns.set(r.conn, (c = { db, stmts: new Map() }));
    }
    if (!c.stmts.has(r.sql)) {
      const s = c.db.prepare(r.sql) as unknown as Prepared;
      s.safeIntegers(true);
      if (r.rows) s.raw(true);
      c.stmts.set(r.sql, s);
    }
  }
  const plan = statements.map((r) => ({ stmt: conns.get(r.conn)!.stmts.get(r.sql)!, rows: r.rows, args: r.args }));
  let failed = 0;
  const t0 = process.cpuUsage();
  for (const p of plan) {
    try {
      if (p.rows) p.stmt.all(p.args);
      else p.stmt.run(p.args);
    } catch {
      failed++;
    }
  }
  const used = process.cpuUsage(t0);
  for (const c of conns.values()) c.db.close();
  return { cpuMs: (used.user + used.system) / 1000, failed };
}

// ---- Requests ----

/** CPU milliseconds of this thread so far (user + system); NaN where the runtime lacks process.threadCpuUsage. */
const threadCpu = (): number => {
  const f = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (!f) return Number.NaN;
  const u = f.call(process);
  return (u.user + u.system) / 1000;
};

interface Sent {
  status: number;
  text: string;
}

async function send(ctx: TestContext, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Sent> {
  const req = new Request(`http://localhost:3000${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body,
  });
  setPeerAddress(req, '203.0.113.7');
  const res = await ctx.app.handle(req);
  return { status: res.status, text: await res.text() };
}

export interface CaseResult {
  name: string;
  /** CPU ms per request through the app: the whole process (process.cpuUsage). */
  app: number;
  /** The same, the main thread's alone (process.threadCpuUsage): without the JIT's and the collector's helper threads. */
  thread: number;
  /** CPU ms per request replaying its statements raw. */
  sql: number;
  /** Per request, from the handle's group-commit counters. */
  statements: number;
  commits: number;
  /** Per request, every statement the driver ran (BEGIN, SAVEPOINT, RELEASE, COMMIT included). */
  driverStatements: number;
  replayFailures: number;
}

const TRIVIAL = 'GET /api/subscription/tiers (trivial route)';
export const CASES = [
  { name: TRIVIAL, target: null },
  { name: 'POST /api/v1/payment_intents (intent create)', target: 0.25 },
  { name: 'POST …/confirm with a 3-way split test bcard', target: null },
  { name: 'POST /api/v1/refunds through a 3-way split', target: 1.5 },
  { name: 'GET /api/v1/payment_intents/:id', target: 0.1 },
  { name: 'POST /api/virtual-cards, 3 sources', target: 1.5 },
  { name: 'GET /api/transactions (first page)', target: null },
] as const;

/** One run: a fresh app, every case in order. */
export async function runOnce(requests: number, warmup: number): Promise<CaseResult[]> {
  const ctx = await makeTestApp({ rateLimits: false });
  const results: CaseResult[] = [];
  try {
    const consumer = await registerUser(ctx);
    await makePremium(ctx, consumer.user.id);
    const sources: string[] = [];
    for (const number of CARDS_OK.slice(0, 3)) sources.push((await addCard(ctx, consumer.cookie, number)).id);
    const owner = await registerUser(ctx);
    await makePremium(ctx, owner.user.id);
    const merchant = await createMerchant(ctx, owner.cookie, 'sandbox');
    const total = warmup + requests;
    let key = 0;
    const merchantHeaders = () => ({ authorization: `Bearer ${merchant.secretKey}`, 'idempotency-key': `cpu-${++key}` });
    const consumerHeaders = (write: boolean): Record<string, string> =>
      write ? { origin: TEST_ORIGIN, cookie: consumer.cookie, 'idempotency-key': `cpu-${++key}` } : { origin: TEST_ORIGIN, cookie: consumer.cookie };
    const expect = (r: Sent, status: number, what: string) => {
      if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${r.text.slice(0, 300)}`);
    };

    /** Warm-up, copy, then the measured requests with their statements written down, then their raw replay. */
    const measure = async (name: string, status: number, request: (i: number) => Promise<Sent>): Promise<Sent[]> => {
      const out: Sent[] = [];
      for (let i = 0; i < warmup; i++) {
        const r = await request(i);
        expect(r, status, name);
        out.push(r);
      }
      const copy = join(ctx.dir, `copy-${results.length}.db`);
      await ctx.handle.client.execute(`VACUUM INTO '${copy}'`);
      Bun.gc(true);
      const before = { ...ctx.handle.stats };
      const recorded: Recorded[] = [];
      tape = recorded;
      const t0 = process.cpuUsage();
      const th0 = threadCpu();
      for (let i = warmup; i < total; i++) {
        const r = await request(i);
        if (r.status !== status) {
          tape = null;
          expect(r, status, name);
        }
        out.push(r);
      }
      const used = process.cpuUsage(t0);
      const thread = threadCpu() - th0;
      tape = null;
      const after = ctx.handle.stats;
      const raw = replay(copy, recorded);
      for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
      process.stdout.write('.');
      results.push({
        name,
        app: (used.user + used.system) / 1000 / requests,
        thread: thread / requests,
        sql: raw.cpuMs / requests,
        statements: (after.statements - before.statements) / requests,
        commits: (after.commits - before.commits) / requests,
        driverStatements: recorded.length / requests,
        replayFailures: raw.failed,
      });
      return out;
    };

    const [trivial, create, confirm, refund, getIntent, bcard, transactions] = CASES.map((c) => c.name) as [string, string, string, string, string, string, string];
    const intentBody = JSON.stringify({ amount: 1000, currency: 'usd' });
    const intents = (await measure(create, 200, () => send(ctx, 'POST', '/api/v1/payment_intents', merchantHeaders(), intentBody))).map(
      (r) => (JSON.parse(r.text) as { id: string }).id,
    );

    const cardBody = JSON.stringify({
      amount: 1000,
      allocations: [
        { amount: 334, source: 'tok_visa' },
        { amount: 333, source: 'tok_visa' },
        { amount: 333, source: 'tok_visa' },
      ],
    });
    const cards: string[] = [];
    for (let i = 0; i < total; i++) {
      const r = await send(ctx, 'POST', '/api/v1/test_helpers/bcards', merchantHeaders(), cardBody);
      expect(r, 200, 'test bcard');
      cards.push((JSON.parse(r.text) as { id: string }).id);
    }
    await measure(confirm, 200, (i) =>
      send(ctx, 'POST', `/api/v1/payment_intents/${intents[i]}/confirm`, merchantHeaders(), JSON.stringify({ payment_method: cards[i] })),
    );
    await measure(refund, 200, (i) => send(ctx, 'POST', '/api/v1/refunds', merchantHeaders(), JSON.stringify({ payment_intent: intents[i] })));
    const auth = { authorization: `Bearer ${merchant.secretKey}` };
    await measure(getIntent, 200, (i) => send(ctx, 'GET', `/api/v1/payment_intents/${intents[i]}`, auth));

    const bcardBody = JSON.stringify({
      name: 'Bench',
      balance: '1.00',
      fundingSources: sources.map((id, i) => ({ fundingSourceId: id, percentage: i === 0 ? 34 : 33 })),
    });
    await measure(bcard, 201, () => send(ctx, 'POST', '/api/virtual-cards', consumerHeaders(true), bcardBody));
    await measure(transactions, 200, () => send(ctx, 'GET', '/api/transactions', consumerHeaders(false)));
    // The floor last, when the app is warmest (the JIT has compiled the shared request path for every case).
    await measure(trivial, 200, () => send(ctx, 'GET', '/api/subscription/tiers', {}));
    return results;
  } finally {
    tape = null;
    ctx.close();
  }
}

// ---- The table ----

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ms = (x: number) => (!Number.isFinite(x) ? 'n/a' : Math.abs(x) < 1 ? x.toFixed(3) : x.toFixed(2));
const spread = (xs: number[]) => `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;
const times = (x: number) => `${x < 10 ? x.toFixed(1) : x.toFixed(0)}×`;
const one = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

export function table(runs: CaseResult[][]): string {
  const lines = [
    '| case | app CPU ms/request, median (min–max of runs) | main thread alone | raw SQL ms/request | ours = app − SQL − trivial | app ÷ trivial | app ÷ SQL | statements / commits per request (driver statements) | target | |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const trivialOf = (run: CaseResult[]) => run.find((c) => c.name === TRIVIAL)!.app;
  for (const c of CASES) {
    const rows = runs.map((run) => ({ r: run.find((x) => x.name === c.name)!, trivial: trivialOf(run) }));
    const app = rows.map(({ r }) => r.app);
    const sql = rows.map(({ r }) => r.sql);
    const ours = rows.map(({ r, trivial }) => r.app - r.sql - trivial);
    const vsTrivial = median(rows.map(({ r, trivial }) => r.app / trivial));
    const vsSql = median(rows.map(({ r }) => r.app / r.sql));
    const first = rows[0]!.r;
    const failures = rows.reduce((n, { r }) => n + r.replayFailures, 0);
    const target = c.target === null ? '—' : `≤ ${c.target} ms`;
    const verdict = c.target === null ? '' : median(app) <= c.target ? 'met' : `missed, ${times(median(app) / c.target)} the target`;
    lines.push(
      `| ${c.name} | ${spread(app)} | ${spread(rows.map(({ r }) => r.thread))} | ${spread(sql)}${failures ? ` (${failures} replayed statements failed)` : ''} | ` +
        `${c.name === TRIVIAL ? '—' : spread(ours)} | ${times(vsTrivial)} | ${times(vsSql)} | ` +
        `${one(first.statements)} / ${one(first.commits)} (${one(first.driverStatements)}) | ${target} | ${verdict} |`,
    );
  }
  return lines.join('\n');
}

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const intArg = (name: string, fallback: number, min: number) => Math.max(min, Math.floor(Number(arg(name) ?? fallback)));

async function main() {
  const RUNS = intArg('runs', 3, 1);
  const REQUESTS = intArg('requests', 2000, 1);
  const WARMUP = intArg('warmup', 200, 0);
  const cpu = cpus();
  const load = loadavg();
  console.log(
    `bpay CPU per request, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ` +
      `bun ${Bun.version}; load average at start ${load.map((l) => l.toFixed(2)).join(' ')}; ` +
      `${RUNS} run${RUNS === 1 ? '' : 's'} × ${REQUESTS} requests per case after ${WARMUP} of warm-up, through app.handle`,
  );
  const runs: CaseResult[][] = [];
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    process.stdout.write(`run ${r + 1}/${RUNS} `);
    runs.push(await runOnce(REQUESTS, WARMUP));
    console.log(` done in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()[0]!.toFixed(2)}`);
  }
  console.log(table(runs));
}

if (import.meta.main) await main();
