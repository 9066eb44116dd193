import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '@bpay/sdk/schema';

/*
 * The one way the SPA talks to the API: openapi-fetch over the `paths` types generated from the server's own
 * OpenAPI document (sdk/src/schema.d.ts, the same types the SDK uses), so a renamed field breaks the web's
 * typecheck. One middleware keeps the web's own rules: cookies go with every call but the public and admin ones,
 * every money POST carries an Idempotency-Key, and a non-OK answer throws an ApiError whose message is
 * `<status>: <body or status text>` (the spec's contract).
 */
export type { paths };

/** A non-OK answer. `serverMessage` is the catalogue's human message when the body is a bpay error. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    /** Retry-After in whole seconds, when the answer had one (429s, 503s): how long to wait before trying again. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
  get serverMessage(): string | undefined {
    const e = (this.body as { error?: { message?: unknown } } | null)?.error;
    return typeof e?.message === 'string' ? e.message : undefined;
  }
  get code(): string | undefined {
    const e = (this.body as { error?: { code?: unknown } } | null)?.error;
    return typeof e?.code === 'string' ? e.code : undefined;
  }
  get errorType(): string | undefined {
    const e = (this.body as { error?: { type?: unknown } } | null)?.error;
    return typeof e?.type === 'string' ? e.type : undefined;
  }
  /** The request field the server blamed (the catalogue's `param`), when it named one. */
  get param(): string | undefined {
    const e = (this.body as { error?: { param?: unknown } } | null)?.error;
    return typeof e?.param === 'string' ? e.param : undefined;
  }
}

/** The ApiError for a non-OK answer (its body is read from a clone: the answer itself stays unread). */
export async function apiErrorOf(res: Response): Promise<ApiError> {
  const text = await res.clone().text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return new ApiError(res.status, `${res.status}: ${text || res.statusText}`, body, retryAfterSeconds(res.headers.get('retry-after')));
}

/** Retry-After as seconds: a number of seconds, or an HTTP date from now; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/**
 * The POSTs that move money (schema paths, as the route declares them). Each goes with an Idempotency-Key: the
 * caller's, when it resends one attempt after no final answer, else a fresh one, so the server does it once.
 */
export const MONEY_POSTS: readonly (keyof paths)[] = [
  '/api/virtual-cards',
  '/api/virtual-cards/{id}/cancel',
  '/api/process-payment',
  '/api/checkout/payment_intents/{id}/pay',
  '/api/demo/checkout-intent',
  '/api/subscription/upgrade',
  '/api/merchants/{id}/refunds',
];

/**
 * The calls made without the session cookie: the public reads (spec §7: the tiers call goes without credentials),
 * and the admin panel, whose calls carry its own Bearer token and never a consumer's session.
 */
export function sendsCookies(schemaPath: string): boolean {
  return !(schemaPath === '/api/subscription/tiers' || schemaPath === '/api/site/contact' || schemaPath.startsWith('/api/admin/'));
}

export const apiRules: Middleware = {
  onRequest({ request, schemaPath }) {
    const headers = new Headers(request.headers);
    headers.set('accept', 'application/json');
    if (request.method === 'POST' && (MONEY_POSTS as readonly string[]).includes(schemaPath) && !headers.has('idempotency-key')) {
      headers.set('idempotency-key', crypto.randomUUID());
    }
    return new Request(request, { headers, credentials: sendsCookies(schemaPath) ? 'include' : 'omit' });
  },
  async onResponse({ response }) {
    if (!response.ok) throw await apiErrorOf(response);
    return undefined;
  },
};

/** The origin calls go to: the page's own (a Request needs an absolute URL outside a browser, as in unit tests). */
const origin = () => (typeof location === 'undefined' ? 'http://localhost' : location.origin);

/**
 * A typed client with the web's rules. `fetch` is looked up at each call (tests replace the global one).
 * Features with a rule of their own (the admin panel's token) add a middleware to a client of their own.
 */
export function createApiClient(): Client<paths> {
  const client = createClient<paths>({ baseUrl: origin(), fetch: (req) => globalThis.fetch(req) });
  client.use(apiRules);
  return client;
}

export const api = createApiClient();

/**
 * The data of an answer. Non-OK answers never get here (the middleware throws their ApiError); an OK answer
 * without a body is answered as null.
 */
export async function unwrap<D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data } = await pending;
  // openapi-fetch gives undefined for an empty answer; TanStack Query refuses undefined from a query function.
  return (data ?? null) as D;
}

/** The data of an answer together with its headers (for lists that page with a response header). */
export async function unwrapWithHeaders<D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<{ data: D; headers: Headers }> {
  const { data, response } = await pending;
  return { data: (data ?? null) as D, headers: response.headers };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M & keyof paths[P]]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** What an operation answers on success (its 200 or 201 JSON), read from the generated schema. */
export type ApiAnswer<P extends keyof paths, M extends Method = 'get'> =
  Operation<P, M> extends { responses: infer R } ? JsonOf<R[keyof R & (200 | 201)]> : never;

/** An operation's JSON request body, read from the generated schema. */
export type ApiBody<P extends keyof paths, M extends Method = 'post'> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** An operation's query parameters, read from the generated schema. */
export type ApiQuery<P extends keyof paths, M extends Method = 'get'> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The human message to show for a failure: the server's message when it sent one. */
export function messageOf(error: unknown): string | undefined {
  if (error instanceof ApiError) return error.serverMessage ?? error.message;
  if (error instanceof Error) return error.message;
  return undefined;
}
