/*
 * Throughput of the money paths over HTTP, each figure beside a reference measured in the same run (issue 14):
 *   - the raw ceiling: a 6-statement write transaction committed one at a time on one connection of a fresh libSQL
 *     file with the app's PRAGMAs (CONNECTION_PRAGMAS: WAL, synchronous=FULL), @libsql/client used directly;
 *   - an Elysia hello world (a child process) under the same load generator at 64 connections;
 *   - the real server (`bun api/src/server.ts`, a child process, fresh temporary database, simulated processor,
 *     BPAY_RATE_LIMITS=off so one address may load it): POST /api/virtual-cards with 3 funding sources at 1, 16
 *     and 64 clients, and POST /api/v1/payment_intents at 64 connections with a sandbox secret key;
 *   - commits (fsyncs) and statements per request, counted in-process with the test kit (the server exposes no
 *     counters): one request at a time, and 64 at once.
 * The load generator is a closed loop in this process: N loops, each awaiting its own fetch, for a fixed time
 * after a warm-up; every latency is kept. Each client has its own users (64 users with 3 cards each, on the premium
 * plan so no monthly limit bites; fewer clients cycle through them, so no simulated card runs dry). Every bcard and
 * every intent carries an Idempotency-Key, as the web app and the SDK send them.
 * The bench writes two rows of its own database directly: the users' plan (premium, as the test kit's makePremium
 * does) and premium's monthly API allowance (unlimited, so repeated runs cannot exhaust it).
 *
 * Run: bun run bench:throughput [--runs=3] [--seconds=5]. Prints medians over the runs with the spread (min–max).
 * Timing targets live here, not in tests; the figures depend on the machine and on what else it is doing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { call, makeTestApp } from '../api/test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../api/test-support/world';
import { benchServerEnv, closedLoop, freePort, httpWorld, rawCeiling, waitFor, type LoadResult } from './load';

const root = resolve(import.meta.dir, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];

interface WriteCounts {
  commits: number;
  statements: number;
  units: number;
}
interface PerRequest {
  sequential: WriteCounts;
  concurrent: WriteCounts;
}

/**
 * Commits and statements per bcard and per intent, in-process on the test kit (ctx.handle.stats, from db/client.ts's
 * group-commit writer). Null when the handle has no counters.
 */
async function countWrites(): Promise<{ bcard: PerRequest; intent: PerRequest } | null> {
  const ctx = await makeTestApp({ rateLimits: false });
  try {
    const handle: object = ctx.handle;
    if (!('stats' in handle)) return null;
    const stats = handle.stats as Partial<WriteCounts>;
    const snap = (): WriteCounts => ({ commits: stats.commits ?? Number.NaN, statements: stats.statements ?? Number.NaN, units: stats.units ?? Number.NaN });
    const per = (a: WriteCounts, b: WriteCounts, n: number): WriteCounts => ({
      commits: (b.commits - a.commits) / n,
      statements: (b.statements - a.statements) / n,
      units: (b.units - a.units) / n,
    });
    const user = await registerUser(ctx);
    await makePremium(ctx, user.user.id);
    const sources: Array<{ id: string }> = [];
    for (const number of CARDS_OK.slice(0, 3)) sources.push(await addCard(ctx, user.cookie, number));
    const merchant = await createMerchant(ctx, user.cookie, 'sandbox');
    const bcard = async () => {
      const res = await call(ctx, '/api/virtual-cards', {
        method: 'POST',
        cookie: user.cookie,
        headers: { 'idempotency-key': crypto.randomUUID() },
        body: bcardBody(sources.map((s) => s.id)),
      });
      if (res.status !== 201) throw new Error(`in-process bcard: ${res.status} ${res.text}`);
    };
    const intent = async () => {
      const res = await call(ctx, '/api/v1/payment_intents', {
        method: 'POST',
        origin: null,
        headers: { authorization: `Bearer ${merchant.secretKey}`, 'idempotency-key': crypto.randomUUID() },
        body: INTENT_BODY,
      });
      if (res.status !== 200) throw new Error(`in-process intent: ${res.status} ${res.text}`);
    };
    const measure = async (work: () => Promise<void>): Promise<PerRequest> => {
      for (let i = 0; i < 5; i++) await work();
      const N = 20;
      let a = snap();
      for (let i = 0; i < N; i++) await work();
      const sequential = per(a, snap(), N);
      a = snap();
      await Promise.all(Array.from({ length: 64 }, () => work()));
      return { sequential, concurrent: per(a, snap(), 64) };
    };
    return { bcard: await measure(bcard), intent: await measure(intent) };
  } finally {
    ctx.close();
  }
}

