import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';
import { collectionShares, fundingSources } from './money';

/*
 * The merchant platform: merchant accounts and their keys, Stripe-like payment intents, events and their
 * webhook deliveries (an outbox written in the same transaction as the change that causes the event).
 */

export const PLATFORM_TYPES = ['shopify', 'wordpress', 'woocommerce', 'custom'] as const;
export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const merchants = sqliteTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    businessName: text('business_name').notNull(),
    businessEmail: text('business_email').notNull(),
    website: text('website'),
    platformType: text('platform_type', { enum: PLATFORM_TYPES }).notNull(),
    environment: text('environment', { enum: ENVIRONMENTS }).notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    /** pk_test_… / pk_live_…: public by design (it goes into merchant pages). */
    publishableKey: text('publishable_key').notNull(),
    /** HMAC of the secret key: the secret itself is shown once and never stored. */
    secretKeyHash: text('secret_key_hash').notNull(),
    secretKeyLast4: text('secret_key_last4').notNull(),
    secretKeyRolledAt: integer('secret_key_rolled_at', { mode: 'timestamp_ms' }),
    /**
     * After a roll with a grace period, the HMAC of the key it replaced, which keeps working until
     * `previous_secret_key_expires_at` (Stripe's "expire the old key in …"); null when it stopped at once.
     */
    previousSecretKeyHash: text('previous_secret_key_hash'),
    previousSecretKeyLast4: text('previous_secret_key_last4'),
    previousSecretKeyExpiresAt: integer('previous_secret_key_expires_at', { mode: 'timestamp_ms' }),
    /**
     * Running total of amount_received over the merchant's payment intents (both modes), in cents: moved in the
     * same transaction as the intent whose amount_received changes, so the merchant list never sums intents.
     */
    amountReceivedTotal: integer('amount_received_total').notNull().default(0),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('merchants_user_idx').on(t.userId, t.createdAt, t.id),
    // The admin merchant list: newest first, all or one environment; id last so a cursor's row value seeks.
    index('merchants_created_idx').on(t.createdAt, t.id),
    index('merchants_environment_idx').on(t.environment, t.createdAt, t.id),
    uniqueIndex('merchants_publishable_key_unique').on(t.publishableKey),
    uniqueIndex('merchants_secret_key_hash_unique').on(t.secretKeyHash),
    uniqueIndex('merchants_previous_secret_key_hash_unique').on(t.previousSecretKeyHash),
  ],
);

export const PAYMENT_INTENT_STATUSES = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
  'succeeded',
  'canceled',
] as const;
export type PaymentIntentStatus = (typeof PAYMENT_INTENT_STATUSES)[number];

export const paymentIntents = sqliteTable(
  'payment_intents',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: PAYMENT_INTENT_STATUSES }).notNull(),
    captureMethod: text('capture_method', { enum: ['automatic', 'manual'] }).notNull(),
    description: text('description'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    clientSecret: text('client_secret').notNull(),
    /** The bcard that paid (or is authorized to pay) this intent. */
    bcardId: text('bcard_id'),
    amountCapturable: integer('amount_capturable').notNull().default(0),
    amountReceived: integer('amount_received').notNull().default(0),
    /** Refunded so far, pending refunds included (reserved when a refund is created, given back if it fails). */
    amountRefunded: integer('amount_refunded').notNull().default(0),
    lastPaymentError: text('last_payment_error', { mode: 'json' }).$type<Record<string, unknown>>(),
    cancellationReason: text('cancellation_reason'),
    canceledAt: integer('canceled_at', { mode: 'timestamp_ms' }),
    /** When a manual-capture intent's bcard was authorized; uncaptured for 7 days, the intent is canceled (automatic). */
    authorizedAt: integer('authorized_at', { mode: 'timestamp_ms' }),
    /** The merchant's Customer (customers.id) the intent names, if any; kept when the customer is deleted, as Stripe does. */
    customerId: text('customer_id'),
    /** Stripe's create parameters kept as given (issue 28): where to send a receipt, and what the consumer's bcard shows. */
    receiptEmail: text('receipt_email'),
    statementDescriptor: text('statement_descriptor'),
    statementDescriptorSuffix: text('statement_descriptor_suffix'),
    /** automatic_payment_methods[enabled] as given (null when not sent): bcards are the one method either way. */
    automaticPaymentMethods: integer('automatic_payment_methods', { mode: 'boolean' }),
    /** Monotonic per merchant, for stable list ordering and cursors. */
    seq: integer('seq').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('payment_intents_merchant_idx').on(t.merchantId, t.livemode, t.seq),
    // The money sweep's stale authorizations (requires_capture) and stuck intents (processing).
    index('payment_intents_status_idx').on(t.status, t.updatedAt),
    uniqueIndex('payment_intents_bcard_unique').on(t.bcardId),
    check('payment_intents_amount_check', sql`${t.amount} >= 50 AND ${t.amount} <= 99999999`),
    check('payment_intents_received_check', sql`${t.amountReceived} >= 0 AND ${t.amountReceived} <= ${t.amount}`),
    check('payment_intents_refunded_check', sql`${t.amountRefunded} >= 0 AND ${t.amountRefunded} <= ${t.amountReceived}`),
  ],
);

