/*
 * The write path over a network (issue 30 §1, "Measure it here"): bpay against a libSQL server whose round trips cost
 * what a real network's do, beside the same load on the embedded file.
 *
 * Setups, each a fresh database made once (64 users with 3 cards each on the premium plan, a sandbox merchant: bench/
 * load.ts httpWorld), at no latency:
 *   embedded   one bpay process (`bun api/src/server.ts`) on an embedded libSQL file: today's default.
 *   remote     one bpay process whose BPAY_DATABASE_URL is the Hrana 2 stand-in (api/test-support/hrana-server.ts,
 *              run by this file in its own process with --serve-stand-in): synchronous=FULL, sqld's transaction
 *              timeout, and a round trip latency the bench sets before each load (waited once per request, before
 *              its answer: timers fire on whole ms, so two half waits would cost more than asked), at each of
 *              --latencies. The stand-in's own cost per round trip (HTTP, JSON, a statement prepared per call, on a
 *              shared CPU) comes on top: --latencies=0 shows it alone.
 * Loads: POST /api/virtual-cards (3 sources, $1.00, an Idempotency-Key each) and POST /api/v1/payment_intents (a
 * sandbox secret key, an Idempotency-Key each) at each of --clients: a closed loop of fetch() calls in this process,
 * each client sending its next request when its answer is read, for --seconds; then every request still in flight is
 * awaited (none is cut off) and the servers are left to go quiet before the next load.
 * Reference, once per run: the raw durable ceiling (bench/load.ts rawCeiling, a 6-statement FULL transaction at a time).
 *
 * Per request, for every figure: throughput (requests answered / time from the first send to the last answer),
 * p50/p99 over all of them, failed answers; and from the stand-in's own counters (HranaStats) over the same span:
 * round trips (HTTP requests to it), round trips inside the write lock (from a write transaction's BEGIN IMMEDIATE to
 * its COMMIT/ROLLBACK on the writing stream), the lock's hold time, and statements, each divided by the requests.
 *
 * Run: bun run bench:remote [--runs=1] [--seconds=3] [--latencies=1,5,20] [--clients=1,16,64] [--loads=bcards,intents].
 * Prints medians over the runs with [min–max]. At 20 ms and 64 clients today's design (one round trip per statement,
 * each held inside the lock) takes about a minute per load: a window of --seconds, then the requests in flight.
 * Benches are not tests: nothing here asserts on time.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchServerEnv, freePort, httpWorld, percentile, printed, rawCeiling, spawnChild, waitFor, type Child, type LoadResult } from './load';

const root = resolve(import.meta.dir, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const list = (name: string, fallback: number[]) => (arg(name)?.split(',').map(Number) ?? fallback).filter((n) => Number.isFinite(n) && n >= 0);

/** The stand-in's cumulative counters, as it prints them. */
interface Counts {
  roundTrips: number;
  locked: number;
  writeTransactions: number;
  lockHeldMs: number;
  timedOut: number;
  statements: number;
}
const ZERO: Counts = { roundTrips: 0, locked: 0, writeTransactions: 0, lockHeldMs: 0, timedOut: 0, statements: 0 };

/** The stand-in process, driven over its stdin: `LATENCY <ms>` and `STATS <n>`, each answered on its stdout. */
class StandIn {
  private n = 0;
  constructor(
    readonly child: Child,
    readonly url: string,
  ) {}
  private async ask(line: string, answer: string): Promise<string> {
    const tag = ++this.n;
    const from = this.child.output.join('').length;
    this.child.proc.stdin.write(`${line} ${tag}\n`);
    this.child.proc.stdin.flush();
    return (await printed(this.child, new RegExp(`^${answer} ${tag}( .*)?$`, "m"), from))[1] ?? "";
  }
  async setLatency(ms: number): Promise<void> {
    await this.ask(`LATENCY ${ms}`, 'LATENCY-SET');
  }
  async counts(): Promise<Counts> {
    const [roundTrips, locked, writeTransactions, lockHeldMs, timedOut, statements] = (await this.ask('STATS', 'STATS')).trim().split(' ').map(Number) as number[];
    return { roundTrips: roundTrips!, locked: locked!, writeTransactions: writeTransactions!, lockHeldMs: lockHeldMs!, timedOut: timedOut!, statements: statements! };
  }
}

