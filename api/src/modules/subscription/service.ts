import { and, asc, eq, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, UNLIMITED, type FeatureKey, prepared } from '@bpay/db';

type TierRow = typeof schema.subscriptionTiers.$inferSelect;
type UserRow = typeof schema.users.$inferSelect;

export interface TierView {
  id: string;
  name: string;
  displayName: string;
  monthlyPrice: number;
  transactionFeeRate: number;
  limits: { fundingSources: number; monthlyTransactions: number; bcardGenerationLimit: number; apiCallsPerMonth: number };
  features: FeatureKey[];
}

/** The SPA contract speaks dollars and fractions; inside they are cents and basis points. */
export function toTierView(t: TierRow): TierView {
  return {
    id: t.id,
    name: t.name,
    displayName: t.displayName,
    monthlyPrice: t.monthlyPriceCents / 100,
    transactionFeeRate: t.transactionFeeBps / 10000,
    limits: {
      fundingSources: t.fundingSourcesLimit,
      monthlyTransactions: t.monthlyTransactions,
      bcardGenerationLimit: t.bcardGenerationLimit,
      apiCallsPerMonth: t.apiCallsPerMonth,
    },
    features: t.features,
  };
}

/** Active tiers in display order (cheapest first). */
export async function listActiveTiers(db: Db): Promise<TierView[]> {
  const rows = await db
    .select()
    .from(schema.subscriptionTiers)
    .where(eq(schema.subscriptionTiers.isActive, true))
    .orderBy(asc(schema.subscriptionTiers.sortOrder), asc(schema.subscriptionTiers.monthlyPriceCents));
  return rows.map(toTierView);
}

/** The tier of the user's active subscription (built once: db/prepared.ts; every merchant API request reads it). */
const subscribedTier = prepared((db) =>
  db
    .select({ tier: schema.subscriptionTiers })
    .from(schema.userSubscriptions)
    .innerJoin(schema.subscriptionTiers, eq(schema.subscriptionTiers.id, schema.userSubscriptions.tierId))
    .where(and(eq(schema.userSubscriptions.userId, sql.placeholder('userId')), eq(schema.userSubscriptions.status, 'active')))
    .limit(1)
    .prepare(),
);
const tierByName = prepared((db) =>
  db.select().from(schema.subscriptionTiers).where(eq(schema.subscriptionTiers.name, sql.placeholder('name'))).limit(1).prepare(),
);

/** The user's current tier: the active subscription, else the free plan. */
export async function currentTier(db: DbOrTx, userId: string): Promise<TierRow> {
  const subscribed = await subscribedTier(db).get({ userId });
  if (subscribed) return subscribed.tier;
  const free = await tierByName(db).get({ name: 'free' });
  if (!free) throw new Error('the free plan is missing: the database was not seeded');
  return free;
}

/** ID verification adds one funding source on the free plan (3 in total). */
export const KYC_BONUS_SOURCES_ON_FREE = 1;

export function maxFundingSources(tier: TierRow, isKycVerified: boolean): number {
  if (tier.fundingSourcesLimit === UNLIMITED) return UNLIMITED;
  return tier.fundingSourcesLimit + (isKycVerified && tier.name === 'free' ? KYC_BONUS_SOURCES_ON_FREE : 0);
}

export interface Benefits {
  currentTier: string;
  benefits: {
    maxFundingSources: number;
    nameVerificationRequired: boolean;
    isKycVerified: boolean;
    features: FeatureKey[];
    feePercentage: number;
  };
}

export async function getBenefits(db: Db, user: UserRow): Promise<Benefits> {
  const tier = await currentTier(db, user.id);
  const verified = user.kycStatus === 'verified';
  return {
    currentTier: tier.name,
    benefits: {
      maxFundingSources: maxFundingSources(tier, verified),
      // Unverified accounts may add only sources in their own name (fraud prevention).
      nameVerificationRequired: !verified,
      isKycVerified: verified,
      features: tier.features,
      feePercentage: tier.transactionFeeBps / 100,
    },
  };
}
