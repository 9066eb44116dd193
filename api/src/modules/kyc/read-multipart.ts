import { AppError } from '../../errors';
import { createMultipartGuard, formDataType, MAX_PART_HEADER_BYTES, MAX_PART_HEADER_LINES, multipartBoundary, type MultipartRefusal } from './multipart-guard';
import { multipartPartHeaders, type PartHeader } from './part-headers';
import { MAX_BODY_BYTES, MAX_FILE_BYTES, MAX_FILES, sanitiseFileName } from './validation';

/*
 * Reading a KYC upload: the body is refused (413) as soon as it breaks a limit while it streams in, so no parser ever
 * sees a body that is too large, has too many parts, or has parts with too many or too long header lines.
 */

/**
 * The wizard sends 7 text fields and 1 to 5 documents (spec §3, KYC submission): 12 parts at most. 32 leaves room for
 * a client that adds a field or two, and refuses a body of thousands of tiny fields after reading its first 33 parts
 * (an audit measured another client's GET waiting 19× its normal time behind 20 bodies of 10,000 fields each).
 */
export const MAX_PARTS = 32;

/** The refusals' connection is closed: the rest of the body is never read (as for every early 413). */
const CLOSE = { connection: 'close' };

const tooLarge = () =>
  new AppError('payload_too_large', `The upload is too large: at most ${MAX_FILES} files of 10 MB each.`, 'documents', CLOSE);

/** The 413 for a body refused while streaming; a part too large gets the service's message (same code and param). */
export function multipartRefusalError(refusal: MultipartRefusal): AppError {
  switch (refusal.kind) {
    case 'too_many_parts':
      return new AppError(
        'payload_too_large',
        `A verification has at most ${refusal.limit} form parts (its 7 fields and up to ${MAX_FILES} documents); this upload has more.`,
        'documents',
        CLOSE,
      );
    case 'header_too_large':
      return new AppError('payload_too_large', `Each form part's headers may be at most ${refusal.limit / 1024} KB; this upload has a part with more.`, 'documents', CLOSE);
    case 'too_many_header_lines':
      return new AppError('payload_too_large', `Each form part may have at most ${refusal.limit} header lines; this upload has a part with more.`, 'documents', CLOSE);
    case 'part_too_large': {
      const param = refusal.field ? refusal.field.slice(0, 100) : 'documents';
      if (refusal.filename !== null) return new AppError('payload_too_large', `${sanitiseFileName(refusal.filename)} is larger than 10 MB.`, param, CLOSE);
      if (refusal.field) return new AppError('payload_too_large', `${param} is larger than 10 MB.`, param, CLOSE);
      return tooLarge();
    }
  }
}

const notMultipart = (param = 'documents') => new AppError('validation_error', 'The request body is not valid multipart/form-data.', param);

/**
 * Reads the multipart body with caps. A declared Content-Length over the whole-body cap is refused before a byte is
 * read, and so is a Content-Type without a boundary we can read; a body without a length (chunked) is read only up to
 * that cap. While reading, the multipart guard counts parts and measures each part's headers and content as they
 * arrive (multipart-guard.ts): as soon as one limit is passed, reading stops and the answer is 413 naming it. Only a
 * body within every limit is parsed as form data.
 */
export async function readMultipart(request: Request, maxBytes = MAX_BODY_BYTES, maxPartBytes = MAX_FILE_BYTES): Promise<FormData> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  const boundary = multipartBoundary(request.headers.get('content-type'));
  if (!boundary) throw notMultipart();
  const guard = createMultipartGuard(boundary, {
    maxPartBytes,
    maxParts: MAX_PARTS,
    maxHeaderBytes: MAX_PART_HEADER_BYTES,
    maxHeaderLines: MAX_PART_HEADER_LINES,
  });
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
      const refused = guard.push(value);
      if (refused) {
        await reader.cancel().catch(() => undefined);
        throw multipartRefusalError(refused);
      }
      chunks.push(value);
    }
  }
  const refused = guard.finish();
  if (refused) throw multipartRefusalError(refused);
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  // The guard counted every `--boundary`, so this walk (CRLF-led delimiters only) finds at most MAX_PARTS parts.
  const headers = multipartPartHeaders(body, boundary, MAX_PARTS);
  let form: FormData;
  try {
    // Parsed by the boundary the guard counted, never by Bun's own reading of the client's header.
    form = await new Response(body, { headers: { 'content-type': formDataType(boundary) } }).formData();
  } catch {
    throw notMultipart();
  }
  return withDeclaredTypes(form, headers);
}

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
    if (!header) throw notMultipart(field.slice(0, 100));
    out.append(field, new File([value], value.name, { type: header.contentType }));
  });
  return out;
}