interface Setup {
  name: 'embedded' | 'remote';
  base: string;
  server: Child;
  standIn: StandIn | null;
  world: Awaited<ReturnType<typeof httpWorld>>;
}

async function startSetup(name: Setup['name'], dataDir: string, children: Child[]): Promise<Setup> {
  const dir = join(dataDir, name);
  mkdirSync(dir, { recursive: true });
  const dbFile = join(dir, 'bpay.db');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let standIn: StandIn | null = null;
  let databaseUrl = `file:${dbFile}`;
  if (name === 'remote') {
    const child = spawnChild([process.execPath, import.meta.path, '--serve-stand-in', `--path=${dbFile}`], { ...process.env }, 'the stand-in');
    children.push(child);
    databaseUrl = (await printed(child, /^STANDIN (http:\/\/\S+)$/m))[1]!;
    standIn = new StandIn(child, databaseUrl);
  }
  const env = { ...benchServerEnv({ port, dataDir: dir, dbFile }), BPAY_DATABASE_URL: databaseUrl };
  const server = spawnChild([process.execPath, '--max-http-header-size=262144', 'api/src/server.ts'], env, `${name} bpay server`);
  children.push(server);
  await waitFor(`${base}/api/subscription/tiers`, server.proc as unknown as Bun.Subprocess, server.name);
  const world = await httpWorld(base, dbFile, { users: 64, tag: `remote-${name}`, shop: 'Remote Bench Shop' });
  return { name, base, server, standIn, world };
}

type LoadName = 'bcards' | 'intents';

