import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';

/*
 * bpay's own records of money: funding sources (tokens only), split collections and their shares, bcards, and
 * the double-entry ledger. Amounts are integer cents (USD); CHECKs guard the invariants the code relies on.
 */

export const CARD_BRANDS = ['visa', 'mastercard', 'amex', 'unknown'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

/**
 * What a source is. A card's type follows the processor's answer (`card_funding`): debit -> debit_card, prepaid ->
 * prepaid_card, credit or unknown -> credit_card. `type` has no CHECK in the database (migration 0000 made it plain
 * text), so a new value needs no table rebuild.
 */
export const FUNDING_SOURCE_TYPES = ['credit_card', 'debit_card', 'prepaid_card', 'bank_account'] as const;
export type FundingSourceType = (typeof FUNDING_SOURCE_TYPES)[number];
/** The processor's word for a card's funding (Stripe's `card.funding`). */
export const CARD_FUNDINGS = ['credit', 'debit', 'prepaid', 'unknown'] as const;
export type CardFunding = (typeof CARD_FUNDINGS)[number];
export const BANK_ACCOUNT_TYPES = ['checking', 'savings'] as const;
export type BankAccountType = (typeof BANK_ACCOUNT_TYPES)[number];
export const BANK_VERIFICATION_STATUSES = ['pending', 'verified', 'failed'] as const;
export type BankVerificationStatus = (typeof BANK_VERIFICATION_STATUSES)[number];
/**
 * exp_month/exp_year are NOT NULL with a CHECK, and the table cannot be rebuilt (collection_shares references it
 * ON DELETE RESTRICT): a bank account stores this sentinel expiry, which the API never shows (it answers null).
 */
export const BANK_SENTINEL_EXP_MONTH = 12;
export const BANK_SENTINEL_EXP_YEAR = 9999;

export const fundingSources = sqliteTable(
  'funding_sources',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Cardholder name as entered (checked against the account name when the account is not ID-verified). */
    name: text('name').notNull(),
    type: text('type', { enum: FUNDING_SOURCE_TYPES }).notNull(),
    brand: text('brand', { enum: CARD_BRANDS }).notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    /** Which payment vendor holds the token. */
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    /** The vendor's reusable token for the card. The card number and CVV are never stored. */
    vendorToken: text('vendor_token').notNull(),
    /** Default share in basis points of a percent: 5000 = 50 %. */
    defaultSplitBps: integer('default_split_bps').notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    /** Removed sources are kept for the history of the collections they funded. */
    deletedAt: integer('deleted_at', { mode: 'timestamp_ms' }),
    /** A card's funding as the processor answered it; null for bank accounts and for cards added before 0015. */
    cardFunding: text('card_funding', { enum: CARD_FUNDINGS }),
    /** A bank account's ABA routing number (public: it names the bank, not the account). */
    bankRoutingNumber: text('bank_routing_number'),
    bankAccountType: text('bank_account_type', { enum: BANK_ACCOUNT_TYPES }),
    /** HMAC of routing and account number (never the number itself): the same account cannot be added twice. */
    bankFingerprint: text('bank_fingerprint'),
    /** Micro-deposit verification: a bank account can fund a bcard only once verified. */
    bankVerificationStatus: text('bank_verification_status', { enum: BANK_VERIFICATION_STATUSES }),
    /** Wrong micro-deposit answers so far (the verification fails at BANK_VERIFICATION_MAX_ATTEMPTS). */
    bankVerificationAttempts: integer('bank_verification_attempts').notNull().default(0),
    /** The processor's verification (Stripe: the SetupIntent); the simulator uses the token. */
    bankVerificationRef: text('bank_verification_ref'),
  },
  (t) => [
    index('funding_sources_user_idx').on(t.userId, t.createdAt, t.id),
    index('funding_sources_bank_fingerprint_idx').on(t.userId, t.bankFingerprint),
    check('funding_sources_split_check', sql`${t.defaultSplitBps} BETWEEN 0 AND 10000`),
    check('funding_sources_month_check', sql`${t.expMonth} BETWEEN 1 AND 12`),
    check('funding_sources_last4_check', sql`length(${t.last4}) = 4`),
  ],
);

/** A 3-D Secure challenge between POST /api/funding-sources and its completion. */
export const cardVerifications = sqliteTable('card_verifications', {
  id: text('id').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
  challengeId: text('challenge_id').notNull(),
  /** The source to create once the challenge passes (name, split); never card data. */
  pending: text('pending', { mode: 'json' })
    .$type<{ name: string; defaultSplitBps: number }>()
    .notNull(),
  status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
  fundingSourceId: text('funding_source_id'),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
});

export const COLLECTION_KINDS = ['bcard', 'purchase', 'sandbox'] as const;
export type CollectionKind = (typeof COLLECTION_KINDS)[number];

