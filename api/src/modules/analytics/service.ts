import { and, eq, gte, inArray, lt, ne, sql, type SQL } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { invalid } from '../../errors';
import type { AppDeps } from '../../deps';

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

/** The owner's counted transactions in the range (see the header). */
function counted(userId: string, fromMs: number, toMs: number): SQL {
  const c = schema.collections;
  return and(
    eq(c.userId, userId),
    inArray(c.status, ['completed', 'refunding', 'refunded']),
    gte(c.createdAt, new Date(fromMs)),
    lt(c.createdAt, new Date(toMs)),
    ne(c.kind, 'sandbox'),
  )!;
}

/** The viewer's month of a transaction, YYYY-MM. */
const monthOf = (offsetMs: number) =>
  sql<string>`strftime('%Y-%m', (${schema.collections.createdAt} + ${offsetMs}) / 1000, 'unixepoch')`;

/** Spending analytics of one user over a range. Fails with validation_error (range, top, utcOffset). */
export async function spendingAnalytics(deps: AppDeps, userId: string, q: AnalyticsQuery): Promise<Analytics> {
  const r = resolveRange(deps.clock.now(), q);
  const c = schema.collections;
  const where = counted(userId, r.fromMs, r.toMs);
  const month = monthOf(r.utcOffset * 60_000);

  const [byMonth, merchantRefunds, bySourceMonth, topMerchants] = await Promise.all([
    deps.db
      .select({
        m: month,
        n: sql<number>`count(*)`,
        spent: sql<number>`sum(${c.amountCents})`,
        fees: sql<number>`sum(${c.feeCents})`,
        bcardRefunds: sql<number>`sum(${c.refundedCents})`,
        // An unused bcard's refund returns its fee too.
        feesBack: sql<number>`sum(CASE WHEN ${c.status} = 'refunded' THEN ${c.feeCents} ELSE 0 END)`,
      })
      .from(c)
      .where(where)
      .groupBy(month),
    // Merchants' succeeded refunds of purchases paid with these bcards: collection -> bcard -> intent -> refunds.
    deps.db
      .select({
        m: month,
        amount: sql<number>`sum(${schema.refunds.amount})`,
        fee: sql<number>`sum(${schema.refunds.feeCents})`,
      })
      .from(c)
      .innerJoin(schema.bcards, eq(schema.bcards.collectionId, c.id))
      .innerJoin(schema.paymentIntents, eq(schema.paymentIntents.bcardId, schema.bcards.id))
      .innerJoin(schema.refunds, and(eq(schema.refunds.paymentIntentId, schema.paymentIntents.id), eq(schema.refunds.status, 'succeeded')))
      .where(where)
      .groupBy(month),
    deps.db
      .select({
        m: month,
        source: schema.collectionShares.fundingSourceId,
        charged: sql<number>`sum(${schema.collectionShares.amountCents})`,
        n: sql<number>`count(*)`,
      })
      .from(c)
      .innerJoin(schema.collectionShares, eq(schema.collectionShares.collectionId, c.id))
      .where(where)
      .groupBy(month, schema.collectionShares.fundingSourceId),
    deps.db
      // groups: how many merchants there are in all (a window over the grouped rows, taken before the LIMIT).
      .select({ merchant: c.merchant, spent: sql<number>`sum(${c.amountCents})`.as('spent'), n: sql<number>`count(*)`, groups: sql<number>`count(*) OVER ()` })
      .from(c)
      .where(where)
      .groupBy(c.merchant)
      .orderBy(sql`spent DESC`, c.merchant)
      .limit(r.top),
  ]);

  const refundsOf = new Map(merchantRefunds.map((x) => [x.m, { amount: num(x.amount), fee: num(x.fee) }]));
  const monthRows = new Map(byMonth.map((x) => [x.m, x]));
  const sourcesOf = new Map<string, Array<{ fundingSourceId: string; charged: number }>>();
  const sourceTotals = new Map<string, { charged: number; n: number }>();
  for (const x of bySourceMonth) {
    const list = sourcesOf.get(x.m) ?? [];
    list.push({ fundingSourceId: x.source, charged: num(x.charged) });
    sourcesOf.set(x.m, list);
    const t = sourceTotals.get(x.source) ?? { charged: 0, n: 0 };
    t.charged += num(x.charged);
    t.n += num(x.n);
    sourceTotals.set(x.source, t);
  }

  const totals = { spent: 0, fees: 0, feesReturned: 0, bcardRefunds: 0, merchantRefunds: 0, transactions: 0 };
  const months: AnalyticsMonth[] = r.monthList.map((m) => {
    const row = monthRows.get(m);
    const mr = refundsOf.get(m) ?? { amount: 0, fee: 0 };
    const spent = num(row?.spent);
    const fees = num(row?.fees);
    const bcardRefunds = num(row?.bcardRefunds);
    const merchantBack = mr.amount + mr.fee;
    const refunded = bcardRefunds + merchantBack;
    const feesReturned = num(row?.feesBack) + mr.fee;
    totals.spent += spent;
    totals.fees += fees;
    totals.feesReturned += feesReturned;
    totals.bcardRefunds += bcardRefunds;
    totals.merchantRefunds += merchantBack;
    totals.transactions += num(row?.n);
    return {
      month: m,
      spent: money(spent),
      fees: money(fees),
      feesReturned: money(feesReturned),
      refunded: money(refunded),
      net: money(spent + fees - refunded),
      transactions: num(row?.n),
      sources: (sourcesOf.get(m) ?? [])
        .sort((a, b) => b.charged - a.charged || (a.fundingSourceId < b.fundingSourceId ? -1 : 1))
        .map((s) => ({ fundingSourceId: s.fundingSourceId, charged: money(s.charged) })),
    };
  });

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

  const merchants = topMerchants.map((x) => ({ merchant: x.merchant, spent: num(x.spent), transactions: num(x.n) }));
  const topSpent = merchants.reduce((a, x) => a + x.spent, 0);
  const topN = merchants.reduce((a, x) => a + x.transactions, 0);
  const otherCount = num(topMerchants[0]?.groups) - merchants.length;
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

/** A cell that a spreadsheet would not run as a formula, quoted as RFC 4180 asks (as the transactions CSV). */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
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
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
