import { Elysia } from 'elysia';
import { AppError, asMerchantApiError, databaseBusy, errorBody, isDatabaseBusy, isStorageFailure, storageUnavailable } from '../errors';
import { FormBodyError, parseStripeForm } from '../lib/form-body';
import { checkJsonStructure, describeJsonProblem } from '../lib/json-guard';
import { requestIdOf } from '../lib/request-context';
import { describeAccepted, type SchemaLike } from '../lib/schema-words';
import { findUnsafeText, shownText, unsafeCharacter, unsafeCharacterMessage } from '../lib/text';
import type { Logger } from '../lib/logger';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface HttpPolicy {
  /** Origins allowed to make cookie-authenticated writes, besides the request's own origin. */
  allowedOrigins: string[];
  /** Path prefixes not authenticated by the session cookie (bearer-key APIs), exempt from the cross-site check. */
  bearerPrefixes: string[];
  /**
   * Bearer token prefixes (the browser extension's `bpx_`) whose requests are exempt from the cross-site check on any
   * path: the token authenticates them, never a cookie (the extension's routes ignore a cookie beside it, and every
   * other route answers such a request 403 before its handler: plugins/extension-auth.ts).
   */
  bearerTokenPrefixes?: string[];
  /**
   * Exact paths that take no credential at all and are called from another origin (the extension's pairing
   * exchange, from its chrome-extension:// origin), exempt from the cross-site check. Never a cookie-authenticated one.
   */
  credentialFreePaths?: string[];
  /** Paths whose bodies are multipart rather than JSON; their routes limit their own sizes while streaming. */
  multipartPaths: string[];
  /**
   * Exact paths whose JSON body reaches the route as the exact text it was sent as (after the same size, structure and
   * object checks), because the route verifies a signature over those bytes (Stripe's webhook) before it reads them.
   */
  rawBodyPaths?: string[];
  /**
   * Path prefixes (bearer-authenticated only: a form is what a cross-site page can post without a preflight) that also
   * take application/x-www-form-urlencoded bodies in Stripe's bracket notation, under the same limits as JSON.
   */
  formPrefixes: string[];
  /** Largest JSON (or form) body in bytes: the first matching path prefix, else `defaultBytes`. */
  jsonBodyLimits: { defaultBytes: number; byPrefix: [prefix: string, bytes: number][] };
  /**
   * Exact API paths whose answers carry nothing personal and may be kept by a shared cache (the plans on sale, the
   * site's contact details). Every other answer under /api/ (the /v1 twin included), errors too, is sent with
   * `Cache-Control: no-store`, so a new route is private unless it is added here.
   */
  cacheablePaths?: string[];
}

/** Most bytes of request headers (names and values) a request may carry; Bun itself is started with a higher cap. */
export const MAX_HEADER_BYTES = 16 * 1024;
/**
 * Most bytes of a request's path and query. Bun's own cap (the headers') is raised to 256 KiB, and parsing a query of
 * that size (60,000 parameters) took 100 ms or more, holding every other request meanwhile (issue 27).
 */
export const MAX_URL_BYTES = 8 * 1024;

/** The request target's size (path and query, as sent), or null when the URL cannot be read (no valid Host). */
export function requestTargetBytes(request: Request): number | null {
  const url = URL.parse(request.url);
  return url ? url.pathname.length + url.search.length : null;
}

/**
 * Whether an answer to `path` must never be stored by a cache: every API path but the policy's public ones. Paths
 * outside /api/ (the web app's files, the docs) keep their own caching (static-files.ts, server.ts).
 */
export function isPrivateAnswer(policy: Pick<HttpPolicy, 'cacheablePaths'>, path: string): boolean {
  return (path === '/api' || path.startsWith('/api/')) && !policy.cacheablePaths?.includes(path);
}

export function jsonBodyLimit(policy: HttpPolicy, path: string): number {
  return policy.jsonBodyLimits.byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1] ?? policy.jsonBodyLimits.defaultBytes;
}

const kb = (bytes: number) => `${Math.floor(bytes / 1024)} KB`;
const tooLarge = (limit: number) =>
  new AppError('payload_too_large', `The request body is too large: this endpoint accepts at most ${kb(limit)}.`, undefined, {
    connection: 'close',
  });

/** The size of a request's headers as sent (name, ": ", value, CRLF), without copying them. */
export function headerBytes(request: Request): number {
  let n = 0;
  request.headers.forEach((value, name) => {
    n += name.length + value.length + 4;
  });
  return n;
}

