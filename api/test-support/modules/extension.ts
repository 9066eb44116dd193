/*
 * The browser extension in a test: connect a browser (a pairing code from the signed-in web app, exchanged as the
 * extension's background does), and calls with its bearer token from the extension's own origin.
 */
import { call, type CallOptions, type CallResult, type TestContext } from '../app';

/** Where the extension's background calls from (an unpacked extension's id is 32 letters a to p). */
export const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

/** A well-formed token that no browser was ever given. */
export const UNKNOWN_TOKEN = `bpx_${'A'.repeat(43)}`;

/** POST /api/extension/pairings as the signed-in web page (same origin, session cookie). */
export function createPairing(ctx: TestContext, cookie: string, label = 'Chrome on Linux', extra: CallOptions = {}) {
  return call(ctx, '/api/extension/pairings', { method: 'POST', cookie, body: { label }, ...extra });
}

/** POST /api/extension/tokens as the extension's background: no cookie, its own origin. */
export function exchangeCode(ctx: TestContext, code: string, extra: CallOptions = {}) {
  return call(ctx, '/api/extension/tokens', { method: 'POST', body: { code }, origin: EXTENSION_ORIGIN, ...extra });
}

export interface ConnectedBrowser {
  token: string;
  id: string;
  label: string;
}

/** Pairs a browser for the user behind `cookie`; throws unless both steps succeed. */
export async function connectBrowser(ctx: TestContext, cookie: string, label = 'Chrome on Linux', ip?: string): Promise<ConnectedBrowser> {
  const pairing = await createPairing(ctx, cookie, label);
  if (pairing.status !== 201) throw new Error(`pairing failed: ${pairing.status} ${pairing.text}`);
  const res = await exchangeCode(ctx, pairing.body.code, ip ? { ip } : {});
  if (res.status !== 201) throw new Error(`exchanging the code failed: ${res.status} ${res.text}`);
  return { token: res.body.token, id: res.body.id, label: res.body.label };
}

/** A call as the extension makes it: Authorization: Bearer <token>, from its own origin, no cookie unless given. */
export function extensionCall<T = any>(ctx: TestContext, token: string | null, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  return call<T>(ctx, path, {
    origin: EXTENSION_ORIGIN,
    ...opts,
    headers: { ...(token !== null ? { authorization: `Bearer ${token}` } : {}), ...(opts.headers ?? {}) },
  });
}

/** The routes a bpx_ token may call, as "METHOD /path" with OpenAPI's {id}. */
export const EXTENSION_TOKEN_OPERATIONS = new Set([
  'GET /api/extension/me',
  'GET /api/extension/funding-sources',
  'POST /api/extension/bcards',
  'GET /api/extension/bcards/progress',
  'GET /api/extension/bcards/{id}/checkout-details',
  'POST /api/extension/tokens',
]);
