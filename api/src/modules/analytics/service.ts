import { and, eq, inArray } from 'drizzle-orm';
import { addFigures, figuresView, zeroFigures, type FiguresView, type SpendingFigures } from '../spending/service';
import { spendingOver } from '../spending/kept';
import { schema } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { invalid } from '../../errors';
import type { AppDeps } from '../../deps';
import { csvDocument } from '../../lib/csv';

/*
 * The consumer's spending analytics (issue 16, part 3), by the one definition of spending (modules/spending/service.ts:
 * what each figure is and how it is dated), read from the figures kept as money moves (modules/spending/kept.ts,
 * issue 31 §1): the range's months, each source's part of each spend (the bcard's net spend split over its shares by
 * their amounts, largest remainder: the sources add up to the spending exactly), the merchants, and the plan charges.
 * Months are calendar months at the viewer's UTC offset (the browser's offset now; a DST change moves a month's edge
 * by an hour for part of the year).
 */

export const MAX_MONTHS = 36;
export const MAX_TOP = 20;
export const MAX_UTC_OFFSET = 14 * 60;

const money = (c: number) => formatDecimal(c as Cents);

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
export function resolveRange(now: Date, q: AnalyticsQuery): AnalyticsRange & { top: number; edges: number[]; monthList: string[] } {
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
    /** Where each month begins at the offset, epoch ms, and where the last ends (one more than the months). */
    edges: Array.from({ length: last - first + 2 }, (_, i) => edge(first + i)),
    monthList: Array.from({ length: last - first + 1 }, (_, i) => monthName(first + i)),
  };
}

export interface AnalyticsMonth extends FiguresView {
  month: string;
  /** Each source's part of this month's spending, sources with nothing left out. */
  sources: Array<{ fundingSourceId: string; spent: string }>;
}

export interface AnalyticsSource {
  fundingSourceId: string;
  name: string;
  brand: string;
  last4: string;
  /** The source was removed since (its history stays). */
  removed: boolean;
  /** Its part of the spending over the range. */
  spent: string;
  purchases: number;
}

export interface AnalyticsMerchant {
  merchant: string;
  charged: string;
  refunded: string;
  spent: string;
  purchases: number;
}

export interface Analytics {
  range: AnalyticsRange;
  currency: 'usd';
  totals: FiguresView;
  months: AnalyticsMonth[];
  sources: AnalyticsSource[];
  merchants: AnalyticsMerchant[];
  /** The merchants after the top ones, together; null when there are none. */
  otherMerchants: { spent: string; purchases: number; merchants: number } | null;
}

/*
 * Cost and fairness (the server's rule: no single request may slow the server for others). The figures are read from
 * what is kept as money moves (spending/kept.ts), in one statement whatever the number of transactions: the range's
 * UTC months, the merchants' sums, the bcards within hours of the month edges; the event loop is given back after
 * it. One computation per user at a time (AnalyticsGate): the same user and range asked again meanwhile shares the
 * answer under way; another range waits its turn, so one user cannot multiply the load by sending many at once.
 */

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
 * `pause` runs between statements (yieldToLoop; a test counts them).
 */
export async function spendingAnalytics(deps: AppDeps, userId: string, q: AnalyticsQuery, pause: () => Promise<void> = yieldToLoop): Promise<Analytics> {
  const r = resolveRange(deps.clock.now(), q);
  return analyticsGate(deps).run(userId, `${r.from}|${r.to}|${r.utcOffset}|${r.top}`, () => compute(deps, userId, r, pause));
}

async function compute(deps: AppDeps, userId: string, r: ReturnType<typeof resolveRange>, pause: () => Promise<void>): Promise<Analytics> {
  const { intervals, merchants: merchantTotals } = await spendingOver(deps, userId, r.edges, true, pause);

  const totals = zeroFigures();
  const sourceTotals = new Map<string, { spent: number; purchases: number }>();
  const months: AnalyticsMonth[] = intervals.map((x, i) => {
    addFigures(totals, x.figures);
    for (const [id, s] of x.sources) {
      const t = sourceTotals.get(id) ?? { spent: 0, purchases: 0 };
      t.spent += s.spent;
      t.purchases += s.purchases;
      sourceTotals.set(id, t);
    }
    return {
      month: r.monthList[i]!,
      ...figuresView(x.figures),
      sources: [...x.sources]
        .sort(([a, p], [b, q]) => q.spent - p.spent || (a < b ? -1 : 1))
        .map(([id, s]) => ({ fundingSourceId: id, spent: money(s.spent) })),
    };
  });

  return finishAnalytics(deps, userId, r, { totals, months, sourceTotals, merchantTotals });
}

