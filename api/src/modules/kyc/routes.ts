import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { BINARY_DOCUMENT, errors, rawResponses, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { KYC_SUBMIT_REQUEST_BODY, KycStatusModel, KycVerificationModel } from './model';
import { getVerificationDocument, listOwnVerifications, submitVerification } from './service';
import { multipartPartHeaders, type PartHeader } from './part-headers';
import { createPartSizeGuard, multipartBoundary, type OversizedPart } from './part-size';
import { contentDisposition, MAX_BODY_BYTES, MAX_FILE_BYTES, sanitiseFileName } from './validation';

const tooLarge = () =>
  new AppError('payload_too_large', 'The upload is too large: at most 5 files of 10 MB each.', 'documents');

/** The service's too-large-file error (same code, message and param), for a part refused while streaming. */
function partTooLarge(part: OversizedPart): AppError {
  const param = part.field ? part.field.slice(0, 100) : 'documents';
  if (part.filename !== null) return new AppError('payload_too_large', `${sanitiseFileName(part.filename)} is larger than 10 MB.`, param);
  if (part.field) return new AppError('payload_too_large', `${param} is larger than 10 MB.`, param);
  return tooLarge();
}

/**
 * Reads the multipart body with caps. A declared Content-Length over the whole-body cap is refused before a byte is
 * read; a body without one (chunked) is read only up to that cap. While reading, each part is measured as it
 * arrives (part-size.ts): as soon as one holds more than `maxPartBytes` (a 10 MB file), reading stops and the
 * answer is 413 naming it. Then the bytes are parsed as form data.
 */
export async function readMultipart(request: Request, maxBytes = MAX_BODY_BYTES, maxPartBytes = MAX_FILE_BYTES): Promise<FormData> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  const boundary = multipartBoundary(request.headers.get('content-type'));
  const guard = boundary ? createPartSizeGuard(boundary, maxPartBytes) : null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      const oversized = guard?.push(value) ?? null;
      if (oversized) {
        await reader.cancel().catch(() => undefined);
        throw partTooLarge(oversized);
      }
      chunks.push(value);
    }
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  // A verification is a handful of fields and at most 5 files; thousands of tiny parts are refused before the form
  // is parsed (they cost the parsers time, not the size caps bytes).
  const headers = boundary ? multipartPartHeaders(body, boundary, MAX_PARTS + 1) : [];
  if (headers.length > MAX_PARTS) {
    throw new AppError('validation_error', `A verification has at most ${MAX_PARTS} form parts: its fields and up to 5 documents.`, 'documents');
  }
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': request.headers.get('content-type') ?? '' } }).formData();
  } catch {
    throw new AppError('validation_error', 'The request body is not valid multipart/form-data.', 'documents');
  }
  return withDeclaredTypes(form, headers);
}

/** Every field of the wizard once (7) plus 5 documents, with room to spare; anything beyond is not the wizard. */
export const MAX_PARTS = 32;

/**
 * The form with each file's `type` set to the Content-Type its part declared ('' when none), since Bun's parser
 * replaces it with a guess from the file name. Parts are matched in order per field; if the two parsers disagree on
 * how many parts a field has, the body is refused rather than a type misattributed.
 */
function withDeclaredTypes(form: FormData, headers: PartHeader[]): FormData {
  // One pass over each list (never a scan per field): the n-th part of a field takes the n-th declared header.
  const declared = new Map<string, PartHeader[]>();
  for (const h of headers) {
    if (h.field === null) continue;
    const list = declared.get(h.field);
    if (list) list.push(h);
    else declared.set(h.field, [h]);
  }
  const seen = new Map<string, number>();
  const out = new FormData();
  form.forEach((value: FormDataEntryValue, field: string) => {
    const index = seen.get(field) ?? 0;
    seen.set(field, index + 1);
    if (typeof value === 'string') return out.append(field, value);
    const header = declared.get(field)?.[index];
    if (!header) throw new AppError('validation_error', 'The request body is not valid multipart/form-data.', field.slice(0, 100));
    out.append(field, new File([value], value.name, { type: header.contentType }));
  });
  return out;
}

export function kycRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/kyc', tags: ['Identity verification'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('/status', async ({ user }) => ({ verifications: await listOwnVerifications(deps, user.id) }), {
      auth: true,
      response: { 200: KycStatusModel, ...errors(401) },
      detail: { summary: 'Your identity verifications, newest first' },
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
            'has arrived. The applicant must be 18 or older. At most 5 ' +
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
        detail: { summary: 'One of your uploaded documents (its bytes)', responses: rawResponses(BINARY_DOCUMENT, 401, 404) as never },
      },
    );
}
