import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';
import { collectionShares, collections, fundingSources } from './money';

/*
 * What a consumer owes bpay and how it ends (issue 26). The amount owed is the ledger account `receivable:<user>`
 * (negative: owed); these tables record the events that move it: a repayment from a card, an admin's waiver, and a
 * dispute (chargeback) of a funding share.
 */

export const RECEIVABLE_PAYMENT_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type ReceivablePaymentStatus = (typeof RECEIVABLE_PAYMENT_STATUSES)[number];

/**
 * One repayment of what is owed, from one of the consumer's cards: recorded pending under a lease before the
 * processor is called (a hold, then a capture, under the key `repay:<id>`), then succeeded with its ledger movement
 * (funding_source -amount, receivable +amount) in one transaction, or failed with why. Keyed by the client's
 * Idempotency-Key per user: a retried request never charges twice.
 */
export const receivablePayments = sqliteTable(
  'receivable_payments',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    fundingSourceId: text('funding_source_id')
      .notNull()
      .references(() => fundingSources.id, { onDelete: 'restrict' }),
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: RECEIVABLE_PAYMENT_STATUSES }).notNull(),
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    /** The processor's hold (captured when the repayment succeeded). */
    vendorHoldId: text('vendor_hold_id'),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    idempotencyKey: text('idempotency_key').notNull(),
    leaseOwner: text('lease_owner').notNull(),
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('receivable_payments_key_unique').on(t.userId, t.idempotencyKey),
    index('receivable_payments_user_idx').on(t.userId, t.createdAt, t.id),
    index('receivable_payments_status_idx').on(t.status, t.leaseUntil),
    check('receivable_payments_amount_check', sql`${t.amountCents} > 0`),
    check('receivable_payments_status_check', sql`${t.status} IN ('pending','succeeded','failed')`),
  ],
);

/**
 * An admin forgiving what a consumer owes (all or part), with the reason; audited too. Its ledger movement
 * (receivable +amount, bpay:written_off -amount) is written in the same transaction.
 */
export const receivableWaivers = sqliteTable(
  'receivable_waivers',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The admin who waived it (admins.id); kept when the admin account is removed. */
    adminId: text('admin_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    reason: text('reason').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('receivable_waivers_user_idx').on(t.userId, t.createdAt),
    check('receivable_waivers_amount_check', sql`${t.amountCents} > 0`),
  ],
);

export const DISPUTE_STATUSES = ['open', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/**
 * A dispute (chargeback) the consumer opened with their card's issuer against one captured funding share. While open
 * the amount is owed (the processor took it back from bpay) and new bcards are refused; won: all of it is reversed;
 * lost: the amount stays owed until repaid. One row per processor dispute.
 */
export const shareDisputes = sqliteTable(
  'share_disputes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    shareId: text('share_id')
      .notNull()
      .references(() => collectionShares.id, { onDelete: 'restrict' }),
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'restrict' }),
    vendor: text('vendor', { enum: ['simulated', 'stripe'] }).notNull(),
    /** The processor's dispute id (Stripe's dp_…, or the simulator's). */
    vendorDisputeId: text('vendor_dispute_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    /** The issuer's reason (Stripe's dispute.reason: fraudulent, product_not_received, …). */
    reason: text('reason').notNull(),
    status: text('status', { enum: DISPUTE_STATUSES }).notNull(),
    /** The processor's own status as last heard (Stripe: needs_response, under_review, won, lost, …). */
    vendorStatus: text('vendor_status').notNull(),
    /** Of the share, what had already been refunded to the card when the dispute opened. */
    refundedBeforeCents: integer('refunded_before_cents').notNull().default(0),
    openedAt: integer('opened_at', { mode: 'timestamp_ms' }).notNull(),
    closedAt: integer('closed_at', { mode: 'timestamp_ms' }),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('share_disputes_vendor_unique').on(t.vendor, t.vendorDisputeId),
    index('share_disputes_user_idx').on(t.userId, t.status),
    index('share_disputes_share_idx').on(t.shareId),
    check('share_disputes_amount_check', sql`${t.amountCents} > 0 AND ${t.refundedBeforeCents} >= 0`),
    check('share_disputes_status_check', sql`${t.status} IN ('open','won','lost')`),
  ],
);
