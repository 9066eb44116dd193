import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { invalid } from '../../errors';
import type { AppDeps } from '../../deps';
import { csvDocument } from '../../lib/csv';

/*
 * The consumer's spending analytics (issue 16, part 3). Every figure is summed by the database (GROUP BY over the
 * owner's collections, read through collections_user_status_idx); only the grouped rows (months, sources, top
 * merchants) come back to JS. What counts:
 * - a transaction counts when its shares were captured and a bcard issued: status completed, refunding or refunded
 *   (the admin panel's "succeeded collection"). Pending and failed ones moved no money for good; merchants' sandbox
 *   test bcards (kind sandbox) are never the owner's money.
 * - spent is the purchase amount (fee apart); fees the bpay fee charged; refunded what came back to the sources:
 *   the bcard's own refunds (collections.refunded_cents: an unused bcard in full, fee included, or what a purchase
 *   left on it) plus merchants' succeeded refunds (amount and the fee returned with it); net = spent + fees - refunded.
 * - everything is dated by the transaction's month, refunds included (a merchant's refund in March of a January
 *   purchase lowers January's net), so a month's net is what that month's purchases finally cost.
 * - a source's figure is its shares' amounts (what it was charged, fee included), before refunds.
 * Months are calendar months at the viewer's UTC offset (the browser's offset now; a DST change moves a month's edge
 * by an hour for part of the year).
 */

export const MAX_MONTHS = 36;
export const MAX_TOP = 20;
export const MAX_UTC_OFFSET = 14 * 60;

const money = (c: number) => formatDecimal(c as Cents);
const num = (v: unknown) => Number(v ?? 0);

export interface AnalyticsRange {
  /** First month, YYYY-MM. */
  from: string;
  /** Last month, YYYY-MM (inclusive). */
  to: string;
  /** Minutes east of UTC that month edges are taken at. */
  utcOffset: number;
}

export interface AnalyticsQuery {
  months?: number;
  from?: string;
  to?: string;
  utcOffset?: number;
  top?: number;
}

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Months since year 0 of a YYYY-MM string, or null. */
function monthIndex(s: string): number | null {
  const m = MONTH_RE.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  if (y < 2000 || y > 2999) return null;
  return y * 12 + (Number(m[2]) - 1);
}
const monthName = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;

/**
 * The range asked for, checked: `months` (the last n months, this one included) or `from` and `to` (both, YYYY-MM),
 * never both ways at once. Fails with validation_error naming the parameter.
 */
export function resolveRange(now: Date, q: AnalyticsQuery): AnalyticsRange & { top: number; fromMs: number; toMs: number; monthList: string[] } {
  const utcOffset = q.utcOffset ?? 0;
  if (!Number.isInteger(utcOffset) || Math.abs(utcOffset) > MAX_UTC_OFFSET) {
    throw invalid('utcOffset', `utcOffset must be a whole number of minutes between -${MAX_UTC_OFFSET} and ${MAX_UTC_OFFSET}.`);
  }
  const top = q.top ?? 5;
  if (!Number.isInteger(top) || top < 1 || top > MAX_TOP) throw invalid('top', `top must be a whole number between 1 and ${MAX_TOP}.`);
  let first: number;
  let last: number;
  if (q.from !== undefined || q.to !== undefined) {
    if (q.months !== undefined) throw invalid('months', 'Give either months or from and to, not both.');
    if (q.from === undefined) throw invalid('from', 'from is required with to (a month, YYYY-MM).');
    if (q.to === undefined) throw invalid('to', 'to is required with from (a month, YYYY-MM).');
    const f = monthIndex(q.from);
    if (f === null) throw invalid('from', 'from must be a month written YYYY-MM (for example 2026-01).');
    const t = monthIndex(q.to);
    if (t === null) throw invalid('to', 'to must be a month written YYYY-MM (for example 2026-01).');
    if (t < f) throw invalid('to', 'to must not be before from.');
    if (t - f + 1 > MAX_MONTHS) throw invalid('from', `The range can span at most ${MAX_MONTHS} months.`);
    first = f;
    last = t;
  } else {
    const months = q.months ?? 12;
    if (!Number.isInteger(months) || months < 1 || months > MAX_MONTHS) {
      throw invalid('months', `months must be a whole number between 1 and ${MAX_MONTHS}.`);
    }
    const local = new Date(now.getTime() + utcOffset * 60_000);
    last = local.getUTCFullYear() * 12 + local.getUTCMonth();
    first = last - months + 1;
  }
  const edge = (i: number) => Date.UTC(Math.floor(i / 12), i % 12, 1) - utcOffset * 60_000;
  return {
    from: monthName(first),
    to: monthName(last),
    utcOffset,
    top,
    fromMs: edge(first),
    toMs: edge(last + 1),
    monthList: Array.from({ length: last - first + 1 }, (_, i) => monthName(first + i)),
  };
}

