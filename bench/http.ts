/*
 * bpay over HTTP with an efficient load generator, and the second core (issue 29 §5 and its HTTP targets).
 *
 * The load generator is `wrk` (Debian's package; `bun run bench:http` installs it when root may, scripts/lib.sh
 * ensure_wrk) running in its own process, so the figures are not capped by a JavaScript client sharing the server's
 * CPU. Without wrk on PATH, or with --client=bun, the bench loads with bench/load.ts's closed loop of fetch() calls in
 * this process instead, and says so in its first line. wrk's Lua script (written per load into a temporary folder)
 * sends every POST with its own Idempotency-Key, and a bcard with the session cookie and the cards of one of 64 users
 * in turn, as bench/throughput.ts does; any answer other than the expected status is counted as failed.
 *
 * References, measured in each run beside the rest: the raw durable ceiling (bench/load.ts rawCeiling: a 6-statement
 * FULL transaction at a time on one connection) and an Elysia hello world (a child process) under wrk at 64 connections.
 * Loads: POST /api/virtual-cards (3 sources) at 1, 16 and 64 connections, POST /api/v1/payment_intents at 1 and 64
 * (one connection shows what a request costs alone), each against every design below, all set up once (each on its own fresh database, 64 users with 3 cards each, a sandbox merchant).
 *
 * Designs (--designs=one,reuse-port,reuse-port-async,writer-1,writer-2 by default all five):
 *   one         today's default: one bpay process (`bun api/src/server.ts`) on an embedded libSQL file.
 *   reuse-port  two full bpay processes on the one file, both listening on one port (Bun.serve reusePort, added by the
 *               bench-only preload bench/reuse-port.ts): the kernel shares the connections; each process has its own
 *               writer and group commit, SQLite's file lock orders them.
 *   reuse-port-async  as reuse-port with BPAY_DB_ASYNC_LOCK_WAIT=1: a process waiting for the other's write lock
 *               waits asynchronously (db/client.ts asyncLockWait) instead of inside SQLite's busy handler.
 *   writer-1    one bpay process whose database is a URL (BPAY_DATABASE_URL=http://…) served by ONE writer process on
 *               the file (api/test-support/hrana-server.ts, the Hrana 2 stand-in, synchronous=FULL, run by this file
 *               with --serve-writer): what moving the database out of the process costs, with no second HTTP process.
 *   writer-2    as writer-1 with two bpay processes on one port (reusePort): HTTP, auth, validation and JSON on two
 *               processes, one process owns the database file.
 * For each figure: throughput, its ratio to the reference and to `one` in the same run, p50/p99, failed requests, and
 * the CPU time per request of the bpay processes and of the writer (/proc/<pid>/stat, 10 ms ticks), and for the writer
 * designs the round trips and statements the writer served per request.
 *
 * Run: bun run bench:http [--runs=3] [--seconds=5] [--designs=…] [--client=wrk|bun] [--wrk-threads=1].
 * Prints medians over the runs with [min–max]; the order of the designs alternates from run to run. Benches are not
 * tests: nothing here asserts on time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchServerEnv, closedLoop, cpuMs, freePort, httpWorld, printed, rawCeiling, spawnChild, waitFor, type Child, type LoadResult } from './load';

const root = resolve(import.meta.dir, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];

const DESIGNS = ['one', 'reuse-port', 'reuse-port-async', 'writer-1', 'writer-2'] as const;
type Design = (typeof DESIGNS)[number];
const DESIGN_TEXT: Record<Design, string> = {
  one: 'one process, embedded file (default)',
  'reuse-port': 'two processes, one file, reusePort',
  'reuse-port-async': 'as reuse-port, BPAY_DB_ASYNC_LOCK_WAIT=1',
  'writer-1': 'one process + one writer process',
  'writer-2': 'two processes (reusePort) + one writer',
};


interface Setup {
  design: Design;
  base: string;
  /** The bpay server processes. */
  servers: Child[];
  writer: Child | null;
  world: Awaited<ReturnType<typeof httpWorld>>;
}