/**
 * Refuses what can be refused from the headers alone: oversized headers (431), a URL over 8 KB (414, before its query
 * is parsed) and a declared body over the route's
 * limit (413, before a byte of it is read).
 */
export function checkRequestSize(request: Request, url: URL, policy: HttpPolicy): void {
  if (headerBytes(request) > MAX_HEADER_BYTES) {
    throw new AppError('headers_too_large', undefined, undefined, { connection: 'close' });
  }
  if (url.pathname.length + url.search.length > MAX_URL_BYTES) throw new AppError('uri_too_long', undefined, undefined, { connection: 'close' });
  if (!url.pathname.startsWith('/api/') || policy.multipartPaths.includes(url.pathname)) return;
  const declared = request.headers.get('content-length');
  if (declared === null) return;
  const limit = jsonBodyLimit(policy, url.pathname);
  if (Number(declared) > limit) throw tooLarge(limit);
}

/** Query parameters obey the same character rules as body strings (a search box is text too). */
function checkQueryText(url: URL): void {
  if (!url.search) return;
  for (const [name, value] of url.searchParams) {
    const code = unsafeCharacter(name) ?? unsafeCharacter(value);
    if (code) throw new AppError('validation_error', unsafeCharacterMessage(`query parameter ${name}`, code), shownText(name));
  }
}

/** Reads a body as UTF-8 text, stopping (413) as soon as more than `limit` bytes have arrived. */
async function readBodyText(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid UTF-8 text.');
  }
}

/**
 * Every JSON body goes through here before any validator: size (per route), then structure (depth and member
 * counts, one linear pass: lib/json-guard.ts), then JSON.parse, then the root must be an object (empty is {}), then no
 * key or string may hold a control or bidirectional-override character (lib/text.ts). So a validator
 * only ever sees a small, shallow object, and its error path has nothing deep to walk.
 */
export async function parseJsonBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const text = await readBodyText(request, limit);
  // An empty body is an empty object: bodiless POSTs (logout, 2FA setup) may still say application/json, and a route
  // that needs fields then names the first missing one.
  if (text.trim() === '') return {};
  const value = parseJsonObject(text);
  const unsafe = findUnsafeText(value);
  if (unsafe) throw new AppError('validation_error', unsafeCharacterMessage(unsafe.path, unsafe.code), shownText(unsafe.path));
  return value;
}

/**
 * A JSON body for a route that must see the exact text (a signature covers its bytes): the same size, structure and
 * object checks as parseJsonBody, answered as the text. Not the character rule: a signed body is the signer's to
 * write, and its route decides what it keeps of it.
 */
export async function parseJsonText(request: Request, limit: number): Promise<string> {
  const text = await readBodyText(request, limit);
  parseJsonObject(text);
  return text;
}

/** Structure (depth and member counts, before parsing), then JSON.parse, then the root must be an object. */
function parseJsonObject(text: string): Record<string, unknown> {
  const problem = checkJsonStructure(text);
  if (problem) throw new AppError('body_too_complex', describeJsonProblem(problem));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AppError('body_not_object');
  return value as Record<string, unknown>;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The media type of a request's body, lowercased, without parameters. */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Bodies the parser read as a form: their values are all strings, which app.ts converts by the route's schema. */
const formBodies = new WeakSet<Request>();
export const isFormBody = (request: Request) => formBodies.has(request);

/**
 * A form body (Stripe's encoding, lib/form-body.ts) under the JSON guards: the same size limit, the same structural
 * limits and error messages, the same character rules. Its errors are the JSON path's, so a client sees one shape.
 */
export async function parseFormBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const text = await readBodyText(request, limit);
  let value: Record<string, unknown>;
  try {
    value = parseStripeForm(text);
  } catch (e) {
    if (!(e instanceof FormBodyError)) throw e;
    const p = e.problem;
    if (p.kind === 'malformed') throw new AppError('validation_error', p.reason, shownText(p.key));
    throw new AppError('body_too_complex', describeJsonProblem(p));
  }
  const unsafe = findUnsafeText(value);
  if (unsafe) throw new AppError('validation_error', unsafeCharacterMessage(unsafe.path, unsafe.code), shownText(unsafe.path));
  formBodies.add(request);
  return value;
}

const takesForms = (policy: HttpPolicy, path: string) => policy.formPrefixes.some((p) => path.startsWith(p));

