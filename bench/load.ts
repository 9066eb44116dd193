/*
 * The load generator the throughput benches share (bench/throughput.ts, bench/two-processes.ts): a closed loop of
 * clients, percentiles, a free port, waiting for a server to answer, work spread over a few parallel loops, and the
 * world of users, cards and a merchant made through the API (httpWorld; bench/profile.ts too), the raw durable ceiling
 * (rawCeiling, the reference of bench/throughput.ts and bench/http.ts) and a process's CPU time (cpuMs).
 */
import { createClient } from '@libsql/client';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CONNECTION_PRAGMAS } from '../db/client';
import { keepOutput } from '../api/test-support/server-process';
import { cardBody, CARDS_OK } from '../api/test-support/world';

const ROOT = resolve(import.meta.dir, '..');

/** A child process whose output is kept (read continuously: a full pipe would stall it); its stdin is a pipe the bench may drive. */
export interface Child {
  proc: Bun.Subprocess<'pipe', 'pipe', 'pipe'>;
  name: string;
  output: string[];
}
export function spawnChild(cmd: string[], env: Record<string, string | undefined>, name: string): Child {
  const proc = Bun.spawn(cmd, { cwd: ROOT, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', env });
  return { proc, name, output: keepOutput(proc) };
}

/** Waits for the first match of `pattern` in what the child printed after `from` characters. */
export async function printed(child: Child, pattern: RegExp, from = 0): Promise<RegExpExecArray> {
  for (let i = 0; i < 6000; i++) {
    const m = pattern.exec(child.output.join('').slice(from));
    if (m) return m;
    if (child.proc.exitCode !== null) throw new Error(`${child.name} exited with ${child.proc.exitCode}:\n${child.output.join('')}`);
    await Bun.sleep(10);
  }
  throw new Error(`${child.name} did not print ${pattern} within 60 s`);
}

export interface LoadResult {
  perSecond: number;
  p50: number;
  p99: number;
  ok: number;
  errors: number;
  firstError: string | null;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * A closed loop: `concurrency` loops each send one request, await its whole answer, and send the next. Requests
 * answered inside the measured window (after `warmupS`, for `seconds`) count; their latencies are kept.
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  warmupS: number,
  send: (loop: number, i: number) => Promise<Response>,
  expectStatus: number,
): Promise<LoadResult> {
  const start = performance.now() + warmupS * 1000;
  const end = start + seconds * 1000;
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  let errors = 0;
  let firstError: string | null = null;
  const loop = async (j: number) => {
    for (let i = 0; performance.now() < end; i++) {
      const t0 = performance.now();
      let failure: string | null = null;
      try {
        const res = await send(j, i);
        const text = await res.text();
        if (res.status !== expectStatus) failure = `${res.status} ${text.slice(0, 200)}`;
      } catch (e) {
        failure = String(e);
      }
      const t1 = performance.now();
      if (t1 < start || t1 >= end) continue;
      if (failure !== null) {
        errors++;
        firstError ??= failure;
        continue;
      }
      if (n === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[n++] = t1 - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, j) => loop(j)));
  const sorted = latencies.subarray(0, n).sort();
  return { perSecond: n / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), ok: n, errors, firstError };
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

export async function waitFor(url: string, child: Bun.Subprocess, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await Bun.sleep(200);
  }
  throw new Error(`${what} did not answer within 60 s`);
}

/** Runs `work` over `items`, `width` at a time. */
export async function inParallel<T, R>(items: T[], width: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!, i);
      }
    }),
  );
  return out;
}

/**
 * The environment of a bench's server process: production mode on loopback, its own database and files under
 * `dataDir`, rate limits off (BPAY_RATE_LIMITS=off: one address loads it), a fixed session secret (a session made
 * through one server is valid at another on the same database), and admin credentials given, so the server does not
 * generate an admin and print them into the bench's output.
 */
export function benchServerEnv(o: { port: number; dataDir: string; dbFile: string }): Record<string, string | undefined> {
  return {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(o.port),
    HOST: '127.0.0.1',
    BPAY_DATABASE_URL: `file:${o.dbFile}`,
    BPAY_UPLOADS_DIR: `${o.dataDir}/uploads`,
    BPAY_SESSION_SECRET_FILE: `${o.dataDir}/session-secret`,
    BPAY_WEB_DIST: `${o.dataDir}/no-web-build`,
    BPAY_SESSION_SECRET: 'bench-session-secret-bench-session-secret',
    BPAY_PUBLIC_URL: `http://127.0.0.1:${o.port}`,
    BPAY_RATE_LIMITS: 'off',
    BPAY_LOG_LEVEL: 'warn',
    BPAY_ADMIN_USERNAME: 'bench-admin',
    BPAY_ADMIN_PASSWORD: 'bench admin password, throwaway database',
    BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  };
}

