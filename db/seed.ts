import { sql } from 'drizzle-orm';
import type { Db } from './client';
import { subscriptionTiers, type FeatureKey } from './schema';

interface TierSeed {
  id: string;
  name: string;
  displayName: string;
  monthlyPriceCents: number;
  transactionFeeBps: number;
  fundingSourcesLimit: number;
  monthlyTransactions: number;
  bcardGenerationLimit: number;
  apiCallsPerMonth: number;
  features: FeatureKey[];
  sortOrder: number;
}

/**
 * The plans an empty database starts with. Limits are -1 for unlimited. The reasoning behind each number is in
 * docs/DECISIONS.md ("Plans").
 */
export const DEFAULT_TIERS: TierSeed[] = [
  {
    id: 'tier_free',
    name: 'free',
    displayName: 'Free',
    monthlyPriceCents: 0,
    transactionFeeBps: 290,
    fundingSourcesLimit: 2,
    monthlyTransactions: 20,
    bcardGenerationLimit: 10,
    apiCallsPerMonth: 1_000,
    features: ['basic_funding_sources'],
    sortOrder: 1,
  },
  {
    id: 'tier_pro',
    name: 'pro',
    displayName: 'Professional',
    monthlyPriceCents: 999,
    transactionFeeBps: 290,
    fundingSourcesLimit: 5,
    monthlyTransactions: 200,
    bcardGenerationLimit: 100,
    apiCallsPerMonth: 10_000,
    features: ['basic_funding_sources', 'priority_support', 'api_access', 'advanced_analytics'],
    sortOrder: 2,
  },
  {
    id: 'tier_premium',
    name: 'premium',
    displayName: 'Premium',
    monthlyPriceCents: 1999,
    transactionFeeBps: 190,
    fundingSourcesLimit: -1,
    monthlyTransactions: -1,
    bcardGenerationLimit: -1,
    apiCallsPerMonth: 100_000,
    features: [
      'unlimited_funding_sources',
      'priority_support',
      'api_access',
      'advanced_analytics',
      'custom_branding',
      'white_label',
      'dedicated_account_manager',
    ],
    sortOrder: 3,
  },
];

/** Seeds the default plans into an empty tiers table. Idempotent: does nothing once any tier exists. */
export async function seedDb(db: Db, now: Date): Promise<void> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(subscriptionTiers);
  if ((row?.n ?? 0) > 0) return;
  await db
    .insert(subscriptionTiers)
    .values(DEFAULT_TIERS.map((t) => ({ ...t, isActive: true, createdAt: now, updatedAt: now })))
    .onConflictDoNothing();
}