export interface AnalyticsMonth {
  month: string;
  spent: string;
  fees: string;
  feesReturned: string;
  refunded: string;
  net: string;
  transactions: number;
  /** What each source was charged this month (fee included), sources with nothing left out. */
  sources: Array<{ fundingSourceId: string; charged: string }>;
}

export interface AnalyticsSource {
  fundingSourceId: string;
  name: string;
  brand: string;
  last4: string;
  /** The source was removed since (its history stays). */
  removed: boolean;
  charged: string;
  transactions: number;
}

export interface AnalyticsMerchant {
  /** null: bcards not (yet) spent at a merchant. */
  merchant: string | null;
  spent: string;
  transactions: number;
}

export interface Analytics {
  range: AnalyticsRange;
  currency: 'usd';
  totals: {
    spent: string;
    fees: string;
    feesReturned: string;
    refunded: string;
    bcardRefunds: string;
    merchantRefunds: string;
    net: string;
    transactions: number;
  };
  months: AnalyticsMonth[];
  sources: AnalyticsSource[];
  merchants: AnalyticsMerchant[];
  /** The merchants after the top ones, together; null when there are none. */
  otherMerchants: { spent: string; transactions: number; merchants: number } | null;
}

/*
 * Cost and fairness (the server's rule: no single request may slow the server for others). The embedded libSQL
 * client runs a statement synchronously on the event loop, so one statement over years of rows stalls every other
 * request for as long as it runs. Hence:
 * - one month per statement (a slice), the event loop given back between slices (yieldToLoop): another request
 *   waits at most one month of one user's rows. Each slice seeks its month's range of
 *   collections_user_status_idx (user_id, status, created_at) per counted status; its month is known beforehand,
 *   so no row needs its month computed.
 * - one statement per slice answers all three groupings (by merchant, which also sums the month; by source; the
 *   merchants' refunds). Joins run from the owner's rows outward (CROSS JOIN fixes the order), and the refunds'
 *   status is no index key (+r.status): SQLite would otherwise start from every succeeded refund of every merchant
 *   on the platform (refunds_status_idx), a cost that grows with everyone's refunds, paid again in every slice.
 * - one computation per user at a time (AnalyticsGate): the same user and range asked again meanwhile shares the
 *   answer under way; another range waits its turn. One user cannot multiply the load by sending many at once.
 */

/** What a slice statement returns: part 0 per merchant, 1 per funding source, 2 the merchants' refunds (one row). */
interface SliceRow {
  part: number;
  k: string | null;
  n: number;
  x: number | null;
  y: number | null;
  z: number | null;
  w: number | null;
}

/** The owner's counted transactions (see the header) of one slice [fromMs, toMs), aliased c. */
const countedIn = (userId: string, fromMs: number, toMs: number) =>
  sql`c.user_id = ${userId} AND c.status IN ('completed', 'refunding', 'refunded') AND c.created_at >= ${fromMs} AND c.created_at < ${toMs} AND c.kind != 'sandbox'`;

/** One month of one user's figures, in one statement (see "Cost and fairness"). Exported for the query-plan test. */
export function sliceQuery(userId: string, fromMs: number, toMs: number): SQL {
  const w = () => countedIn(userId, fromMs, toMs);
  return sql`SELECT 0 AS part, c.merchant AS k, count(*) AS n, sum(c.amount_cents) AS x, sum(c.fee_cents) AS y,
      sum(c.refunded_cents) AS z, sum(CASE WHEN c.status = 'refunded' THEN c.fee_cents ELSE 0 END) AS w
    FROM collections c WHERE ${w()} GROUP BY c.merchant
  UNION ALL
  SELECT 1, s.funding_source_id, count(*), sum(s.amount_cents), NULL, NULL, NULL
    FROM collections c CROSS JOIN collection_shares s ON s.collection_id = c.id
    WHERE ${w()} GROUP BY s.funding_source_id
  UNION ALL
  SELECT 2, NULL, count(*), sum(r.amount), sum(r.fee_cents), NULL, NULL
    FROM collections c CROSS JOIN bcards b ON b.collection_id = c.id
      CROSS JOIN payment_intents pi ON pi.bcard_id = b.id
      CROSS JOIN refunds r ON r.payment_intent_id = pi.id AND +r.status = 'succeeded'
    WHERE ${w()}`;
}

/** Gives the event loop back: every request waiting meanwhile runs before the next slice. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One analytics computation per user at a time. A request for the user and range (and top) already under way or
 * waiting shares that promise; any other range of the same user runs after the user's earlier ones. Nothing is kept
 * once answered: the next request computes afresh (figures change as the user spends).
 */
