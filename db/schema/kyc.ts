import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './users';

/*
 * Identity verification (KYC): a consumer's submissions and the files that came with them. The files themselves
 * live in the storage backend (api/src/storage) under random keys; only their metadata is here.
 */

export const KYC_VERIFICATION_TYPES = ['identity_document', 'selfie', 'address'] as const;
export const KYC_DOCUMENT_TYPES = ['passport', 'driving_license', 'id_card'] as const;
export const KYC_COUNTRIES = ['US', 'CA', 'UK', 'DE', 'FR', 'AU'] as const;
export const KYC_VERIFICATION_STATUSES = ['pending', 'processing', 'verified', 'failed', 'requires_input'] as const;
export type KycVerificationStatus = (typeof KYC_VERIFICATION_STATUSES)[number];
export const KYC_CONTENT_TYPES = ['image/jpeg', 'image/png', 'application/pdf'] as const;
export type KycContentType = (typeof KYC_CONTENT_TYPES)[number];

const list = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(','));

export const kycVerifications = sqliteTable(
  'kyc_verifications',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    verificationType: text('verification_type', { enum: KYC_VERIFICATION_TYPES }).notNull(),
    documentType: text('document_type', { enum: KYC_DOCUMENT_TYPES }).notNull(),
    documentCountry: text('document_country', { enum: KYC_COUNTRIES }).notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    /** YYYY-MM-DD. */
    dateOfBirth: text('date_of_birth').notNull(),
    /** AES-GCM sealed (api/src/lib/crypto.ts, key derived for 'kyc-document-numbers'); null when not given. */
    documentNumber: text('document_number'),
    status: text('status', { enum: KYC_VERIFICATION_STATUSES }).notNull().default('pending'),
    riskScore: integer('risk_score'),
    errorMessage: text('error_message'),
    adminNotes: text('admin_notes'),
    reviewedAt: integer('reviewed_at', { mode: 'timestamp_ms' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    // Lists are newest first, ties by id: id ends each index so the order and a cursor's row value
    // `(created_at, id) < (?, ?)` come from it (the consumer's own, the admin queue by status, the admin list).
    index('kyc_verifications_user_idx').on(t.userId, t.createdAt, t.id),
    index('kyc_verifications_status_idx').on(t.status, t.createdAt, t.id),
    index('kyc_verifications_created_idx').on(t.createdAt, t.id),
    check('kyc_verifications_type_check', sql`${t.verificationType} IN (${list(KYC_VERIFICATION_TYPES)})`),
    check('kyc_verifications_document_type_check', sql`${t.documentType} IN (${list(KYC_DOCUMENT_TYPES)})`),
    check('kyc_verifications_country_check', sql`${t.documentCountry} IN (${list(KYC_COUNTRIES)})`),
    check('kyc_verifications_status_check', sql`${t.status} IN (${list(KYC_VERIFICATION_STATUSES)})`),
    check(
      'kyc_verifications_risk_check',
      sql`${t.riskScore} IS NULL OR (${t.riskScore} >= 0 AND ${t.riskScore} <= 100)`,
    ),
  ],
);

export const kycDocuments = sqliteTable(
  'kyc_documents',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => kycVerifications.id, { onDelete: 'cascade' }),
    /** The uploaded file name, sanitised (path parts, control and quote characters removed). */
    originalName: text('original_name').notNull(),
    /** Detected from the file's first bytes, never taken from the upload. */
    contentType: text('content_type', { enum: KYC_CONTENT_TYPES }).notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    /** Random key in the storage backend. */
    storageKey: text('storage_key').notNull(),
    sha256: text('sha256').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('kyc_documents_verification_idx').on(t.verificationId),
    uniqueIndex('kyc_documents_storage_key_unique').on(t.storageKey),
    check('kyc_documents_content_type_check', sql`${t.contentType} IN (${list(KYC_CONTENT_TYPES)})`),
    check('kyc_documents_size_check', sql`${t.sizeBytes} > 0 AND ${t.sizeBytes} <= 10485760`),
  ],
);
