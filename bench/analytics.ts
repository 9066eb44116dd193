/*
 * Spending analytics at 100k transactions (issue 16, part 3; issue 31 §1): GET /api/analytics for one consumer with
 * 100,000 collections over two years, beside references from the same run. No timing target is asserted anywhere;
 * this prints figures for README's performance section (medians of per-run p50s, their min–max, ratios).
 *
 * What it does, in one process:
 *   1. A fresh app from the test kit (makeTestApp: temporary libSQL file, migrations, production PRAGMAs). The
 *      consumer (three cards) and a merchant owner with a live merchant are made through the API.
 *   2. Straight into the file with multi-row INSERTs (as bench/scale.ts): the consumer's collections spread over the
 *      last two years (90 % completed, 4 % refunded, 4 % failed, 2 % sandbox), each with one to three shares and a
 *      bcard unless failed, spent (or canceled) five minutes after it was made; one in fifty completed ones paid a
 *      live payment intent of which the merchant refunded part (a refunds row); merchants drawn from 40 names (a
 *      tenth unspent: null). Another 20,000 collections belong to other users. The spending triggers keep the
 *      figures as the rows go in (migration 0031), as they would as money moved.
 *   3. Cases (PATHS), --reps times per run in rotating order after a warm-up pass:
 *      - GET /api/analytics?months=12 and ?months=36 at UTC, ?months=36 at UTC+3 and UTC+5:30 (the month edges
 *        fall between the kept UTC months: the bcards near them are read), the CSV of 36, the Overview's summary;
 *      - reference A: GET /api/subscription/tiers (the app's floor: a trivial public read);
 *      - reference B: reading the rows: one SELECT count(*), sum(spent_cents) over the purchases of 36 months through
 *        @libsql/client on its own connection (the floor of any answer that reads every bcard, as the endpoint did).
 *   Each answer is checked, before timing, against the one worked out bcard by bcard from history
 *   (test-support/spending-reference.ts, the endpoint's former way), and the 36-month totals against reference B's
 *   sum, so a fast wrong answer cannot pass.
 *   4. Beside each case's time, the longest event-loop stall during it (stallMonitor: the longest gap between the
 *      ticks of a 1 ms interval). The embedded client runs a statement synchronously, so a stall is what every other
 *      request waits meanwhile.
 *
 * Run: bun bench/analytics.ts [--transactions=100000] [--runs=5] [--reps=11] [--keep] (keep the database, print its path)
 */
import { createClient, type Client } from '@libsql/client';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { newId } from '../api/src/lib/ids';
import { call, makeTestApp, type TestContext } from '../api/test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../api/test-support/world';
import { TableRows } from './table-rows';
import { analyticsFromHistory, summaryFromHistory } from '../api/test-support/spending-reference';
import { analyticsCsv } from '../api/src/modules/analytics/service';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const intArg = (name: string, fallback: number) => Math.max(1, Math.floor(Number(arg(name) ?? fallback)));
const TRANSACTIONS = intArg('transactions', 100_000);
const RUNS = intArg('runs', 5);
const REPS = intArg('reps', 11);
const DAY = 86_400_000;
const ROWS_PER_TX = 50_000;
/** The reads timed: analytics at UTC, at UTC+3 (Arabic-speaking users), at UTC+5:30 (an offset off the hour), its CSV, the Overview. */
const PATHS = [
  '/api/analytics?months=12',
  '/api/analytics?months=36',
  '/api/analytics?months=36&utcOffset=180',
  '/api/analytics?months=36&utcOffset=330',
  '/api/analytics.csv?months=36',
  '/api/transactions/summary',
];


