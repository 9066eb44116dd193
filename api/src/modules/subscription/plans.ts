import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { schema, type Db, type DbOrTx, firstRow, UNLIMITED } from '@bpay/db';
import { SUBSCRIPTION_CHARGE_STATUSES } from '@bpay/db/schema';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { csvDocument } from '../../lib/csv';
import { newId } from '../../lib/ids';
import { activeSubscription, freeTier, offeredTier, RENEWAL_GRACE_MS, type ChargeRow } from './billing';
import { maxFundingSources, toTierView, type TierView } from './service';

/*
 * The consumer's Plans screen: the plan they are on, its billing period and what it allows against what they use,
 * scheduled changes (a downgrade or cancellation waits for the period's end and can be undone), and receipts.
 */

type UserRow = typeof schema.users.$inferSelect;
type TierRow = typeof schema.subscriptionTiers.$inferSelect;

export interface PlanChargeView {
  id: string;
  createdAt: string;
  kind: 'upgrade' | 'renewal' | 'proration';
  status: 'pending' | 'succeeded' | 'failed';
  amount: string;
  planName: string;
  periodStart: string;
  periodEnd: string;
  fundingSource: { id: string; name: string; last4: string; brand: string };
  failureMessage: string | null;
  /**
   * A proration's lines (kind proration; else null): the unused part of the old plan over periodStart..periodEnd,
   * credited, and the new plan's price for the same span; amount = remaining − credit.
   */
  proration: { unusedPlanName: string; credit: string; remaining: string } | null;
}

export interface PlanView {
  tier: TierView;
  /** When a paid period is running: its dates; null on a plan that is not billed (Free, or one an admin gave). */
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  /** The source renewals are charged to. */
  paymentSource: { id: string; name: string; last4: string; brand: string } | null;
  /** A downgrade or cancellation that takes effect at currentPeriodEnd. */
  pendingTier: TierView | null;
  /** Set while a failed renewal is retried; the plan is kept until graceEndsAt, then the account moves to Free. */
  pastDueSince: string | null;
  graceEndsAt: string | null;
  nextRenewalAttemptAt: string | null;
  usage: {
    fundingSources: { used: number; limit: number };
    bcardsThisMonth: { used: number; limit: number };
  };
}

const money = (c: number) => formatDecimal(c as Cents);
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const startOfMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/** The bcards-a-month allowance the collection check applies: the smaller of the two limits that are not -1. */
export function monthlyBcardLimit(tier: TierRow): number {
  const limits = [tier.monthlyTransactions, tier.bcardGenerationLimit].filter((l) => l !== UNLIMITED);
  return limits.length === 0 ? UNLIMITED : Math.min(...limits);
}

export async function getPlan(deps: AppDeps, user: UserRow): Promise<PlanView> {
  const db = deps.db;
  const sub = await activeSubscription(db, user.id);
  const tier = sub ? await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, sub.tierId)) : await freeTier(db);
  if (!tier) throw new Error(`no tier for subscription ${sub?.id}`);
  const pending = sub?.pendingTierId ? await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, sub.pendingTierId)) : null;
  const source = sub?.paymentSourceId
    ? await firstRow(db, schema.fundingSources, and(eq(schema.fundingSources.id, sub.paymentSourceId), isNull(schema.fundingSources.deletedAt)))
    : null;
  const [sources] = await db
    .select({ n: sql<number>`count(*)` })
    .from(schema.fundingSources)
    .where(and(eq(schema.fundingSources.userId, user.id), isNull(schema.fundingSources.deletedAt)));
  // Counted as recordCollection counts them against the plan (bcards/collect.ts).
  const [bcards] = await db
    .select({ n: sql<number>`count(*)` })
    .from(schema.collections)
    .where(
      and(
        eq(schema.collections.userId, user.id),
        sql`${schema.collections.status} != 'failed'`,
        sql`${schema.collections.kind} != 'sandbox'`,
        sql`${schema.collections.createdAt} >= ${startOfMonth(deps.clock.now()).getTime()}`,
      ),
    );
  return {
    tier: toTierView(tier),
    currentPeriodStart: iso(sub?.currentPeriodStart ?? null),
    currentPeriodEnd: iso(sub?.currentPeriodEnd ?? null),
    paymentSource: source ? { id: source.id, name: source.name, last4: source.last4, brand: source.brand } : null,
    pendingTier: pending ? toTierView(pending) : null,
    pastDueSince: iso(sub?.pastDueSince ?? null),
    graceEndsAt: sub?.pastDueSince ? new Date(sub.pastDueSince.getTime() + RENEWAL_GRACE_MS).toISOString() : null,
    nextRenewalAttemptAt: iso(sub?.nextRenewalAttemptAt ?? null),
    usage: {
      fundingSources: { used: Number(sources?.n ?? 0), limit: maxFundingSources(tier, user.kycStatus === 'verified') },
      bcardsThisMonth: { used: Number(bcards?.n ?? 0), limit: monthlyBcardLimit(tier) },
    },
  };
}

