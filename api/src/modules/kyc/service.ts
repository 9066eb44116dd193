import { createHash } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import type { KycVerificationStatus } from '@bpay/db/schema';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { seal, unseal } from '../../lib/crypto';
import { decodeCursor } from '../../lib/cursor';
import { newId } from '../../lib/ids';
import { newStorageKey } from '../../storage/local-disk';
import { notify } from '../notifications/service';
import { checkUploadedFile, fileEntries, MAX_FILE_BYTES, parseKycFields, sanitiseFileName, storedFileName } from './validation';

type VerificationRow = typeof schema.kycVerifications.$inferSelect;
type DocumentRow = typeof schema.kycDocuments.$inferSelect;
type UserRow = typeof schema.users.$inferSelect;

/** How many verifications a user may have waiting (pending or processing) at once: a submission beyond is 409. */
export const MAX_OPEN_VERIFICATIONS = 5;
const OPEN_STATUSES: KycVerificationStatus[] = ['pending', 'processing'];

export interface KycDocumentView {
  id: string;
  name: string;
  contentType: DocumentRow['contentType'];
  size: number;
}

export interface KycVerificationView {
  id: string;
  submittedAt: string;
  status: KycVerificationStatus;
  verificationType: VerificationRow['verificationType'];
  documentType: VerificationRow['documentType'];
  documentCountry: VerificationRow['documentCountry'];
  riskScore: number | null;
  errorMessage: string | null;
  adminNotes: string | null;
  documents: KycDocumentView[];
}

export function toDocumentView(d: DocumentRow): KycDocumentView {
  // storedFileName again: a name kept before names took their detected type's extension is shown as it is served.
  return { id: d.id, name: storedFileName(d.originalName, d.contentType), contentType: d.contentType, size: d.sizeBytes };
}

export function toVerificationView(v: VerificationRow, docs: DocumentRow[]): KycVerificationView {
  return {
    id: v.id,
    submittedAt: v.createdAt.toISOString(),
    status: v.status,
    verificationType: v.verificationType,
    documentType: v.documentType,
    documentCountry: v.documentCountry,
    riskScore: v.riskScore,
    errorMessage: v.errorMessage,
    adminNotes: v.adminNotes,
    documents: docs.map(toDocumentView),
  };
}

/** A verification with everything a reviewer needs: the applicant's details, the document number unsealed. */
export interface KycVerificationDetail extends KycVerificationView {
  userId: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  documentNumber: string | null;
  reviewedAt: string | null;
}

export interface ListVerificationsFilter {
  id?: string;
  userId?: string;
  status?: KycVerificationStatus;
  limit?: number;
  /** Only verifications older than this keyset cursor (lib/cursor: the last row's created_at and id). */
  cursor?: string | null;
}

/** The admin review queue: the one list of verifications read a page at a time (its cursors name it). */
export const KYC_ADMIN_LIST = 'admin.kyc';

/** A row value, not an OR of two conditions: SQLite seeks the (..., created_at, id) index to it. */
function afterCursor(cursor: string) {
  const c = decodeCursor(cursor, { list: KYC_ADMIN_LIST });
  return sql`(${schema.kycVerifications.createdAt}, ${schema.kycVerifications.id}) < (${c.t}, ${c.id})`;
}

/**
 * Verifications, newest first, with their documents' metadata. Filtered by owner (the consumer's status page)
 * or by status (the admin review queue). Document numbers are unsealed only for the admin (detail: true).
 */