/**
 * A merchant's Customer (Stripe's object, issue 28): contact details and metadata an intent can name. Scoped to the
 * merchant and the mode. Deleting one keeps the row (intents still name its id; retrieve answers `deleted: true`) and
 * clears its personal details.
 */
export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    email: text('email'),
    name: text('name'),
    phone: text('phone'),
    description: text('description'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    /** Monotonic per merchant, for stable list ordering and cursors. */
    seq: integer('seq').notNull(),
    deletedAt: integer('deleted_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('customers_merchant_idx').on(t.merchantId, t.livemode, t.seq),
    index('customers_email_idx').on(t.merchantId, t.livemode, t.email),
  ],
);

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * A merchant's refund of a succeeded payment intent (Stripe's Refund). Created pending with its amount reserved on
 * the intent (amount_refunded) in one guarded statement, so concurrent refunds never pass the amount received; the
 * money goes back through the split that funded the bcard (refund_parts), under a lease like every other saga.
 */
export const refunds = sqliteTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    paymentIntentId: text('payment_intent_id')
      .notNull()
      .references(() => paymentIntents.id, { onDelete: 'cascade' }),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    /** What the merchant refunds (cents of the purchase). */
    amount: integer('amount').notNull(),
    /** The part of the consumer's bpay fee returned with it (docs/DECISIONS.md: the fee follows the refund). */
    feeCents: integer('fee_cents').notNull().default(0),
    currency: text('currency').notNull(),
    status: text('status', { enum: REFUND_STATUSES }).notNull(),
    reason: text('reason', { enum: REFUND_REASONS }),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    failureReason: text('failure_reason'),
    /**
     * The Idempotency-Key's record this refund was made under (`key#record`): a request that takes the key over after
     * the first one died finds this refund instead of making a second one.
     */
    requestKey: text('request_key'),
    leaseOwner: text('lease_owner').notNull(),
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }).notNull(),
    /** Monotonic per merchant, for stable list ordering and cursors. */
    seq: integer('seq').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('refunds_merchant_idx').on(t.merchantId, t.livemode, t.seq),
    index('refunds_intent_idx').on(t.paymentIntentId, t.seq),
    uniqueIndex('refunds_request_key_unique').on(t.merchantId, t.requestKey),
    // The refund sweep: pending refunds whose worker is gone.
    index('refunds_status_idx').on(t.status, t.leaseUntil),
    check('refunds_amount_check', sql`${t.amount} > 0 AND ${t.feeCents} >= 0`),
  ],
);

export const REFUND_PART_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One funding source's part of a refund: what goes back to it, and the processor's id for that refund. */
export const refundParts = sqliteTable(
  'refund_parts',
  {
    id: text('id').primaryKey(),
    refundId: text('refund_id')
      .notNull()
      .references(() => refunds.id, { onDelete: 'cascade' }),
    shareId: text('share_id')
      .notNull()
      .references(() => collectionShares.id, { onDelete: 'restrict' }),
    fundingSourceId: text('funding_source_id')
      .notNull()
      .references(() => fundingSources.id, { onDelete: 'restrict' }),
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: REFUND_PART_STATUSES }).notNull(),
    vendorRefundId: text('vendor_refund_id'),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('refund_parts_share_unique').on(t.refundId, t.shareId),
    index('refund_parts_share_idx').on(t.shareId),
    check('refund_parts_amount_check', sql`${t.amountCents} > 0`),
  ],
);

