import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { collectionShares } from './money';

/*
 * A refund bpay made to a funding share that the processor later failed (Stripe's refund.failed /
 * charge.refund.updated, issue 26): the money never reached the card. Its ledger reversal (funding_source -amount,
 * payable:<user> +amount: bpay owes the consumer) is written in the same transaction as this row, once per
 * processor refund id.
 */
export const shareRefundFailures = sqliteTable(
  'share_refund_failures',
  {
    id: text('id').primaryKey(),
    /** The processor's refund (Stripe re_…): one failure per refund, however many events tell of it. */
    vendorRefundId: text('vendor_refund_id').notNull(),
    shareId: text('share_id')
      .notNull()
      .references(() => collectionShares.id, { onDelete: 'restrict' }),
    collectionId: text('collection_id').notNull(),
    userId: text('user_id').notNull(),
    fundingSourceId: text('funding_source_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    /** The processor's failure_reason (expired_or_canceled_card, lost_or_stolen_card, declined, unknown …). */
    failureReason: text('failure_reason'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('share_refund_failures_refund_unique').on(t.vendorRefundId),
    index('share_refund_failures_user_idx').on(t.userId, t.createdAt),
    check('share_refund_failures_amount_check', sql`${t.amountCents} > 0`),
  ],
);