/** Starts a design on its own fresh database under `dataDir` and makes its world of users, cards and a merchant. */
async function startDesign(design: Design, dataDir: string, users: number, children: Child[]): Promise<Setup> {
  const dir = join(dataDir, design);
  mkdirSync(dir, { recursive: true });
  const dbFile = join(dir, 'bpay.db');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let writer: Child | null = null;
  let databaseUrl = `file:${dbFile}`;
  if (design === 'writer-1' || design === 'writer-2') {
    writer = spawnChild([process.execPath, import.meta.path, '--serve-writer', `--path=${dbFile}`], { ...process.env }, `${design} writer`);
    children.push(writer);
    databaseUrl = (await printed(writer, /^WRITER (http:\/\/\S+)$/m))[1]!;
  }
  const count = design === 'one' || design === 'writer-1' ? 1 : 2;
  const reusePort = count > 1;
  const servers: Child[] = [];
  // One after the other: the first migrates the database and makes the admin; the second finds them done.
  for (let i = 0; i < count; i++) {
    const cmd = [process.execPath, '--max-http-header-size=262144', ...(reusePort ? ['--preload', './bench/reuse-port.ts'] : []), 'api/src/server.ts'];
    const env = {
      ...benchServerEnv({ port, dataDir: dir, dbFile }),
      BPAY_DATABASE_URL: databaseUrl,
      ...(design === 'reuse-port-async' ? { BPAY_DB_ASYNC_LOCK_WAIT: '1' } : {}),
    };
    const server = spawnChild(cmd, env, `${design} server ${i + 1}`);
    children.push(server);
    servers.push(server);
    if (reusePort) await printed(server, /\[bench\] listening with reusePort/);
    await waitFor(`${base}/api/subscription/tiers`, server.proc, server.name);
  }
  const world = await httpWorld(base, dbFile, { users, tag: `http-${design}`, shop: 'HTTP Bench Shop' });
  return { design, base, servers, writer, world };
}

interface Taken extends LoadResult {
  /** CPU ms of the bpay processes per request answered in the measured window. */
  serverCpu: number;
  /** CPU ms of the writer process per request answered (NaN without a writer). */
  writerCpu: number;
  /** Hrana round trips (HTTP requests to the writer) and statements it ran, per request answered (NaN without a writer). */
  roundTrips: number;
  statements: number;
}

/** One load: POSTs to `path` with per-request Idempotency-Keys; `bodies[u]` (and `cookies[u]`) for user u in turn. */
interface Load {
  name: string;
  connections: number;
  path: string;
  expect: number;
  bodies: string[];
  cookies: string[] | null;
  headers: Record<string, string>;
}

const longString = (s: string) => {
  if (s.includes(']==]')) throw new Error('a string the Lua script cannot quote');
  return `[==[${s}]==]`;
};

/**
 * wrk's Lua script for a load. Each wrk thread keeps its own counter (its id set from setup()), so request n of thread
 * t takes user (n·threads + t) mod users: concurrent requests of one thread are different users', as in
 * bench/throughput.ts. Every status but the expected one counts as failed, the first one kept with its body.
 */
function luaScript(load: Load, threads: number, tag: string): string {
  const headers = Object.entries(load.headers)
    .map(([k, v]) => `[ ${longString(k)} ] = ${longString(v)}`)
    .join(', ');
  return `-- written by bench/http.ts
local tag = ${longString(tag)}
local path = ${longString(load.path)}
local bodies = { ${load.bodies.map(longString).join(', ')} }
local cookies = ${load.cookies ? `{ ${load.cookies.map(longString).join(', ')} }` : 'nil'}
local nthreads = ${threads}
local expect = ${load.expect}
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
local n = 0
failed = 0
first_failure = nil
function request()
  n = n + 1
  local u = ((n * nthreads + tid) % #bodies) + 1
  local h = { ${headers} }
  h["Idempotency-Key"] = tag .. "-" .. tid .. "-" .. n
  if cookies then h["Cookie"] = cookies[u] end
  return wrk.format("POST", path, h, bodies[u])
end
function response(status, headers, body)
  if status ~= expect then
    failed = failed + 1
    if first_failure == nil then first_failure = status .. " " .. string.sub(body or "", 1, 200) end
  end
end
function done(summary, latency, requests)
  local failures, first = 0, ""
  for _, t in ipairs(threads) do
    failures = failures + (t:get("failed") or 0)
    local f = t:get("first_failure")
    if f ~= nil and first == "" then first = f end
  end
  local e = summary.errors
  io.write(string.format("WRK %d %d %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), failures, e.connect + e.read + e.write + e.timeout))
  io.write("WRKFIRST " .. first .. "\\n")
end
`;
}