/** `Authorization: Bearer <token>` whose token starts with one of `prefixes`. */
function carriesBearerToken(request: Request, prefixes: string[] | undefined): boolean {
  if (!prefixes?.length) return false;
  const token = /^\s*Bearer\s+(\S+)/i.exec(request.headers.get('authorization') ?? '')?.[1];
  return token !== undefined && prefixes.some((p) => token.startsWith(p));
}

/**
 * Cross-site request defence for cookie-authenticated writes. SameSite=Lax already keeps the cookie off most
 * cross-site POSTs; this checks the browser's own statements about where the request came from, and insists on
 * a JSON body, which an HTML form cannot send without a CORS preflight.
 */
export function checkWriteRequest(request: Request, url: URL, policy: HttpPolicy): void {
  if (!WRITE_METHODS.has(request.method) || !url.pathname.startsWith('/api/')) return;
  // Bearer-authenticated APIs carry no ambient credential, so where the request comes from does not matter there.
  if (
    !policy.bearerPrefixes.some((p) => url.pathname.startsWith(p)) &&
    !carriesBearerToken(request, policy.bearerTokenPrefixes) &&
    !policy.credentialFreePaths?.includes(url.pathname)
  ) {
    const fetchSite = request.headers.get('sec-fetch-site');
    if (fetchSite === 'cross-site') throw new AppError('cross_site_request');
    const origin = request.headers.get('origin');
    if (origin !== null && origin !== url.origin && !policy.allowedOrigins.includes(origin)) {
      throw new AppError('cross_site_request');
    }
  }

  // A Request built in-process (app.handle, other adapters) carries a body without a Content-Length header, so the
  // stream itself counts too; otherwise a form-encoded body would skip this check and be parsed into an object.
  const contentLength = request.headers.get('content-length');
  const hasBody =
    request.headers.has('transfer-encoding') ||
    (contentLength !== null ? Number(contentLength) > 0 : request.body !== null);
  if (!hasBody) return;
  const type = mediaTypeOf(request);
  if (policy.multipartPaths.includes(url.pathname)) {
    if (type !== 'multipart/form-data') {
      throw new AppError('unsupported_media_type', 'This endpoint accepts only multipart/form-data request bodies.');
    }
    return;
  }
  if (type === FORM_TYPE && takesForms(policy, url.pathname)) return;
  if (type !== 'application/json') throw new AppError('unsupported_media_type');
}

/**
 * Turns an Elysia validation error into the catalogue's shape: the message names the field and says what it accepts
 * (the schema's own `error` text where a route gives one, else lib/schema-words.ts reads it from the schema). The
 * validator's own wording ("Expected union value") never reaches a client.
 */
