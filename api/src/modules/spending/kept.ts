import { sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import { ALL_TIME, liveBcards, zeroFigures, type SpendingFigures } from './service';

/*
 * Spending figures read from what is kept as money moves (issue 31 §1; migration 0031_spending_figures). Triggers keep,
 * in the transaction of every write that changes a bcard's figures, the bcard's parts (spending_parts: its figures,
 * its merchant's and each funding source's part, dated by bcards.deactivated_at) and their sums per user, kind and
 * UTC month (spending_months). The figures are those of bcardsEnded (service.ts), the one definition; a test works
 * them out again from history and compares (api/test-support/spending-reference.ts).
 *
 * Any set of intervals [E0, E1), [E1, E2), ... at any instants (months at the viewer's offset, the Overview's month
 * start) is read as:
 * - the UTC months, each counted in the interval whose edges, rounded to the nearest UTC month start, hold it;
 * - and the parts near each edge, between the edge and that UTC month start (at most half a month; 14 hours for a
 *   month at a UTC offset): each such part is moved from the interval its UTC month was counted in to the one its
 *   instant belongs to. Exact at every offset, to the millisecond.
 * So a range of 36 months reads its UTC months' totals and sources (a row per month and kind and key), each
 * merchant's sum over them (SQL adds them up), and the parts within hours of its edges summed per piece of window,
 * whatever the number of transactions. Plan charges (a handful a year) are read from subscription_charges, as before.
 *
 * Cost and fairness: one statement reads it all, the event loop given back after it (`pause`). What it reads is bounded
 * by the user's own rows: PAGE month rows of totals and sources (more take a statement each, in key order), the span's
 * merchant-month rows (at most one per purchase), and the user's bcards within the windows near the edges (under a
 * month's bcards: the old per-statement bound).
 */

export const PAGE = 2_000;

/** One interval's figures: the totals (with what used bcards still hold), and when asked, per source. */
export interface IntervalFigures {
  figures: SpendingFigures;
  held: number;
  sources: Map<string, { spent: number; purchases: number }>;
}

export type MerchantFigures = Map<string, { charged: number; refunded: number; spent: number; purchases: number }>;

/** The figures over each interval, and when asked, each merchant's over all of them together. */
export interface SpendingOver {
  intervals: IntervalFigures[];
  merchants: MerchantFigures;
}

const num = (v: unknown) => Number(v ?? 0);
const monthOf = (ms: number) => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};
const monthStart = (m: number) => Date.UTC(Math.floor(m / 12), m % 12, 1);

/** The UTC month whose start is nearest to `ms` (the open end: past every month). */
function nearestMonth(ms: number): number {
  if (ms >= ALL_TIME.toMs) return Number.POSITIVE_INFINITY;
  const m = monthOf(ms);
  return ms - monthStart(m) > monthStart(m + 1) - ms ? m + 1 : m;
}

