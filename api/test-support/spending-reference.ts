import { sql, type SQL } from 'drizzle-orm';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../src/deps';
import { finishAnalytics, resolveRange, type Analytics, type AnalyticsMonth, type AnalyticsQuery } from '../src/modules/analytics/service';
import {
  addBcard,
  addFigures,
  bcardFigures,
  bcardsEnded,
  liveBcards,
  figuresView,
  planChargesIn,
  spendBySource,
  zeroFigures,
  type BcardFigures,
  type SpendingFigures,
} from '../src/modules/spending/service';

/*
 * Analytics worked out from history, bcard by bcard, as the endpoint did before the figures were kept (issue 31 §1):
 * one statement per month over the owner's bcards through bcardsEnded, the one definition of spending. The tests
 * compare the endpoint's answer (read from spending_months and spending_parts) with this one.
 */

const money = (c: number) => formatDecimal(c as Cents);
const num = (v: unknown) => Number(v ?? 0);

/** One month of one user's figures, in one statement: its bcards with their figures, the used ones' shares, its plan charges. */
function sliceQuery(userId: string, fromMs: number, toMs: number): SQL {
  return sql`SELECT 0 AS part, e.id AS id, e.merchant AS merchant, e.used AS used, e.charged AS charged, e.refunded AS refunded,
      e.spent AS spent, e.fees AS fees, e.fees_returned AS fees_returned, e.returned AS returned, e.held AS held,
      NULL AS source_id, NULL AS position, NULL AS amount, e.collection_id AS collection_id, e.name AS name, e.at AS at
    FROM (${bcardsEnded(userId, fromMs, toMs)}) e
  UNION ALL
  SELECT 1, b.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, s.funding_source_id, s.position, s.amount_cents, NULL, NULL, NULL
    FROM bcards b CROSS JOIN collection_shares s ON s.collection_id = b.collection_id
    WHERE b.user_id = ${userId} AND b.deactivated_at >= ${fromMs} AND b.deactivated_at < ${toMs} AND +b.status = 'used' AND +b.sandbox = 0
  UNION ALL
  SELECT 2, NULL, NULL, NULL, p.n, p.x, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM (${planChargesIn(userId, fromMs, toMs)}) p`;
}


/** The analytics of one user over a range, worked out from history. */
export async function analyticsFromHistory(deps: AppDeps, userId: string, q: AnalyticsQuery): Promise<Analytics> {
  return compute(deps, userId, resolveRange(deps.clock.now(), q));
}

async function compute(deps: AppDeps, userId: string, r: ReturnType<typeof resolveRange>): Promise<Analytics> {

  const totals = zeroFigures();
  const sourceTotals = new Map<string, { spent: number; purchases: number }>();
  const merchantTotals = new Map<string, { charged: number; refunded: number; spent: number; purchases: number }>();
  const months: AnalyticsMonth[] = [];
  for (let i = 0; i < r.monthList.length; i++) {
    const rows = await deps.db.all<Record<string, unknown>>(sliceQuery(userId, r.edges[i]!, r.edges[i + 1]!));
    const month: SpendingFigures = zeroFigures();
    const bcards: BcardFigures[] = [];
    const shares: Array<{ bcardId: string; fundingSourceId: string; amountCents: number; position: number }> = [];
    for (const row of rows) {
      const part = num(row.part);
      if (part === 0) {
        const b = bcardFigures(row);
        bcards.push(b);
        addBcard(month, b);
        if (!b.used) continue;
        const m = merchantTotals.get(b.merchant) ?? { charged: 0, refunded: 0, spent: 0, purchases: 0 };
        m.charged += b.charged;
        m.refunded += b.refunded;
        m.spent += b.spent;
        m.purchases += 1;
        merchantTotals.set(b.merchant, m);
      } else if (part === 1) {
        shares.push({ bcardId: String(row.id), fundingSourceId: String(row.source_id), amountCents: num(row.amount), position: num(row.position) });
      } else {
        month.planChargeCount += num(row.charged);
        month.planCharges += num(row.refunded);
      }
    }
    const bySource = [...spendBySource(bcards, shares)];
    for (const [id, x] of bySource) {
      const t = sourceTotals.get(id) ?? { spent: 0, purchases: 0 };
      t.spent += x.spent;
      t.purchases += x.purchases;
      sourceTotals.set(id, t);
    }
    addFigures(totals, month);
    months.push({
      month: r.monthList[i]!,
      ...figuresView(month),
      sources: bySource
        .sort(([a, x], [b, y]) => y.spent - x.spent || (a < b ? -1 : 1))
        .map(([id, x]) => ({ fundingSourceId: id, spent: money(x.spent) })),
    });
  }

  return finishAnalytics(deps, userId, r, { totals, months, sourceTotals, merchantTotals });
}