export const COLLECTION_STATUSES = ['holding', 'capturing', 'completed', 'failed', 'refunding', 'refunded'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

/**
 * One split collection: the shares are held, then (all or nothing) captured, and a bcard is issued.
 * The transitions are data in api/src/modules/bcards/saga.ts. `leaseOwner`/`leaseUntil` mark who is working
 * on a collection; the recovery sweep takes over only an expired lease.
 */
export const collections = sqliteTable(
  'collections',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** sandbox: a merchant's test bcard (POST /api/v1/test_helpers/bcards), funded by `sandbox:test_funds`, no shares. */
    kind: text('kind', { enum: COLLECTION_KINDS }).notNull(),
    status: text('status', { enum: COLLECTION_STATUSES }).notNull(),
    amountCents: integer('amount_cents').notNull(),
    feeCents: integer('fee_cents').notNull(),
    totalCents: integer('total_cents').notNull(),
    currency: text('currency').notNull().default('usd'),
    /** The bcard's name. */
    name: text('name').notNull(),
    cardholderName: text('cardholder_name').notNull(),
    merchant: text('merchant'),
    description: text('description'),
    /** The merchant the resulting bcard is locked to, if any (the checkout widget's). */
    lockedMerchantId: text('locked_merchant_id'),
    /** The site (registrable domain) the resulting bcard is locked to: the browser extension's collections. */
    lockedDomain: text('locked_domain'),
    /** The connected browser (extension token) that asked for the collection; copied onto its bcard. */
    extensionTokenId: text('extension_token_id'),
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    idempotencyKey: text('idempotency_key'),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    /** JSON details of a failure (the insufficient-funds breakdown, each share's decline). */
    failureDetails: text('failure_details', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** Money returned to the sources so far (an unused bcard, or what a purchase left on it). */
    refundedCents: integer('refunded_cents').notNull().default(0),
    leaseOwner: text('lease_owner').notNull(),
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    check('collections_refund_check', sql`${t.refundedCents} >= 0 AND ${t.refundedCents} <= ${t.totalCents}`),
    // The transactions list walks this backwards: (created_at, id) < (?, ?) is its cursor.
    index('collections_user_idx').on(t.userId, t.createdAt, t.id),
    // The same list filtered by status (completed, failed; pending is three statuses, few rows): one ordered seek
    // instead of reading every one of the user's rows to find none.
    index('collections_user_status_idx').on(t.userId, t.status, t.createdAt, t.id),
    index('collections_status_idx').on(t.status, t.leaseUntil),
    uniqueIndex('collections_idempotency_unique').on(t.userId, t.idempotencyKey),
    check('collections_amount_check', sql`${t.amountCents} > 0 AND ${t.feeCents} >= 0`),
    check('collections_total_check', sql`${t.totalCents} = ${t.amountCents} + ${t.feeCents}`),
  ],
);

/** returned: a bank share whose debit came back unpaid (bank_debits). The column has no CHECK, so no rebuild. */
export const SHARE_STATUSES = ['pending', 'held', 'captured', 'voided', 'declined', 'refunded', 'returned'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

export const collectionShares = sqliteTable(
  'collection_shares',
  {
    id: text('id').primaryKey(),
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    fundingSourceId: text('funding_source_id')
      .notNull()
      .references(() => fundingSources.id, { onDelete: 'restrict' }),
    position: integer('position').notNull(),
    /** Percentage in basis points of a percent (10000 = 100 %), as requested. */
    percentageBps: integer('percentage_bps').notNull(),
    /** This source's part of the total charged (amount plus fee). */
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: SHARE_STATUSES }).notNull(),
    vendorHoldId: text('vendor_hold_id'),
    declineCode: text('decline_code'),
    declineMessage: text('decline_message'),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('collection_shares_source_unique').on(t.collectionId, t.fundingSourceId),
    index('collection_shares_source_idx').on(t.fundingSourceId),
    // A processor's event names the hold (Stripe: a dispute's payment_intent): found by it without reading every share.
    index('collection_shares_hold_idx').on(t.vendorHoldId),
    check('collection_shares_amount_check', sql`${t.amountCents} >= 0`),
  ],
);

export const BCARD_STATUSES = ['active', 'authorized', 'used', 'expiring', 'expired', 'canceling', 'canceled'] as const;
export type BcardStatus = (typeof BCARD_STATUSES)[number];