/**
 * Moves the user to a cheaper plan (a free one: a cancellation). On a paid period it takes effect at the period's
 * end (the plan is kept until then, and the change can be undone); on a plan that is not billed, at once.
 * Fails with: resource_not_found, tier_inactive, plan_unchanged, plan_not_downgrade, plan_change_in_progress.
 */
export async function downgradePlan(deps: AppDeps, user: UserRow, tierId: string): Promise<PlanView> {
  const target = await offeredTier(deps.db, tierId);
  const at = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const sub = await activeSubscription(tx, user.id);
    const current = sub ? await firstRow(tx, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, sub.tierId)) : await freeTier(tx);
    if (!current) throw new Error(`no tier for subscription ${sub?.id}`);
    if (current.id === target.id) throw new AppError('plan_unchanged', `You are already on the ${target.displayName} plan.`, 'tierId');
    if (target.monthlyPriceCents > current.monthlyPriceCents) {
      throw new AppError('plan_not_downgrade', `The ${target.displayName} plan costs more than your ${current.displayName} plan: upgrade to it instead.`, 'tierId');
    }
    await assertNoPaymentInFlight(tx, user.id);
    if (sub?.currentPeriodEnd) {
      await tx.update(schema.userSubscriptions).set({ pendingTierId: target.id }).where(eq(schema.userSubscriptions.id, sub.id));
      return;
    }
    // Nothing was paid for (Free, or a plan an admin gave): nothing to wait for.
    if (sub) {
      await tx
        .update(schema.userSubscriptions)
        .set({ status: 'ended', endedAt: at })
        .where(and(eq(schema.userSubscriptions.id, sub.id), eq(schema.userSubscriptions.status, 'active')));
    }
    await tx.insert(schema.userSubscriptions).values({ id: newId('sub'), userId: user.id, tierId: target.id, status: 'active', startedAt: at });
  });
  return getPlan(deps, user);
}

/** Undoes a scheduled downgrade or cancellation: the current plan renews as before. Fails with: no_pending_plan_change. */
export async function keepPlan(deps: AppDeps, user: UserRow): Promise<PlanView> {
  const res = await deps.db
    .update(schema.userSubscriptions)
    .set({ pendingTierId: null })
    .where(
      and(
        eq(schema.userSubscriptions.userId, user.id),
        eq(schema.userSubscriptions.status, 'active'),
        sql`${schema.userSubscriptions.pendingTierId} IS NOT NULL`,
      ),
    );
  if (res.rowsAffected !== 1) throw new AppError('no_pending_plan_change');
  return getPlan(deps, user);
}

async function assertNoPaymentInFlight(tx: DbOrTx, userId: string): Promise<void> {
  const pending = await firstRow(tx, schema.subscriptionCharges, and(eq(schema.subscriptionCharges.userId, userId), eq(schema.subscriptionCharges.status, 'pending')));
  if (pending) throw new AppError('plan_change_in_progress');
}

export const PLAN_CHARGES_LIMIT = 100;

/** The user's plan payments (receipts and failed attempts), newest first: the last PLAN_CHARGES_LIMIT. */
export async function listPlanCharges(db: Db, userId: string): Promise<PlanChargeView[]> {
  return planCharges(db, userId, { limit: PLAN_CHARGES_LIMIT });
}

