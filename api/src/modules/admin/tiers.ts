import { and, asc, count, eq, ne, or, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, type FeatureKey, firstRow } from '@bpay/db';
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

/** The highest monthly price a tier may have, in dollars. */
export const MAX_MONTHLY_PRICE = 1_000_000;
export const PRICE_MESSAGE = `monthlyPrice must be an amount in dollars from 0 to ${MAX_MONTHLY_PRICE.toLocaleString('en-US')} with at most 2 decimals.`;
/**
 * The fee is stored in whole basis points (transaction_fee_bps): a percent with at most 2 decimals. The panel takes it
 * as that percent; the API as the fraction (0.029 = 2.9 % = 290 bps). One message for every way it can be wrong.
 */
export const FEE_MESSAGE =
  'Fee must be between 0 % and 100 % with at most 2 decimals (transactionFeeRate is that percent as a fraction: 0.029 for 2.9 %).';

/** Dollars → cents, refusing anything finer than a cent (no silent rounding of money). */
export function dollarsToCents(dollars: number, param = 'monthlyPrice'): number {
  const cents = Math.round(dollars * 100);
  if (!Number.isFinite(dollars) || dollars < 0 || dollars > MAX_MONTHLY_PRICE || Math.abs(cents - dollars * 100) > 1e-6) {
    throw new AppError('validation_error', PRICE_MESSAGE, param);
  }
  return cents;
}

/** Fraction → basis points, refusing anything finer than 0.0001 (0.01 %) or outside 0 to 1. */
export function rateToBps(rate: number, param = 'transactionFeeRate'): number {
  const bps = Math.round(rate * 10000);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1 || Math.abs(bps - rate * 10000) > 1e-6) {
    throw new AppError('validation_error', FEE_MESSAGE, param);
  }
  return bps;
}

/**
 * The plan every new account starts on: registration (auth/service.ts) and currentTier (subscription/service.ts) find
 * it by this name. So it stays active and keeps its name, and is never deleted; everything else about it is editable.
 */
export const DEFAULT_TIER_NAME = 'free';
/** The guard of every statement that could deactivate, rename or delete a tier: the row is not the default plan. */
const notDefaultTier = ne(schema.subscriptionTiers.name, DEFAULT_TIER_NAME);

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

/**
 * Edits the given fields. Fails: resource_not_found, validation_error, tier_name_taken, tier_is_default (deactivating
 * or renaming the free plan; checked in the UPDATE's own WHERE, so no interleaving gets past it).
 */
export async function updateTier(db: Db, clock: Clock, actor: AdminActor, id: string, input: TierInput): Promise<AdminTierView> {
  const before = await getTier(db, id);
  // Would this edit take the default plan away: turn it off, or move its name (new accounts look it up by name)?
  const guarded = input.isActive === false || (input.name !== undefined && input.name !== DEFAULT_TIER_NAME);
  if (guarded && before.name === DEFAULT_TIER_NAME) throw new AppError('tier_is_default');
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
  let after: TierRow;
  try {
    after = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(schema.subscriptionTiers)
        .set(set)
        .where(and(eq(schema.subscriptionTiers.id, id), guarded ? notDefaultTier : undefined))
        .returning();
      if (!row) throw await refusal(tx, id);
      await recordAudit(tx, clock, {
        adminId: actor.adminId,
        action: 'tier.update',
        targetType: 'subscription_tier',
        targetId: id,
        before: toAdminTier(before),
        after: toAdminTier(row),
        ip: actor.ip,
      });
      return row;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError('tier_name_taken', undefined, 'name');
    throw e;
  }
  return toAdminTier(after);
}

/** Why a guarded statement changed no row: the tier is gone, or it is the default plan. */
async function refusal(db: DbOrTx, id: string): Promise<AppError> {
  const [row] = await db.select({ name: schema.subscriptionTiers.name }).from(schema.subscriptionTiers).where(eq(schema.subscriptionTiers.id, id));
  return row ? new AppError('tier_is_default') : notFound('subscription tier');
}

/**
 * Flips isActive in one guarded statement (`SET is_active = NOT is_active`), so concurrent toggles each flip once and
 * none is lost. Users already on a deactivated tier keep it; nobody new can be moved to it. Fails: resource_not_found,
 * tier_is_default (the free plan cannot be turned off; turning it back on is allowed).
 */
export async function toggleTier(db: Db, clock: Clock, actor: AdminActor, id: string): Promise<AdminTierView> {
  const tiers = schema.subscriptionTiers;
  const after = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(tiers)
      .set({ isActive: sql`NOT ${tiers.isActive}`, updatedAt: clock.now() })
      .where(and(eq(tiers.id, id), or(eq(tiers.isActive, false), notDefaultTier)))
      .returning();
    if (!row) throw await refusal(tx, id);
    await recordAudit(tx, clock, {
      adminId: actor.adminId,
      action: 'tier.update',
      targetType: 'subscription_tier',
      targetId: id,
      before: { isActive: !row.isActive },
      after: toAdminTier(row),
      ip: actor.ip,
    });
    return row;
  });
  return toAdminTier(after);
}

/**
 * Deletes a tier. Fails: resource_not_found; tier_is_default (409) for the free plan that new accounts start on;
 * tier_in_use (409) while it is active or while any user subscription (active or ended) references it.
 */
export async function deleteTier(db: Db, clock: Clock, actor: AdminActor, id: string): Promise<{ deleted: true; id: string }> {
  const before = await getTier(db, id);
  if (before.name === DEFAULT_TIER_NAME) throw new AppError('tier_is_default');
  if (before.isActive) throw new AppError('tier_in_use', 'Deactivate this tier before deleting it: only inactive tiers can be deleted.');
  const [refs] = await db.select({ n: count() }).from(schema.userSubscriptions).where(eq(schema.userSubscriptions.tierId, id));
  if ((refs?.n ?? 0) > 0) {
    throw new AppError('tier_in_use', `This tier cannot be deleted: ${refs!.n} user subscription(s) reference it.`);
  }
  await db.transaction(async (tx) => {
    const gone = await tx
      .delete(schema.subscriptionTiers)
      .where(and(eq(schema.subscriptionTiers.id, id), eq(schema.subscriptionTiers.isActive, false), notDefaultTier))
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
