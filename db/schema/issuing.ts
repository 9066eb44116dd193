import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';

/*
 * bpay as a card issuer (issue 24): authorizations that shops' processors send for bcards through a card network
 * (the built-in simulated network, or Stripe Issuing), the Stripe events already applied, and the browser
 * extension's pairing. No card number or CVC is stored here: an authorization names the bcard by its id.
 */

export const ISSUER_NETWORKS = ['simulated', 'stripe'] as const;
export type IssuerNetwork = (typeof ISSUER_NETWORKS)[number];
export const ISSUER_DECISIONS = ['approved', 'declined'] as const;

/**
 * One authorization request from the card network and bpay's answer. An approved one spent its bcard (single use);
 * what the merchant later captured, reversed or refunded is kept beside it (Stripe reconciles through events).
 */
export const issuerAuthorizations = sqliteTable(
  'issuer_authorizations',
  {
    id: text('id').primaryKey(),
    network: text('network', { enum: ISSUER_NETWORKS }).notNull(),
    /** The network's id of the authorization (Stripe's iauth_...); the simulator's is our own id. */
    networkRef: text('network_ref').notNull(),
    /** Null when the card matched no bcard (an unknown number). */
    bcardId: text('bcard_id'),
    userId: text('user_id'),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    merchantName: text('merchant_name').notNull(),
    merchantCity: text('merchant_city'),
    /** The network's merchant category (Stripe's category names, such as `clothing_stores`; the MCC when only that). */
    merchantCategory: text('merchant_category'),
    /** The registrable domain of the shop, when the network gives a URL. */
    merchantDomain: text('merchant_domain'),
    decision: text('decision', { enum: ISSUER_DECISIONS }).notNull(),
    /** card_inactive, insufficient_funds, expired, merchant_mismatch, already_used, incorrect_cvc, ... */
    declineReason: text('decline_reason'),
    /** What the merchant captured so far (Stripe's issuing transactions); the simulator captures on approval. */
    capturedCents: integer('captured_cents').notNull().default(0),
    /** What went back to the sources after the approval: a reversal, a capture below it, a merchant's refund. */
    returnedCents: integer('returned_cents').notNull().default(0),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('issuer_authorizations_ref_unique').on(t.network, t.networkRef),
    index('issuer_authorizations_bcard_idx').on(t.bcardId, t.createdAt),
    check('issuer_authorizations_amount_check', sql`${t.amountCents} >= 0`),
    check('issuer_authorizations_returned_check', sql`${t.returnedCents} >= 0 AND ${t.capturedCents} >= 0`),
  ],
);

/** Stripe events already applied, by id: a replayed event is answered and changes nothing. */
export const stripeEvents = sqliteTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: integer('received_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * A connected browser: the extension's bearer token, stored as a hash. Scoped (EXTENSION_SCOPES), expiring,
 * revocable from Settings -> Connected browsers.
 */
export const extensionTokens = sqliteTable(
  'extension_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token (a 256-bit random value: no salt or slow hash needed). */
    tokenHash: text('token_hash').notNull(),
    /** What the user sees in the list: the browser as the connect page described it. */
    label: text('label').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
  },
  (t) => [uniqueIndex('extension_tokens_hash_unique').on(t.tokenHash), index('extension_tokens_user_idx').on(t.userId, t.createdAt)],
);

/** A one-time pairing code the connect page hands to the extension, exchanged once for a token. */
export const extensionPairings = sqliteTable(
  'extension_pairings',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
    tokenId: text('token_id'),
  },
  (t) => [index('extension_pairings_user_idx').on(t.userId)],
);
