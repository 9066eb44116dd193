import { and, asc, count, eq, gte, sql } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import type { Clock } from '../../lib/clock';

/*
 * The admin dashboard and analytics, computed from the database on each call. Money is answered in dollars as
 * numbers (cents / 100, exact to the cent) because the panel charts them; every sum is taken in integer cents.
 */

const dollars = (cents: number) => Math.round(cents) / 100;
const num = (v: unknown) => Number(v ?? 0);
/** A percentage with one decimal; 100 when nothing was attempted (nothing has failed). */
const rate = (ok: number, all: number) => (all === 0 ? 100 : Math.round((ok / all) * 1000) / 10);

/**
 * Plan revenue bpay collected: the balance of the ledger account bpay:subscriptions, i.e. every succeeded plan
 * charge (upgrades and renewals). A plan an admin gave without payment brings none.
 */
async function subscriptionRevenueCents(db: Db): Promise<number> {
  const [row] = await db
    .select({ s: sql<number>`coalesce(sum(${schema.ledgerPostings.amountCents}), 0)` })
    .from(schema.ledgerPostings)
    .where(eq(schema.ledgerPostings.account, 'bpay:subscriptions'));
  return num(row?.s);
}

/** Fees bpay earned: the balance of the ledger account bpay:fees (reversals included). */
async function feeRevenueCents(db: Db): Promise<number> {
  const [row] = await db
    .select({ s: sql<number>`coalesce(sum(${schema.ledgerPostings.amountCents}), 0)` })
    .from(schema.ledgerPostings)
    .where(eq(schema.ledgerPostings.account, 'bpay:fees'));
  return num(row?.s);
}

/** Collections whose shares were captured and a bcard issued (later use, expiry or refund does not undo that). */
const SUCCEEDED_COLLECTION = sql`${schema.collections.status} IN ('completed', 'refunding', 'refunded') AND ${schema.collections.kind} != 'sandbox'`;
/** Collections still in flight are not counted as attempts yet. */
const FINISHED_COLLECTION = sql`${schema.collections.status} NOT IN ('holding', 'capturing') AND ${schema.collections.kind} != 'sandbox'`;
/** Merchants' sandbox test bcards are play money: left out of every figure. */
const CONSUMER_BCARD = eq(schema.bcards.sandbox, false);

export interface AdminDashboard {
  revenue: { total: number; subscriptions: number; fees: number };
  users: { total: number };
  merchants: { total: number };
  /** Finished collections (attempts), those that issued a bcard, and the rate between them. */
  bcardGeneration: { successRate: number; total: number; issued: number };
  fundingPool: { balance: number };
  transactions: { volume: number };
  fundingDeductions: { successRate: number };
  bcardsToday: number;
}

const startOfUtcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

