import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/*
 * The built-in simulated processor's own state, kept in the database so it survives restarts. These tables
 * play the part of the card network: bpay's domain code never reads them, only the simulated vendor does.
 * Card numbers are never stored: a tokenized card keeps its behaviour, brand and last 4; an issued card's number
 * and CVV are derived from a keyed hash of its id (see api/src/vendors/simulated.ts) and only a fingerprint is kept.
 */
export const simCards = sqliteTable(
  'sim_cards',
  {
    token: text('token').primaryKey(),
    behavior: text('behavior').notNull(),
    brand: text('brand').notNull(),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    availableCents: integer('available_cents').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    /** credit, debit or prepaid, by the number's BIN range (TEST_CARD_FUNDING); null for cards made before 0015. */
    funding: text('funding'),
  },
  (t) => [check('sim_cards_available_check', sql`${t.availableCents} >= 0`)],
);

export const simChallenges = sqliteTable('sim_challenges', {
  id: text('id').primaryKey(),
  token: text('token').notNull(),
  status: text('status', { enum: ['pending', 'succeeded', 'failed'] }).notNull(),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
});

export const simHolds = sqliteTable(
  'sim_holds',
  {
    id: text('id').primaryKey(),
    idempotencyKey: text('idempotency_key').notNull(),
    token: text('token').notNull(),
    amountCents: integer('amount_cents').notNull(),
    refundedCents: integer('refunded_cents').notNull().default(0),
    status: text('status', { enum: ['held', 'captured', 'voided'] }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('sim_holds_idempotency_unique').on(t.idempotencyKey),
    check('sim_holds_refund_check', sql`${t.refundedCents} >= 0 AND ${t.refundedCents} <= ${t.amountCents}`),
  ],
);

export const simIssuedCards = sqliteTable(
  'sim_issued_cards',
  {
    id: text('id').primaryKey(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** HMAC of the card number, to find a card from what a checkout form sends. */
    numberFingerprint: text('number_fingerprint').notNull(),
    /** Bumped when a derived number collides with an existing card's; part of the number's derivation. */
    numberNonce: integer('number_nonce').notNull().default(0),
    last4: text('last4').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    limitCents: integer('limit_cents').notNull(),
    spentCents: integer('spent_cents').notNull().default(0),
    singleUse: integer('single_use', { mode: 'boolean' }).notNull(),
    status: text('status', { enum: ['active', 'inactive'] }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('sim_issued_idempotency_unique').on(t.idempotencyKey),
    uniqueIndex('sim_issued_fingerprint_unique').on(t.numberFingerprint),
    index('sim_issued_status_idx').on(t.status),
    check('sim_issued_spent_check', sql`${t.spentCents} >= 0 AND ${t.spentCents} <= ${t.limitCents}`),
  ],
);

export const simRefunds = sqliteTable(
  'sim_refunds',
  {
    idempotencyKey: text('idempotency_key').primaryKey(),
    holdId: text('hold_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [check('sim_refunds_amount_check', sql`${t.amountCents} > 0`)],
);

/**
 * The simulated bank's accounts (api/src/vendors/simulated-bank.ts). No account number is stored: the behaviour it
 * selects, its last 4 and the routing number. Micro-deposits are always 32 and 45 cents (Stripe's test values).
 * Debits are sim_holds rows (status captured) on the account's token; they settle or return by the test clock.
 */
export const simBankAccounts = sqliteTable(
  'sim_bank_accounts',
  {
    token: text('token').primaryKey(),
    behavior: text('behavior').notNull(),
    routingNumber: text('routing_number').notNull(),
    last4: text('last4').notNull(),
    accountType: text('account_type').notNull(),
    status: text('status', { enum: ['pending', 'verified', 'failed'] }).notNull(),
    availableCents: integer('available_cents').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [check('sim_bank_available_check', sql`${t.availableCents} >= 0`)],
);