export const PLAN_CHARGE_FILTERS = ['all', ...SUBSCRIPTION_CHARGE_STATUSES] as const;
export type PlanChargeFilter = (typeof PLAN_CHARGE_FILTERS)[number];

const creditTiers = alias(schema.subscriptionTiers, 'credit_tiers');

async function planCharges(db: Db, userId: string, opts: { limit?: number; status?: PlanChargeFilter }): Promise<PlanChargeView[]> {
  const own = eq(schema.subscriptionCharges.userId, userId);
  const query = db
    .select({ charge: schema.subscriptionCharges, tier: schema.subscriptionTiers, source: schema.fundingSources, credited: creditTiers.displayName })
    .from(schema.subscriptionCharges)
    .innerJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.subscriptionCharges.tierId))
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.subscriptionCharges.fundingSourceId))
    .leftJoin(creditTiers, eq(creditTiers.id, schema.subscriptionCharges.creditTierId))
    .where(!opts.status || opts.status === 'all' ? own : and(own, eq(schema.subscriptionCharges.status, opts.status)))
    .orderBy(desc(schema.subscriptionCharges.createdAt), desc(schema.subscriptionCharges.id))
    .$dynamic();
  const rows = await (opts.limit === undefined ? query : query.limit(opts.limit));
  return rows.map((r) => toChargeView(r.charge, r.tier, r.source, r.credited));
}

export const PLAN_CHARGES_CSV_COLUMNS = [
  'id',
  'created_at',
  'kind',
  'plan',
  'period_start',
  'period_end',
  'amount',
  'status',
  'funding_source',
  'card_brand',
  'card_last4',
  'failure_message',
] as const;

/**
 * Every plan payment of the user with that status (all of them, not the last PLAN_CHARGES_LIMIT), newest first, as
 * CSV: the bookkeeping companion of the transactions CSV, which lists bcard purchases only. Amounts in dollars and
 * statuses as the API names them (succeeded, failed, pending).
 */
export async function exportPlanChargesCsv(db: Db, userId: string, status: PlanChargeFilter): Promise<string> {
  const rows: string[][] = [[...PLAN_CHARGES_CSV_COLUMNS]];
  for (const c of await planCharges(db, userId, { status })) {
    const s = c.fundingSource;
    rows.push([c.id, c.createdAt, c.kind, c.planName, c.periodStart, c.periodEnd, c.amount, c.status, s.name, s.brand, s.last4, c.failureMessage ?? '']);
  }
  return csvDocument(rows);
}

export function toChargeView(
  c: ChargeRow,
  tier: Pick<TierRow, 'displayName'>,
  source: { id: string; name: string; last4: string; brand: string },
  creditedPlanName: string | null = null,
): PlanChargeView {
  return {
    id: c.id,
    createdAt: c.createdAt.toISOString(),
    kind: c.kind,
    status: c.status,
    amount: money(c.amountCents),
    planName: tier.displayName,
    periodStart: c.periodStart.toISOString(),
    periodEnd: c.periodEnd.toISOString(),
    fundingSource: { id: source.id, name: source.name, last4: source.last4, brand: source.brand },
    failureMessage: c.failureMessage,
    proration:
      c.kind === 'proration' && creditedPlanName !== null && c.creditCents !== null && c.listPriceCents !== null
        ? { unusedPlanName: creditedPlanName, credit: money(c.creditCents), remaining: money(c.listPriceCents) }
        : null,
  };
}

export async function chargeView(db: Db, charge: ChargeRow): Promise<PlanChargeView> {
  const tier = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, charge.tierId));
  const source = await firstRow(db, schema.fundingSources, eq(schema.fundingSources.id, charge.fundingSourceId));
  if (!tier || !source) throw new Error(`plan charge ${charge.id} lost its tier or source`);
  const credited = charge.creditTierId ? await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, charge.creditTierId)) : null;
  return toChargeView(charge, tier, source, credited?.displayName ?? null);
}
