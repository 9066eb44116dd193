import { Elysia } from 'elysia';
import { AppError, errorBody } from '../errors';
import { requestIdOf } from '../lib/request-context';
import type { Logger } from '../lib/logger';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface HttpPolicy {
  /** Origins allowed to make cookie-authenticated writes, besides the request's own origin. */
  allowedOrigins: string[];
  /** Path prefixes not authenticated by the session cookie (bearer-key APIs), exempt from the cross-site check. */
  bearerPrefixes: string[];
  /** Paths whose bodies are multipart rather than JSON. */
  multipartPaths: string[];
}

/**
 * Cross-site request defence for cookie-authenticated writes. SameSite=Lax already keeps the cookie off most
 * cross-site POSTs; this checks the browser's own statements about where the request came from, and insists on
 * a JSON body, which an HTML form cannot send without a CORS preflight.
 */
export function checkWriteRequest(request: Request, url: URL, policy: HttpPolicy): void {
  if (!WRITE_METHODS.has(request.method) || !url.pathname.startsWith('/api/')) return;
  // Bearer-authenticated APIs carry no ambient credential, so where the request comes from does not matter there.
  if (!policy.bearerPrefixes.some((p) => url.pathname.startsWith(p))) {
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
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (policy.multipartPaths.includes(url.pathname)) {
    if (type !== 'multipart/form-data') {
      throw new AppError('unsupported_media_type', 'This endpoint accepts only multipart/form-data request bodies.');
    }
    return;
  }
  if (type !== 'application/json') throw new AppError('unsupported_media_type');
}

/** Turns an Elysia validation error into the catalogue's shape, naming the field. */
function validationToAppError(error: unknown): AppError {
  const e = error as { valueError?: { path?: string; message?: string; schema?: { error?: unknown } }; type?: string };
  const ve = e.valueError;
  const path = (ve?.path ?? '').replace(/^\//, '').replaceAll('/', '.');
  const custom = ve?.schema?.error;
  const where = e.type === 'query' ? 'query parameter' : e.type === 'params' ? 'path parameter' : 'field';
  let message: string;
  if (typeof custom === 'string') message = custom;
  else if (!path) message = `The request ${e.type === 'body' ? 'body' : where} is invalid.`;
  else if (ve?.message === 'Expected required property') message = `${path} is required.`;
  else if (ve?.message?.startsWith('Unexpected property')) message = `${path} is not an allowed ${where}.`;
  else message = `Invalid ${where} ${path}: ${ve?.message ?? 'invalid value'}.`;
  return new AppError('validation_error', message, path || undefined);
}

export function httpPlugin(policy: HttpPolicy, log: Logger) {
  return new Elysia({ name: 'bpay-http' })
    .onRequest(({ request, set }) => {
      const requestId = requestIdOf(request);
      set.headers['request-id'] = requestId;
      set.headers['x-content-type-options'] = 'nosniff';
      checkWriteRequest(request, new URL(request.url), policy);
    })
    .onError({ as: 'global' }, ({ code, error, request, set }) => {
      const requestId = requestIdOf(request);
      let appError: AppError;
      if (error instanceof AppError) appError = error;
      else if (code === 'VALIDATION') appError = validationToAppError(error);
      else if (code === 'PARSE') appError = new AppError('invalid_json');
      else if (code === 'NOT_FOUND') appError = new AppError('route_not_found');
      else if (code === 'INVALID_COOKIE_SIGNATURE') appError = new AppError('unauthenticated');
      else {
        log.error('unhandled error', { requestId, method: request.method, path: new URL(request.url).pathname, error });
        appError = new AppError('internal_error', `Something went wrong on our side. Request id: ${requestId}.`);
      }
      const headers: Record<string, string> = {
        'content-type': 'application/json; charset=utf-8',
        'request-id': requestId,
        'x-content-type-options': 'nosniff',
        ...(appError.headers ?? {}),
      };
      // Keep a Set-Cookie that a handler already decided on (for example clearing a dead session).
      const cookie = set.headers['set-cookie'];
      if (typeof cookie === 'string') headers['set-cookie'] = cookie;
      return new Response(JSON.stringify(errorBody(appError, requestId)), { status: appError.status, headers });
    });
}
