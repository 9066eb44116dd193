import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/*
 * Content codings: which one a client accepts (Accept-Encoding, RFC 9110 §12.5.3), and compression of the API's
 * JSON answers on the way out. Static files are compressed at build time instead (web/compress.ts).
 */

export type Coding = 'br' | 'gzip';

/** The q-value of each coding the header names (`x-gzip` is gzip); a malformed q counts as 0. */
function parseAcceptEncoding(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    let name = rawName?.trim().toLowerCase();
    if (!name) continue;
    if (name === 'x-gzip') name = 'gzip';
    let value = 1;
    for (const param of params) {
      const [k, v] = param.split('=').map((s) => s.trim());
      if (k?.toLowerCase() === 'q') value = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(v ?? '') ? Number(v) : 0;
    }
    q.set(name, Math.max(q.get(name) ?? 0, value));
  }
  return q;
}

/**
 * The coding to send among those `available`, or null for the identity. A coding is acceptable when the header names
 * it (or `*`) with q > 0; the highest q wins, brotli on a tie. Without the header nothing is encoded. Identity is the
 * fallback even when the client refuses it (`identity;q=0`): an uncompressed answer is better than a 406 for a page.
 */
export function negotiateEncoding(acceptEncoding: string | null, available: readonly Coding[]): Coding | null {
  if (!acceptEncoding) return null;
  const q = parseAcceptEncoding(acceptEncoding);
  const star = q.get('*');
  let best: Coding | null = null;
  let bestQ = 0;
  for (const coding of ['br', 'gzip'] as const) {
    if (!available.includes(coding)) continue;
    const value = q.get(coding) ?? star ?? 0;
    if (value > bestQ) {
      best = coding;
      bestQ = value;
    }
  }
  return best;
}

/** Adds Accept-Encoding to a response's Vary header unless it is there already (or Vary is `*`). */
export function varyOnAcceptEncoding(headers: Headers): void {
  const vary = headers.get('vary');
  if (!vary) {
    headers.set('vary', 'Accept-Encoding');
    return;
  }
  const names = vary.split(',').map((s) => s.trim().toLowerCase());
  if (!names.includes('*') && !names.includes('accept-encoding')) headers.set('vary', `${vary}, Accept-Encoding`);
}

/** JSON answers shorter than this are sent as they are: compressing them saves less than it costs. */
export const JSON_COMPRESS_MIN_BYTES = 1024;

/** Brotli's quality for JSON answers: the cheapest, most of the gain (see compressJsonResponse). */
export const BROTLI_QUALITY = 1;

function isJson(contentType: string | null): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * The API's JSON answer, compressed by what the request accepts when it is at least JSON_COMPRESS_MIN_BYTES long.
 * Every other answer passes untouched: other types (the events stream, text/event-stream, must never be buffered),
 * HEAD, 204/304 and other bodiless statuses, answers already encoded, and those marked `Cache-Control: no-transform`.
 * Brotli at quality 1 (BROTLI_QUALITY) and gzip at level 6. Measured per answer (issue 29 part 4, docs/DECISIONS.md):
 * quality 1 costs a third to a fifth of quality 5's CPU (0.016 against 0.056 ms for 1.9 KB, 0.06 against 0.31 ms for
 * 28 KB) and sends 5-15 % more bytes (648 against 553 B; 5.8 against 5.0 KB), still a half to four fifths less than
 * the JSON. Gzip is kept at 6: level 1 loses a fifth of the saving and the clients that matter accept brotli.
 */
export async function compressJsonResponse(request: Request, response: Response): Promise<Response> {
  if (!isJson(response.headers.get('content-type'))) return response;
  if (request.method === 'HEAD' || !response.body || response.status < 200 || response.status === 204 || response.status === 304) {
    return response;
  }
  if (response.headers.has('content-encoding') || /\bno-transform\b/i.test(response.headers.get('cache-control') ?? '')) return response;
  const headers = new Headers(response.headers);
  varyOnAcceptEncoding(headers);
  const coding = negotiateEncoding(request.headers.get('accept-encoding'), ['br', 'gzip']);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (!coding || declared < JSON_COMPRESS_MIN_BYTES) return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength >= JSON_COMPRESS_MIN_BYTES) {
    const body =
      coding === 'br'
        ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } })
        : gzipSync(bytes, { level: 6 });
    headers.set('content-encoding', coding);
    headers.set('content-length', String(body.byteLength));
    // A validator of the uncompressed bytes names another representation now.
    const etag = headers.get('etag');
    if (etag && !etag.startsWith('W/')) headers.set('etag', `W/${etag}`);
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  }
  headers.set('content-length', String(bytes.byteLength));
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers });
}
