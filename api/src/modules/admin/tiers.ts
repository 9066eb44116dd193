import { and, asc, count, eq, sql } from 'drizzle-orm';
import { schema, type Db, type FeatureKey, firstRow } from '@bpay/db';
import { AppError, notFound } from '../../errors';
import type { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { isUniqueViolation } from '../users/service';
import { toTierView, type TierView } from '../subscription/service';
import { recordAudit } from './audit';
import type { AdminActor } from './users';

type TierRow = typeof schema.subscriptionTiers.$inferSelect;

export type AdminTierView = TierView & { isActive: boolean; createdAt: string; updatedAt: string };

export const toAdminTier = (t: TierRow): AdminTierView => ({
  ...toTierView(t),
  isActive: t.isActive,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

/** The spec's defaults for a new tier. */
export const TIER_DEFAULTS = {
  limits: { fundingSources: 5, monthlyTransactions: 100, apiCallsPerMonth: 1000, bcardGenerationLimit: 10 },
  transactionFeeRate: 0.029,
  isActive: true,
} as const;

export interface TierLimitsInput {
  fundingSources?: number;
  monthlyTransactions?: number;
  apiCallsPerMonth?: number;
  bcardGenerationLimit?: number;
}

export interface TierInput {
  name?: string;
  displayName?: string;
  /** Dollars, at most 2 decimals. */
  monthlyPrice?: number;
  /** Fraction (0.029 = 2.9 %), a whole number of basis points. */
  transactionFeeRate?: number;
  features?: FeatureKey[];
  limits?: TierLimitsInput;
  isActive?: boolean;
}

/** Dollars → cents, refusing anything finer than a cent (no silent rounding of money). */
export function dollarsToCents(dollars: number, param = 'monthlyPrice'): number {
  const cents = Math.round(dollars * 100);
  if (!Number.isFinite(dollars) || dollars < 0 || Math.abs(cents - dollars * 100) > 1e-6) {
    throw new AppError('validation_error', `${param} must be a non-negative amount in dollars with at most 2 decimals.`, param);
  }
  return cents;
}

/** Fraction → basis points, refusing anything finer than 0.0001 (0.01 %). */
export function rateToBps(rate: number, param = 'transactionFeeRate'): number {
  const bps = Math.round(rate * 10000);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1 || Math.abs(bps - rate * 10000) > 1e-6) {
    throw new AppError(
      'validation_error',
      `${param} must be a fraction between 0 and 1 in steps of 0.0001 (0.01 %), for example 0.029 for 2.9 %.`,
      param,
    );
  }
  return bps;
}

/** A zero limit means unlimited, as the tier form shows it; stored as -1. */
const limit = (v: number) => (v === 0 ? -1 : v);

function limitColumns(l: TierLimitsInput) {
  return {
    ...(l.fundingSources !== undefined ? { fundingSourcesLimit: limit(l.fundingSources) } : {}),
    ...(l.monthlyTransactions !== undefined ? { monthlyTransactions: limit(l.monthlyTransactions) } : {}),
    ...(l.apiCallsPerMonth !== undefined ? { apiCallsPerMonth: limit(l.apiCallsPerMonth) } : {}),
    ...(l.bcardGenerationLimit !== undefined ? { bcardGenerationLimit: limit(l.bcardGenerationLimit) } : {}),
  };
}

export async function listTiers(db: Db): Promise<AdminTierView[]> {
  const rows = await db
    .select()
    .from(schema.subscriptionTiers)
    .orderBy(asc(schema.subscriptionTiers.sortOrder), asc(schema.subscriptionTiers.monthlyPriceCents), asc(schema.subscriptionTiers.id));
  return rows.map(toAdminTier);
}

async function getTier(db: Db, id: string): Promise<TierRow> {
  const t = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, id));
  if (!t) throw notFound('subscription tier');
  return t;
}

/**
 * Creates a tier with the spec's defaults for what is left out. Fails: validation_error (price finer than a cent,
 * fee rate finer than a basis point), tier_name_taken.
 */