export const bcards = sqliteTable(
  'bcards',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    cardholderName: text('cardholder_name').notNull(),
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    vendorCardId: text('vendor_card_id').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    /** The collected amount; the card can never be loaded again. */
    limitCents: integer('limit_cents').notNull(),
    spentCents: integer('spent_cents').notNull().default(0),
    status: text('status', { enum: BCARD_STATUSES }).notNull(),
    /** When present, only this merchant may charge the card. */
    lockedMerchantId: text('locked_merchant_id'),
    /**
     * A merchant's sandbox test bcard (collection kind sandbox): funded by the ledger account `sandbox:test_funds`,
     * never by the owner's sources, and left out of the owner's consumer screens and figures.
     */
    sandbox: integer('sandbox', { mode: 'boolean' }).notNull().default(false),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    deactivatedAt: integer('deactivated_at', { mode: 'timestamp_ms' }),
    /**
     * The registrable domain (example.co.uk) only a shop on which may charge the card through the card network: the
     * site it was made for (the browser extension's), or the first merchant that charged it. Null: not locked yet.
     */
    lockedDomain: text('locked_domain'),
    /** Authorizations refused for a wrong CVC or expiry; ISSUER_MAX_BAD_ATTEMPTS of them close the card. */
    badAuthAttempts: integer('bad_auth_attempts').notNull().default(0),
    /** Why bpay closed the card itself (too_many_incorrect_attempts), shown to its owner; null otherwise. */
    closedReason: text('closed_reason'),
    /** The connected browser (extension token) that made the card: only it may reveal the card through the token. */
    extensionTokenId: text('extension_token_id'),
  },
  (t) => [
    uniqueIndex('bcards_collection_unique').on(t.collectionId),
    index('bcards_user_idx').on(t.userId, t.createdAt, t.id),
    index('bcards_status_idx').on(t.status, t.expiresAt),
    // Spending (modules/spending) dates a bcard by when it was spent or ended: one month of one user's ended bcards is
    // one seek here, and the live ones (deactivated_at NULL) another.
    index('bcards_user_deactivated_idx').on(t.userId, t.deactivatedAt),
    // A checkout's card details lead to the processor's card id, then to the bcard.
    index('bcards_vendor_card_idx').on(t.vendorCardId),
    check('bcards_spent_check', sql`${t.spentCents} >= 0 AND ${t.spentCents} <= ${t.limitCents}`),
    check('bcards_limit_check', sql`${t.limitCents} > 0`),
  ],
);

export const BANK_DEBIT_STATUSES = ['pending', 'settled', 'returned'] as const;
export type BankDebitStatus = (typeof BANK_DEBIT_STATUSES)[number];

/**
 * A bank share's ACH debit. A debit cannot be held: it is initiated once every card share holds (with the capture),
 * the bcard is issued at once, and the debit settles days later or comes back returned (R01 ...). Until it settles
 * it counts against the plan's unsettled bank exposure cap. The sweep asks the processor and records the outcome.
 */
export const bankDebits = sqliteTable(
  'bank_debits',
  {
    shareId: text('share_id')
      .primaryKey()
      .references(() => collectionShares.id, { onDelete: 'restrict' }),
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'restrict' }),
    userId: text('user_id').notNull(),
    fundingSourceId: text('funding_source_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    vendorDebitId: text('vendor_debit_id').notNull(),
    status: text('status', { enum: BANK_DEBIT_STATUSES }).notNull(),
    returnCode: text('return_code'),
    returnMessage: text('return_message'),
    initiatedAt: integer('initiated_at', { mode: 'timestamp_ms' }).notNull(),
    resolvedAt: integer('resolved_at', { mode: 'timestamp_ms' }),
    /**
     * When the sweep last asked the processor about this pending debit (issue 26). With Stripe's events configured the
     * sweep asks at most once per BANK_DEBIT_POLL_MS (a safety net for lost events); null: never asked.
     */
    lastCheckedAt: integer('last_checked_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('bank_debits_status_idx').on(t.status, t.initiatedAt),
    index('bank_debits_user_idx').on(t.userId, t.status),
    // A Stripe event names the debit by its PaymentIntent.
    index('bank_debits_vendor_debit_idx').on(t.vendorDebitId),
    check('bank_debits_amount_check', sql`${t.amountCents} > 0`),
  ],
);

/** Every reveal of a bcard's full number and CVV. */
export const bcardReveals = sqliteTable(
  'bcard_reveals',
  {
    id: text('id').primaryKey(),
    bcardId: text('bcard_id')
      .notNull()
      .references(() => bcards.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('bcard_reveals_bcard_idx').on(t.bcardId)],
);

/**
 * The ledger. A movement is a set of postings that sums to zero (checked by the one function that writes them,
 * and by tests). Accounts are strings: `funding_source:<id>`, `bcard:<id>`, `bpay:fees`, `merchant:<id>`,
 * `external:merchants`, `sandbox:test_funds` (merchants' sandbox test bcards). Postings are never updated or deleted: an undo is a reversing movement.
 */
export const ledgerMovements = sqliteTable(
  'ledger_movements',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    referenceId: text('reference_id').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('ledger_movements_kind_ref_unique').on(t.kind, t.referenceId)],
);

export const ledgerPostings = sqliteTable(
  'ledger_postings',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    movementId: text('movement_id')
      .notNull()
      .references(() => ledgerMovements.id, { onDelete: 'restrict' }),
    account: text('account').notNull(),
    /** Signed cents: positive into the account, negative out of it. */
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('usd'),
  },
  (t) => [index('ledger_postings_account_idx').on(t.account), index('ledger_postings_movement_idx').on(t.movementId)],
);

/** Stored answers of money-moving POSTs, per owner and Idempotency-Key, kept 24 hours. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    /** HMAC of each top-level body field, so a differing field can be named without storing the body. */
    fieldDigests: text('field_digests', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    status: text('status', { enum: ['in_progress', 'done'] }).notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    lockedUntil: integer('locked_until', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('idempotency_scope_key_unique').on(t.scope, t.key), index('idempotency_expires_idx').on(t.expiresAt)],
);