/** A range's figures added up, before the sources are named and the merchants ranked. */
export interface AnalyticsSums {
  totals: SpendingFigures;
  months: AnalyticsMonth[];
  sourceTotals: Map<string, { spent: number; purchases: number }>;
  merchantTotals: Map<string, { charged: number; refunded: number; spent: number; purchases: number }>;
}

/**
 * The answer from a range's sums: the sources named (one short statement: the owner's, a handful), the top merchants
 * ranked and the rest together. Exported for the bcard-by-bcard reference (test-support/spending-reference.ts).
 */
export async function finishAnalytics(deps: AppDeps, userId: string, r: ReturnType<typeof resolveRange>, sums: AnalyticsSums): Promise<Analytics> {
  const { totals, months, sourceTotals, merchantTotals } = sums;
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
      return { fundingSourceId: s.id, name: s.name, brand: s.brand, last4: s.last4, removed: s.deletedAt !== null, spent: t.spent, purchases: t.purchases };
    })
    .sort((a, b) => b.spent - a.spent || (a.fundingSourceId < b.fundingSourceId ? -1 : 1))
    .map((s) => ({ ...s, spent: money(s.spent) }));

  // Top merchants over the whole range: largest spent first, ties in SQLite's order of the name (as ORDER BY would).
  const ranked = [...merchantTotals].sort(([ma, a], [mb, b]) => b.spent - a.spent || sqliteOrder(ma, mb));
  const merchants = ranked.slice(0, r.top).map(([merchant, x]) => ({ merchant, ...x }));
  const topSpent = merchants.reduce((a, x) => a + x.spent, 0);
  const topN = merchants.reduce((a, x) => a + x.purchases, 0);
  const otherCount = ranked.length - merchants.length;

  return {
    range: { from: r.from, to: r.to, utcOffset: r.utcOffset },
    currency: 'usd',
    totals: figuresView(totals),
    months,
    sources,
    merchants: merchants.map((x) => ({ merchant: x.merchant, charged: money(x.charged), refunded: money(x.refunded), spent: money(x.spent), purchases: x.purchases })),
    otherMerchants:
      otherCount > 0 ? { spent: money(totals.spent - topSpent), purchases: totals.purchases - topN, merchants: otherCount } : null,
  };
}

export const ANALYTICS_CSV_COLUMNS = ['figure', 'month', 'item', 'amount', 'transactions'] as const;

/** The figures of a month or of the range, one CSV row each (figure name, amount), in this order. */
const FIGURE_ROWS: Array<[string, keyof FiguresView]> = [
  ['spent', 'spent'],
  ['charged', 'charged'],
  ['refunded', 'refunded'],
  ['fees', 'fees'],
  ['fees_returned', 'feesReturned'],
  ['returned', 'returned'],
  ['plan_charges', 'planCharges'],
];

/**
 * The same figures as CSV, one figure a row ("long" form, so a spreadsheet can pivot it): per month spent (at
 * merchants, net of their refunds), charged, refunded, fees, fees_returned, returned (unspent money back to the
 * cards), plan_charges; per month and source source_spent; per source (month "all") source_spent; per merchant
 * merchant_spent (the rest as item "Other merchants"); and the totals (month "all"). The transactions column counts
 * purchases (bcards spent at a merchant).
 */
export function analyticsCsv(a: Analytics): string {
  const rows: string[][] = [[...ANALYTICS_CSV_COLUMNS]];
  const label = (id: string) => {
    const s = a.sources.find((x) => x.fundingSourceId === id);
    return s ? `${s.name} •••• ${s.last4}` : id;
  };
  const figures = (month: string, f: FiguresView) => {
    const n = String(f.purchases);
    for (const [name, key] of FIGURE_ROWS) rows.push([name, month, '', String(f[key]), n]);
  };
  for (const m of a.months) {
    figures(m.month, m);
    for (const s of m.sources) rows.push(['source_spent', m.month, label(s.fundingSourceId), s.spent, '']);
  }
  for (const s of a.sources) rows.push(['source_spent', 'all', label(s.fundingSourceId), s.spent, String(s.purchases)]);
  for (const x of a.merchants) rows.push(['merchant_spent', 'all', x.merchant, x.spent, String(x.purchases)]);
  if (a.otherMerchants) rows.push(['merchant_spent', 'all', `Other merchants (${a.otherMerchants.merchants})`, a.otherMerchants.spent, String(a.otherMerchants.purchases)]);
  figures('all', a.totals);
  return csvDocument(rows);
}
