/*
 * One server process against two on the same database file (issue 14, docs/SCALING.md "several on one file").
 * Two real servers (`bun api/src/server.ts`, child processes, simulated processor, BPAY_RATE_LIMITS=off) run on one
 * fresh libSQL file for the whole bench. Each measure is taken twice in the same run, back to back:
 *   - one: every request to server A (B stays up and idle: its timers only read, as an idle process would);
 *   - two: requests shared round robin between A and B, as a load balancer in front of both would share them.
 * The load is bench/throughput.ts's: POST /api/virtual-cards with 3 funding sources at 1, 16 and 64 clients, and
 * POST /api/v1/payment_intents at 64 connections with a sandbox secret key; the same closed loop (copied from
 * there), the same users (64, premium, 3 cards each) and the same bodies, every request with an Idempotency-Key.
 * Each "two" figure is reported beside the "one" figure of the same run (ratio two/one); which of the pair goes
 * first alternates from run to run, so drift on a shared machine does not favour either.
 * Also counted: failed requests (with the first failure), the servers' CPU time per request (both servers,
 * /proc/<pid>/stat), and the log lines the servers wrote about a busy database.
 *
 * Run: bun run bench:two-processes [--runs=3] [--seconds=5]. Prints medians over the runs with the spread (min–max).
 * Why two processes on one file are expected to be no faster: SQLite lets one connection write at a time, and a
 * process waiting for the file's write lock waits inside its busy handler, synchronously, its event loop stopped.
 */
import { createClient } from '@libsql/client';
import { keepOutput } from '../api/test-support/server-process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cardBody, CARDS_OK } from '../api/test-support/world';
import { benchServerEnv, closedLoop, cpuMs, freePort, inParallel, waitFor, type LoadResult } from './load';

const root = resolve(import.meta.dir, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];

interface Server {
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  base: string;
  output: string[];
}

/** A bpay server on `dbFile`, warnings and errors kept (BPAY_LOG_LEVEL=warn). */
async function startServer(dataDir: string, dbFile: string, name: string): Promise<Server> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, '--max-http-header-size=262144', 'api/src/server.ts'], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: benchServerEnv({ port, dataDir, dbFile }),
  });
  const output = keepOutput(proc);
  const server = { proc, base, output };
  try {
    await waitFor(`${base}/api/subscription/tiers`, proc, name);
  } catch (e) {
    console.error(output.join(''));
    throw e;
  }
  return server;
}

/** $1.00 (the smallest bcard) over three sources (34/33/33 %), as bench/throughput.ts. */
const bcardBody = (sourceIds: string[]) => ({
  name: 'Bench',
  balance: '1.00',
  fundingSources: sourceIds.map((id, i) => ({ fundingSourceId: id, percentage: i === 0 ? 34 : 33 })),
});
const INTENT_BODY = JSON.stringify({ amount: 1000, currency: 'usd' });

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0)) : 'n/a');
const ratio = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

/** One measure's load: `clients` closed loops, each request sent to the server `route` picks. */
interface Measure {
  name: string;
  clients: number;
  load: (clients: number, route: (loop: number, i: number) => string) => Promise<LoadResult>;
}

type Setup = 'one' | 'two';
interface Taken extends LoadResult {
  /** CPU time both servers used in the measured window, per request answered in it. */
  cpuPerRequest: number;
  /** Server log lines about a busy or locked database written during the measure. */
  busyLines: number;
}

const busyLine = (l: string) => /SQLITE_BUSY|database is locked|write lock not acquired/i.test(l);

