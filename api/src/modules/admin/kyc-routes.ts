import { Elysia, t } from 'elysia';
import { KYC_VERIFICATION_STATUSES } from '@bpay/db/schema';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { BINARY_DOCUMENT, errors, rawResponses, sharedModels } from '../../models';
import { adminAuthPlugin } from '../../plugins/admin-auth';
import { KycVerificationModel } from '../kyc/model';
import { getVerificationDocument } from '../kyc/service';
import { contentDisposition } from '../kyc/validation';
import { recordAudit } from './audit';
import { decideKyc, getKycForAdmin, kycDashboard, listKycForAdmin } from './kyc';
import { IdParams, PageQuery } from './model';
import { ADMIN_SECURITY, PAGE_DOC, sendPage } from './routes';
import { adminPageLimit } from './users';

const noDefault = { default: undefined };

const AdminKycVerificationModel = t.Composite(
  [
    KycVerificationModel,
    t.Object({
      userId: t.String(),
      firstName: t.String(),
      lastName: t.String(),
      dateOfBirth: t.String({ format: 'date' }),
      documentNumber: t.Union([t.String(), t.Null()]),
      reviewedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
      createdAt: t.String({ format: 'date-time' }),
      user: t.Object({
        id: t.String(),
        email: t.String(),
        firstName: t.Union([t.String(), t.Null()]),
        lastName: t.Union([t.String(), t.Null()]),
      }),
    }),
  ],
  { $id: '#/components/schemas/AdminKycVerification' },
);

const KycDashboardModel = t.Object({
  totalVerifications: t.Integer(),
  pendingVerifications: t.Integer({ description: 'pending, processing or requires_input' }),
  verifiedUsers: t.Integer(),
  rejectedVerifications: t.Integer({ description: 'failed' }),
  averageProcessingTime: t.Number({ description: 'Hours from submission to review (0 when none reviewed)' }),
});

const DecisionBody = t.Object({
  status: t.UnionEnum(KYC_VERIFICATION_STATUSES, { ...noDefault, error: 'status must be pending, processing, verified, failed or requires_input.' }),
  adminNotes: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()])),
  riskScore: t.Optional(
    t.Union([t.Integer({ minimum: 0, maximum: 100, error: 'riskScore must be a whole number from 0 to 100.' }), t.Null()]),
  ),
}, { examples: [{ status: 'verified', riskScore: 15, adminNotes: 'Document and selfie match.' }] });

/** KYC review for admins: overview, queue, decisions and the uploaded documents. */
export function adminKycRoutes(deps: AppDeps) {
  const doc = (summary: string, description?: string) => ({ summary, ...(description ? { description } : {}), security: ADMIN_SECURITY });
  return new Elysia({ prefix: '/api/admin/kyc', tags: ['Admin'] })
    .use(sharedModels)
    .use(adminAuthPlugin(deps))
    .get('/dashboard', () => kycDashboard(deps), {
      admin: true,
      response: { 200: KycDashboardModel, ...errors(401) },
      detail: doc(
        'KYC overview figures',
        "The KYC panel's figures: verifications in total, waiting for review (pending, processing or " +
          'requires_input), verified users, failed ones, and the average hours from submission to review. Admins ' +
          'only; read only.',
      ),
    })
    .get(
      '/verifications',
      async ({ query, set }) => {
        const page = await listKycForAdmin(deps, { ...query, limit: adminPageLimit(query.limit) });
        return sendPage(page, set.headers);
      },
      {
        admin: true,
        query: t.Object({
          status: t.Optional(t.UnionEnum(KYC_VERIFICATION_STATUSES, noDefault)),
          ...PageQuery.properties,
        }),
        response: { 200: t.Array(AdminKycVerificationModel), ...errors(400, 401) },
        detail: doc('Verifications, newest first, a page at a time, optionally by status', PAGE_DOC),
      },
    )
    .get('/verifications/:id', ({ params }) => getKycForAdmin(deps, params.id), {
      admin: true,
      params: IdParams,
      response: { 200: AdminKycVerificationModel, ...errors(401, 404) },
      detail: doc('One verification', 'With its user and its documents\' metadata (the same shape as an item of the list).'),
    })
    .patch(
      '/verifications/:id',
      ({ admin, request, params, body }) =>
        decideKyc(deps, { adminId: admin.id, ip: clientAddress(request, deps.trustProxy) }, params.id, body),
      {
        admin: true,
        params: IdParams,
        body: DecisionBody,
        parse: 'json',
        response: { 200: AdminKycVerificationModel, ...errors(400, 401, 404, 415) },
        detail: doc(
          'Decide on a verification',
          "Any status may be set. The user's ID-verified state follows (verified when this one is; back to " +
            'unverified when no verified verification is left). A failed verification gets the error message the ' +
            "consumer's status view shows (\"Your documents could not be verified. Please submit a new verification.\"); " +
            'any other status clears it. Audited with before and after.',
        ),
      },
    )
    .get(
      '/documents/:id',
      async ({ admin, request, params }) => {
        const { document, verificationId, bytes } = await getVerificationDocument(deps, params.id);
        await recordAudit(deps.db, deps.clock, {
          adminId: admin.id,
          action: 'kyc.document.read',
          targetType: 'kyc_document',
          targetId: document.id,
          after: { verificationId },
          ip: clientAddress(request, deps.trustProxy),
        });
        return new Response(bytes, {
          headers: {
            'content-type': document.contentType,
            'content-length': String(bytes.byteLength),
            'content-disposition': contentDisposition(document.name, document.contentType),
            'x-content-type-options': 'nosniff',
            'cache-control': 'no-store',
            'content-security-policy': "default-src 'none'; sandbox",
          },
        });
      },
      {
        admin: true,
        params: IdParams,
        detail: {
          ...doc("A verification document's bytes, for review", 'Served with its detected content type as an attachment (nosniff, sandboxed). Each read is audited.'),
          responses: rawResponses(BINARY_DOCUMENT, 401, 404) as never,
        },
      },
    );
}