export function validationToAppError(error: unknown, stripeNames = false): AppError {
  const e = error as { valueError?: { path?: string; message?: string; schema?: SchemaLike & { error?: unknown } }; type?: string };
  const ve = e.valueError;
  const path = shownText((ve?.path ?? '').replace(/^\//, '').replaceAll('/', '.').replaceAll('~1', '/').replaceAll('~0', '~'));
  const custom = ve?.schema?.error;
  const where = e.type === 'query' ? 'query parameter' : e.type === 'params' ? 'path parameter' : e.type === 'headers' ? 'header' : 'field';
  // Stripe's codes for a parameter it does not know or one left out (the merchant API; elsewhere validation_error).
  const kind = ve?.message?.startsWith('Unexpected property') ? 'parameter_unknown' : ve?.message === 'Expected required property' ? 'parameter_missing' : null;
  const code = stripeNames && kind && path && (e.type === 'body' || e.type === 'query') ? kind : 'validation_error';
  let message: string;
  if (typeof custom === 'string') message = custom;
  else if (!path) message = e.type === 'body' ? 'The request body must be a JSON object of the documented fields.' : `A ${where} is invalid.`;
  else if (ve?.message?.startsWith('Unexpected property')) {
    message = `${path} is not an allowed ${where}.`;
  } else if (ve?.message === 'Expected required property') {
    message = `${path} is required: ${describeAccepted(ve?.schema)}.`;
  } else message = `${path} must be ${describeAccepted(ve?.schema)}.`;
  return new AppError(code, message, path || undefined);
}

/** The merchant API's paths (app.ts serves /v1/... as these). */
const isMerchantApiPath = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/');

export function httpPlugin(policy: HttpPolicy, log: Logger) {
  return new Elysia({ name: 'bpay-http' })
    .onRequest(({ request, set }) => {
      const requestId = requestIdOf(request);
      set.headers['request-id'] = requestId;
      set.headers['x-content-type-options'] = 'nosniff';
      const url = new URL(request.url);
      // Set first, so the answer carries it whatever follows (a route's own Response keeps its own header: those
      // under /api/ say no-store too, and cache-control.test.ts checks every GET in the API document).
      if (isPrivateAnswer(policy, url.pathname)) set.headers['cache-control'] = 'no-store';
      checkRequestSize(request, url, policy);
      checkQueryText(url);
      checkWriteRequest(request, url, policy);
    })
    // Runs before the routes' own parsers (parse: 'json'); other content types fall through to them.
    .onParse({ as: 'global' }, ({ request }) => {
      const path = new URL(request.url).pathname;
      // Multipart routes read their own stream with caps (parse: 'none'); a global parser would otherwise make
      // Elysia fall back to buffering the whole form. An empty placeholder leaves the stream unread for them.
      if (policy.multipartPaths.includes(path)) return {};
      // A signed body: its exact text, under the JSON guards (its route verifies the signature, then reads it).
      if (policy.rawBodyPaths?.includes(path)) return parseJsonText(request, jsonBodyLimit(policy, path));
      // The merchant API also takes Stripe's form encoding (checkWriteRequest let only these prefixes through with it).
      if (takesForms(policy, path) && mediaTypeOf(request) === FORM_TYPE) return parseFormBody(request, jsonBodyLimit(policy, path));
      // Every other body under /api/ is JSON: checkWriteRequest has refused any other media type (415), however it
      // was spelt. So this parser never declines, and no route's own parser (Elysia's unguarded request.json())
      // ever sees a body: a spelling such as "application/json ;x" cannot slip past the guard.
      if (path.startsWith('/api/')) return parseJsonBody(request, jsonBodyLimit(policy, path));
    })
    .onError({ as: 'global' }, ({ code, error, request, set }) => {
      const requestId = requestIdOf(request);
      // The merchant API (a /v1 request arrives here as its /api/v1 twin) answers with Stripe's names and retry hints.
      const merchantApi = isMerchantApiPath(new URL(request.url).pathname);
      let appError: AppError;
      if (error instanceof AppError) appError = error;
      else if (code === 'VALIDATION') appError = validationToAppError(error, merchantApi);
      // Elysia wraps what a parser throws; parseJsonBody throws catalogue errors (413, body_too_complex, ...).
      else if (code === 'PARSE') appError = error.cause instanceof AppError ? error.cause : new AppError('invalid_json');
      else if (code === 'NOT_FOUND') appError = new AppError('route_not_found');
      else if (code === 'INVALID_COOKIE_SIGNATURE') appError = new AppError('unauthenticated');
      // The database refused a write (a full or failing disk): nothing was committed, and a retry later can succeed.
      // Said once here for every route; the money sagas leave what reached the processor to the money sweep.
      else if (isStorageFailure(error)) {
        log.error('storage unavailable: the database refused a write', { requestId, method: request.method, path: new URL(request.url).pathname, error });
        appError = storageUnavailable();
      } else if (isDatabaseBusy(error)) {
        // Another process (BPAY_REUSE_PORT=1) or a long write held the database past the wait: contention, retryable.
        log.warn('database busy: the write lock was not had in time', { requestId, method: request.method, path: new URL(request.url).pathname, error });
        appError = databaseBusy();
      } else {
        log.error('unhandled error', { requestId, method: request.method, path: new URL(request.url).pathname, error });
        appError = new AppError('internal_error', `Something went wrong on our side. Request id: ${requestId}.`);
      }
      if (merchantApi) appError = asMerchantApiError(appError);
      const headers: Record<string, string> = {
        'content-type': 'application/json; charset=utf-8',
        'request-id': requestId,
        'x-content-type-options': 'nosniff',
        ...(appError.headers ?? {}),
      };
      // An error to a personal route says no more than its answer would, but it is kept out of caches all the same.
      if (isPrivateAnswer(policy, new URL(request.url).pathname)) headers['cache-control'] = 'no-store';
      // Keep a Set-Cookie that a handler already decided on (for example clearing a dead session).
      const cookie = set.headers['set-cookie'];
      if (typeof cookie === 'string') headers['set-cookie'] = cookie;
      return new Response(JSON.stringify(errorBody(appError, requestId)), { status: appError.status, headers });
    });
}