type Part = { user: string; at: number; month: number; figures: Record<string, number> };
const PART_FIGURES = ['charged', 'refunded', 'spent', 'fees', 'fees_returned', 'returned', 'held', 'purchases'] as const;
const utcMonth = (ms: number) => new Date(ms).getUTCFullYear() * 12 + new Date(ms).getUTCMonth();

/**
 * Where the kept figures (spending_parts, spending_months) differ from what history says through bcardsEnded and
 * spendBySource, as a list of differences (empty when they agree), and whether a refresh was left queued.
 */
export async function spendingDrift(deps: AppDeps): Promise<string[]> {
  const out: string[] = [];
  const expected = new Map<string, Part>();
  const users = await deps.db.all<{ user_id: string }>(sql`SELECT DISTINCT user_id FROM bcards WHERE deactivated_at IS NOT NULL`);
  for (const { user_id: user } of users) {
    const bcards = (await deps.db.all<Record<string, unknown>>(bcardsEnded(user, 0, 8.64e15))).map(bcardFigures);
    const shares = (
      await deps.db.all<Record<string, unknown>>(sql`SELECT b.id AS bcard_id, s.funding_source_id AS source, s.position AS position, s.amount_cents AS amount
        FROM bcards b JOIN collection_shares s ON s.collection_id = b.collection_id WHERE b.user_id = ${user} AND b.deactivated_at IS NOT NULL`)
    ).map((s) => ({ bcardId: String(s.bcard_id), fundingSourceId: String(s.source), position: num(s.position), amountCents: num(s.amount) }));
    for (const b of bcards) {
      const month = utcMonth(b.at);
      const put = (kind: string, key: string, f: Partial<Record<(typeof PART_FIGURES)[number], number>>) =>
        expected.set(`${b.id}|${kind}|${key}`, { user, at: b.at, month, figures: Object.fromEntries(PART_FIGURES.map((k) => [k, f[k] ?? 0])) });
      put('total', '', {
        charged: b.charged,
        refunded: b.refunded,
        spent: b.spent,
        fees: b.fees,
        fees_returned: b.feesReturned,
        returned: b.returned,
        held: b.held,
        purchases: b.used ? 1 : 0,
      });
      if (!b.used) continue;
      put('merchant', b.merchant, { charged: b.charged, refunded: b.refunded, spent: b.spent, purchases: 1 });
      for (const [source, x] of spendBySource([b], shares.filter((s) => s.bcardId === b.id))) put('source', source, { spent: x.spent, purchases: x.purchases });
    }
  }
  const figuresOf = (r: Record<string, unknown>) => Object.fromEntries(PART_FIGURES.map((k) => [k, num(r[k])]));
  const actual = await deps.db.all<Record<string, unknown>>(sql`SELECT * FROM spending_parts`);
  const seen = new Set<string>();
  for (const r of actual) {
    const k = `${r.bcard_id}|${r.kind}|${r.key}`;
    seen.add(k);
    const e = expected.get(k);
    const got = { user: String(r.user_id), at: num(r.at), month: num(r.month), figures: figuresOf(r) };
    if (!e) out.push(`part ${k} kept but not in history: ${JSON.stringify(got)}`);
    else if (JSON.stringify(e) !== JSON.stringify(got)) out.push(`part ${k}: kept ${JSON.stringify(got)}, history ${JSON.stringify(e)}`);
  }
  for (const k of expected.keys()) if (!seen.has(k)) out.push(`part ${k} in history but not kept: ${JSON.stringify(expected.get(k))}`);

  const months = new Map<string, Record<string, number>>();
  for (const [k, p] of expected) {
    const [, kind, key] = k.split('|');
    const mk = `${p.user}|${kind}|${p.month}|${key}`;
    const m = months.get(mk) ?? Object.fromEntries(PART_FIGURES.map((f) => [f, 0]));
    for (const f of PART_FIGURES) m[f]! += p.figures[f]!;
    months.set(mk, m);
  }
  for (const [k, m] of months) if (PART_FIGURES.every((f) => m[f] === 0)) months.delete(k);
  const keptMonths = await deps.db.all<Record<string, unknown>>(sql`SELECT * FROM spending_months`);
  const seenMonths = new Set<string>();
  for (const r of keptMonths) {
    const k = `${r.user_id}|${r.kind}|${r.month}|${r.key}`;
    seenMonths.add(k);
    const got = figuresOf(r);
    const e = months.get(k);
    if (!e) {
      if (!PART_FIGURES.every((f) => got[f] === 0)) out.push(`month ${k} kept but not in history: ${JSON.stringify(got)}`);
    } else if (JSON.stringify(e) !== JSON.stringify(got)) out.push(`month ${k}: kept ${JSON.stringify(got)}, history ${JSON.stringify(e)}`);
  }
  for (const k of months.keys()) if (!seenMonths.has(k)) out.push(`month ${k} in history but not kept: ${JSON.stringify(months.get(k))}`);
  const [queued] = await deps.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM spending_refresh`);
  if (num(queued?.n) !== 0) out.push(`${queued?.n} spending refreshes left queued`);
  return out;
}

/** The Overview's figures worked out from history (all time, since monthStart, and what bcards hold now). */
export async function summaryFromHistory(deps: AppDeps, userId: string, monthStart: Date) {
  const between = async (fromMs: number, toMs: number) => {
    const [row] = await deps.db.all<Record<string, unknown>>(sql`SELECT coalesce(sum(e.used), 0) AS purchases,
        coalesce(sum(e.charged), 0) AS charged, coalesce(sum(e.refunded), 0) AS refunded, coalesce(sum(e.fees), 0) AS fees,
        coalesce(sum(e.fees_returned), 0) AS fees_returned, coalesce(sum(e.returned), 0) AS returned, coalesce(sum(e.held), 0) AS held
      FROM (${bcardsEnded(userId, fromMs, toMs)}) e`);
    const [plan] = await deps.db.all<Record<string, unknown>>(planChargesIn(userId, fromMs, toMs));
    const figures: SpendingFigures = {
      charged: num(row?.charged),
      refunded: num(row?.refunded),
      spent: num(row?.charged) - num(row?.refunded),
      fees: num(row?.fees),
      feesReturned: num(row?.fees_returned),
      returned: num(row?.returned),
      planCharges: num(plan?.x),
      purchases: num(row?.purchases),
      planChargeCount: num(plan?.n),
    };
    return { figures, held: num(row?.held) };
  };
  const all = await between(0, 8.64e15);
  const month = await between(monthStart.getTime(), 8.64e15);
  const [live] = await deps.db.all<Record<string, unknown>>(liveBcards(userId));
  return { total: all.figures, thisMonth: month.figures, heldOnBcards: num(live?.x) + all.held, liveBcards: num(live?.n), activeBcards: num(live?.active) };
}