/** $1.00 (the smallest bcard) over three sources (34/33/33 %): the simulator's $10,000.00 per card lasts tens of thousands of bcards. */
const bcardBody = (sourceIds: string[]) => ({
  name: 'Bench',
  balance: '1.00',
  fundingSources: sourceIds.map((id, i) => ({ fundingSourceId: id, percentage: i === 0 ? 34 : 33 })),
});
const INTENT_BODY = { amount: 1000, currency: 'usd' };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0)) : 'n/a');
const ratio = (x: number) => (Number.isFinite(x) ? (x < 0.1 ? x.toFixed(3) : x.toFixed(2)) : 'n/a');
const one = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

async function main() {
  const RUNS = Math.max(1, Number(arg('runs') ?? 3));
  const SECONDS = Math.max(1, Number(arg('seconds') ?? 5));
  const WARMUP = Math.min(1, SECONDS / 2);
  const USERS = 64;
  const LEVELS = [1, 16, 64] as const;

  const cpu = cpus();
  const date = new Date().toISOString().slice(0, 10);
  console.log(
    `bpay throughput, ${date}: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, bun ${Bun.version}; ` +
      `${RUNS} run${RUNS === 1 ? '' : 's'} × ${SECONDS} s per figure after ${WARMUP} s of warm-up; ` +
      `load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );

  // Commits and statements first, in-process, while nothing else of ours is running.
  process.stdout.write('counting commits and statements in-process … ');
  const counts = await countWrites();
  console.log(counts ? 'done' : 'no counters on the db handle (n/a)');

  const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-throughput-'));
  const children: Bun.Subprocess[] = [];
  const stopAll = () => {
    for (const c of children) c.kill();
  };
  process.on('SIGINT', () => {
    stopAll();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    const helloPort = await freePort();
    const hello = Bun.spawn([process.execPath, import.meta.path, '--serve-hello', `--port=${helloPort}`], { cwd: root, stdout: 'ignore', stderr: 'inherit' });
    children.push(hello);
    const helloUrl = `http://127.0.0.1:${helloPort}/`;

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const serverOut: string[] = [];
    const server = Bun.spawn([process.execPath, '--max-http-header-size=262144', 'api/src/server.ts'], {
      cwd: root,
      stdout: 'pipe',
      stderr: 'pipe',
      env: benchServerEnv({ port, dataDir, dbFile: `${dataDir}/bpay.db` }),
    });
    children.push(server);
    for (const stream of [server.stdout, server.stderr]) {
      void (async () => {
        const reader = stream.getReader();
        const decoder = new TextDecoder();
        for (let r = await reader.read(); !r.done; r = await reader.read()) serverOut.push(decoder.decode(r.value));
      })();
    }
    try {
      await Promise.all([waitFor(helloUrl, hello, 'the hello-world server'), waitFor(`${base}/api/subscription/tiers`, server, 'the bpay server')]);
    } catch (e) {
      console.error(serverOut.join(''));
      throw e;
    }
    const rateLimitWarning = serverOut.join('').includes('BPAY_RATE_LIMITS=off');

    // Users, plans, cards and a merchant, through the API (the plan rows directly, see the header).
    process.stdout.write(`setting up ${USERS} users with 3 cards each through the API … `);
    const { json, cookies, sources, secretKey } = await httpWorld(base, `${dataDir}/bpay.db`, { users: USERS, tag: 'bench', shop: 'Bench Shop' });
    console.log('done');

    const bcardLoad = (clients: number) =>
      closedLoop(
        clients,
        SECONDS,
        WARMUP,
        (j, i) => {
          // Loop j uses users j, j + clients, j + 2·clients …: its own, and all 64 are used at every level.
          const u = (j + i * clients) % USERS;
          return fetch(`${base}/api/virtual-cards`, {
            method: 'POST',
            headers: { ...json, cookie: cookies[u]!, 'idempotency-key': crypto.randomUUID() },
            body: JSON.stringify(bcardBody(sources[u]!)),
          });
        },
        201,
      );
    const intentBody = JSON.stringify(INTENT_BODY);
    const intentLoad = () =>
      closedLoop(
        64,
        SECONDS,
        WARMUP,
        () =>
          fetch(`${base}/api/v1/payment_intents`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}`, 'idempotency-key': crypto.randomUUID() },
            body: intentBody,
          }),
        200,
      );

    type Run = { raw: Awaited<ReturnType<typeof rawCeiling>>; hello: LoadResult; bcards: Record<number, LoadResult>; intents: LoadResult };
    const runs: Run[] = [];
    for (let r = 1; r <= RUNS; r++) {
      process.stdout.write(`run ${r}/${RUNS}: raw ceiling`);
      const raw = await rawCeiling(SECONDS, WARMUP);
      process.stdout.write(` ${int(raw.perSecond)}/s; hello world`);
      const hello = await closedLoop(64, SECONDS, WARMUP, () => fetch(helloUrl), 200);
      process.stdout.write(` ${int(hello.perSecond)}/s; bcards`);
      const bcards: Record<number, LoadResult> = {};
      for (const c of LEVELS) {
        bcards[c] = await bcardLoad(c);
        process.stdout.write(` ${c}: ${int(bcards[c].perSecond)}/s`);
      }
      process.stdout.write('; intents');
      const intents = await intentLoad();
      console.log(` ${int(intents.perSecond)}/s`);
      runs.push({ raw, hello, bcards, intents });
    }

    // The table: medians over the runs, [min–max] of the throughput, ratios taken within each run.
    const spread = (xs: number[]) => (xs.length > 1 ? ` [${int(Math.min(...xs))}–${int(Math.max(...xs))}]` : '');
    const rspread = (xs: number[]) => (xs.length > 1 ? ` [${ratio(Math.min(...xs))}–${ratio(Math.max(...xs))}]` : '');
    const pad = (s: string, w: number) => s.padEnd(w);
    const lpad = (s: string, w: number) => s.padStart(w);
    const W = [40, 8, 26, 24, 9, 9, 13, 13];
    const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? pad(c, W[i]!) : lpad(c, W[i]!))).join(' ');
    console.log('');
    console.log(row(['', 'clients', 'per second [min–max]', 'ratio to ref [min–max]', 'p50 ms', 'p99 ms', 'commits/req', 'stmts/req']));
    const rawTps = runs.map((x) => x.raw.perSecond);
    const helloRps = runs.map((x) => x.hello.perSecond);
    console.log(
      row([
        'REF raw libSQL 6-stmt tx, FULL, 1 conn',
        '1',
        `${int(median(rawTps))}${spread(rawTps)}`,
        '1 (ceiling)',
        ms(median(runs.map((x) => x.raw.p50))),
        ms(median(runs.map((x) => x.raw.p99))),
        '1',
        '6',
      ]),
    );
    console.log(
      row([
        'REF Elysia hello world (GET)',
        '64',
        `${int(median(helloRps))}${spread(helloRps)}`,
        '1 (hello)',
        ms(median(runs.map((x) => x.hello.p50))),
        ms(median(runs.map((x) => x.hello.p99))),
        '',
        '',
      ]),
    );
    /** "one at a time / 64 at once", in-process. */
    const cnt = (which: 'bcard' | 'intent', key: 'commits' | 'statements') =>
      counts ? `${one(counts[which].sequential[key])} / ${one(counts[which].concurrent[key])}` : 'n/a';
    for (const c of LEVELS) {
      const rps = runs.map((x) => x.bcards[c]!.perSecond);
      const ratios = runs.map((x) => x.bcards[c]!.perSecond / x.raw.perSecond);
      console.log(
        row([
          c === 1 ? 'POST /api/virtual-cards (3 sources)' : '',
          String(c),
          `${int(median(rps))}${spread(rps)}`,
          `${ratio(median(ratios))}× ceiling${rspread(ratios)}`,
          ms(median(runs.map((x) => x.bcards[c]!.p50))),
          ms(median(runs.map((x) => x.bcards[c]!.p99))),
          c === 1 ? cnt('bcard', 'commits') : '',
          c === 1 ? cnt('bcard', 'statements') : '',
        ]),
      );
    }
    const irps = runs.map((x) => x.intents.perSecond);
    const iratios = runs.map((x) => x.intents.perSecond / x.hello.perSecond);
    console.log(
      row([
        'POST /api/v1/payment_intents',
        '64',
        `${int(median(irps))}${spread(irps)}`,
        `${ratio(median(iratios))}× hello${rspread(iratios)}`,
        ms(median(runs.map((x) => x.intents.p50))),
        ms(median(runs.map((x) => x.intents.p99))),
        cnt('intent', 'commits'),
        cnt('intent', 'statements'),
      ]),
    );

    // Targets (issue 14), each judged on the medians.
    const b64 = median(runs.map((x) => x.bcards[64]!.perSecond / x.raw.perSecond));
    const p99at16 = median(runs.map((x) => x.bcards[16]!.p99));
    const iRps = median(irps);
    const iP99 = median(runs.map((x) => x.intents.p99));
    const mark = (ok: boolean) => (ok ? 'met   ' : 'MISSED');
    console.log('\nTargets');
    console.log(`  ${mark(b64 >= 0.4)} bcards at 64 clients ≥ 0.4× the raw ceiling (≥ ${int(0.4 * median(rawTps))}/s here): ${ratio(b64)}×`);
    console.log(`  ${mark(p99at16 <= 50)} bcards p99 ≤ 50 ms at 16 clients: ${ms(p99at16)} ms`);
    console.log(`  ${mark(iRps >= 3000)} intents ≥ 3,000/s at 64 connections: ${int(iRps)}/s`);
    console.log(`  ${mark(iP99 <= 25)} intents p99 ≤ 25 ms at 64 connections: ${ms(iP99)} ms`);

    const notes: string[] = [];
    const raw0 = runs[0]!.raw;
    notes.push(`raw ceiling connection: synchronous=${raw0.synchronous} (2 = FULL), journal_mode=${raw0.journal}`);
    notes.push(
      counts
        ? 'commits (one fsync each with synchronous=FULL) and statements per request, counted in-process (test kit, ' +
            'ctx.handle.stats) as "a / b": a = one request at a time, b = 64 sent at once (where commits can be shared)'
        : 'commits/statements per request: n/a, the db handle has no stats counters (db/client.ts without the group-commit writer)',
    );
    notes.push(`server warned at start that BPAY_RATE_LIMITS is off: ${rateLimitWarning ? 'yes' : 'NO'}`);
    for (const [i, x] of runs.entries()) {
      const all: Array<[string, LoadResult]> = [['raw ceiling', x.raw], ['hello', x.hello], ...LEVELS.map((c): [string, LoadResult] => [`bcards@${c}`, x.bcards[c]!]), ['intents', x.intents]];
      for (const [name, res] of all) {
        if (res.errors > 0) notes.push(`run ${i + 1} ${name}: ${res.errors} failed requests (first: ${res.firstError})`);
      }
    }
    console.log('\nNotes');
    for (const n of notes) console.log(`  - ${n}`);
    // Anything else the server said (warnings and errors only, at BPAY_LOG_LEVEL=warn).
    const serverLines = serverOut
      .join('')
      .split('\n')
      .filter((l) => l.trim() && !l.includes('BPAY_RATE_LIMITS=off'));
    if (serverLines.length > 0) {
      console.log(`\nServer output (${serverLines.length} lines, last 10):\n${serverLines.slice(-10).join('\n')}`);
    }
  } finally {
    stopAll();
    await Promise.all(children.map((c) => c.exited));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The hello-world reference runs as a child process of this same file; otherwise this is the bench.
if (process.argv.includes('--serve-hello')) {
  const { Elysia } = await import('elysia');
  new Elysia().get('/', () => 'Hello World').listen({ port: Number(arg('port')), hostname: '127.0.0.1' });
} else {
  await main();
}
