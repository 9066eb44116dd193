import { inArray, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import type { KycVerificationStatus } from '@bpay/db/schema';
import type { AppDeps } from '../../deps';
import { applyKycDecision, listVerifications, type KycDecision, type KycVerificationDetail } from '../kyc/service';
import { notFound } from '../../errors';
import { recordAudit } from './audit';
import { toPage, type AdminActor, type AdminPage } from './users';
import { KYC_ADMIN_LIST } from '../kyc/service';

/*
 * The admin's side of identity verification, on top of the KYC module (api/src/modules/kyc/service.ts), which owns
 * the tables, the decision rule and the documents.
 */

export interface KycDashboard {
  totalVerifications: number;
  pendingVerifications: number;
  verifiedUsers: number;
  rejectedVerifications: number;
  /** Hours from submission to review, over reviewed verifications (0 when none), one decimal. */
  averageProcessingTime: number;
}

export async function kycDashboard(deps: Pick<AppDeps, 'db'>): Promise<KycDashboard> {
  const v = schema.kycVerifications;
  const [row] = await deps.db
    .select({
      total: sql<number>`count(*)`,
      pending: sql<number>`coalesce(sum(CASE WHEN ${v.status} IN ('pending', 'processing', 'requires_input') THEN 1 ELSE 0 END), 0)`,
      rejected: sql<number>`coalesce(sum(CASE WHEN ${v.status} = 'failed' THEN 1 ELSE 0 END), 0)`,
      avgMs: sql<number | null>`avg(CASE WHEN ${v.reviewedAt} IS NOT NULL THEN ${v.reviewedAt} - ${v.createdAt} END)`,
    })
    .from(v);
  const [verified] = await deps.db
    .select({ n: sql<number>`count(*)` })
    .from(schema.users)
    .where(sql`${schema.users.kycStatus} = 'verified'`);
  const avgMs = row?.avgMs === null || row?.avgMs === undefined ? 0 : Number(row.avgMs);
  return {
    totalVerifications: Number(row?.total ?? 0),
    pendingVerifications: Number(row?.pending ?? 0),
    verifiedUsers: Number(verified?.n ?? 0),
    rejectedVerifications: Number(row?.rejected ?? 0),
    averageProcessingTime: Math.round((avgMs / 3_600_000) * 10) / 10,
  };
}

export type AdminKycVerification = KycVerificationDetail & {
  createdAt: string;
  user: { id: string; email: string; firstName: string | null; lastName: string | null };
};

/**
 * Verifications newest first (ties by id), a page at a time, optionally by status, each with its user.
 * Fails with: validation_error (cursor).
 */
export async function listKycForAdmin(
  deps: Pick<AppDeps, 'db' | 'kycKey'>,
  q: { status?: KycVerificationStatus; limit: number; cursor?: string | null },
): Promise<AdminPage<AdminKycVerification>> {
  // One row more than the page: its presence is what says there is a next page.
  const rows = await listVerifications(deps, { status: q.status, cursor: q.cursor, limit: q.limit + 1 });
  const page = toPage(
    rows.map((r) => ({ r, createdAt: new Date(r.submittedAt), id: r.id })),
    q.limit,
    KYC_ADMIN_LIST,
  );
  return { data: await withUsers(deps, page.rows.map((p) => p.r)), nextCursor: page.nextCursor };
}

/** Each verification with its user (one query for the page). */
async function withUsers(deps: Pick<AppDeps, 'db'>, rows: KycVerificationDetail[]): Promise<AdminKycVerification[]> {
  const ids = [...new Set(rows.map((r) => r.userId))];
  const users = ids.length
    ? await deps.db
        .select({ id: schema.users.id, email: schema.users.email, firstName: schema.users.firstName, lastName: schema.users.lastName })
        .from(schema.users)
        .where(inArray(schema.users.id, ids))
    : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return rows.map((r) => ({
    ...r,
    createdAt: r.submittedAt,
    user: byId.get(r.userId) ?? { id: r.userId, email: '', firstName: null, lastName: null },
  }));
}

/** One verification with its user and documents (an item of the list). Fails with: resource_not_found. */
export async function getKycForAdmin(deps: Pick<AppDeps, 'db' | 'kycKey'>, id: string): Promise<AdminKycVerification> {
  const [view] = await withUsers(deps, await listVerifications(deps, { id }));
  if (!view) throw notFound('verification');
  return view;
}

/** Applies an admin decision (the KYC module's rule) and audits it with the verification before and after. */
export async function decideKyc(
  deps: Pick<AppDeps, 'db' | 'clock' | 'log' | 'kycKey' | 'publicUrl'>,
  actor: AdminActor,
  verificationId: string,
  decision: KycDecision,
): Promise<AdminKycVerification> {
  await applyKycDecision(deps, verificationId, decision, { type: 'admin', id: actor.adminId }, (tx, { before, after, userId }) =>
    recordAudit(tx, deps.clock, {
      adminId: actor.adminId,
      action: 'kyc.decision',
      targetType: 'kyc_verification',
      targetId: verificationId,
      before: { status: before.status, riskScore: before.riskScore, adminNotes: before.adminNotes, userId },
      after: { status: after.status, riskScore: after.riskScore, adminNotes: after.adminNotes, userId },
      ip: actor.ip,
    }),
  );
  return getKycForAdmin(deps, verificationId);
}
