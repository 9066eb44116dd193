import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const USER_ROLES = ['user', 'merchant', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const USER_LANGUAGES = ['en', 'ar'] as const;
export type UserLanguage = (typeof USER_LANGUAGES)[number];

export const KYC_STATUSES = ['unverified', 'verified'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    /** Lower-cased e-mail: uniqueness is case-insensitive. */
    emailNormalized: text('email_normalized').notNull(),
    passwordHash: text('password_hash').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    phoneNumber: text('phone_number'),
    profileImageUrl: text('profile_image_url'),
    country: text('country'),
    addressLine1: text('address_line1'),
    addressCity: text('address_city'),
    addressState: text('address_state'),
    addressPostalCode: text('address_postal_code'),
    addressCountry: text('address_country'),
    role: text('role', { enum: USER_ROLES }).notNull().default('user'),
    kycStatus: text('kyc_status', { enum: KYC_STATUSES }).notNull().default('unverified'),
    /** AES-GCM sealed TOTP secret (see api/src/lib/crypto.ts); set only once enrolment is confirmed. */
    totpSecret: text('totp_secret'),
    /** Sealed secret offered during enrolment, not yet confirmed by a code. */
    totpPendingSecret: text('totp_pending_secret'),
    /** Last TOTP time step accepted, so a code is accepted only once. */
    totpLastStep: integer('totp_last_step'),
    loginNotifications: integer('login_notifications', { mode: 'boolean' }).notNull().default(true),
    /**
     * The language bpay writes to this user in (mail, notices, server-made text): the one they signed up in, changed
     * by the language switch while signed in. One of USER_LANGUAGES, checked in code: a CHECK added now would make
     * drizzle-kit rebuild users, whose children cascade.
     */
    language: text('language').notNull().default('en'),
    /** Which notice kinds the user wants by mail, where they differ from the defaults (Settings → Notifications). */
    noticeEmailPrefs: text('notice_email_prefs', { mode: 'json' }).$type<Record<string, boolean>>().notNull().default({}),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('users_email_normalized_unique').on(t.emailNormalized),
    // The admin users list: newest first, ties by id, optionally one role. Both columns ascending so the walk runs
    // backwards for (created_at DESC, id DESC) and a cursor's row value `(created_at, id) < (?, ?)` seeks into it.
    index('users_role_idx').on(t.role, t.createdAt, t.id),
    index('users_created_idx').on(t.createdAt, t.id),
    check('users_role_check', sql`${t.role} IN ('user','merchant','admin')`),
    check('users_kyc_status_check', sql`${t.kycStatus} IN ('unverified','verified')`),
    check('users_state_check', sql`${t.addressState} IS NULL OR length(${t.addressState}) = 2`),
  ],
);

export const sessions = sqliteTable(
  'sessions',
  {
    /** HMAC-SHA256(session secret, cookie token), hex. The raw token is never stored. */
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

/** Failed sign-in attempts, one row per failure and scope, for the sign-in rate limit. */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scope: text('scope', { enum: ['account', 'address'] }).notNull(),
    key: text('key').notNull(),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('login_failures_key_idx').on(t.scope, t.key, t.at)],
);

/**
 * Events counted by the abuse limits (sign-in throttling, two-factor failures, card attempts, registrations): one
 * row per event, `weight` how much it counts (a declined card counts 2). Each limit reads the sum of weights for
 * its (scope, key) inside its window, in the same write transaction that inserts the new event, so parallel
 * requests cannot all see room under a limit. Old rows are pruned by the sweep.
 */
export const throttleEvents = sqliteTable(
  'throttle_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
    weight: integer('weight').notNull().default(1),
  },
  (t) => [
    index('throttle_events_key_idx').on(t.scope, t.key, t.at),
    index('throttle_events_at_idx').on(t.at),
    check('throttle_events_weight_positive', sql`${t.weight} > 0`),
  ],
);

export const EMAIL_KINDS = [
  'password_reset',
  'sign_in_notice',
  'email_changed',
  'plan_receipt',
  'plan_notice',
  /** A notice (db/schema/notifications.ts) the user gets by mail. */
  'notice',
  /** The link that confirms a new e-mail address. */
  'email_change_confirm',
  /** A one-time sign-in link, past an account's daily cap of failed sign-ins (api/src/modules/auth/sign-in-link.ts). */
  'sign_in_link',
] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];
export const EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;

/**
 * Mail to send, written in the same transaction as what causes it (an outbox): a send survives a crash and is
 * retried with backoff. With no SMTP server configured the messages stay here, readable on the outbox page.
 */
export const emailOutbox = sqliteTable(
  'email_outbox',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    kind: text('kind', { enum: EMAIL_KINDS }).notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    status: text('status', { enum: EMAIL_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }).notNull(),
    lastError: text('last_error'),
    /** Who is sending it now (a worker's lease), so two processes never send one message twice at once. */
    leaseUntil: integer('lease_until', { mode: 'timestamp_ms' }),
    /**
     * A one-time link's token (a reset, a sign-in link, an e-mail change), sealed (AES-GCM, a key derived from the
     * session secret): the bodies hold a placeholder in its place, the mail worker puts it back into the message it
     * sends, and clears this when the message is sent or fails for good. Null for mail without such a link.
     */
    sealedToken: text('sealed_token'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    sentAt: integer('sent_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('email_outbox_due_idx').on(t.status, t.nextAttemptAt),
    index('email_outbox_created_idx').on(t.createdAt, t.id),
  ],
);

/** A password reset link: only the token's hash is kept; single use, expiring. */
export const passwordResetTokens = sqliteTable(
  'password_reset_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** HMAC-SHA256 of the token in the link; the token itself is only in the e-mail. */
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [uniqueIndex('password_reset_tokens_hash_unique').on(t.tokenHash), index('password_reset_tokens_user_idx').on(t.userId, t.createdAt)],
);

/**
 * A one-time sign-in link, mailed when the right password comes from an address new to an account whose daily cap of
 * failed sign-ins is full (api/src/modules/auth/sign-in-link.ts): only the token's hash is kept; single use, 15
 * minutes, and only from the address that asked.
 */
export const signInLinks = sqliteTable(
  'sign_in_links',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** HMAC-SHA256 of the token in the link; the token itself is only in the e-mail. */
    tokenHash: text('token_hash').notNull(),
    /** The addressKey (IPv4 address or IPv6 /64) that asked: the link works only from it. */
    address: text('address').notNull(),
    /** HMAC of the password hash the request matched: a password changed since makes the link useless. */
    passwordStamp: text('password_stamp').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [uniqueIndex('sign_in_links_hash_unique').on(t.tokenHash), index('sign_in_links_user_idx').on(t.userId, t.createdAt)],
);