export async function adminDashboard(db: Db, clock: Clock): Promise<AdminDashboard> {
  const [subs, fees] = await Promise.all([subscriptionRevenueCents(db), feeRevenueCents(db)]);
  const [users] = await db.select({ n: count() }).from(schema.users);
  const [merchants] = await db.select({ n: count() }).from(schema.merchants).where(eq(schema.merchants.isActive, true));
  const [gen] = await db
    .select({
      all: count(),
      ok: sql<number>`coalesce(sum(CASE WHEN ${SUCCEEDED_COLLECTION} THEN 1 ELSE 0 END), 0)`,
      volume: sql<number>`coalesce(sum(CASE WHEN ${SUCCEEDED_COLLECTION} THEN ${schema.collections.amountCents} ELSE 0 END), 0)`,
    })
    .from(schema.collections)
    .where(FINISHED_COLLECTION);
  const [pool] = await db
    .select({ s: sql<number>`coalesce(sum(${schema.bcards.limitCents} - ${schema.bcards.spentCents}), 0)` })
    .from(schema.bcards)
    .where(and(eq(schema.bcards.status, 'active'), CONSUMER_BCARD));
  // A share that was captured (and possibly refunded later) succeeded; declined, voided and returned (a bank debit
  // that came back unpaid) ones did not.
  const [shares] = await db
    .select({
      all: count(),
      ok: sql<number>`coalesce(sum(CASE WHEN ${schema.collectionShares.status} IN ('captured', 'refunded') THEN 1 ELSE 0 END), 0)`,
    })
    .from(schema.collectionShares)
    .where(sql`${schema.collectionShares.status} IN ('captured', 'refunded', 'declined', 'voided', 'returned')`);
  const [today] = await db
    .select({ n: count() })
    .from(schema.bcards)
    .where(and(gte(schema.bcards.createdAt, startOfUtcDay(clock.now())), CONSUMER_BCARD));
  return {
    revenue: { total: dollars(subs + fees), subscriptions: dollars(subs), fees: dollars(fees) },
    users: { total: num(users?.n) },
    merchants: { total: num(merchants?.n) },
    bcardGeneration: { successRate: rate(num(gen?.ok), num(gen?.all)), total: num(gen?.all), issued: num(gen?.ok) },
    fundingPool: { balance: dollars(num(pool?.s)) },
    transactions: { volume: dollars(num(gen?.volume)) },
    fundingDeductions: { successRate: rate(num(shares?.ok), num(shares?.all)) },
    bcardsToday: num(today?.n),
  };
}

export interface SubscriptionAnalytics {
  totalSubscriptionRevenue: number;
  subscriptionsByTier: Array<{ tierId: string; tierName: string; count: number; monthlyRevenue: number }>;
}

const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * Subscribers and revenue per tier (every tier listed, zero included). A paid tier counts its paying subscribers:
 * active subscriptions with a paid billing period (one an admin gave without payment is not counted); a free tier
 * counts its active subscriptions. monthlyRevenue is what the tier's succeeded plan charges brought this UTC
 * calendar month, less what was refunded of its charges this month (an admin's move now, issue 26);
 * totalSubscriptionRevenue is every succeeded plan charge ever less the refunds (the ledger's bpay:subscriptions).
 */
export async function subscriptionAnalytics(db: Db, clock: Clock): Promise<SubscriptionAnalytics> {
  const monthStart = startOfUtcMonth(clock.now()).getTime();
  const subscribers = db
    .select({ tierId: schema.userSubscriptions.tierId, n: sql<number>`count(*)`.as('n') })
    .from(schema.userSubscriptions)
    .innerJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.userSubscriptions.tierId))
    .where(
      and(
        eq(schema.userSubscriptions.status, 'active'),
        sql`(${schema.subscriptionTiers.monthlyPriceCents} = 0 OR ${schema.userSubscriptions.currentPeriodEnd} IS NOT NULL)`,
      ),
    )
    .groupBy(schema.userSubscriptions.tierId)
    .as('subscribers');
  const paid = db
    .select({ tierId: schema.subscriptionCharges.tierId, s: sql<number>`sum(${schema.subscriptionCharges.amountCents})`.as('s') })
    .from(schema.subscriptionCharges)
    .where(and(eq(schema.subscriptionCharges.status, 'succeeded'), gte(schema.subscriptionCharges.createdAt, new Date(monthStart))))
    .groupBy(schema.subscriptionCharges.tierId)
    .as('paid');
  const refunded = db
    .select({ tierId: schema.subscriptionCharges.tierId, r: sql<number>`sum(${schema.planRefunds.amountCents})`.as('r') })
    .from(schema.planRefunds)
    .innerJoin(schema.subscriptionCharges, eq(schema.subscriptionCharges.id, schema.planRefunds.chargeId))
    .where(and(eq(schema.planRefunds.status, 'succeeded'), gte(schema.planRefunds.createdAt, new Date(monthStart))))
    .groupBy(schema.subscriptionCharges.tierId)
    .as('refunded');
  const rows = await db
    .select({
      id: schema.subscriptionTiers.id,
      name: schema.subscriptionTiers.displayName,
      n: sql<number>`coalesce(${subscribers.n}, 0)`,
      s: sql<number>`coalesce(${paid.s}, 0) - coalesce(${refunded.r}, 0)`,
    })
    .from(schema.subscriptionTiers)
    .leftJoin(subscribers, eq(subscribers.tierId, schema.subscriptionTiers.id))
    .leftJoin(paid, eq(paid.tierId, schema.subscriptionTiers.id))
    .leftJoin(refunded, eq(refunded.tierId, schema.subscriptionTiers.id))
    .orderBy(asc(schema.subscriptionTiers.sortOrder), asc(schema.subscriptionTiers.monthlyPriceCents));
  return {
    totalSubscriptionRevenue: dollars(await subscriptionRevenueCents(db)),
    subscriptionsByTier: rows.map((r) => ({ tierId: r.id, tierName: r.name, count: num(r.n), monthlyRevenue: dollars(num(r.s)) })),
  };
}

