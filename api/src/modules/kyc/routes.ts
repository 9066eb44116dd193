import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { BINARY_DOCUMENT, errors, rawResponses, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { KYC_SUBMIT_REQUEST_BODY, KycStatusModel, KycVerificationModel } from './model';
import { getVerificationDocument, listOwnVerifications, submitVerification } from './service';
import { MAX_PART_HEADER_BYTES, MAX_PART_HEADER_LINES } from './multipart-guard';
import { MAX_PARTS, readMultipart } from './read-multipart';
import { contentDisposition } from './validation';

export function kycRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/kyc', tags: ['Identity verification'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('/status', async ({ user }) => ({ verifications: await listOwnVerifications(deps, user.id) }), {
      auth: true,
      response: { 200: KycStatusModel, ...errors(401) },
      detail: {
        summary: 'Your identity verifications, newest first',
        description:
          "The signed-in user's identity verifications, newest first, with their status. Read only.",
      },
    })
    .post(
      '/submit',
      async ({ user, request, set }) => {
        const form = await readMultipart(request);
        const view = await submitVerification(deps, user, form);
        set.status = 201;
        return view;
      },
      {
        auth: true,
        // The handler reads the body itself, with a size cap (Elysia would buffer all of it first).
        parse: 'none',
        response: { 201: KycVerificationModel, ...errors(400, 401, 403, 409, 413, 415) },
        detail: {
          summary: 'Submit an identity verification (multipart/form-data)',
          description:
            'Files must really be JPEG, PNG or PDF (checked by content), at most 10 MB each, 1 to 5 files. A file of ' +
            'another type, or whose name extension or part Content-Type says another type than its content, is refused ' +
            "with 415 unsupported_media_type naming it; a kept file is named with its detected type's extension. A body " +
            'over 5 × 10 MB is refused with 413 before it is read, and a file over 10 MB as soon as that much of it ' +
            `has arrived. A body of more than ${MAX_PARTS} form parts, or with a part of more than ${MAX_PART_HEADER_LINES} ` +
            `header lines or ${MAX_PART_HEADER_BYTES / 1024} KB of headers, is refused with 413 as soon as that part ` +
            'arrives, before anything is parsed. ' +
            'The applicant must be 18 or older. At most 5 ' +
            'verifications may wait for review at once (409 kyc_pending_limit_reached).',
          requestBody: KYC_SUBMIT_REQUEST_BODY as never,
        },
      },
    )
    .get(
      '/documents/:id',
      async ({ user, params }) => {
        const { document, bytes } = await getVerificationDocument(deps, params.id, user.id);
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
        auth: true,
        params: t.Object({ id: t.String() }),
        detail: {
          summary: 'One of your uploaded documents (its bytes)',
          description:
            'The bytes of a document the signed-in user uploaded for identity verification (PDF, JPEG or PNG), ' +
            "sent so a browser never runs it. Another user's document is 404; read only.",
          responses: rawResponses(BINARY_DOCUMENT, 401, 404) as never,
        },
      },
    );
}
