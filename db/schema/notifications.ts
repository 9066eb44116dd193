import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';

/*
 * What reaches a consumer when something touches their money or their account (issue 25): notices shown in the
 * dashboard's notification centre (and sent by mail through the outbox when the user chose that kind), and the
 * confirmation of an e-mail change. A notice keeps its kind and facts, not its words: it is written in the reader's
 * language when it is read, so switching language rewrites the list.
 */

/** Every kind of notice. Security kinds are always mailed; the others follow the user's choices (Settings). */
export const NOTICE_KINDS = [
  'bcard_issued',
  'bcard_spent',
  'bcard_declined',
  'bcard_expired',
  'bcard_canceled',
  'dispute_opened',
  'dispute_won',
  'dispute_lost',
  'merchant_refund',
  'refund_failed',
  'bank_debit_settled',
  'bank_debit_returned',
  'receivable_repaid',
  'receivable_waived',
  'payable_settled',
  'plan_charged',
  'plan_renewal_failed',
  'plan_refunded',
  'kyc_approved',
  'kyc_failed',
  'sign_in',
  'password_changed',
  'password_reset',
  'two_factor_enabled',
  'two_factor_disabled',
  'email_changed',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** A notice's facts: names, amounts as decimal strings ("40.00"), ids, reason codes. Never card numbers. */
export type NoticeParams = Record<string, string | number | null>;

export const notifications = sqliteTable(
  'notifications',
  {
    /** The order notices were written in: the live stream resumes after the last seq it sent. */
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** The public id (ntf_...). */
    id: text('id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: NOTICE_KINDS }).notNull(),
    params: text('params', { mode: 'json' }).$type<NoticeParams>().notNull(),
    /** Where in the dashboard it leads (a path such as /dashboard/transactions/<id>), or null. */
    link: text('link'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    readAt: integer('read_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('notifications_id_unique').on(t.id),
    // The list (newest first) and the stream (after a seq) of one user.
    index('notifications_user_idx').on(t.userId, t.seq),
    // The bell's unread count: only unread rows are in it.
    index('notifications_unread_idx').on(t.userId).where(sql`read_at IS NULL`),
  ],
);

/**
 * An e-mail change waiting for its confirmation: the new address gets a link (only its hash is kept here); until it
 * is followed the old address stays the sign-in address. Once confirmed, the old address is told and gets a link to
 * report that it was not them (revert_token_hash), which puts the old address back and ends every session.
 */
export const emailChangeRequests = sqliteTable(
  'email_change_requests',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    oldEmail: text('old_email').notNull(),
    newEmail: text('new_email').notNull(),
    newEmailNormalized: text('new_email_normalized').notNull(),
    /** HMAC of the token in the confirmation link. */
    tokenHash: text('token_hash').notNull(),
    /** HMAC of the token in the "this was not me" link sent to the old address once confirmed. */
    revertTokenHash: text('revert_token_hash'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    confirmedAt: integer('confirmed_at', { mode: 'timestamp_ms' }),
    /** A newer request, or the user, canceled this one before it was confirmed. */
    canceledAt: integer('canceled_at', { mode: 'timestamp_ms' }),
    revertExpiresAt: integer('revert_expires_at', { mode: 'timestamp_ms' }),
    revertedAt: integer('reverted_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('email_change_requests_token_unique').on(t.tokenHash),
    uniqueIndex('email_change_requests_revert_unique').on(t.revertTokenHash),
    index('email_change_requests_user_idx').on(t.userId, t.createdAt),
  ],
);