/**
 * The load benches' world, made through a running server's API: `users` consumers with three cards each (their plan
 * moved to premium without a monthly cap, directly in `dbFile`, since no plan payment is being measured) and a
 * sandbox merchant owned by the first. E-mails are `<tag>-<i>@example.com`.
 */
export async function httpWorld(base: string, dbFile: string, o: { users: number; tag: string; shop: string }) {
  const json = { 'content-type': 'application/json', origin: base };
  const cookies = await inParallel(Array.from({ length: o.users }, (_, i) => i), 4, async (i) => {
    const res = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: `${o.tag}-${i}@example.com`, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' }),
    });
    if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
    const cookie = /^([^=;]+=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    if (!cookie) throw new Error('registration set no session cookie');
    return cookie;
  });
  const db = createClient({ url: `file:${dbFile}` });
  await db.execute('PRAGMA busy_timeout = 5000');
  await db.execute("UPDATE user_subscriptions SET tier_id = 'tier_premium' WHERE status = 'active'");
  await db.execute("UPDATE subscription_tiers SET api_calls_per_month = -1 WHERE id = 'tier_premium'");
  db.close();
  const sources = await inParallel(cookies, 4, async (cookie) => {
    const ids: string[] = [];
    for (const number of CARDS_OK.slice(0, 3)) {
      const res = await fetch(`${base}/api/funding-sources`, { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify(cardBody(number)) });
      if (res.status !== 201) throw new Error(`adding a card answered ${res.status}: ${await res.text()}`);
      ids.push(((await res.json()) as { id: string }).id);
    }
    return ids;
  });
  const m = await fetch(`${base}/api/merchants`, {
    method: 'POST',
    headers: { ...json, cookie: cookies[0]! },
    body: JSON.stringify({ businessName: o.shop, businessEmail: 'shop@example.com', platformType: 'custom', environment: 'sandbox' }),
  });
  if (m.status !== 201) throw new Error(`creating the merchant answered ${m.status}: ${await m.text()}`);
  const secretKey = ((await m.json()) as { secretApiKey: string }).secretApiKey;
  return { json, cookies, sources, secretKey };
}

/** The raw ceiling: 6-statement write transactions, one at a time, on one connection (BEGIN IMMEDIATE … COMMIT). */
export async function rawCeiling(seconds: number, warmupS: number): Promise<LoadResult & { synchronous: number; journal: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-bench-raw-'));
  // Plain execute() keeps to the client's one connection (client.transaction() would hand it over and open another).
  const client = createClient({ url: `file:${join(dir, 'raw.db')}` });
  try {
    for (const p of CONNECTION_PRAGMAS) await client.execute(p);
    await client.executeMultiple(`
      CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE movements (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE postings (id INTEGER PRIMARY KEY, movement_id INTEGER NOT NULL REFERENCES movements(id),
                             account INTEGER NOT NULL, amount INTEGER NOT NULL);
      CREATE INDEX postings_account ON postings (account);
      CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
      INSERT INTO counters VALUES (1, 0);
      INSERT INTO accounts (id, balance)
        WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100) SELECT i, 1000000000 FROM s;
    `);
    let k = 0;
    const tx = async () => {
      const from = (k % 100) + 1;
      const to = ((k + 37) % 100) + 1;
      k++;
      // BEGIN IMMEDIATE, as the app's write transactions; each statement awaited, as the app does.
      const t = await client.transaction('write');
      await t.execute({ sql: 'UPDATE accounts SET balance = balance - 100, version = version + 1 WHERE id = ? AND balance >= 100', args: [from] });
      await t.execute({ sql: 'UPDATE accounts SET balance = balance + 100, version = version + 1 WHERE id = ?', args: [to] });
      const m = await t.execute({ sql: "INSERT INTO movements (kind, at) VALUES ('transfer', ?) RETURNING id", args: [Date.now()] });
      const id = Number(m.rows[0]!.id);
      await t.execute({ sql: 'INSERT INTO postings (movement_id, account, amount) VALUES (?, ?, -100)', args: [id, from] });
      await t.execute({ sql: 'INSERT INTO postings (movement_id, account, amount) VALUES (?, ?, 100)', args: [id, to] });
      await t.execute('UPDATE counters SET n = n + 1 WHERE id = 1');
      await t.commit();
    };
    const result = await closedLoop(1, seconds, warmupS, async () => (await tx(), new Response(null, { status: 204 })), 204);
    // Read on the connection the transactions used (the pool hands the one idle connection back every time).
    const t = await client.transaction('read');
    const synchronous = Number((await t.execute('PRAGMA synchronous')).rows[0]![0]);
    const journal = String((await t.execute('PRAGMA journal_mode')).rows[0]![0]);
    t.close();
    return { ...result, synchronous, journal };
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** User plus system CPU time a process has used, in ms (Linux: fields 14 and 15 of /proc/<pid>/stat, in ticks of 10 ms). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