/** One load's request for client `j`'s `i`-th send: users in turn, as bench/throughput.ts. */
function sender(s: Setup, load: LoadName, clients: number): (j: number, i: number) => Promise<Response> {
  if (load === 'intents') {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${s.world.secretKey}` };
    const body = JSON.stringify({ amount: 1000, currency: 'usd' });
    return () => fetch(`${s.base}/api/v1/payment_intents`, { method: 'POST', headers: { ...headers, 'idempotency-key': crypto.randomUUID() }, body });
  }
  const bodies = s.world.sources.map((ids) =>
    JSON.stringify({ name: 'Bench', balance: '1.00', fundingSources: ids.map((id, k) => ({ fundingSourceId: id, percentage: k === 0 ? 34 : 33 })) }),
  );
  return (j, i) => {
    const u = (j + i * clients) % bodies.length;
    return fetch(`${s.base}/api/virtual-cards`, {
      method: 'POST',
      headers: { ...s.world.json, cookie: s.world.cookies[u]!, 'idempotency-key': crypto.randomUUID() },
      body: bodies[u],
    });
  };
}

interface Figure extends LoadResult {
  /** Per request answered (NaN on the embedded file, which has no stand-in to count). */
  roundTrips: number;
  locked: number;
  lockMs: number;
  statements: number;
  timedOut: number;
  /** From the first send to the last answer. */
  elapsedS: number;
}

/**
 * A closed loop of `clients` for `seconds`, then every request in flight awaited. Throughput and percentiles cover every
 * request (none is cut off at the window's edge), over the time from the first send to the last answer.
 */
async function runLoad(clients: number, seconds: number, send: (j: number, i: number) => Promise<Response>, expect: number): Promise<LoadResult & { elapsedS: number }> {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  await Promise.all(
    Array.from({ length: clients }, async (_, j) => {
      for (let i = 0; performance.now() < end; i++) {
        const a = performance.now();
        try {
          const res = await send(j, i);
          const text = await res.text();
          if (res.status !== expect) {
            errors++;
            firstError ??= `${res.status} ${text.slice(0, 200)}`;
            continue;
          }
        } catch (e) {
          errors++;
          firstError ??= String(e);
          continue;
        }
        latencies.push(performance.now() - a);
      }
    }),
  );
  const elapsedS = (performance.now() - t0) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return { perSecond: latencies.length / elapsedS, p50: percentile(sorted, 50), p99: percentile(sorted, 99), ok: latencies.length, errors, firstError, elapsedS };
}

/** Waits until the stand-in's round trips stand still for 300 ms (a request the client gave up on may still be running), at most 120 s. */
async function quiet(s: Setup): Promise<void> {
  if (!s.standIn) return void (await Bun.sleep(200));
  let last = (await s.standIn.counts()).roundTrips;
  for (let i = 0; i < 400; i++) {
    await Bun.sleep(300);
    const now = (await s.standIn.counts()).roundTrips;
    if (now === last) return;
    last = now;
  }
}

async function take(s: Setup, load: LoadName, clients: number, seconds: number): Promise<Figure> {
  await quiet(s);
  const c0 = s.standIn ? await s.standIn.counts() : ZERO;
  const r = await runLoad(clients, seconds, sender(s, load, clients), load === 'bcards' ? 201 : 200);
  await quiet(s);
  const c1 = s.standIn ? await s.standIn.counts() : ZERO;
  const n = r.ok + r.errors;
  const per = (k: keyof Counts) => (s.standIn && n > 0 ? (c1[k] - c0[k]) / n : Number.NaN);
  return { ...r, roundTrips: per('roundTrips'), locked: per('locked'), lockMs: per('lockHeldMs'), statements: per('statements'), timedOut: c1.timedOut - c0.timedOut };
}

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const num = (x: number) => (!Number.isFinite(x) ? 'n/a' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));
const ratio = (x: number) => (Number.isFinite(x) ? (x < 0.1 ? x.toFixed(3) : x.toFixed(2)) : 'n/a');

async function main() {
  const RUNS = Math.max(1, Number(arg('runs') ?? 1));
  const SECONDS = Math.max(0.5, Number(arg('seconds') ?? 3));
  const LATENCIES = list('latencies', [1, 5, 20]);
  const CLIENTS = list('clients', [1, 16, 64]).filter((c) => c >= 1);
  const LOADS = (arg('loads')?.split(',') ?? ['bcards', 'intents']) as LoadName[];
  for (const l of LOADS) if (l !== 'bcards' && l !== 'intents') throw new Error(`unknown load ${l}: bcards or intents`);

  const cpu = cpus();
  const commit = Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { cwd: root }).stdout.toString().trim() || 'unknown';
  const dirty = Bun.spawnSync(['git', 'status', '--porcelain', '--untracked-files=no'], { cwd: root }).stdout.toString().trim() ? ' + uncommitted changes' : '';
  console.log(
    `bpay's write path over a network, ${new Date().toISOString().slice(0, 16)}Z, tree ${commit}${dirty}: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, bun ${Bun.version}; ` +
      `${RUNS} run${RUNS === 1 ? '' : 's'}, a ${SECONDS} s window per figure then its requests in flight; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  console.log(`round trips of ${LATENCIES.join(', ')} ms (the stand-in waits that long before each answer, on top of its own cost per round trip); clients ${CLIENTS.join(', ')}`);
  console.log(
    'note: intent creates and (with the simulator, no bank share) a bcard\'s record, hold and capture are units of work as data, one round trip each, every unit queued meanwhile in the same request; every other write is still a round trip per statement inside the lock',
  );

  const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-remote-'));
  const children: Child[] = [];
  const stopAll = () => {
    for (const c of children) c.proc.kill();
  };
  process.on('SIGINT', () => {
    stopAll();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    const setups: Setup[] = [];
    for (const name of ['embedded', 'remote'] as const) {
      process.stdout.write(`starting ${name} and making 64 users with 3 cards each … `);
      const s = await startSetup(name, dataDir, children);
      // Warm both paths once (JIT, the server's stored SQL texts), at no latency.
      for (const load of LOADS) await runLoad(4, 1, sender(s, load, 4), load === 'bcards' ? 201 : 200);
      setups.push(s);
      console.log('done');
    }
    const [embedded, remote] = setups as [Setup, Setup];
    /** The figures of one run, keyed `<load> <latency|embedded> <clients>`. */
    type Run = { raw: LoadResult; got: Map<string, Figure> };
    const runs: Run[] = [];
    const key = (load: string, where: number | 'embedded', clients: number) => `${load} ${where} ${clients}`;
    for (let r = 1; r <= RUNS; r++) {
      process.stdout.write(`run ${r}/${RUNS}: raw ceiling`);
      const raw = await rawCeiling(Math.min(SECONDS, 3), 0.5);
      process.stdout.write(` ${num(raw.perSecond)}/s;`);
      const got = new Map<string, Figure>();
      const wheres: Array<number | 'embedded'> = ['embedded', ...LATENCIES];
      for (const where of r % 2 ? wheres : [...wheres].reverse()) {
        const s = where === 'embedded' ? embedded : remote;
        if (where !== 'embedded') await remote.standIn!.setLatency(where);
        process.stdout.write(` ${where === 'embedded' ? 'embedded' : `${where} ms`}:`);
        for (const load of LOADS) {
          for (const clients of CLIENTS) {
            const f = await take(s, load, clients, SECONDS);
            got.set(key(load, where, clients), f);
            process.stdout.write(` ${load}@${clients} ${num(f.perSecond)}/s`);
          }
        }
        process.stdout.write(';');
      }
      await remote.standIn!.setLatency(0);
      console.log('');
      runs.push({ raw, got });
    }

    const spread = (xs: number[]) => (xs.filter(Number.isFinite).length > 1 ? ` [${num(Math.min(...xs))}–${num(Math.max(...xs))}]` : '');
    const W = [20, 7, 20, 9, 11, 9, 9, 7, 8, 8, 9, 9, 7];
    const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(W[i]!) : c.padStart(W[i]!))).join(' ');
    console.log('');
    const rawTps = runs.map((x) => x.raw.perSecond);
    console.log(`REF raw libSQL 6-statement FULL transaction, 1 connection: ${num(median(rawTps))}/s${spread(rawTps)}, p50 ${num(median(runs.map((x) => x.raw.p50)))} ms`);
    console.log('');
    console.log(row(['', 'clients', 'per second [min–max]', 'to ref', 'to embedded', 'p50 ms', 'p99 ms', 'failed', 'RT/req', 'locked', 'lock ms', 'ms/lockRT', 'stmts']));
    for (const load of LOADS) {
      console.log(load === 'bcards' ? 'POST /api/virtual-cards (3 sources)' : 'POST /api/v1/payment_intents');
      for (const where of ['embedded', ...LATENCIES] as Array<number | 'embedded'>) {
        for (const clients of CLIENTS) {
          const fs = runs.map((x) => x.got.get(key(load, where, clients))!);
          const rps = fs.map((f) => f.perSecond);
          const toRef = runs.map((x) => x.got.get(key(load, where, clients))!.perSecond / x.raw.perSecond);
          const toEmbedded = runs.map((x) => x.got.get(key(load, where, clients))!.perSecond / x.got.get(key(load, 'embedded', clients))!.perSecond);
          console.log(
            row([
              `  ${where === 'embedded' ? 'embedded file' : `remote, ${where} ms RT`}`,
              String(clients),
              `${num(median(rps))}${spread(rps)}`,
              `${ratio(median(toRef))}×`,
              where === 'embedded' ? '1' : `${ratio(median(toEmbedded))}×`,
              num(median(fs.map((f) => f.p50))),
              num(median(fs.map((f) => f.p99))),
              String(fs.reduce((a, f) => a + f.errors, 0)),
              num(median(fs.map((f) => f.roundTrips))),
              num(median(fs.map((f) => f.locked))),
              num(median(fs.map((f) => f.lockMs))),
              num(median(fs.map((f) => f.lockMs / f.locked))),
              num(median(fs.map((f) => f.statements))),
            ]),
          );
        }
      }
    }

    console.log('\nIssue 30 targets (before §2, 2026-11-29: bcards 0.77/s and intents 3.98/s at 20 ms × 64 clients; 57 and 11 locked round trips)');
    for (const load of LOADS) {
      const at = (where: number, c: number) => median(runs.map((x) => x.got.get(key(load, where, c))?.perSecond ?? Number.NaN));
      const hi = Math.max(...LATENCIES);
      const lo = Math.min(...LATENCIES);
      const c = Math.max(...CLIENTS);
      if (hi > lo) console.log(`  ${load}: at ${hi} ms × ${c} clients ${num(at(hi, c))}/s = ${ratio(at(hi, c) / at(lo, c))}× the same at ${lo} ms (target ≥ 0.5×)`);
      const lockedAt = median(runs.flatMap((x) => LATENCIES.map((l) => x.got.get(key(load, l, 1))?.locked ?? Number.NaN)));
      console.log(`  ${load}: ${num(lockedAt)} round trips inside the write lock per request at 1 client (target: ≤ 1 per unit${load === 'bcards' ? ', ≤ 3 in all' : ''})`);
    }

    console.log('\nNotes');
    console.log('  - per second: requests answered / time from the first send to the last answer; no request is cut off at the window, so a slow figure is mostly its requests in flight');
    console.log('  - RT/req, locked, lock ms, stmts: the stand-in\'s round trips (HTTP requests), those inside the write lock, the ms the lock was held, and statements, per request (background work of the app in the span included)');
    console.log('  - ms/lockRT: lock ms / locked round trips, what a round trip inside the lock costs in all (the latency asked, the stand-in\'s own work, bpay\'s between statements)');
    console.log('  - to ref: the raw ceiling of this run; to embedded: the same load and clients on the embedded file in this run');
    for (const [i, x] of runs.entries()) {
      for (const [k, f] of x.got) {
        if (f.errors > 0) console.log(`  - run ${i + 1} ${k}: ${f.errors} failed (first: ${f.firstError})`);
        if (f.timedOut > 0) console.log(`  - run ${i + 1} ${k}: ${f.timedOut} write transaction(s) taken back after the stand-in's timeout`);
        if (f.ok === 0) console.log(`  - run ${i + 1} ${k}: no request answered`);
      }
    }
    for (const c of children) {
      const lines = c.output
        .join('')
        .split('\n')
        .filter((l) => l.trim() && !l.includes('BPAY_RATE_LIMITS=off') && !/^(STANDIN|STATS|LATENCY-SET) /.test(l));
      if (lines.length > 0) console.log(`\n${c.name} output (${lines.length} lines, last 5):\n${lines.slice(-5).map((l) => l.slice(0, 400)).join('\n')}`);
    }
  } finally {
    stopAll();
    await Promise.all(children.map((c) => c.proc.exited));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * --serve-stand-in: the Hrana 2 stand-in on `--path`, in its own process (so its CPU is not the load generator's).
 * Prints `STANDIN <url>`; answers `LATENCY <ms> <tag>` with `LATENCY-SET <tag>` and `STATS <tag>` with its cumulative
 * counters (round trips, locked round trips, write transactions, lock ms, taken back, statements).
 */
async function serveStandIn() {
  const { startHranaServer } = await import('../api/test-support/hrana-server');
  const path = arg('path');
  if (!path) throw new Error('--serve-stand-in needs --path=<database file>');
  const server = startHranaServer({ path });
  console.log(`STANDIN ${server.url}`);
  const total = { ...ZERO };
  for await (const line of console) {
    const [cmd, a, b] = line.trim().split(' ');
    if (cmd === 'LATENCY') {
      server.latencyMs = Number(a);
      console.log(`LATENCY-SET ${b}`);
    } else if (cmd === 'STATS') {
      const s = server.stats;
      total.roundTrips += s.roundTrips;
      total.locked += s.lockedRoundTrips;
      total.writeTransactions += s.writeTransactions;
      total.lockHeldMs += s.lockHeldMs;
      total.timedOut += s.timedOut;
      total.statements += s.statements;
      // Emptied each time: the request log grows by one entry per round trip.
      server.resetStats();
      console.log(`STATS ${a} ${total.roundTrips} ${total.locked} ${total.writeTransactions} ${total.lockHeldMs.toFixed(3)} ${total.timedOut} ${total.statements}`);
    }
  }
}

if (process.argv.includes('--serve-stand-in')) await serveStandIn();
else await main();