/** API requests per merchant and UTC day, for usage figures and the plan's monthly allowance. */
export const merchantUsage = sqliteTable(
  'merchant_usage',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    requests: integer('requests').notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.day] })],
);

/**
 * Secret keys that no longer work because a roll replaced them and their grace (if any) is over or was cut short by a
 * later roll: only their HMAC (like merchants.secret_key_hash), kept so that using one is answered api_key_expired
 * ("replaced by a roll at …, stopped working at …") rather than a generic invalid key. Rows leave with the merchant.
 */
export const retiredSecretKeys = sqliteTable(
  'retired_secret_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    /** When the roll that made it the previous key happened (null when that is not known). */
    replacedAt: integer('replaced_at', { mode: 'timestamp_ms' }),
    /** When it stopped working: its grace's end, or the later roll that replaced it early. */
    stoppedAt: integer('stopped_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('retired_secret_keys_merchant_idx').on(t.merchantId)],
);

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    url: text('url').notNull(),
    description: text('description'),
    enabledEvents: text('enabled_events', { mode: 'json' }).$type<string[]>().notNull(),
    /** AES-GCM sealed whsec_… (needed to sign every delivery). */
    secretSealed: text('secret_sealed').notNull(),
    /**
     * The secret a roll replaced, AES-GCM sealed like the current one, while deliveries are still signed with it too
     * (until `previous_secret_expires_at`); null when the roll stopped it at once. Cleared by the next roll.
     */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: integer('previous_secret_expires_at', { mode: 'timestamp_ms' }),
    status: text('status', { enum: ['enabled', 'disabled'] }).notNull(),
    disabledReason: text('disabled_reason'),
    /** Since when every delivery has failed; null after a success. */
    failingSince: integer('failing_since', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('webhook_endpoints_merchant_idx').on(t.merchantId, t.livemode, t.createdAt, t.id)],
);

export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    type: text('type').notNull(),
    /** The object as it was when the event happened. */
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    seq: integer('seq').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('events_merchant_idx').on(t.merchantId, t.livemode, t.seq),
    // The events list filtered by type.
    index('events_merchant_type_idx').on(t.merchantId, t.livemode, t.type, t.seq),
  ],
);

/** The outbox: one row per event and endpoint, sent after commit by the delivery worker. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    /**
     * The endpoint's merchant and mode, copied when the delivery is queued, so the merchant's deliveries list walks
     * one index instead of merging every endpoint's. Nullable only because SQLite adds a NOT NULL column to a table
     * with rows only with a default; every row has them (migration 0009 filled the older ones).
     */
    merchantId: text('merchant_id'),
    livemode: integer('livemode', { mode: 'boolean' }),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }).notNull(),
    lockedUntil: integer('locked_until', { mode: 'timestamp_ms' }),
    lastAttemptAt: integer('last_attempt_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    index('webhook_deliveries_merchant_idx').on(t.merchantId, t.livemode, t.createdAt),
    index('webhook_deliveries_event_idx').on(t.eventId),
  ],
);

export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    /** The first 500 characters of the answer, or the network error. */
    responseSnippet: text('response_snippet'),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.at)],
);

export const BROADCAST_REASONS = ['created', 'resend'] as const;

/**
 * Append-only feed of events for live listeners (GET /api/v1/events/stream, `bpay listen`). A row is written in
 * the transaction that writes the event (or records a resend); open streams poll it from the seq they started at,
 * so every server process sharing the database sees every row. AUTOINCREMENT keeps seq strictly increasing and
 * never reused. Old rows are pruned by the housekeeping timer.
 */
export const eventBroadcasts = sqliteTable(
  'event_broadcasts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    reason: text('reason', { enum: BROADCAST_REASONS }).notNull(),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('event_broadcasts_merchant_idx').on(t.merchantId, t.livemode, t.seq),
    index('event_broadcasts_at_idx').on(t.at),
    // The foreign key's child index: an event's rows found by a seek, not a scan (a multi-row insert of events plans
    // SQLite's check of children; deleting an event cascades here).
    index('event_broadcasts_event_idx').on(t.eventId),
  ],
);
