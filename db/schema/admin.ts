import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Back-office accounts. Separate from `users`: an admin is never a consumer and signs in another way. */
export const admins = sqliteTable(
  'admins',
  {
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    /** Lower-cased username: uniqueness and sign-in are case-insensitive. */
    usernameNormalized: text('username_normalized').notNull(),
    /** argon2id (Bun.password). */
    passwordHash: text('password_hash').notNull(),
    /** AES-GCM sealed base32 TOTP secret (deps.totpKey). */
    totpSecret: text('totp_secret').notNull(),
    /** Last TOTP step accepted: a code is accepted once. */
    totpLastStep: integer('totp_last_step'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastLoginAt: integer('last_login_at', { mode: 'timestamp_ms' }),
  },
  (t) => [uniqueIndex('admins_username_normalized_unique').on(t.usernameNormalized)],
);

/**
 * Failed admin sign-ins and the lock they lead to, keyed by the normalized username that was tried, whether or not
 * an admin has it: an unknown name locks exactly like a real one, so the answers never tell which names exist.
 */
export const adminSignInLocks = sqliteTable(
  'admin_sign_in_locks',
  {
    usernameNormalized: text('username_normalized').primaryKey(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    lockedUntil: integer('locked_until', { mode: 'timestamp_ms' }),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [check('admin_sign_in_locks_failed_check', sql`${t.failedAttempts} >= 0`)],
);

/** Every admin token issued: a token is valid only while its row exists, is unexpired and is not revoked. */
export const adminTokens = sqliteTable(
  'admin_tokens',
  {
    jti: text('jti').primaryKey(),
    adminId: text('admin_id')
      .notNull()
      .references(() => admins.id, { onDelete: 'cascade' }),
    issuedAt: integer('issued_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('admin_tokens_admin_idx').on(t.adminId), index('admin_tokens_expires_idx').on(t.expiresAt)],
);

/** Append-only record of every admin write and sign-in/out: who, what, when, before and after. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    /** Null for a failed sign-in under a name no admin has. */
    adminId: text('admin_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    before: text('before', { mode: 'json' }).$type<unknown>(),
    after: text('after', { mode: 'json' }).$type<unknown>(),
    ip: text('ip'),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('audit_log_at_idx').on(t.at), index('audit_log_admin_idx').on(t.adminId, t.at)],
);

export const VENDOR_MODES = ['test', 'live'] as const;
export type VendorMode = (typeof VENDOR_MODES)[number];

/** Payment-vendor credentials per mode. Secrets are sealed (AES-GCM, BPAY_VENDOR_KEY) and never read back out. */
export const vendorCredentials = sqliteTable(
  'vendor_credentials',
  {
    mode: text('mode', { enum: VENDOR_MODES }).primaryKey(),
    provider: text('provider', { enum: ['stripe'] }).notNull().default('stripe'),
    publishableKey: text('publishable_key'),
    secretKeySealed: text('secret_key_sealed'),
    secretLast4: text('secret_last4'),
    webhookSecretSealed: text('webhook_secret_sealed'),
    webhookLast4: text('webhook_last4'),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    updatedBy: text('updated_by'),
  },
  (t) => [check('vendor_credentials_mode_check', sql`${t.mode} IN ('test','live')`)],
);

export interface VendorFeatures {
  paymentProcessing: boolean;
  cardIssuing: boolean;
  identity: boolean;
  connect: boolean;
}

/** One row (id 1): the active vendor mode and feature switches. Absent means the defaults. */
export const vendorSettings = sqliteTable(
  'vendor_settings',
  {
    id: integer('id').primaryKey(),
    mode: text('mode', { enum: VENDOR_MODES }).notNull().default('test'),
    features: text('features', { mode: 'json' }).$type<VendorFeatures>().notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
    updatedBy: text('updated_by'),
  },
  (t) => [
    check('vendor_settings_singleton_check', sql`${t.id} = 1`),
    check('vendor_settings_mode_check', sql`${t.mode} IN ('test','live')`),
  ],
);