export class AnalyticsGate {
  private readonly shared = new Map<string, Promise<Analytics>>();
  private readonly tail = new Map<string, Promise<void>>();

  run(userId: string, key: string, work: () => Promise<Analytics>): Promise<Analytics> {
    const k = `${userId}\n${key}`;
    const same = this.shared.get(k);
    if (same) return same;
    const answer = (this.tail.get(userId) ?? Promise.resolve()).then(work);
    const done = answer.then(
      () => undefined,
      () => undefined,
    );
    this.shared.set(k, answer);
    this.tail.set(userId, done);
    void done.then(() => {
      if (this.shared.get(k) === answer) this.shared.delete(k);
      if (this.tail.get(userId) === done) this.tail.delete(userId);
    });
    return answer;
  }

  /** Users with a computation under way or waiting (for tests: nothing stays behind). */
  get size() {
    return this.tail.size;
  }
}

const gates = new WeakMap<AppDeps, AnalyticsGate>();
/** The app's gate (one per app: tests run many apps in one process). */
export function analyticsGate(deps: AppDeps): AnalyticsGate {
  let g = gates.get(deps);
  if (!g) gates.set(deps, (g = new AnalyticsGate()));
  return g;
}

/** SQLite's order for the merchant tie-break: NULL first, then text by its UTF-8 bytes (BINARY). */
function sqliteOrder(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * Spending analytics of one user over a range. Fails with validation_error (range, top, utcOffset).
 * `pause` runs between slices (yieldToLoop; a test counts them).
 */
export async function spendingAnalytics(deps: AppDeps, userId: string, q: AnalyticsQuery, pause: () => Promise<void> = yieldToLoop): Promise<Analytics> {
  const r = resolveRange(deps.clock.now(), q);
  return analyticsGate(deps).run(userId, `${r.from}|${r.to}|${r.utcOffset}|${r.top}`, () => compute(deps, userId, r, pause));
}

async function compute(deps: AppDeps, userId: string, r: ReturnType<typeof resolveRange>, pause: () => Promise<void>): Promise<Analytics> {
  const first = monthIndex(r.from)!;
  const edge = (i: number) => Date.UTC(Math.floor(i / 12), i % 12, 1) - r.utcOffset * 60_000;

  const totals = { spent: 0, fees: 0, feesReturned: 0, bcardRefunds: 0, merchantRefunds: 0, transactions: 0 };
  const sourceTotals = new Map<string, { charged: number; n: number }>();
  const merchantTotals = new Map<string | null, { spent: number; n: number }>();
  const months: AnalyticsMonth[] = [];
  for (let i = 0; i < r.monthList.length; i++) {
    const rows = await deps.db.all<SliceRow>(sliceQuery(userId, edge(first + i), edge(first + i + 1)));
    await pause();
    let n = 0;
    let spent = 0;
    let fees = 0;
    let bcardRefunds = 0;
    let feesBack = 0;
    let mrAmount = 0;
    let mrFee = 0;
    const sources: Array<{ fundingSourceId: string; charged: number }> = [];
    for (const row of rows) {
      const part = num(row.part);
      if (part === 0) {
        n += num(row.n);
        spent += num(row.x);
        fees += num(row.y);
        bcardRefunds += num(row.z);
        feesBack += num(row.w);
        const m = merchantTotals.get(row.k) ?? { spent: 0, n: 0 };
        m.spent += num(row.x);
        m.n += num(row.n);
        merchantTotals.set(row.k, m);
      } else if (part === 1) {
        const id = String(row.k);
        sources.push({ fundingSourceId: id, charged: num(row.x) });
        const t = sourceTotals.get(id) ?? { charged: 0, n: 0 };
        t.charged += num(row.x);
        t.n += num(row.n);
        sourceTotals.set(id, t);
      } else {
        mrAmount += num(row.x);
        mrFee += num(row.y);
      }
    }
    const merchantBack = mrAmount + mrFee;
    const refunded = bcardRefunds + merchantBack;
    const feesReturned = feesBack + mrFee;
    totals.spent += spent;
    totals.fees += fees;
    totals.feesReturned += feesReturned;
    totals.bcardRefunds += bcardRefunds;
    totals.merchantRefunds += merchantBack;
    totals.transactions += n;
    months.push({
      month: r.monthList[i]!,
      spent: money(spent),
      fees: money(fees),
      feesReturned: money(feesReturned),
      refunded: money(refunded),
      net: money(spent + fees - refunded),
      transactions: n,
      sources: sources
        .sort((a, b) => b.charged - a.charged || (a.fundingSourceId < b.fundingSourceId ? -1 : 1))
        .map((s) => ({ fundingSourceId: s.fundingSourceId, charged: money(s.charged) })),
    });
  }

  // The owner's sources (a handful): one short statement.
  const ids = [...sourceTotals.keys()];
  const sourceRows = ids.length
    ? await deps.db
        .select({
          id: schema.fundingSources.id,
          name: schema.fundingSources.name,
          brand: schema.fundingSources.brand,
          last4: schema.fundingSources.last4,
          deletedAt: schema.fundingSources.deletedAt,
        })
        .from(schema.fundingSources)
        .where(and(inArray(schema.fundingSources.id, ids), eq(schema.fundingSources.userId, userId)))
    : [];
  const sources: AnalyticsSource[] = sourceRows
    .map((s) => {
      const t = sourceTotals.get(s.id)!;
      return { fundingSourceId: s.id, name: s.name, brand: s.brand, last4: s.last4, removed: s.deletedAt !== null, charged: t.charged, transactions: t.n };
    })
    .sort((a, b) => b.charged - a.charged || (a.fundingSourceId < b.fundingSourceId ? -1 : 1))
    .map((s) => ({ ...s, charged: money(s.charged) }));

  // Top merchants over the whole range: largest spent first, ties in SQLite's order of the name (as ORDER BY would).
  const ranked = [...merchantTotals].sort(([ma, a], [mb, b]) => b.spent - a.spent || sqliteOrder(ma, mb));
  const merchants = ranked.slice(0, r.top).map(([merchant, x]) => ({ merchant, spent: x.spent, transactions: x.n }));
  const topSpent = merchants.reduce((a, x) => a + x.spent, 0);
  const topN = merchants.reduce((a, x) => a + x.transactions, 0);
  const otherCount = ranked.length - merchants.length;
  const refunded = totals.bcardRefunds + totals.merchantRefunds;

  return {
    range: { from: r.from, to: r.to, utcOffset: r.utcOffset },
    currency: 'usd',
    totals: {
      spent: money(totals.spent),
      fees: money(totals.fees),
      feesReturned: money(totals.feesReturned),
      refunded: money(refunded),
      bcardRefunds: money(totals.bcardRefunds),
      merchantRefunds: money(totals.merchantRefunds),
      net: money(totals.spent + totals.fees - refunded),
      transactions: totals.transactions,
    },
    months,
    sources,
    merchants: merchants.map((x) => ({ ...x, spent: money(x.spent) })),
    otherMerchants:
      otherCount > 0 ? { spent: money(totals.spent - topSpent), transactions: totals.transactions - topN, merchants: otherCount } : null,
  };
}

export const ANALYTICS_CSV_COLUMNS = ['figure', 'month', 'item', 'amount', 'transactions'] as const;

/**
 * The same figures as CSV, one figure a row ("long" form, so a spreadsheet can pivot it): per month spent, fees,
 * fees_returned, refunded, net; per month and source source_charged; per source (month "all") source_charged; per
 * merchant merchant_spent (the rest as item "Other merchants"); and the totals (month "all").
 */
export function analyticsCsv(a: Analytics): string {
  const rows: string[][] = [[...ANALYTICS_CSV_COLUMNS]];
  const label = (id: string) => {
    const s = a.sources.find((x) => x.fundingSourceId === id);
    return s ? `${s.name} •••• ${s.last4}` : id;
  };
  for (const m of a.months) {
    const n = String(m.transactions);
    rows.push(['spent', m.month, '', m.spent, n], ['fees', m.month, '', m.fees, n], ['fees_returned', m.month, '', m.feesReturned, n]);
    rows.push(['refunded', m.month, '', m.refunded, n], ['net', m.month, '', m.net, n]);
    for (const s of m.sources) rows.push(['source_charged', m.month, label(s.fundingSourceId), s.charged, '']);
  }
  for (const s of a.sources) rows.push(['source_charged', 'all', label(s.fundingSourceId), s.charged, String(s.transactions)]);
  for (const x of a.merchants) rows.push(['merchant_spent', 'all', x.merchant ?? 'Not spent at a merchant', x.spent, String(x.transactions)]);
  if (a.otherMerchants) rows.push(['merchant_spent', 'all', `Other merchants (${a.otherMerchants.merchants})`, a.otherMerchants.spent, String(a.otherMerchants.transactions)]);
  const t = a.totals;
  const n = String(t.transactions);
  rows.push(['spent', 'all', '', t.spent, n], ['fees', 'all', '', t.fees, n], ['fees_returned', 'all', '', t.feesReturned, n]);
  rows.push(['bcard_refunds', 'all', '', t.bcardRefunds, ''], ['merchant_refunds', 'all', '', t.merchantRefunds, '']);
  rows.push(['refunded', 'all', '', t.refunded, n], ['net', 'all', '', t.net, n]);
  return csvDocument(rows);
}
