/*
 * Where the server's CPU goes under the write paths (issue 29 §2), as a table anyone can read.
 *
 * What it does:
 *   1. A fresh temporary database, set up by a first, unprofiled server (`bun api/src/server.ts`, the bench
 *      environment of bench/load.ts: production mode, BPAY_RATE_LIMITS=off): users registered through the API with
 *      three cards each, on premium (written into the database directly, as bench/throughput.ts does), and a
 *      sandbox merchant. Registration's password hashing stays out of the profile this way. That server is stopped.
 *   2. A second server on the same database under Bun's profiler: `bun --cpu-prof --cpu-prof-md --cpu-prof-dir=<tmp>`.
 *      A closed loop of --clients clients drives POST /api/v1/payment_intents for --seconds, then POST
 *      /api/virtual-cards ($1.00 over three sources) for --seconds, over HTTP (every request with an Idempotency-Key).
 *   3. SIGTERM: the server's own shutdown runs and Bun writes both profiles as the process exits (the .md for a person
 *      or grep, the .cpuprofile for this script). --keep keeps them and prints where.
 *   4. From the .cpuprofile, for each load apart (the samples taken while it ran, after its warm-up: start-up,
 *      set-up and shutdown are left out): the self time of every frame, summed by function and by package: libsql
 *      native (native frames called from the `libsql` binding: SQLite itself, its fsync at COMMIT included), the
 *      libsql JS binding and @libsql/client, drizzle-orm, elysia, @sinclair/typebox, bun internals (native and
 *      built-in frames not called from libsql, garbage collection), bpay's api/src and db/, other node_modules.
 *      Idle time is left out of the percentages. A native frame's row names its nearest caller with a script.
 *   The profile samples the JavaScript thread, so this is where that thread's time goes (waiting inside a
 *   synchronous call such as COMMIT's fsync counts; waiting in the event loop does not). For CPU per request beside
 *   references, see bench/cpu.ts.
 *
 * Run: bun run bench:profile [--seconds=8] [--clients=16] [--users=8] [--top=25] [--keep]
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchServerEnv, closedLoop, freePort, httpWorld, waitFor } from './load';

const root = resolve(import.meta.dir, '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const intArg = (name: string, fallback: number) => Math.max(1, Math.floor(Number(arg(name) ?? fallback)));

// ---- Reading a .cpuprofile ----

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  /** Microseconds since the Unix epoch, in Bun's profiles (the same clock as Date.now()). */
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const PACKAGES = [
  'libsql native (SQLite, and natives its binding calls)',
  'libsql binding + @libsql/client (JS)',
  'drizzle-orm',
  'elysia',
  '@sinclair/typebox',
  'bun internals (natives, built-ins, GC)',
  'bpay api/src',
  'bpay db/',
  'other node_modules',
  'other',
] as const;
export type Package = (typeof PACKAGES)[number];

/** A path as the table shows it: from node_modules/ on, or relative to the checkout. */
const shortPath = (path: string, base: string) => {
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + 1);
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
};
const pathOf = (url: string) => (url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url);

/** The package a frame with a script URL belongs to; null for a native or built-in frame (no file). */
export function packageOfUrl(url: string, base: string = root): Package | null {
  const path = pathOf(url);
  if (!path || !path.startsWith('/')) return null;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length);
    const name = rest.startsWith('@') ? rest.split('/').slice(0, 2).join('/') : rest.split('/')[0]!;
    if (name === 'libsql' || name.startsWith('@libsql/')) return 'libsql binding + @libsql/client (JS)';
    if (name === 'drizzle-orm') return 'drizzle-orm';
    if (name === 'elysia' || name.startsWith('@elysiajs/')) return 'elysia';
    if (name === '@sinclair/typebox') return '@sinclair/typebox';
    return 'other node_modules';
  }
  if (path.startsWith(`${base}/api/src/`)) return 'bpay api/src';
  if (path.startsWith(`${base}/db/`)) return 'bpay db/';
  return 'other';
}

export interface Summary {
  samples: number;
  /** Milliseconds: the samples times the sampling interval (the median gap between samples), idle left out. */
  busyMs: number;
  idleMs: number;
  byPackage: Map<Package, number>;
  frames: Array<{ fn: string; where: string; pkg: Package; ms: number }>;
}