export async function listVerifications(
  deps: Pick<AppDeps, 'db' | 'kycKey'>,
  filter: ListVerificationsFilter = {},
): Promise<KycVerificationDetail[]> {
  const where = and(
    filter.id !== undefined ? eq(schema.kycVerifications.id, filter.id) : undefined,
    filter.userId !== undefined ? eq(schema.kycVerifications.userId, filter.userId) : undefined,
    filter.status !== undefined ? eq(schema.kycVerifications.status, filter.status) : undefined,
    filter.cursor ? afterCursor(filter.cursor) : undefined,
  );
  const rows = await deps.db
    .select()
    .from(schema.kycVerifications)
    .where(where)
    // Ties by id, not rowid: a cursor names (created_at, id), and every kyc_verifications index ends in them.
    .orderBy(desc(schema.kycVerifications.createdAt), desc(schema.kycVerifications.id))
    .limit(filter.limit ?? 500);
  const docs =
    rows.length === 0
      ? []
      : await deps.db
          .select()
          .from(schema.kycDocuments)
          .where(inArray(schema.kycDocuments.verificationId, rows.map((r) => r.id)))
          // Each verification's documents in upload order, straight from kyc_documents_verification_idx.
          .orderBy(schema.kycDocuments.verificationId, sql`${schema.kycDocuments}.rowid`);
  // Grouped once: a filter per verification read every document of the page for each of its rows.
  const docsOf = new Map<string, typeof docs>();
  for (const d of docs) {
    const list = docsOf.get(d.verificationId);
    if (list) list.push(d);
    else docsOf.set(d.verificationId, [d]);
  }
  return rows.map((v) => ({
    ...toVerificationView(v, docsOf.get(v.id) ?? []),
    userId: v.userId,
    firstName: v.firstName,
    lastName: v.lastName,
    dateOfBirth: v.dateOfBirth,
    documentNumber: v.documentNumber === null ? null : unseal(deps.kycKey, v.documentNumber),
    reviewedAt: v.reviewedAt?.toISOString() ?? null,
  }));
}

/** The consumer's own verifications, newest first, without the personal details they sent. */
export async function listOwnVerifications(
  deps: AppDeps,
  userId: string,
  id?: string,
): Promise<KycVerificationView[]> {
  const all = await listVerifications(deps, { userId, id });
  return all.map(
    ({ userId: _u, firstName: _f, lastName: _l, dateOfBirth: _d, documentNumber: _n, reviewedAt: _r, ...view }) => view,
  );
}

/**
 * One document's metadata and bytes. With `ownerUserId`, a document of anyone else is "not found" (the
 * consumer's route); without it (the admin's review), any document. Fails with: resource_not_found.
 */
export async function getVerificationDocument(
  deps: Pick<AppDeps, 'db' | 'storage'>,
  documentId: string,
  ownerUserId?: string,
): Promise<{ document: KycDocumentView; verificationId: string; bytes: Uint8Array<ArrayBuffer> }> {
  const [row] = await deps.db
    .select({ doc: schema.kycDocuments, userId: schema.kycVerifications.userId })
    .from(schema.kycDocuments)
    .innerJoin(schema.kycVerifications, eq(schema.kycVerifications.id, schema.kycDocuments.verificationId))
    .where(eq(schema.kycDocuments.id, documentId))
    .limit(1);
  if (!row || (ownerUserId !== undefined && row.userId !== ownerUserId)) throw notFound('document');
  const bytes = await deps.storage.get(row.doc.storageKey);
  if (!bytes) throw notFound('document');
  return { document: toDocumentView(row.doc), verificationId: row.doc.verificationId, bytes };
}

async function countOpen(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(schema.kycVerifications)
    .where(and(eq(schema.kycVerifications.userId, userId), inArray(schema.kycVerifications.status, OPEN_STATUSES)));
  return Number(row?.n ?? 0);
}

interface CheckedFile {
  name: string;
  contentType: DocumentRow['contentType'];
  bytes: Uint8Array;
  sha256: string;
}

/**
 * Reads each file only after its size passed, and keeps it only if its first bytes say JPEG, PNG or PDF and its
 * name and declared type do not say otherwise (checkUploadedFile); it is kept under its detected type's extension.
 */
