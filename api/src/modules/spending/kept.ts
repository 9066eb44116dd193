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
 * So a range of 36 months reads its 36 UTC months (a row per month and kind and key) and the bcards within a few hours
 * of its edges, whatever the number of transactions. Plan charges (a handful a year) are read from
 * subscription_charges, as before.
 *
 * Cost and fairness: the months are read in pages of PAGE rows in key order (a user with thousands of merchants a
 * month does not make one long statement), the event loop given back between statements (`pause`); the parts near
 * the edges in one statement, bounded by the user's bcards within the windows (under a month's, the old per-statement bound).
 */

export const PAGE = 2_000;

/** One interval's figures: the totals (with what used bcards still hold), and when asked, per source and merchant. */
export interface IntervalFigures {
  figures: SpendingFigures;
  held: number;
  sources: Map<string, { spent: number; purchases: number }>;
  merchants: Map<string, { charged: number; refunded: number; spent: number; purchases: number }>;
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

interface Row {
  kind: string;
  key: string;
  charged: number;
  refunded: number;
  spent: number;
  fees: number;
  feesReturned: number;
  returned: number;
  held: number;
  purchases: number;
}

const rowOf = (r: Record<string, unknown>): Row => ({
  kind: String(r.kind),
  key: String(r.key),
  charged: num(r.charged),
  refunded: num(r.refunded),
  spent: num(r.spent),
  fees: num(r.fees),
  feesReturned: num(r.fees_returned),
  returned: num(r.returned),
  held: num(r.held),
  purchases: num(r.purchases),
});

function add(into: IntervalFigures, r: Row, sign: 1 | -1): void {
  if (r.kind === 'total') {
    const f = into.figures;
    f.charged += sign * r.charged;
    f.refunded += sign * r.refunded;
    f.spent += sign * r.spent;
    f.fees += sign * r.fees;
    f.feesReturned += sign * r.feesReturned;
    f.returned += sign * r.returned;
    f.purchases += sign * r.purchases;
    into.held += sign * r.held;
  } else if (r.kind === 'source') {
    const s = into.sources.get(r.key) ?? { spent: 0, purchases: 0 };
    s.spent += sign * r.spent;
    s.purchases += sign * r.purchases;
    into.sources.set(r.key, s);
  } else if (r.kind === 'merchant') {
    const m = into.merchants.get(r.key) ?? { charged: 0, refunded: 0, spent: 0, purchases: 0 };
    m.charged += sign * r.charged;
    m.refunded += sign * r.refunded;
    m.spent += sign * r.spent;
    m.purchases += sign * r.purchases;
    into.merchants.set(r.key, m);
  }
}

/** A source or merchant whose parts cancelled out (moved to a neighbouring interval) is not listed. */
function dropEmpty(i: IntervalFigures): void {
  for (const [k, s] of i.sources) if (s.purchases === 0 && s.spent === 0) i.sources.delete(k);
  for (const [k, m] of i.merchants) if (m.purchases === 0 && m.charged === 0 && m.refunded === 0) i.merchants.delete(k);
}

const FIGURES = sql`charged, refunded, spent, fees, fees_returned, returned, held, purchases`;

/**
 * The owner's spending figures over each interval between consecutive `edges` (epoch ms, increasing; ALL_TIME.toMs
 * for an open end). `dims` adds the per-source and per-merchant figures. `pause` runs between statements; `page` is
 * the most month rows one statement reads.
 */
export async function spendingOver(
  deps: AppDeps,
  userId: string,
  edges: number[],
  dims: boolean,
  pause: () => Promise<void>,
  page = PAGE,
): Promise<IntervalFigures[]> {
  if (edges.length < 2) throw new RangeError('at least two edges are needed');
  for (let i = 1; i < edges.length; i++) if (!(edges[i]! > edges[i - 1]!)) throw new RangeError('edges must increase');
  const out: IntervalFigures[] = edges.slice(1).map(() => ({ figures: zeroFigures(), held: 0, sources: new Map(), merchants: new Map() }));
  const months = edges.map(nearestMonth);
  /** The interval a UTC month is counted in, or -1. */
  const monthInterval = (m: number) => {
    const i = lastAtOrBelow(months, m);
    return i >= 0 && i < out.length && m < months[i + 1]! ? i : -1;
  };
  /** The interval an instant belongs to, or -1. */
  const instantInterval = (ms: number) => {
    const i = lastAtOrBelow(edges, ms);
    return i < out.length ? i : -1;
  };
  const kinds = dims ? sql`IN ('merchant', 'source', 'total')` : sql`= 'total'`;
  const firstMonth = months[0]!;
  const lastMonth = Math.min(months[months.length - 1]!, monthOf(ALL_TIME.toMs) + 1);

  // The UTC months, a page at a time in key order (the primary key's: no sort).
  let after: [string, number, string] | null = null;
  for (;;) {
    const rows: Array<Record<string, unknown>> = await deps.db.all<Record<string, unknown>>(sql`SELECT kind, month, key, ${FIGURES}
      FROM spending_months WHERE user_id = ${userId} AND kind ${kinds} AND month >= ${firstMonth} AND month < ${lastMonth}
      ${after ? sql`AND (kind, month, key) > (${after[0]}, ${after[1]}, ${after[2]})` : sql``}
      ORDER BY kind, month, key LIMIT ${page}`);
    await pause();
    for (const r of rows) {
      const i = monthInterval(num(r.month));
      if (i >= 0) add(out[i]!, rowOf(r), 1);
    }
    if (rows.length < page) break;
    const last = rows[rows.length - 1]!;
    after = [String(last.kind), num(last.month), String(last.key)];
  }

  // The parts between each edge and its nearest UTC month start (windows merged where they touch).
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
  if (windows.length > 0) {
    const ranges = sql.join(
      windows.map(([lo, hi]) => sql`(${lo}, ${hi})`),
      sql`, `,
    );
    const rows = await deps.db.all<Record<string, unknown>>(sql`SELECT p.at AS at, p.month AS month, p.kind AS kind, p.key AS key,
        p.charged AS charged, p.refunded AS refunded, p.spent AS spent, p.fees AS fees, p.fees_returned AS fees_returned,
        p.returned AS returned, p.held AS held, p.purchases AS purchases
      FROM (SELECT column1 AS lo, column2 AS hi FROM (VALUES ${ranges})) w
        CROSS JOIN spending_parts p ON p.user_id = ${userId} AND p.at >= w.lo AND p.at < w.hi
      WHERE p.kind ${kinds}`);
    await pause();
    for (const r of rows) {
      const counted = monthInterval(num(r.month));
      const belongs = instantInterval(num(r.at));
      if (counted === belongs) continue;
      const row = rowOf(r);
      if (counted >= 0) add(out[counted]!, row, -1);
      if (belongs >= 0) add(out[belongs]!, row, 1);
    }
  }

  // Plan charges, dated when made (a handful a year; their own index).
  const plans = await deps.db.all<Record<string, unknown>>(sql`SELECT p.created_at AS at, p.amount_cents AS x FROM subscription_charges p
    WHERE p.user_id = ${userId} AND p.created_at >= ${edges[0]!} AND p.created_at < ${edges[edges.length - 1]!} AND +p.status = 'succeeded'`);
  for (const p of plans) {
    const i = instantInterval(num(p.at));
    if (i < 0) continue;
    out[i]!.figures.planCharges += num(p.x);
    out[i]!.figures.planChargeCount += 1;
  }
  for (const i of out) dropEmpty(i);
  return out;
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
}

/** The Overview's figures: all time, since `monthStart` (the viewer's month), and what bcards hold now. */
export async function spendingSummary(deps: AppDeps, userId: string, monthStart: Date, pause: () => Promise<void> = async () => {}): Promise<SpendingSummary> {
  const start = monthStart.getTime();
  const edges = start > ALL_TIME.fromMs && start < ALL_TIME.toMs ? [ALL_TIME.fromMs, start, ALL_TIME.toMs] : [ALL_TIME.fromMs, ALL_TIME.toMs];
  const parts = await spendingOver(deps, userId, edges, false, pause);
  const total = zeroFigures();
  for (const k of Object.keys(total) as Array<keyof SpendingFigures>) total[k] = parts.reduce((a, p) => a + p.figures[k], 0);
  const thisMonth = parts.length === 2 ? parts[1]!.figures : start <= ALL_TIME.fromMs ? total : zeroFigures();
  const [live] = await deps.db.all<Record<string, unknown>>(liveBcards(userId));
  return { total, thisMonth, heldOnBcards: num(live?.x) + parts.reduce((a, p) => a + p.held, 0), liveBcards: num(live?.n) };
}
