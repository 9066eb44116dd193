import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import { AppError } from '../errors';
import { resolveExtensionToken, TOKEN_PREFIX } from '../modules/extension/tokens';

/*
 * The browser extension's bearer token (`Authorization: Bearer bpx_…`, modules/extension/tokens.ts). Two parts:
 *
 * - `{ extension: true }` on a route resolves the token's user and token, or answers 401. Only the Authorization
 *   header counts: a session cookie sent beside it (the extension's fetches may carry the browser's cookies) is
 *   ignored, so what a token may do never grows with the tab's session.
 * - extensionScopeGuard, on every request before any handler: a bpx_ token anywhere but the extension's own
 *   routes (EXTENSION_TOKEN_ROUTES) is answered 403 insufficient_scope, whatever else the request carries. So a
 *   leaked token cannot reach the dashboard's routes, even ones that would ignore the header.
 */

/** `Authorization: Bearer bpx_…`, as the scope guard recognises it (any case of the scheme, any token after). */
const EXTENSION_BEARER_RE = /^\s*Bearer\s+bpx_/i;

export const carriesExtensionToken = (request: Request) => EXTENSION_BEARER_RE.test(request.headers.get('authorization') ?? '');

/**
 * Everything a bpx_ token may call: the bearer routes, and the pairing exchange (which ignores any token: an
 * extension that pairs again may still send its old one).
 */
export const EXTENSION_TOKEN_ROUTES: ReadonlyArray<{ method: string; path: RegExp }> = [
  { method: 'GET', path: /^\/api\/extension\/me\/?$/ },
  { method: 'GET', path: /^\/api\/extension\/funding-sources\/?$/ },
  { method: 'POST', path: /^\/api\/extension\/bcards\/?$/ },
  { method: 'GET', path: /^\/api\/extension\/bcards\/progress\/?$/ },
  { method: 'GET', path: /^\/api\/extension\/bcards\/[^/]+\/checkout-details\/?$/ },
  { method: 'POST', path: /^\/api\/extension\/tokens\/?$/ },
];

export const inExtensionScope = (method: string, path: string) =>
  EXTENSION_TOKEN_ROUTES.some((r) => r.method === method && r.path.test(path));

/** A global onRequest hook: register it on the app itself, right after the http plugin (request id, errors). */
export function extensionScopeGuard() {
  return new Elysia({ name: 'bpay-extension-scope' }).onRequest(({ request }) => {
    if (!carriesExtensionToken(request)) return;
    if (!inExtensionScope(request.method, new URL(request.url).pathname)) throw new AppError('insufficient_scope');
  });
}

const NO_TOKEN_MESSAGE =
  'Connect this browser to bpay from the extension: this request needs the extension token (Authorization: Bearer bpx_…).';

/** `{ extension: true }` resolves `{ user, extensionToken }` from the bearer token, or answers 401. */
export function extensionAuthPlugin(deps: AppDeps) {
  return new Elysia({ name: 'bpay-extension-auth' }).macro({
    extension: {
      async resolve({ request }) {
        const header = request.headers.get('authorization');
        if (header === null || header.trim() === '') throw new AppError('unauthenticated', NO_TOKEN_MESSAGE);
        const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
        if (!m?.[1]?.startsWith(TOKEN_PREFIX)) throw new AppError('extension_token_invalid');
        const { user, extensionToken } = await resolveExtensionToken(deps, m[1]);
        return { user, extensionToken };
      },
    },
  });
}