/**
 * Self time per frame and per package, from the samples taken between `fromMs` and `toMs` (Date.now() times; the
 * whole profile when not given). Each sample counts for the sampling interval (the median gap between samples): a
 * gap the thread spent descheduled on a loaded machine, or asleep, then counts for nobody. A frame without a script
 * (native code, a built-in) counts for libsql native when the nearest frame above it with a script is in libsql's
 * binding or @libsql/client, for bun internals otherwise.
 */
export function summarize(p: CpuProfile, base: string = root, fromMs = -Infinity, toMs = Infinity): Summary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const pkgOf = new Map<number, Package | 'idle'>();
  const classify = (id: number): Package | 'idle' => {
    const known = pkgOf.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    let out: Package | 'idle';
    if (name === '(idle)') out = 'idle';
    else {
      const own = packageOfUrl(n.callFrame.url, base);
      if (own) out = own;
      else {
        out = 'bun internals (natives, built-ins, GC)';
        for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
          const above = packageOfUrl(byId.get(up)!.callFrame.url, base);
          if (above === null) continue;
          if (above === 'libsql binding + @libsql/client (JS)') out = 'libsql native (SQLite, and natives its binding calls)';
          break;
        }
      }
    }
    pkgOf.set(id, out);
    return out;
  };
  /** The nearest frame above with a script: who called a native frame. */
  const caller = (id: number): string => {
    for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
      const f = byId.get(up)!.callFrame;
      const path = pathOf(f.url);
      if (path.startsWith('/')) return `\`${f.functionName || '(anonymous)'}\` ${shortPath(path, base)}:${f.lineNumber + 1}`;
    }
    return '?';
  };
  const selfMs = new Map<number, number>();
  const deltas = p.timeDeltas;
  const intervalMs = ([...deltas].sort((a, b) => a - b)[Math.floor(deltas.length / 2)] ?? 0) / 1000;
  let atUs = p.startTime;
  let samples = 0;
  for (let i = 0; i < p.samples.length; i++) {
    atUs += deltas[i] ?? 0;
    if (atUs / 1000 < fromMs || atUs / 1000 > toMs) continue;
    samples++;
    selfMs.set(p.samples[i]!, (selfMs.get(p.samples[i]!) ?? 0) + intervalMs);
  }
  const byPackage = new Map<Package, number>(PACKAGES.map((k) => [k, 0]));
  const frames = new Map<string, { fn: string; where: string; pkg: Package; ms: number }>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, ms] of selfMs) {
    const pkg = classify(id);
    if (pkg === 'idle') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    byPackage.set(pkg, byPackage.get(pkg)! + ms);
    const f = byId.get(id)!.callFrame;
    const path = pathOf(f.url);
    const where = path ? `${shortPath(path, base)}:${f.lineNumber + 1}` : `(native) ← ${caller(id)}`;
    const key = `${f.functionName}\u0000${where}\u0000${pkg}`;
    const entry = frames.get(key) ?? { fn: f.functionName || '(anonymous)', where, pkg, ms: 0 };
    entry.ms += ms;
    frames.set(key, entry);
  }
  return { samples, busyMs, idleMs, byPackage, frames: [...frames.values()].sort((a, b) => b.ms - a.ms) };
}

export function printSummary(s: Summary, top: number): string {
  const pct = (ms: number) => `${((100 * ms) / s.busyMs).toFixed(1)} %`;
  const lines = ['| package | self time | share of CPU |', '|---|---|---|'];
  for (const [pkg, ms] of [...s.byPackage].sort((a, b) => b[1] - a[1])) if (ms > 0) lines.push(`| ${pkg} | ${ms.toFixed(0)} ms | ${pct(ms)} |`);
  lines.push(`| all (${s.samples} samples${s.idleMs > 0 ? `; ${s.idleMs.toFixed(0)} ms idle left out` : ''}) | ${s.busyMs.toFixed(0)} ms | 100 % |`);
  lines.push('', `Top ${top} frames by self time:`, '', '| self time | share | function | where | package |', '|---|---|---|---|---|');
  for (const f of s.frames.slice(0, top)) lines.push(`| ${f.ms.toFixed(0)} ms | ${pct(f.ms)} | \`${f.fn}\` | ${f.where} | ${f.pkg} |`);
  return lines.join('\n');
}