/** Runs wrk once; `script` null for a plain GET. */
async function runWrk(url: string, connections: number, threads: number, seconds: number, script: string | null): Promise<LoadResult> {
  const cmd = ['wrk', `-t${Math.min(threads, connections)}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '30s'];
  if (script) cmd.push('-s', script);
  else cmd.push('--latency');
  cmd.push(url);
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  if (proc.exitCode !== 0) throw new Error(`wrk exited with ${proc.exitCode}: ${err}${out}`);
  if (script) {
    const m = /^WRK (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/m.exec(out);
    if (!m) throw new Error(`wrk printed no summary:\n${out}${err}`);
    const [requests, durationUs, p50Us, p99Us, failed, socketErrors] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    const first = /^WRKFIRST (.*)$/m.exec(out)?.[1] ?? '';
    const ok = requests - failed;
    return {
      perSecond: ok / (durationUs / 1e6),
      // None answered in the window (each took longer than it): no latency to report, rather than wrk's 0.
      p50: requests ? p50Us / 1000 : Number.NaN,
      p99: requests ? p99Us / 1000 : Number.NaN,
      ok,
      errors: failed + socketErrors,
      firstError: first || (socketErrors ? `${socketErrors} socket errors` : null),
    };
  }
  // A plain GET: wrk's own report (Requests/sec, and the percentiles --latency prints).
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    if (!m) return Number.NaN;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { perSecond: rps, p50: pct('50'), p99: pct('99'), ok: Math.round(rps * seconds), errors: non2xx, firstError: non2xx ? `${non2xx} non-2xx answers` : null };
}

async function main() {
  const RUNS = Math.max(1, Number(arg('runs') ?? 3));
  const SECONDS = Math.max(1, Number(arg('seconds') ?? 5));
  const WARMUP = 1;
  const USERS = 64;
  const WRK_THREADS = Math.max(1, Number(arg('wrk-threads') ?? 1));
  const designs = (arg('designs')?.split(',') ?? [...DESIGNS]) as Design[];
  for (const d of designs) if (!DESIGNS.includes(d)) throw new Error(`unknown design ${d}: one of ${DESIGNS.join(', ')}`);
  const wantBun = arg('client') === 'bun';
  const wrkPath = wantBun ? null : Bun.which('wrk');
  let wrkVersion = '';
  if (wrkPath) {
    const v = Bun.spawnSync(['wrk', '--version']);
    wrkVersion = /wrk (\S+)/.exec(`${v.stdout}${v.stderr}`)?.[1] ?? '?';
  }
  const client = wrkPath
    ? `wrk ${wrkVersion} (${wrkPath}, ${WRK_THREADS} thread${WRK_THREADS === 1 ? '' : 's'}, its own process)`
    : `Bun's fetch in this process (bench/load.ts closedLoop): ${wantBun ? '--client=bun asked for it' : 'wrk is not on PATH (apt-get install wrk, or run through bun run bench:http)'}`;

  const cpu = cpus();
  const date = new Date().toISOString().slice(0, 10);
  const commit = Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { cwd: root }).stdout.toString().trim() || 'unknown';
  const dirty = Bun.spawnSync(['git', 'status', '--porcelain', '--untracked-files=no'], { cwd: root }).stdout.toString().trim() ? ' + uncommitted changes' : '';
  console.log(
    `bpay over HTTP, ${date}, tree ${commit}${dirty}: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, bun ${Bun.version}; ` +
      `${RUNS} run${RUNS === 1 ? '' : 's'} × ${SECONDS} s per figure after ${WARMUP} s of warm-up; ` +
      `load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  console.log(`load generator: ${client}`);

  const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-http-'));
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
    const helloPort = await freePort();
    const hello = spawnChild([process.execPath, 'bench/throughput.ts', '--serve-hello', `--port=${helloPort}`], { ...process.env }, 'the hello-world server');
    children.push(hello);
    const helloUrl = `http://127.0.0.1:${helloPort}/`;
    await waitFor(helloUrl, hello.proc, hello.name);

    const setups: Setup[] = [];
    for (const design of designs) {
      process.stdout.write(`starting ${design} (${DESIGN_TEXT[design]}) and making ${USERS} users with 3 cards each … `);
      setups.push(await startDesign(design, dataDir, USERS, children));
      console.log('done');
    }

    const intentLoad = (s: Setup, connections: number): Load => ({
      name: 'intents',
      connections,
      path: '/api/v1/payment_intents',
      expect: 200,
      bodies: [JSON.stringify({ amount: 1000, currency: 'usd' })],
      cookies: null,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.world.secretKey}` },
    });
    /** $1.00 over three sources (34/33/33 %), as bench/throughput.ts. */
    const bcardLoad = (s: Setup, connections: number): Load => ({
      name: 'bcards',
      connections,
      path: '/api/virtual-cards',
      expect: 201,
      bodies: s.world.sources.map((ids) =>
        JSON.stringify({ name: 'Bench', balance: '1.00', fundingSources: ids.map((id, i) => ({ fundingSourceId: id, percentage: i === 0 ? 34 : 33 })) }),
      ),
      cookies: s.world.cookies,
      headers: { 'Content-Type': 'application/json', Origin: s.base },
    });

    const scripts = join(dataDir, 'wrk');
    mkdirSync(scripts, { recursive: true });
    let tagNo = 0;
    /** One load against one design, with the CPU its processes used in the measured window. */
    const take = async (s: Setup, load: Load): Promise<Taken> => {
      const serverCpu = () => s.servers.reduce((a, c) => a + cpuMs(c.proc.pid), 0);
      const writerCpu = () => (s.writer ? cpuMs(s.writer.proc.pid) : Number.NaN);
      const writerCounts = async (): Promise<[number, number]> => {
        if (!s.writer) return [Number.NaN, Number.NaN];
        await Bun.sleep(150); // the writer prints its counts every 100 ms
        const all = [...s.writer.output.slice(-20).join('').matchAll(/^STATS (\d+) (\d+)$/gm)];
        const m = all[all.length - 1];
        return m ? [Number(m[1]), Number(m[2])] : [Number.NaN, Number.NaN];
      };
      let counts0: [number, number] = [Number.NaN, Number.NaN];
      // Waits until the requests still in flight are finished (an overloaded design may have a backlog of seconds):
      // the processes' CPU must be nearly still for half a second, for at most 60 s. Before a load, so the last one's
      // backlog does not fall into its window; after the warm-up and after the measured run, so the CPU counted is
      // that of exactly the measured requests (see below).
      const drain = async () => {
        for (let i = 0; i < 120; i++) {
          const before = serverCpu() + (s.writer ? writerCpu() : 0);
          await Bun.sleep(500);
          if (serverCpu() + (s.writer ? writerCpu() : 0) - before <= 30 * s.servers.length) break;
        }
      };
      await drain();
      let result: LoadResult;
      let cpu0: [number, number];
      let cpu1: [number, number];
      if (wrkPath) {
        const script = join(scripts, `${s.design}-${load.name}-${load.connections}.lua`);
        const tag = `wrk-${process.pid}-${++tagNo}-${crypto.randomUUID().slice(0, 8)}`;
        writeFileSync(script, luaScript(load, WRK_THREADS, tag));
        await runWrk(`${s.base}${load.path}`, load.connections, WRK_THREADS, WARMUP, script);
        writeFileSync(script, luaScript(load, WRK_THREADS, `${tag}-m`));
        await drain();
        counts0 = await writerCounts();
        cpu0 = [serverCpu(), writerCpu()];
        result = await runWrk(`${s.base}${load.path}`, load.connections, WRK_THREADS, SECONDS, script);
        // wrk stops with one request in flight on each connection; the servers still run them to the end.
        await drain();
        cpu1 = [serverCpu(), writerCpu()];
      } else {
        // The closed loop's window opens after the warm-up: the CPU is read then and when it closes.
        cpu0 = [Number.NaN, Number.NaN];
        cpu1 = [Number.NaN, Number.NaN];
        const opens = setTimeout(() => (cpu0 = [serverCpu(), writerCpu()]), WARMUP * 1000);
        const closes = setTimeout(() => (cpu1 = [serverCpu(), writerCpu()]), (WARMUP + SECONDS) * 1000);
        result = await closedLoop(
          load.connections,
          SECONDS,
          WARMUP,
          (j, i) => {
            const u = (j + i * load.connections) % load.bodies.length;
            return fetch(`${s.base}${load.path}`, {
              method: 'POST',
              headers: { ...load.headers, ...(load.cookies ? { cookie: load.cookies[u]! } : {}), 'idempotency-key': crypto.randomUUID() },
              body: load.bodies[u],
            });
          },
          load.expect,
        );
        clearTimeout(opens);
        clearTimeout(closes);
      }
      // With wrk, the CPU and the writer's counts run from the measured run's start to the end of the requests left in
      // flight (one per connection), so they are divided by all the requests served: answered + connections. (Divided
      // by the answered alone they would overstate a slow load's cost up to twice, when as many are in flight as were
      // answered.) The closed loop's CPU is read at its window's edges instead.
      const served = wrkPath ? result.ok + result.errors + load.connections : result.ok + result.errors;
      const answered = result.ok + result.errors;
      const counts1 = wrkPath ? await writerCounts() : counts0;
      const per = (x: number) => (answered > 0 ? x / served : Number.NaN);
      return {
        roundTrips: per(counts1[0] - counts0[0]),
        statements: per(counts1[1] - counts0[1]),
        ...result,
        serverCpu: per(cpu1[0] - cpu0[0]),
        writerCpu: per(cpu1[1] - cpu0[1]),
      };
    };
    const helloTake = (): Promise<LoadResult> =>
      wrkPath ? runWrk(helloUrl, 64, WRK_THREADS, SECONDS, null) : closedLoop(64, SECONDS, WARMUP, () => fetch(helloUrl), 200);

    const LOADS = [
      { key: 'bcards@1', make: (s: Setup) => bcardLoad(s, 1) },
      { key: 'bcards@16', make: (s: Setup) => bcardLoad(s, 16) },
      { key: 'bcards@64', make: (s: Setup) => bcardLoad(s, 64) },
      { key: 'intents@1', make: (s: Setup) => intentLoad(s, 1) },
      { key: 'intents@64', make: (s: Setup) => intentLoad(s, 64) },
    ] as const;
    type Run = { raw: LoadResult; hello: LoadResult; got: Map<string, Taken> };
    const runs: Run[] = [];
    const at = (d: Design, k: string) => `${d} ${k}`;
    for (let r = 1; r <= RUNS; r++) {
      const order = r % 2 ? setups : [...setups].reverse();
      process.stdout.write(`run ${r}/${RUNS}: raw ceiling`);
      const raw = await rawCeiling(SECONDS, WARMUP);
      process.stdout.write(` ${int(raw.perSecond)}/s; hello `);
      const helloResult = await helloTake();
      process.stdout.write(`${int(helloResult.perSecond)}/s;`);
      const got = new Map<string, Taken>();
      for (const s of order) {
        process.stdout.write(` ${s.design}:`);
        for (const l of LOADS) {
          const t = await take(s, l.make(s));
          got.set(at(s.design, l.key), t);
          process.stdout.write(` ${l.key} ${int(t.perSecond)}/s`);
        }
        process.stdout.write(';');
      }
      console.log('');
      runs.push({ raw, hello: helloResult, got });
    }

    // The table: medians over the runs with [min–max]; ratios are taken within each run, then their median.
    const spread = (xs: number[]) => (xs.length > 1 ? ` [${int(Math.min(...xs))}–${int(Math.max(...xs))}]` : '');
    const rspread = (xs: number[]) => (xs.length > 1 ? ` [${ratio(Math.min(...xs))}–${ratio(Math.max(...xs))}]` : '');
    const W = [40, 6, 22, 26, 20, 8, 8, 7, 15, 12];
    const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(W[i]!) : c.padStart(W[i]!))).join(' ');
    console.log('');
    console.log(row(['', 'conns', 'per second [min–max]', 'ratio to ref [min–max]', 'to `one` [min–max]', 'p50 ms', 'p99 ms', 'failed', 'CPU ms/req b+w', 'RT / stmts']));
    const rawTps = runs.map((x) => x.raw.perSecond);
    const helloRps = runs.map((x) => x.hello.perSecond);
    console.log(row(['REF raw libSQL 6-stmt tx, FULL, 1 conn', '1', `${int(median(rawTps))}${spread(rawTps)}`, '1 (ceiling)', '', ms(median(runs.map((x) => x.raw.p50))), ms(median(runs.map((x) => x.raw.p99))), '', '']));
    console.log(row(['REF Elysia hello world (GET)', '64', `${int(median(helloRps))}${spread(helloRps)}`, '1 (hello)', '', ms(median(runs.map((x) => x.hello.p50))), ms(median(runs.map((x) => x.hello.p99))), String(runs.reduce((a, x) => a + x.hello.errors, 0)), '']));
    for (const l of LOADS) {
      const [what, conns] = l.key.split('@') as [string, string];
      console.log(what === 'intents' ? 'POST /api/v1/payment_intents' : 'POST /api/virtual-cards (3 sources)');
      for (const s of setups) {
        const ts = runs.map((x) => x.got.get(at(s.design, l.key))!);
        const rps = ts.map((t) => t.perSecond);
        const ref = (x: Run) => (what === 'intents' ? x.hello.perSecond : x.raw.perSecond);
        const ratios = runs.map((x) => x.got.get(at(s.design, l.key))!.perSecond / ref(x));
        const toOne = setups.some((o) => o.design === 'one') ? runs.map((x) => x.got.get(at(s.design, l.key))!.perSecond / x.got.get(at('one', l.key))!.perSecond) : [];
        const cpuText = `${ms(median(ts.map((t) => t.serverCpu)))}${s.writer ? ` + ${ms(median(ts.map((t) => t.writerCpu)))}` : ''}`;
        console.log(
          row([
            `  ${s.design}`,
            conns,
            `${int(median(rps))}${spread(rps)}`,
            `${ratio(median(ratios))}× ${what === 'intents' ? 'hello' : 'ceiling'}${rspread(ratios)}`,
            toOne.length ? `${ratio(median(toOne))}×${rspread(toOne)}` : '',
            ms(median(ts.map((t) => t.p50))),
            ms(median(ts.map((t) => t.p99))),
            String(ts.reduce((a, t) => a + t.errors, 0)),
            cpuText,
            s.writer ? `${one(median(ts.map((t) => t.roundTrips)))} / ${one(median(ts.map((t) => t.statements)))}` : '',
          ]),
        );
      }
    }

    // Targets (issue 29), judged on the medians of each design.
    const mark = (ok: boolean) => (ok ? 'met   ' : 'MISSED');
    console.log('\nTargets (issue 29), per design');
    for (const s of setups) {
      const g = (k: string) => runs.map((x) => x.got.get(at(s.design, k))!);
      const b64 = median(runs.map((x) => x.got.get(at(s.design, 'bcards@64'))!.perSecond / x.raw.perSecond));
      const p16 = median(g('bcards@16').map((t) => t.p99));
      const iRatio = median(runs.map((x) => x.got.get(at(s.design, 'intents@64'))!.perSecond / x.hello.perSecond));
      const iP99 = median(g('intents@64').map((t) => t.p99));
      console.log(`  ${s.design}:`);
      console.log(`    ${mark(b64 >= 0.4)} bcards at 64 connections ≥ 0.4× the raw ceiling: ${ratio(b64)}× (${ratio(b64 / 0.4)} of the target)`);
      console.log(`    ${mark(p16 <= 50)} bcards p99 ≤ 50 ms at 16 connections: ${ms(p16)} ms`);
      console.log(`    ${mark(iRatio >= 0.15)} intents ≥ 0.15× hello world at 64 connections: ${ratio(iRatio)}× (${ratio(iRatio / 0.15)} of the target)`);
      console.log(`    ${mark(iP99 <= 25)} intents p99 ≤ 25 ms at 64 connections: ${ms(iP99)} ms`);
    }

    console.log('\nNotes');
    console.log(`  - load generator: ${client}`);
    for (const s of setups) console.log(`  - ${s.design}: ${DESIGN_TEXT[s.design]}`);
    console.log(
      `  - CPU ms/req b+w: user + system CPU of the bpay process(es) + of the writer process, per request served (10 ms ticks; ${wrkPath ? 'with wrk: from the measured run to the end of the requests left in flight, divided by those answered + one per connection' : 'in the measured window, per request answered in it'})`,
    );
    console.log('  - RT / stmts: Hrana round trips to the writer (HTTP requests) / statements it ran, per request served as for the CPU (writer designs)');
    console.log('  - failed: answers other than 201/200 plus socket errors and timeouts (30 s), summed over the runs');
    for (const [i, x] of runs.entries()) {
      for (const [k, t] of x.got) {
        if (t.errors > 0) console.log(`  - run ${i + 1} ${k}: ${t.errors} failed (first: ${t.firstError})`);
        if (t.ok === 0) console.log(`  - run ${i + 1} ${k}: no request answered within the ${SECONDS} s window (each took longer)`);
      }
    }
    for (const c of children) {
      const lines = c.output
        .join('')
        .split('\n')
        .filter((l) => l.trim() && !l.includes('BPAY_RATE_LIMITS=off') && !l.startsWith('[bench]') && !/^(WRITER|STATS) /.test(l));
      if (lines.length > 0) console.log(`\n${c.name} output (${lines.length} lines, last 5):\n${lines.slice(-5).map((l) => l.slice(0, 400)).join('\n')}`);
    }
  } finally {
    stopAll();
    await Promise.all(children.map((c) => c.proc.exited));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0)) : 'n/a');
const one = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const ratio = (x: number) => (Number.isFinite(x) ? (x < 0.1 ? x.toFixed(3) : x.toFixed(2)) : 'n/a');

/**
 * --serve-writer: the one process that owns the database file in the writer designs, serving it over Hrana 2 (the
 * test kit's stand-in for sqld). Prints its URL, then its cumulative round trips and statements every 100 ms when they
 * changed (its request log is emptied each time: it would grow per round trip).
 */
async function serveWriter() {
  const { startHranaServer } = await import('../api/test-support/hrana-server');
  const path = arg('path');
  if (!path) throw new Error('--serve-writer needs --path=<database file>');
  const server = startHranaServer({ path });
  console.log(`WRITER ${server.url}`);
  // Cumulative round trips and statements, printed when they change (bench/http.ts reads them around each window).
  const total = { roundTrips: 0, statements: 0 };
  let last = '';
  setInterval(() => {
    total.roundTrips += server.stats.roundTrips;
    total.statements += server.stats.statements;
    server.resetStats();
    const line = `STATS ${total.roundTrips} ${total.statements}`;
    if (line !== last) console.log((last = line));
  }, 100);
}

if (process.argv.includes('--serve-writer')) await serveWriter();
else await main();