/** The last index i with sorted[i] <= x, or -1. */
function lastAtOrBelow(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A row of figures as the statement hands them over: [charged, refunded, spent, fees, feesReturned, returned, held, purchases]. */
type Figures8 = [number, number, number, number, number, number, number, number];

/** Adds a total (`key` null) or a source's figures into an interval, `sign` times. */
function add(into: IntervalFigures, key: string | null, f: Figures8, sign: 1 | -1): void {
  if (key === null) {
    const t = into.figures;
    t.charged += sign * f[0];
    t.refunded += sign * f[1];
    t.spent += sign * f[2];
    t.fees += sign * f[3];
    t.feesReturned += sign * f[4];
    t.returned += sign * f[5];
    into.held += sign * f[6];
    t.purchases += sign * f[7];
    return;
  }
  const s = into.sources.get(key) ?? { spent: 0, purchases: 0 };
  s.spent += sign * f[2];
  s.purchases += sign * f[7];
  into.sources.set(key, s);
}

function addMerchant(into: MerchantFigures, key: string, f: Figures8, sign: 1 | -1): void {
  const m = into.get(key) ?? { charged: 0, refunded: 0, spent: 0, purchases: 0 };
  m.charged += sign * f[0];
  m.refunded += sign * f[1];
  m.spent += sign * f[2];
  m.purchases += sign * f[7];
  into.set(key, m);
}

const FIGURES = sql`charged, refunded, spent, fees, fees_returned, returned, held, purchases`;
const SUMS = sql`sum(charged) AS charged, sum(refunded) AS refunded, sum(spent) AS spent, sum(fees) AS fees,
  sum(fees_returned) AS fees_returned, sum(returned) AS returned, sum(held) AS held, sum(purchases) AS purchases`;
/** A row's figures as a JSON array (Figures8). */
const FIGURES_JSON = sql`json_array(charged, refunded, spent, fees, fees_returned, returned, held, purchases)`;

/**
 * The owner's spending figures over each interval between consecutive `edges` (epoch ms, increasing; ALL_TIME.toMs
 * for an open end). `dims` adds each interval's per-source figures and the merchants' over the whole span. `pause`
 * runs between statements; `page` is the most month rows one statement reads.
 *
 * One statement answers everything as one row of JSON documents built by SQLite (the driver's per-cell cost, not the
 * reading, was most of the time of a row-per-figure answer): the months' totals and sources (a page of them, in
 * primary-key order), the merchants' sums over the span, the parts near the edges summed per piece of window
 * (merchants only where the span's own ends move them), the plan charges. Further pages of months, when there are
 * more than `page`, take a statement each.
 */
export async function spendingOver(
  deps: AppDeps,
  userId: string,
  edges: number[],
  dims: boolean,
  pause: () => Promise<void>,
  page = PAGE,
): Promise<SpendingOver> {
  if (edges.length < 2) throw new RangeError('at least two edges are needed');
  for (let i = 1; i < edges.length; i++) if (!(edges[i]! > edges[i - 1]!)) throw new RangeError('edges must increase');
  const intervals: IntervalFigures[] = edges.slice(1).map(() => ({ figures: zeroFigures(), held: 0, sources: new Map() }));
  const merchants: MerchantFigures = new Map();
  const months = edges.map(nearestMonth);
  /** The interval a UTC month is counted in, or -1. */
  const monthInterval = (m: number) => {
    const i = lastAtOrBelow(months, m);
    return i >= 0 && i < intervals.length && m < months[i + 1]! ? i : -1;
  };
  /** The interval an instant belongs to, or -1. */
  const instantInterval = (ms: number) => {
    const i = lastAtOrBelow(edges, ms);
    return i < intervals.length ? i : -1;
  };
  const firstMonth = months[0]!;
  const endMonth = Math.min(months[months.length - 1]!, monthOf(ALL_TIME.toMs) + 1);
  const kinds = dims ? sql`IN ('source', 'total')` : sql`= 'total'`;

  // The parts between each edge and its nearest UTC month start are moved from the interval their month was counted
  // in to the one they belong to. The windows are cut at every edge and month start inside them, so every piece has
  // one month and one interval, and SQL sums each piece.
  const cuts = [...new Set([...edges, ...months.filter(Number.isFinite).map(monthStart)])].sort((a, b) => a - b);
  const windows: Array<[number, number]> = [];
  edges.forEach((e, k) => {
    if (!Number.isFinite(months[k]!)) return;
    const s = monthStart(months[k]!);
    if (s === e) return;
    const w: [number, number] = [Math.min(e, s), Math.max(e, s)];
    const prev = windows[windows.length - 1];
    if (prev && w[0] <= prev[1]) prev[1] = Math.max(prev[1], w[1]);
    else windows.push(w);
  });
  const pieces: Array<{ lo: number; hi: number; counted: number; belongs: number }> = [];
  for (const [lo, hi] of windows) {
    const bounds = [lo, ...cuts.filter((c) => c > lo && c < hi), hi];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const p = { lo: bounds[i]!, hi: bounds[i + 1]!, counted: monthInterval(monthOf(bounds[i]!)), belongs: instantInterval(bounds[i]!) };
      if (p.counted !== p.belongs) pieces.push(p);
    }
  }

  const monthsPage = (after: [number, number, string] | null) => sql`(SELECT json_group_array(json_array(kind = 'total', month, key, ${FIGURES_JSON}))
    FROM (SELECT kind, month, key, ${FIGURES} FROM spending_months
      WHERE user_id = ${userId} AND kind ${kinds} AND month >= ${firstMonth} AND month < ${endMonth}
      ${after ? sql`AND (kind, month, key) > (${after[0] ? 'total' : 'source'}, ${after[1]}, ${after[2]})` : sql``}
      ORDER BY kind, month, key LIMIT ${page}))`;
  // Moving a merchant between two intervals of the span leaves its sum over the span as it was: only the pieces at
  // the span's ends are read for merchants.
  const edgeParts = pieces.length
    ? sql`(SELECT json_group_array(json_array(piece, kind = 'total', kind = 'merchant', key, ${FIGURES_JSON})) FROM (
        SELECT w.i AS piece, p.kind AS kind, p.key AS key, ${SUMS}
        FROM (SELECT column1 AS i, column2 AS lo, column3 AS hi, column4 AS m FROM (VALUES ${sql.join(
          pieces.map((p, i) => sql`(${i}, ${p.lo}, ${p.hi}, ${dims && (p.counted < 0 || p.belongs < 0) ? 1 : 0})`),
          sql`, `,
        )})) w
          CROSS JOIN spending_parts p ON p.user_id = ${userId} AND p.at >= w.lo AND p.at < w.hi
        WHERE p.kind ${kinds} OR (p.kind = 'merchant' AND w.m = 1)
        GROUP BY w.i, p.kind, p.key))`
    : sql`NULL`;
  const merchantSums = dims
    ? sql`(SELECT json_group_array(json_array(key, ${FIGURES_JSON})) FROM (
        SELECT key, ${SUMS} FROM spending_months
        WHERE user_id = ${userId} AND kind = 'merchant' AND month >= ${firstMonth} AND month < ${endMonth} GROUP BY key))`
    : sql`NULL`;
  // Plan charges, dated when made (a handful a year; their own index).
  const plans = sql`(SELECT json_group_array(json_array(p.created_at, p.amount_cents)) FROM subscription_charges p
    WHERE p.user_id = ${userId} AND p.created_at >= ${edges[0]!} AND p.created_at < ${edges[edges.length - 1]!} AND +p.status = 'succeeded')`;

  const parse = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown[]) : []);
  let after: [number, number, string] | null = null;
  for (let first = true; ; first = false) {
    const [row] = await deps.db.all<Record<string, unknown>>(
      first
        ? sql`SELECT ${monthsPage(null)} AS months, ${merchantSums} AS merchants, ${edgeParts} AS edges, ${plans} AS plans`
        : sql`SELECT ${monthsPage(after)} AS months`,
    );
    await pause();
    const monthRows = parse(row?.months) as Array<[number, number, string, Figures8]>;
    for (const [total, month, key, f] of monthRows) {
      const i = monthInterval(month);
      if (i >= 0) add(intervals[i]!, total ? null : key, f, 1);
    }
    if (first) {
      for (const [key, f] of parse(row?.merchants) as Array<[string, Figures8]>) addMerchant(merchants, key, f, 1);
      for (const [piece, total, merchant, key, f] of parse(row?.edges) as Array<[number, number, number, string, Figures8]>) {
        const p = pieces[piece]!;
        if (merchant) {
          addMerchant(merchants, key, f, p.belongs >= 0 ? 1 : -1);
          continue;
        }
        if (p.counted >= 0) add(intervals[p.counted]!, total ? null : key, f, -1);
        if (p.belongs >= 0) add(intervals[p.belongs]!, total ? null : key, f, 1);
      }
      for (const [at, amount] of parse(row?.plans) as Array<[number, number]>) {
        const i = instantInterval(at);
        if (i < 0) continue;
        intervals[i]!.figures.planCharges += amount;
        intervals[i]!.figures.planChargeCount += 1;
      }
    }
    if (monthRows.length < page) break;
    // The next page starts after this one's last row in key order (kind, month, key as SQLite orders them: 'source'
    // before 'total', text by its bytes), whatever order the array came in.
    const last = monthRows.reduce((a, r) => (r[0] - a[0] || r[1] - a[1] || Buffer.compare(Buffer.from(r[2]), Buffer.from(a[2]))) > 0 ? r : a);
    after = [last[0], last[1], last[2]];
  }
  // A source or merchant whose parts cancelled out (moved to a neighbouring interval, or out of the span) is not listed.
  for (const i of intervals) for (const [k, x] of i.sources) if (x.purchases === 0 && x.spent === 0) i.sources.delete(k);
  for (const [k, m] of merchants) if (m.purchases === 0 && m.charged === 0 && m.refunded === 0) merchants.delete(k);
  return { intervals, merchants };
}