// ---- The run ----

async function main() {
  const SECONDS = intArg('seconds', 8);
  const CLIENTS = intArg('clients', 16);
  const USERS = intArg('users', 8);
  const TOP = intArg('top', 25);
  const keep = process.argv.includes('--keep');
  const cpu = cpus();
  console.log(
    `bpay server profile, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ` +
      `bun ${Bun.version}; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ` +
      `${CLIENTS} clients, ${SECONDS} s of intents then ${SECONDS} s of 3-source bcards, over HTTP`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-profile-'));
  const profDir = join(dataDir, 'profile');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = benchServerEnv({ port, dataDir, dbFile: `${dataDir}/bpay.db` });
  const start = (profile: boolean) =>
    Bun.spawn([process.execPath, ...(profile ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${profDir}`] : []), 'api/src/server.ts'], {
      cwd: root,
      stdout: 'ignore',
      stderr: 'inherit',
      env,
    });
  let server = start(false);
  const stop = async () => {
    server.kill('SIGTERM');
    await server.exited;
  };
  process.on('SIGINT', () => {
    server.kill('SIGTERM');
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    await waitFor(`${base}/api/subscription/tiers`, server, 'the bpay server');
    process.stdout.write(`setting up ${USERS} users with 3 cards each and a sandbox merchant … `);
    const { json, cookies, sources, secretKey } = await httpWorld(base, `${dataDir}/bpay.db`, { users: USERS, tag: 'profile', shop: 'Profile Shop' });
    console.log('done');
    await stop();

    server = start(true);
    await waitFor(`${base}/api/subscription/tiers`, server, 'the profiled bpay server');
    const WARMUP_S = 0.5;
    const intentBody = JSON.stringify({ amount: 1000, currency: 'usd' });
    const intentsFrom = Date.now() + WARMUP_S * 1000;
    const intents = await closedLoop(
      CLIENTS,
      SECONDS,
      WARMUP_S,
      () =>
        fetch(`${base}/api/v1/payment_intents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}`, 'idempotency-key': crypto.randomUUID() },
          body: intentBody,
        }),
      200,
    );
    const intentsTo = Date.now();
    const bcardsFrom = Date.now() + WARMUP_S * 1000;
    const bcards = await closedLoop(
      CLIENTS,
      SECONDS,
      WARMUP_S,
      (j, i) => {
        const u = (j + i * CLIENTS) % USERS;
        return fetch(`${base}/api/virtual-cards`, {
          method: 'POST',
          headers: { ...json, cookie: cookies[u]!, 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({
            name: 'Profile',
            balance: '1.00',
            fundingSources: sources[u]!.map((id, k) => ({ fundingSourceId: id, percentage: k === 0 ? 34 : 33 })),
          }),
        });
      },
      201,
    );
    const bcardsTo = Date.now();
    for (const [what, r] of [['intents', intents], ['bcards', bcards]] as const) {
      console.log(
        `${what}: ${r.perSecond.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors` +
          (r.firstError ? ` (first: ${r.firstError})` : ''),
      );
    }
    await stop();
    const files = readdirSync(profDir);
    const json_ = files.find((f) => f.endsWith('.cpuprofile'));
    const md = files.find((f) => f.endsWith('.md'));
    if (!json_) throw new Error(`no .cpuprofile was written in ${profDir} (found: ${files.join(', ') || 'nothing'})`);
    const profile = JSON.parse(await Bun.file(join(profDir, json_)).text()) as CpuProfile;
    for (const [what, from, to] of [
      ['POST /api/v1/payment_intents', intentsFrom, intentsTo],
      ['POST /api/virtual-cards, 3 sources', bcardsFrom, bcardsTo],
    ] as const) {
      console.log(`\n### ${what}: the server's main thread while the load ran (start-up and warm-up left out)\n`);
      console.log(printSummary(summarize(profile, root, from, to), TOP));
    }
    if (keep) console.log(`\nprofiles kept: ${join(profDir, json_)}${md ? ` and ${join(profDir, md)}` : ''}`);
  } finally {
    if (server.exitCode === null) await stop();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