/** mulberry32: two runs seed the same shapes. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}
const rnd = prng(16);


const MERCHANTS = Array.from({ length: 40 }, (_, i) => `Shop ${String(i + 1).padStart(2, '0')}`);
const COLLECTION_COLUMNS = ['id', 'user_id', 'kind', 'status', 'amount_cents', 'fee_cents', 'total_cents', 'currency', 'name', 'cardholder_name', 'merchant', 'description', 'vendor', 'refunded_cents', 'lease_owner', 'lease_until', 'created_at', 'updated_at'];

async function seed(client: Client, now: number, userId: string, otherUserIds: string[], sourceIds: string[], merchantId: string) {
  const span = 2 * 365 * DAY;
  let seq = 0;
  for (let start = 0; start < TRANSACTIONS; start += ROWS_PER_TX) {
    const cols = new TableRows('collections', COLLECTION_COLUMNS);
    const shares = new TableRows('collection_shares', ['id', 'collection_id', 'funding_source_id', 'position', 'percentage_bps', 'amount_cents', 'status', 'updated_at']);
    const cards = new TableRows('bcards', ['id', 'user_id', 'collection_id', 'name', 'cardholder_name', 'vendor', 'vendor_card_id', 'brand', 'last4', 'exp_month', 'exp_year', 'limit_cents', 'spent_cents', 'status', 'sandbox', 'expires_at', 'created_at', 'deactivated_at']);
    const intents = new TableRows('payment_intents', ['id', 'merchant_id', 'livemode', 'amount', 'currency', 'status', 'capture_method', 'bcard_id', 'amount_received', 'amount_refunded', 'metadata', 'client_secret', 'seq', 'created_at', 'updated_at']);
    const refunds = new TableRows('refunds', ['id', 'merchant_id', 'payment_intent_id', 'livemode', 'amount', 'fee_cents', 'currency', 'status', 'metadata', 'lease_owner', 'lease_until', 'seq', 'created_at', 'updated_at']);
    for (let i = start; i < Math.min(TRANSACTIONS, start + ROWS_PER_TX); i++) {
      const id = newId('col');
      const at = now - span + Math.floor((i / TRANSACTIONS) * (span - DAY));
      const amount = rnd.int(5, 500) * 100;
      const fee = Math.round((amount * 290) / 10_000);
      const total = amount + fee;
      const roll = rnd.next();
      const status = roll < 0.9 ? 'completed' : roll < 0.94 ? 'refunded' : roll < 0.98 ? 'failed' : 'completed';
      const kind = roll >= 0.98 ? 'sandbox' : 'bcard';
      const merchant = rnd.next() < 0.1 ? null : MERCHANTS[rnd.int(0, MERCHANTS.length - 1)]!;
      cols.add(id, userId, kind, status, amount, fee, total, 'usd', 'Card', 'Ada Lovelace', merchant, null, 'simulated', status === 'refunded' ? total : 0, 'seed', at, at, at);
      if (kind === 'sandbox') continue;
      const n = rnd.int(1, sourceIds.length);
      for (let p = 0; p < n; p++) {
        const part = p === 0 ? total - Math.floor(total / n) * (n - 1) : Math.floor(total / n);
        shares.add(newId('shr'), id, sourceIds[p]!, p, Math.floor(10_000 / n), part, status === 'failed' ? 'declined' : status === 'refunded' ? 'refunded' : 'captured', at);
      }
      if (status === 'failed') continue;
      const bcardId = newId('bc');
      // Spent (or canceled) within minutes of being made: spending dates it then (bcards.deactivated_at).
      cards.add(bcardId, userId, id, 'Card', 'Ada Lovelace', 'simulated', newId('ic'), 'visa', '4242', 12, 2030, amount, status === 'completed' ? amount : 0, status === 'completed' ? 'used' : 'canceled', 0, at + 30 * 60_000, at, at + 5 * 60_000);
      if (status === 'completed' && i % 50 === 0) {
        const pi = newId('pi');
        seq++;
        intents.add(pi, merchantId, 1, amount, 'usd', 'succeeded', 'automatic', bcardId, amount, 500, '{}', `${pi}_secret_seed`, seq, at, at);
        refunds.add(newId('re'), merchantId, pi, 1, 500, 14, 'usd', 'succeeded', '{}', 'seed', at, seq, at + DAY, at + DAY);
      }
    }
    // Other users' rows, interleaved in time.
    for (let i = start / 5; i < Math.min(TRANSACTIONS, start + ROWS_PER_TX) / 5; i++) {
      const at = now - span + Math.floor(((i * 5) / TRANSACTIONS) * (span - DAY));
      const amount = rnd.int(5, 500) * 100;
      cols.add(newId('col'), otherUserIds[i % otherUserIds.length]!, 'bcard', 'completed', amount, 0, amount, 'usd', 'Card', 'Someone', 'Shop 01', null, 'simulated', 0, 'seed', at, at, at);
    }
    await client.batch([...cols.statements(), ...shares.statements(), ...cards.statements(), ...intents.statements(), ...refunds.statements()], 'write');
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

interface Case {
  name: string;
  send(): Promise<{ ms: number; stall: number; check: string | null }>;
}

/**
 * The longest time the event loop went without running a timer while a request ran: a 1 ms interval notes the gap
 * between its ticks (and the gap to the end). Every other request waits that long at worst, whatever it is.
 */
function stallMonitor() {
  let last = performance.now();
  let max = 0;
  const tick = () => {
    const t = performance.now();
    max = Math.max(max, t - last);
    last = t;
  };
  const h = setInterval(tick, 1);
  return {
    stop() {
      clearInterval(h);
      tick();
      return max;
    },
  };
}