export interface SpendingSummary {
  /** Everything so far. */
  total: SpendingFigures;
  /** Bcards spent or ended, and plan charges made, since monthStart. */
  thisMonth: SpendingFigures;
  /** Money on bcards now: live bcards' amounts and remainders still on their way back. */
  heldOnBcards: number;
  /** Live bcards (deactivated_at NULL) holding it. */
  liveBcards: number;
  /** Of them, the active ones (not yet authorized, expiring or canceling). */
  activeBcards: number;
}

/** The Overview's figures: all time, since `monthStart` (the viewer's month), and what bcards hold now. */
export async function spendingSummary(deps: AppDeps, userId: string, monthStart: Date, pause: () => Promise<void> = async () => {}): Promise<SpendingSummary> {
  const start = monthStart.getTime();
  const edges = start > ALL_TIME.fromMs && start < ALL_TIME.toMs ? [ALL_TIME.fromMs, start, ALL_TIME.toMs] : [ALL_TIME.fromMs, ALL_TIME.toMs];
  const parts = (await spendingOver(deps, userId, edges, false, pause)).intervals;
  const total = zeroFigures();
  for (const k of Object.keys(total) as Array<keyof SpendingFigures>) total[k] = parts.reduce((a, p) => a + p.figures[k], 0);
  const thisMonth = parts.length === 2 ? parts[1]!.figures : start <= ALL_TIME.fromMs ? total : zeroFigures();
  const [live] = await deps.db.all<Record<string, unknown>>(liveBcards(userId));
  return { total, thisMonth, heldOnBcards: num(live?.x) + parts.reduce((a, p) => a + p.held, 0), liveBcards: num(live?.n), activeBcards: num(live?.active) };
}