export async function createTier(
  db: Db,
  clock: Clock,
  actor: AdminActor,
  input: TierInput & { name: string; displayName: string; monthlyPrice: number },
): Promise<AdminTierView> {
  const now = clock.now();
  const limits = { ...TIER_DEFAULTS.limits, ...input.limits };
  const [maxOrder] = await db.select({ n: sql<number>`coalesce(max(${schema.subscriptionTiers.sortOrder}), 0)` }).from(schema.subscriptionTiers);
  const row: TierRow = {
    id: newId('tier'),
    name: input.name,
    displayName: input.displayName.trim(),
    monthlyPriceCents: dollarsToCents(input.monthlyPrice),
    transactionFeeBps: rateToBps(input.transactionFeeRate ?? TIER_DEFAULTS.transactionFeeRate),
    fundingSourcesLimit: limit(limits.fundingSources),
    monthlyTransactions: limit(limits.monthlyTransactions),
    apiCallsPerMonth: limit(limits.apiCallsPerMonth),
    bcardGenerationLimit: limit(limits.bcardGenerationLimit),
    features: [...new Set(input.features ?? [])],
    isActive: input.isActive ?? TIER_DEFAULTS.isActive,
    sortOrder: Number(maxOrder?.n ?? 0) + 1,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.transaction(async (tx) => {
      await tx.insert(schema.subscriptionTiers).values(row);
      await recordAudit(tx, clock, {
        adminId: actor.adminId,
        action: 'tier.create',
        targetType: 'subscription_tier',
        targetId: row.id,
        after: toAdminTier(row),
        ip: actor.ip,
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('tier_name_taken', undefined, 'name');
    throw e;
  }
  return toAdminTier(row);
}

/** Edits the given fields. Fails: resource_not_found, validation_error, tier_name_taken. */
export async function updateTier(db: Db, clock: Clock, actor: AdminActor, id: string, input: TierInput): Promise<AdminTierView> {
  const before = await getTier(db, id);
  const set = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.displayName !== undefined ? { displayName: input.displayName.trim() } : {}),
    ...(input.monthlyPrice !== undefined ? { monthlyPriceCents: dollarsToCents(input.monthlyPrice) } : {}),
    ...(input.transactionFeeRate !== undefined ? { transactionFeeBps: rateToBps(input.transactionFeeRate) } : {}),
    ...(input.features !== undefined ? { features: [...new Set(input.features)] } : {}),
    ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
    ...limitColumns(input.limits ?? {}),
    updatedAt: clock.now(),
  };
  try {
    await db.transaction(async (tx) => {
      await tx.update(schema.subscriptionTiers).set(set).where(eq(schema.subscriptionTiers.id, id));
      await recordAudit(tx, clock, {
        adminId: actor.adminId,
        action: 'tier.update',
        targetType: 'subscription_tier',
        targetId: id,
        before: toAdminTier(before),
        after: toAdminTier({ ...before, ...set }),
        ip: actor.ip,
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('tier_name_taken', undefined, 'name');
    throw e;
  }
  return toAdminTier(await getTier(db, id));
}

/** Flips isActive. Users already on a deactivated tier keep it; nobody new can be moved to it. */
export async function toggleTier(db: Db, clock: Clock, actor: AdminActor, id: string): Promise<AdminTierView> {
  const before = await getTier(db, id);
  return updateTier(db, clock, actor, id, { isActive: !before.isActive });
}

/**
 * Deletes a tier. Fails: resource_not_found; tier_in_use (409) while it is active, while any user subscription
 * (active or ended) references it, or for the free plan that new accounts start on.
 */
export async function deleteTier(db: Db, clock: Clock, actor: AdminActor, id: string): Promise<{ deleted: true; id: string }> {
  const before = await getTier(db, id);
  if (before.isActive) throw new AppError('tier_in_use', 'Deactivate this tier before deleting it: only inactive tiers can be deleted.');
  if (before.name === 'free') throw new AppError('tier_in_use', 'The free plan cannot be deleted: every new account starts on it.');
  const [refs] = await db.select({ n: count() }).from(schema.userSubscriptions).where(eq(schema.userSubscriptions.tierId, id));
  if ((refs?.n ?? 0) > 0) {
    throw new AppError('tier_in_use', `This tier cannot be deleted: ${refs!.n} user subscription(s) reference it.`);
  }
  await db.transaction(async (tx) => {
    const gone = await tx
      .delete(schema.subscriptionTiers)
      .where(and(eq(schema.subscriptionTiers.id, id), eq(schema.subscriptionTiers.isActive, false)))
      .returning({ id: schema.subscriptionTiers.id });
    if (gone.length !== 1) throw new AppError('tier_in_use', 'Only inactive tiers can be deleted.');
    await recordAudit(tx, clock, {
      adminId: actor.adminId,
      action: 'tier.delete',
      targetType: 'subscription_tier',
      targetId: id,
      before: toAdminTier(before),
      after: null,
      ip: actor.ip,
    });
  });
  return { deleted: true, id };
}