async function main() {
  const RUNS = Math.max(1, Number(arg('runs') ?? 3));
  const SECONDS = Math.max(1, Number(arg('seconds') ?? 5));
  const WARMUP = Math.min(1, SECONDS / 2);
  const USERS = 64;

  const cpu = cpus();
  console.log(
    `bpay, one server process vs two on one database file, ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, bun ${Bun.version}; ${RUNS} run${RUNS === 1 ? '' : 's'} × ${SECONDS} s ` +
      `per figure after ${WARMUP} s of warm-up; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );

  const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-two-processes-'));
  const dbFile = join(dataDir, 'bpay.db');
  const servers: Server[] = [];
  const stopAll = () => {
    for (const s of servers) s.proc.kill();
  };
  process.on('SIGINT', () => {
    stopAll();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    // Started together, as two processes of one deployment would be (migrations and the first admin race).
    servers.push(...(await Promise.all([startServer(dataDir, dbFile, 'server A'), startServer(dataDir, dbFile, 'server B')])));
    const [A, B] = servers as [Server, Server];

    process.stdout.write(`setting up ${USERS} users with 3 cards each through both servers … `);
    const json = (base: string) => ({ 'content-type': 'application/json', origin: base });
    const via = (i: number) => (i % 2 ? B : A).base;
    const cookies = await inParallel(Array.from({ length: USERS }, (_, i) => i), 4, async (i) => {
      const res = await fetch(`${via(i)}/api/auth/register`, {
        method: 'POST',
        headers: json(via(i)),
        body: JSON.stringify({ email: `bench-${i}@example.com`, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' }),
      });
      if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
      const cookie = /^([^=;]+=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
      if (!cookie) throw new Error('registration set no session cookie');
      return cookie;
    });
    // As bench/throughput.ts: premium for every user (no monthly limit), premium's API allowance unlimited.
    const db = createClient({ url: `file:${dbFile}` });
    await db.execute('PRAGMA busy_timeout = 5000');
    await db.execute("UPDATE user_subscriptions SET tier_id = 'tier_premium' WHERE status = 'active'");
    await db.execute("UPDATE subscription_tiers SET api_calls_per_month = -1 WHERE id = 'tier_premium'");
    db.close();
    const sources = await inParallel(cookies, 4, async (cookie, i) => {
      const ids: string[] = [];
      for (const number of CARDS_OK.slice(0, 3)) {
        const res = await fetch(`${via(i + 1)}/api/funding-sources`, { method: 'POST', headers: { ...json(via(i + 1)), cookie }, body: JSON.stringify(cardBody(number)) });
        if (res.status !== 201) throw new Error(`adding a card answered ${res.status}: ${await res.text()}`);
        ids.push(((await res.json()) as { id: string }).id);
      }
      return ids;
    });
    const m = await fetch(`${A.base}/api/merchants`, {
      method: 'POST',
      headers: { ...json(A.base), cookie: cookies[0]! },
      body: JSON.stringify({ businessName: 'Bench Shop', businessEmail: 'shop@example.com', platformType: 'custom', environment: 'sandbox' }),
    });
    if (m.status !== 201) throw new Error(`creating the merchant answered ${m.status}: ${await m.text()}`);
    const secretKey = ((await m.json()) as { secretApiKey: string }).secretApiKey;
    console.log('done');

    const bcards = (clients: number): Measure => ({
      name: 'POST /api/virtual-cards (3 sources)',
      clients,
      load: (c, route) =>
        closedLoop(
          c,
          SECONDS,
          WARMUP,
          (j, i) => {
            // Loop j uses users j, j + clients, j + 2·clients …, as bench/throughput.ts.
            const u = (j + i * c) % USERS;
            const base = route(j, i);
            return fetch(`${base}/api/virtual-cards`, {
              method: 'POST',
              headers: { ...json(base), cookie: cookies[u]!, 'idempotency-key': crypto.randomUUID() },
              body: JSON.stringify(bcardBody(sources[u]!)),
            });
          },
          201,
        ),
    });
    const intents: Measure = {
      name: 'POST /api/v1/payment_intents',
      clients: 64,
      load: (c, route) =>
        closedLoop(
          c,
          SECONDS,
          WARMUP,
          (j, i) =>
            fetch(`${route(j, i)}/api/v1/payment_intents`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}`, 'idempotency-key': crypto.randomUUID() },
              body: INTENT_BODY,
            }),
          200,
        ),
    };
    const measures = [bcards(1), bcards(16), bcards(64), intents];
    const routes: Record<Setup, (loop: number, i: number) => string> = {
      one: () => A.base,
      // Round robin per request: even a single client's requests alternate between the two processes.
      two: (j, i) => ((j + i) % 2 ? B : A).base,
    };

    const serversCpu = () => cpuMs(A.proc.pid) + cpuMs(B.proc.pid);
    const busyLines = () => servers.map((s) => s.output.join('').split('\n').filter(busyLine).length).reduce((a, b) => a + b, 0);
    const take = async (measure: Measure, setup: Setup): Promise<Taken> => {
      // The servers' CPU is read when the measured window opens and when it closes, as the closed loop counts.
      let cpuAtStart = Number.NaN;
      let cpuAtEnd = Number.NaN;
      const opens = setTimeout(() => (cpuAtStart = serversCpu()), WARMUP * 1000);
      const closes = setTimeout(() => (cpuAtEnd = serversCpu()), (WARMUP + SECONDS) * 1000);
      const lines0 = busyLines();
      const result = await measure.load(measure.clients, routes[setup]);
      clearTimeout(opens);
      clearTimeout(closes);
      const answered = result.ok + result.errors;
      return { ...result, cpuPerRequest: answered > 0 ? (cpuAtEnd - cpuAtStart) / answered : Number.NaN, busyLines: busyLines() - lines0 };
    };

    const runs: Array<Array<Record<Setup, Taken>>> = [];
    for (let r = 1; r <= RUNS; r++) {
      // Odd runs measure one first, even runs two first.
      const order: Setup[] = r % 2 ? ['one', 'two'] : ['two', 'one'];
      process.stdout.write(`run ${r}/${RUNS} (${order.join(' then ')}):`);
      const perMeasure: Array<Record<Setup, Taken>> = [];
      for (const measure of measures) {
        const got: Partial<Record<Setup, Taken>> = {};
        for (const setup of order) got[setup] = await take(measure, setup);
        const pair = got as Record<Setup, Taken>;
        perMeasure.push(pair);
        process.stdout.write(` ${measure.name.includes('intents') ? 'intents' : 'bcards'}@${measure.clients} ${int(pair.one.perSecond)}→${int(pair.two.perSecond)}/s;`);
      }
      console.log('');
      runs.push(perMeasure);
    }

    // The table: medians over the runs with [min–max]; ratios taken within each run, then their median.
    const spread = (xs: number[]) => (xs.length > 1 ? ` [${int(Math.min(...xs))}–${int(Math.max(...xs))}]` : '');
    const rspread = (xs: number[]) => (xs.length > 1 ? ` [${ratio(Math.min(...xs))}–${ratio(Math.max(...xs))}]` : '');
    const W = [36, 8, 20, 20, 18, 15, 15, 9, 14];
    const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(W[i]!) : c.padStart(W[i]!))).join(' ');
    console.log('');
    console.log(
      row(['', 'clients', 'one: /s [min–max]', 'two: /s [min–max]', 'two/one [min–max]', 'p50 ms one/two', 'p99 ms one/two', 'failed', 'CPU ms/req'])
    );
    for (const [k, measure] of measures.entries()) {
      const of = (s: Setup) => runs.map((run) => run[k]![s]);
      const one = of('one');
      const two = of('two');
      const ratios = runs.map((run) => run[k]!.two.perSecond / run[k]!.one.perSecond);
      const sum = (xs: Taken[], f: (t: Taken) => number) => xs.reduce((a, t) => a + f(t), 0);
      console.log(
        row([
          k === 0 || measures[k - 1]!.name !== measure.name ? measure.name : '',
          String(measure.clients),
          `${int(median(one.map((t) => t.perSecond)))}${spread(one.map((t) => t.perSecond))}`,
          `${int(median(two.map((t) => t.perSecond)))}${spread(two.map((t) => t.perSecond))}`,
          `${ratio(median(ratios))}×${rspread(ratios)}`,
          `${ms(median(one.map((t) => t.p50)))} / ${ms(median(two.map((t) => t.p50)))}`,
          `${ms(median(one.map((t) => t.p99)))} / ${ms(median(two.map((t) => t.p99)))}`,
          `${sum(one, (t) => t.errors)} / ${sum(two, (t) => t.errors)}`,
          `${ms(median(one.map((t) => t.cpuPerRequest)))} / ${ms(median(two.map((t) => t.cpuPerRequest)))}`,
        ]),
      );
    }

    console.log('\nNotes');
    console.log('  - one: every request to server A (B idle on the same file); two: round robin over A and B; same run, back to back');
    console.log('  - failed: requests that did not answer 201/200, summed over the runs (one / two)');
    console.log('  - CPU ms/req: user + system CPU of both server processes in the measured window, per request answered in it (10 ms ticks)');
    for (const [k, measure] of measures.entries()) {
      for (const [r, run] of runs.entries()) {
        for (const setup of ['one', 'two'] as const) {
          const t = run[k]![setup];
          if (t.errors > 0) console.log(`  - run ${r + 1} ${setup} ${measure.name}@${measure.clients}: ${t.errors} failed (first: ${t.firstError})`);
          if (t.busyLines > 0) console.log(`  - run ${r + 1} ${setup} ${measure.name}@${measure.clients}: ${t.busyLines} server log lines about a busy database`);
        }
      }
    }
    for (const [i, s] of servers.entries()) {
      const lines = s.output
        .join('')
        .split('\n')
        .filter((l) => l.trim() && !l.includes('BPAY_RATE_LIMITS=off'));
      if (lines.length > 0) console.log(`\nServer ${'AB'[i]} output (${lines.length} lines, last 5):\n${lines.slice(-5).map((l) => l.slice(0, 400)).join('\n')}`);
    }
  } finally {
    stopAll();
    await Promise.all(servers.map((s) => s.proc.exited));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
