import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';

export const FEATURE_KEYS = [
  'basic_funding_sources',
  'unlimited_funding_sources',
  'priority_support',
  'api_access',
  'advanced_analytics',
  'custom_branding',
  'white_label',
  'dedicated_account_manager',
] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

/** -1 in any limit column means unlimited. */
export const UNLIMITED = -1;

export const subscriptionTiers = sqliteTable(
  'subscription_tiers',
  {
    id: text('id').primaryKey(),
    /** starter | free | pro | premium, or an admin-made name. */
    name: text('name').notNull(),
    displayName: text('display_name').notNull(),
    monthlyPriceCents: integer('monthly_price_cents').notNull(),
    /** Transaction fee in basis points of the amount: 290 = 2.9 %. Integer, so fees are exact. */
    transactionFeeBps: integer('transaction_fee_bps').notNull(),
    fundingSourcesLimit: integer('funding_sources_limit').notNull(),
    monthlyTransactions: integer('monthly_transactions').notNull(),
    bcardGenerationLimit: integer('bcard_generation_limit').notNull(),
    apiCallsPerMonth: integer('api_calls_per_month').notNull(),
    /** JSON array of FeatureKey. */
    features: text('features', { mode: 'json' }).$type<FeatureKey[]>().notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('subscription_tiers_name_unique').on(t.name),
    check('tiers_price_check', sql`${t.monthlyPriceCents} >= 0`),
    check('tiers_fee_check', sql`${t.transactionFeeBps} BETWEEN 0 AND 10000`),
    check('tiers_sources_check', sql`${t.fundingSourcesLimit} >= -1`),
    check('tiers_tx_check', sql`${t.monthlyTransactions} >= -1`),
    check('tiers_bcard_check', sql`${t.bcardGenerationLimit} >= -1`),
    check('tiers_api_check', sql`${t.apiCallsPerMonth} >= -1`),
  ],
);

export const SUBSCRIPTION_STATUSES = ['active', 'ended'] as const;

export const userSubscriptions = sqliteTable(
  'user_subscriptions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tierId: text('tier_id')
      .notNull()
      .references(() => subscriptionTiers.id, { onDelete: 'restrict' }),
    status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull(),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
    endedAt: integer('ended_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('user_subscriptions_user_idx').on(t.userId),
    // Subscribers per plan (admin figures) and the foreign-key check when a plan is deleted.
    index('user_subscriptions_tier_idx').on(t.tierId, t.status),
    // At most one active subscription per user.
    uniqueIndex('user_subscriptions_one_active').on(t.userId).where(sql`status = 'active'`),
    check('user_subscriptions_status_check', sql`${t.status} IN ('active','ended')`),
  ],
);
