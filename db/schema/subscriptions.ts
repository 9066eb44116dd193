import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';
import { fundingSources } from './money';

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
    /** A paid plan's billing period (issue 16); null on the free plan, which is never billed. */
    currentPeriodStart: integer('current_period_start', { mode: 'timestamp_ms' }),
    currentPeriodEnd: integer('current_period_end', { mode: 'timestamp_ms' }),
    /** Where the renewal is charged: the funding source the user picked when paying. */
    paymentSourceId: text('payment_source_id').references(() => fundingSources.id, { onDelete: 'set null' }),
    /** A downgrade or a cancellation (to the free plan) waits for the period's end: the tier it moves to then. */
    pendingTierId: text('pending_tier_id').references(() => subscriptionTiers.id, { onDelete: 'set null' }),
    /** Set while a renewal has failed and is being retried (the grace period); cleared by a paid renewal. */
    pastDueSince: integer('past_due_since', { mode: 'timestamp_ms' }),
    renewalAttempts: integer('renewal_attempts').notNull().default(0),
    nextRenewalAttemptAt: integer('next_renewal_attempt_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('user_subscriptions_user_idx').on(t.userId),
    // Subscribers per plan (admin figures) and the foreign-key check when a plan is deleted.
    index('user_subscriptions_tier_idx').on(t.tierId, t.status),
    // At most one active subscription per user.
    uniqueIndex('user_subscriptions_one_active').on(t.userId).where(sql`status = 'active'`),
    check('user_subscriptions_status_check', sql`${t.status} IN ('active','ended')`),
    // The renewal sweep: active paid subscriptions whose period (or next retry) is due.
    index('user_subscriptions_renewal_idx').on(t.status, t.currentPeriodEnd),
  ],
);

/**
 * upgrade: a new plan's full price and a new period (from Free, or once a period is over); renewal: the next period;
 * proration: an upgrade in the middle of a paid period, the new plan's rest of the period less the old one's unused
 * part (issue 26), the period unchanged.
 */
export const SUBSCRIPTION_CHARGE_KINDS = ['upgrade', 'renewal', 'proration'] as const;
export const SUBSCRIPTION_CHARGE_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/**
 * One charge of a plan's price to a funding source (an upgrade, or a period's renewal), through the processor:
 * recorded pending under a lease before the processor is called (the sweep finishes or undoes it after a crash),
 * keyed so that a retried request or renewal never charges twice.
 */
export const subscriptionCharges = sqliteTable(
  'subscription_charges',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    subscriptionId: text('subscription_id').references(() => userSubscriptions.id, { onDelete: 'set null' }),
    tierId: text('tier_id')
      .notNull()
      .references(() => subscriptionTiers.id, { onDelete: 'restrict' }),
    fundingSourceId: text('funding_source_id')
      .notNull()
      .references(() => fundingSources.id, { onDelete: 'restrict' }),
    kind: text('kind', { enum: SUBSCRIPTION_CHARGE_KINDS }).notNull(),
    status: text('status', { enum: SUBSCRIPTION_CHARGE_STATUSES }).notNull(),
    amountCents: integer('amount_cents').notNull(),
    periodStart: integer('period_start', { mode: 'timestamp_ms' }).notNull(),
    periodEnd: integer('period_end', { mode: 'timestamp_ms' }).notNull(),
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    /** The processor's charge (a captured hold) once it went through. */
    vendorChargeId: text('vendor_charge_id'),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    /**
     * A proration (issue 26): amountCents = listPriceCents - creditCents. listPriceCents is the new plan's price for
     * the rest of the period (periodStart..periodEnd), creditCents the unused part of creditTierId's plan over the same
     * span. All three null on an upgrade or renewal.
     */
    listPriceCents: integer('list_price_cents'),
    creditCents: integer('credit_cents'),
    creditTierId: text('credit_tier_id').references(() => subscriptionTiers.id, { onDelete: 'restrict' }),
    /** The client's Idempotency-Key (upgrades) or `renewal:<subscription>:<period end>` (renewals). */
    idempotencyKey: text('idempotency_key').notNull(),
    leaseOwner: text('lease_owner').notNull(),
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('subscription_charges_key_unique').on(t.userId, t.idempotencyKey),
    index('subscription_charges_user_idx').on(t.userId, t.createdAt, t.id),
    index('subscription_charges_status_idx').on(t.status, t.leaseUntil),
    // Admin revenue: paid charges by time.
    index('subscription_charges_paid_idx').on(t.status, t.createdAt),
    check('subscription_charges_amount_check', sql`${t.amountCents} > 0`),
  ],
);

export const PLAN_REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/**
 * Money given back for the unused part of a paid plan when an admin moves the user to another plan at once (issue
 * 26). One row per plan charge it comes out of (a period paid by an upgrade and then a proration can need two).
 * Recorded pending with its processor key before the processor is called; the result (and the ledger movement) is
 * recorded in one transaction; a sweep finishes a pending one whose worker is gone, with the same key, so a refund is
 * never paid twice nor recorded without being paid.
 */
export const planRefunds = sqliteTable(
  'plan_refunds',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The plan charge (a captured hold) the money goes back from, to the card it was paid with. */
    chargeId: text('charge_id')
      .notNull()
      .references(() => subscriptionCharges.id, { onDelete: 'restrict' }),
    fundingSourceId: text('funding_source_id')
      .notNull()
      .references(() => fundingSources.id, { onDelete: 'restrict' }),
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: PLAN_REFUND_STATUSES }).notNull(),
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    vendorRefundId: text('vendor_refund_id'),
    /** The plan whose unused time is refunded, the plan moved to, and the unused span. */
    fromTierId: text('from_tier_id')
      .notNull()
      .references(() => subscriptionTiers.id, { onDelete: 'restrict' }),
    toTierId: text('to_tier_id')
      .notNull()
      .references(() => subscriptionTiers.id, { onDelete: 'restrict' }),
    unusedFrom: integer('unused_from', { mode: 'timestamp_ms' }).notNull(),
    unusedTo: integer('unused_to', { mode: 'timestamp_ms' }).notNull(),
    /** The admin who made the change (audited beside it). */
    adminId: text('admin_id').notNull(),
    /** The processor's idempotency key: the same refund is asked for with it however often it is retried. */
    idempotencyKey: text('idempotency_key').notNull(),
    failureMessage: text('failure_message'),
    leaseOwner: text('lease_owner').notNull(),
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('plan_refunds_key_unique').on(t.idempotencyKey),
    index('plan_refunds_charge_idx').on(t.chargeId),
    index('plan_refunds_status_idx').on(t.status, t.leaseUntil),
    check('plan_refunds_amount_check', sql`${t.amountCents} > 0`),
    check('plan_refunds_status_check', sql`${t.status} IN ('pending','succeeded','failed')`),
  ],
);