async function main() {
  const ctx: TestContext = await makeTestApp({ rateLimits: false });
  const now = ctx.clock.now().getTime();
  const c = await registerUser(ctx, { email: 'consumer@example.com' });
  await makePremium(ctx, c.user.id);
  const sourceIds: string[] = [];
  for (const number of CARDS_OK.slice(0, 3)) sourceIds.push((await addCard(ctx, c.cookie, number)).id);
  const o = await registerUser(ctx, { email: 'owner@example.com' });
  const merchant = await createMerchant(ctx, o.cookie, 'production');
  const others = [o.user.id as string, (await registerUser(ctx)).user.id as string];
  const seedClient = createClient({ url: `file:${join(ctx.dir, 'test.db')}` });
  const t0 = performance.now();
  await seed(seedClient, now, c.user.id, others, sourceIds, merchant.id);
  const seedSeconds = (performance.now() - t0) / 1000;
  seedClient.close();
  const raw = createClient({ url: `file:${join(ctx.dir, 'test.db')}` });

  const monthStart = (back: number) => {
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back + 1, 1);
  };
  /** The floor of reading the rows: the owner's purchases since a month, straight from the bcards' index range. */
  const truth = async (months: number) => {
    const r = await raw.execute({
      sql: "SELECT count(*) AS n, coalesce(sum(spent_cents), 0) AS s FROM bcards WHERE user_id = ? AND deactivated_at >= ? AND +status = 'used' AND +sandbox = 0",
      args: [c.user.id, monthStart(months)],
    });
    return { n: Number(r.rows[0]!.n), s: Number(r.rows[0]!.s) };
  };
  const expect36 = await truth(36);
  const timed = async (fn: () => Promise<unknown>) => {
    const lag = stallMonitor();
    const s = performance.now();
    const out = await fn();
    const ms = performance.now() - s;
    return { ms, stall: lag.stop(), out };
  };
  /**
   * Each answer must be the one worked out bcard by bcard from history (test-support/spending-reference.ts, the
   * endpoint's former way: seconds at this size, so once per path, before timing).
   */
  const expected = new Map<string, unknown>();
  for (const path of PATHS) {
    const url = new URL(path, 'http://localhost');
    if (url.pathname === '/api/transactions/summary') {
      const s = await summaryFromHistory(ctx.deps, c.user.id, new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1)));
      expected.set(path, { totalSpent: (s.total.spent / 100).toFixed(2), thisMonth: (s.thisMonth.spent / 100).toFixed(2), purchases: s.total.purchases });
      continue;
    }
    const q = Object.fromEntries([...url.searchParams].map(([k, v]) => [k, /^-?\d+$/.test(v) ? Number(v) : v]));
    const a = await analyticsFromHistory(ctx.deps, c.user.id, q);
    expected.set(path, path.includes('.csv') ? analyticsCsv(a) : JSON.parse(JSON.stringify(a)));
  }
  const api = (path: string): Case => ({
    name: `GET ${path}`,
    async send() {
      const { ms, stall, out } = await timed(async () => {
        const res = await ctx.app.handle(new Request(`http://localhost:3000${path}`, { headers: { cookie: c.cookie } }));
        return { status: res.status, text: await res.text() };
      });
      const { status, text } = out as { status: number; text: string };
      if (status !== 200) return { ms, stall, check: `answered ${status}` };
      const want = expected.get(path);
      if (path.includes('.csv')) return { ms, stall, check: text === want ? null : 'CSV differs from history' };
      const body = JSON.parse(text) as Record<string, unknown>;
      if (path.startsWith('/api/transactions/summary')) {
        const got = { totalSpent: body.totalSpent, thisMonth: body.thisMonth, purchases: body.purchases };
        return { ms, stall, check: Bun.deepEquals(got, want) ? null : `summary ${JSON.stringify(got)} vs ${JSON.stringify(want)}` };
      }
      if (path === '/api/analytics?months=36') {
        const t = body.totals as { charged: string; purchases: number };
        if (t.purchases !== expect36.n || t.charged !== (expect36.s / 100).toFixed(2)) return { ms, stall, check: `totals ${JSON.stringify(t)} vs ${JSON.stringify(expect36)}` };
      }
      return { ms, stall, check: Bun.deepEquals(body, want) ? null : 'differs from history' };
    },
  });
  const cases: Case[] = [
    {
      name: 'reference A: GET /api/subscription/tiers',
      send: async () => ({ ...(await timed(async () => (await call(ctx, '/api/subscription/tiers')).status)), check: null }),
    },
    {
      name: 'reference B: one SELECT sum over the purchases of 36 months (the rows)',
      send: async () => {
        const { ms, stall } = await timed(() => truth(36));
        return { ms, stall, check: null };
      },
    },
    ...PATHS.map(api),
  ];
  // The cost of keeping the figures: refreshing one spent bcard (its old parts out, its figures worked out again, its
  // parts in: what each write a bcard's figures read adds to its transaction), beside a one-row UPDATE by primary key
  // that fires no trigger, each 2,000 times in one transaction, median of 3.
  const spent = (await raw.execute({ sql: "SELECT id, collection_id FROM bcards WHERE user_id = ? AND +status = 'used' LIMIT 2000", args: [c.user.id] })).rows;
  const perRow = async (stmt: (r: (typeof spent)[number]) => { sql: string; args: Array<string | number> }) => {
    const xs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await raw.batch(spent.map(stmt), 'write');
      xs.push(((performance.now() - t) * 1000) / spent.length);
    }
    return median(xs);
  };
  const refreshUs = await perRow((r) => ({ sql: 'INSERT INTO spending_refresh (bcard_id) VALUES (?)', args: [String(r.id)] }));
  const updateUs = await perRow((r) => ({ sql: 'UPDATE collections SET updated_at = updated_at + 1 WHERE id = ?', args: [String(r.collection_id)] }));
  const keep = `a refresh ${refreshUs.toFixed(1)} µs, a one-row UPDATE by key ${updateUs.toFixed(1)} µs (${(refreshUs / updateUs).toFixed(1)}×)`;
  const problems = new Set<string>();
  for (const k of cases) {
    const r = await k.send();
    if (r.check) problems.add(`${k.name}: ${r.check}`);
  }
  const perRun = new Map<Case, number[]>(cases.map((k) => [k, []]));
  const ratioA = new Map<Case, number[]>(cases.map((k) => [k, []]));
  const ratioB = new Map<Case, number[]>(cases.map((k) => [k, []]));
  const stalls = new Map<Case, number[]>(cases.map((k) => [k, []]));
  for (let run = 0; run < RUNS; run++) {
    const samples = new Map<Case, number[]>(cases.map((k) => [k, []]));
    for (let rep = 0; rep < REPS; rep++) {
      for (let i = 0; i < cases.length; i++) {
        const k = cases[(i + rep) % cases.length]!;
        const r = await k.send();
        if (r.check) problems.add(`${k.name}: ${r.check}`);
        samples.get(k)!.push(r.ms);
        stalls.get(k)!.push(r.stall);
      }
    }
    const a = median(samples.get(cases[0]!)!);
    const b = median(samples.get(cases[1]!)!);
    for (const k of cases) {
      const p50 = median(samples.get(k)!);
      perRun.get(k)!.push(p50);
      ratioA.get(k)!.push(p50 / a);
      ratioB.get(k)!.push(p50 / b);
    }
    console.error(`  run ${run + 1}/${RUNS} done`);
  }
  console.log(`# bench:analytics — ${new Date().toISOString()}`);
  console.log(`${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, Bun ${Bun.version}`);
  console.log(`${TRANSACTIONS.toLocaleString('en')} transactions for one consumer (+${(TRANSACTIONS / 5).toLocaleString('en')} of others), seeded in ${seedSeconds.toFixed(1)} s; runs=${RUNS} reps=${REPS}`);
  console.log(`purchases in 36 months: ${expect36.n.toLocaleString('en')}\n`);
  console.log('| case | p50 ms | spread (min–max of runs) | × tiers | × raw SUM | longest stall ms: p50 – max |');
  console.log('|---|---:|---|---:|---:|---|');
  for (const k of cases) {
    const p = perRun.get(k)!;
    const st = stalls.get(k)!;
    console.log(
      `| ${k.name} | ${fmt(median(p))} | ${fmt(Math.min(...p))}–${fmt(Math.max(...p))} | ${median(ratioA.get(k)!).toFixed(1)}× | ${median(ratioB.get(k)!).toFixed(1)}× | ${fmt(median(st))} – ${fmt(Math.max(...st))} |`,
    );
  }
  console.log('\nlongest stall: the longest the event loop ran no timer during one request (a 1 ms interval; ~1 ms is no stall),');
  console.log('median and max over every request of the case: another request arriving meanwhile waits up to that long.');
  console.log(`\nkeeping the figures (what the triggers add to a write's transaction), ${keep}`);
  console.log(problems.size ? `\nWRONG ANSWERS:\n${[...problems].map((p) => `- ${p}`).join('\n')}` : '\nEvery answer matched the one worked out bcard by bcard from history (and the straight SQL sum).');
  raw.close();
  if (process.argv.includes('--keep')) {
    console.log(`\nDatabase kept: ${join(ctx.dir, 'test.db')} (consumer ${c.user.id})`);
    ctx.handle.close();
  } else ctx.close();
}

await main();