async function checkFiles(files: File[]): Promise<CheckedFile[]> {
  for (const f of files) {
    if (f.size > MAX_FILE_BYTES) {
      throw new AppError('payload_too_large', `${sanitiseFileName(f.name)} is larger than 10 MB.`, 'documents');
    }
  }
  const out: CheckedFile[] = [];
  for (const f of files) {
    const bytes = new Uint8Array(await f.arrayBuffer());
    const { name, contentType } = checkUploadedFile(f.name, f.type, bytes);
    out.push({ name, contentType, bytes, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  return out;
}

/**
 * Records a KYC submission: checks every field (the applicant 18 or older on the server's date), the files
 * (1 to 5, each at most 10 MB, really JPEG/PNG/PDF), stores the files under random keys, then writes the
 * verification and its documents in one transaction; if that fails, the stored files are removed again.
 * The document number is sealed (AES-GCM) at rest.
 * Fails with: validation_error, payload_too_large, unsupported_media_type (a file that is not JPEG/PNG/PDF, or
 * whose name or declared type says another type than its content), kyc_pending_limit_reached.
 */
export async function submitVerification(deps: AppDeps, user: UserRow, form: FormData): Promise<KycVerificationView> {
  const now = deps.clock.now();
  const fields = parseKycFields(form, now);
  const files = await checkFiles(fileEntries(form));
  if ((await countOpen(deps.db, user.id)) >= MAX_OPEN_VERIFICATIONS) throw new AppError('kyc_pending_limit_reached');

  const stored: string[] = [];
  const docs: Array<typeof schema.kycDocuments.$inferInsert> = [];
  const id = newId('kyc');
  try {
    for (const f of files) {
      const key = newStorageKey();
      await deps.storage.put(key, f.bytes);
      stored.push(key);
      docs.push({
        id: newId('kycdoc'),
        verificationId: id,
        originalName: f.name,
        contentType: f.contentType,
        sizeBytes: f.bytes.length,
        storageKey: key,
        sha256: f.sha256,
        createdAt: now,
      });
    }
    await deps.db.transaction(async (tx) => {
      // Checked again where it is written, so concurrent submissions cannot pass the limit together.
      if ((await countOpen(tx, user.id)) >= MAX_OPEN_VERIFICATIONS) throw new AppError('kyc_pending_limit_reached');
      await tx.insert(schema.kycVerifications).values({
        id,
        userId: user.id,
        verificationType: fields.verificationType,
        documentType: fields.documentType,
        documentCountry: fields.documentCountry,
        firstName: fields.firstName,
        lastName: fields.lastName,
        dateOfBirth: fields.dateOfBirth,
        documentNumber: fields.documentNumber === null ? null : seal(deps.kycKey, fields.documentNumber),
        status: 'pending',
        createdAt: now,
      });
      await tx.insert(schema.kycDocuments).values(docs);
    });
  } catch (e) {
    await Promise.all(
      stored.map((key) =>
        deps.storage.delete(key).catch((error) => deps.log.error('could not remove an orphaned upload', { key, error })),
      ),
    );
    throw e;
  }
  const [view] = await listOwnVerifications(deps, user.id, id);
  if (!view) throw new Error('the new verification was not found after writing it');
  return view;
}

export interface KycDecision {
  status: KycVerificationStatus;
  adminNotes?: string | null;
  riskScore?: number | null;
  /** What the consumer's status view shows in its red box. Left out: see applyKycDecision. */
  errorMessage?: string | null;
}

/**
 * The consumer's error message for a failed verification. The spec's review dialog sends only status, notes and
 * risk score, while the consumer's status view shows an error box for a failure beside the admin notes box.
 */
export const KYC_FAILED_MESSAGE = 'Your documents could not be verified. Please submit a new verification.';

/** Who made a decision, for the log (the admin module keeps its own audit trail). */
export interface KycActor {
  type: 'admin';
  id: string;
}

/**
 * An admin's decision on a verification: sets its status (any of the five; reviewers may correct a decision),
 * admin notes, risk score (integer 0–100) and review time, and in the same transaction keeps users.kyc_status
 * in step: 'verified' when this verification is verified; back to 'unverified' when it no longer is and the
 * user has no other verified verification. Returns the row before and after, for the caller's audit log.
 * Fields left undefined keep their value, except errorMessage: left out, it becomes KYC_FAILED_MESSAGE (or the
 * message already there) when the status is failed, and null for any other status.
 * Fails with: resource_not_found, validation_error (riskScore).
 */
export async function applyKycDecision(
  deps: Pick<AppDeps, 'db' | 'clock' | 'log' | 'kycKey' | 'publicUrl'>,
  verificationId: string,
  decision: KycDecision,
  actor: KycActor,
  /** Runs inside the decision's transaction (the admin module writes its audit row here, so both commit together). */
  alsoInTx?: (tx: DbOrTx, change: { before: KycVerificationView; after: KycVerificationView; userId: string }) => Promise<void>,
): Promise<{ before: KycVerificationView; after: KycVerificationView; userId: string }> {
  const { riskScore } = decision;
  if (riskScore !== undefined && riskScore !== null && (!Number.isInteger(riskScore) || riskScore < 0 || riskScore > 100)) {
    throw invalid('riskScore', 'riskScore must be a whole number from 0 to 100.');
  }
  const now = deps.clock.now();
  const result = await deps.db.transaction(async (tx) => {
    const before = await firstRow(tx, schema.kycVerifications, eq(schema.kycVerifications.id, verificationId));
    if (!before) throw notFound('verification');
    const set: Partial<typeof schema.kycVerifications.$inferInsert> = { status: decision.status, reviewedAt: now };
    if (decision.adminNotes !== undefined) set.adminNotes = decision.adminNotes;
    if (riskScore !== undefined) set.riskScore = riskScore;
    set.errorMessage =
      decision.errorMessage !== undefined
        ? decision.errorMessage
        : decision.status === 'failed'
          ? (before.errorMessage ?? KYC_FAILED_MESSAGE)
          : null;
    await tx.update(schema.kycVerifications).set(set).where(eq(schema.kycVerifications.id, verificationId));
    const [stillVerified] = await tx
      .select({ id: schema.kycVerifications.id })
      .from(schema.kycVerifications)
      .where(and(eq(schema.kycVerifications.userId, before.userId), eq(schema.kycVerifications.status, 'verified')))
      .limit(1);
    await tx
      .update(schema.users)
      .set({ kycStatus: stillVerified ? 'verified' : 'unverified', updatedAt: now })
      .where(eq(schema.users.id, before.userId));
    const after = (await firstRow(tx, schema.kycVerifications, eq(schema.kycVerifications.id, verificationId)))!;
    const docs = await tx.select().from(schema.kycDocuments).where(eq(schema.kycDocuments.verificationId, verificationId));
    const change = { before: toVerificationView(before, docs), after: toVerificationView(after, docs), userId: before.userId };
    // The user hears of a decision that changes this verification's outcome, once: the same decision again (or a
    // note or risk score edited) tells nothing. Writes of one decision run one at a time (the transaction).
    if (after.status !== before.status && after.status === 'verified') {
      await notify(tx, deps, before.userId, 'kyc_approved', {}, now);
    } else if (after.status !== before.status && after.status === 'failed') {
      // The consumer's message when the reviewer wrote one; null lets the notice say the usual words in the reader's language.
      const reason = after.errorMessage && after.errorMessage !== KYC_FAILED_MESSAGE ? after.errorMessage : null;
      await notify(tx, deps, before.userId, 'kyc_failed', { reason }, now);
    }
    if (alsoInTx) await alsoInTx(tx, change);
    return change;
  });
  deps.log.info('kyc decision', { verificationId, status: decision.status, actor });
  return result;
}