export const ANALYTICS_DAYS = 30;

export interface AdminAnalytics {
  paymentVolumeByDay: Array<{ date: string; amount: number }>;
  bcardsByDay: Array<{ date: string; count: number }>;
  sharesPerPayment: Array<{ shares: number; count: number }>;
  revenueByPlan: Array<{ plan: string; revenue: number }>;
}

/**
 * The Analytics tab: the last 30 UTC days (today included, every day present) of successful collection volume and
 * bcards issued; how many funding sources successful payments were split across; and monthly subscription
 * revenue by plan.
 */
export async function adminAnalytics(db: Db, clock: Clock): Promise<AdminAnalytics> {
  const today = startOfUtcDay(clock.now());
  const since = new Date(today.getTime() - (ANALYTICS_DAYS - 1) * 86_400_000);
  const days = Array.from({ length: ANALYTICS_DAYS }, (_, i) => new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10));
  const day = (col: typeof schema.collections.createdAt | typeof schema.bcards.createdAt) =>
    sql<string>`strftime('%Y-%m-%d', ${col} / 1000, 'unixepoch')`;
  const volume = await db
    .select({ d: day(schema.collections.createdAt), s: sql<number>`sum(${schema.collections.amountCents})` })
    .from(schema.collections)
    .where(and(SUCCEEDED_COLLECTION, gte(schema.collections.createdAt, since)))
    .groupBy(day(schema.collections.createdAt));
  const cards = await db
    .select({ d: day(schema.bcards.createdAt), n: count() })
    .from(schema.bcards)
    .where(and(gte(schema.bcards.createdAt, since), CONSUMER_BCARD))
    .groupBy(day(schema.bcards.createdAt));
  const perPayment = db
    .select({ c: schema.collections.id, k: sql<number>`count(${schema.collectionShares.id})`.as('k') })
    .from(schema.collections)
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.collectionId, schema.collections.id))
    .where(SUCCEEDED_COLLECTION)
    .groupBy(schema.collections.id)
    .as('per_payment');
  const spread = await db
    .select({ shares: sql<number>`${perPayment.k}`, n: count() })
    .from(perPayment)
    .groupBy(sql`${perPayment.k}`)
    .orderBy(sql`${perPayment.k}`);
  const vol = new Map(volume.map((r) => [r.d, num(r.s)]));
  const bc = new Map(cards.map((r) => [r.d, num(r.n)]));
  const plans = await subscriptionAnalytics(db, clock);
  return {
    paymentVolumeByDay: days.map((date) => ({ date, amount: dollars(vol.get(date) ?? 0) })),
    bcardsByDay: days.map((date) => ({ date, count: bc.get(date) ?? 0 })),
    sharesPerPayment: spread.map((r) => ({ shares: num(r.shares), count: num(r.n) })),
    revenueByPlan: plans.subscriptionsByTier.map((t) => ({ plan: t.tierName, revenue: t.monthlyRevenue })),
  };
}
