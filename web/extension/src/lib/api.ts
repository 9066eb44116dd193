import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '@bpay/sdk/schema';
import { apiErrorOf, ApiError } from '../../../src/lib/api';
import type { ApiFailure } from './protocol';

/*
 * The background's typed client: openapi-fetch over the `paths` types generated from the server's OpenAPI document
 * (sdk/src/schema.d.ts, the same types the SDK and the web use), with the web's error rule (a non-OK answer throws
 * the web's ApiError). Differences from web/src/lib/api.ts: the base URL is the configured bpay origin, no cookie is
 * ever sent (credentials: 'omit'), and the pairing token goes as `Authorization: Bearer`.
 */

type Method = 'get' | 'post';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ExtensionPath = Extract<keyof paths, `/api/extension/${string}`>;
/** What an extension route answers on success (its 200 or 201 JSON). */
export type ExtAnswer<P extends ExtensionPath, M extends Method = 'get'> =
  NonNullable<paths[P][M & keyof paths[P]]> extends { responses: infer R } ? JsonOf<R[keyof R & (200 | 201)]> : never;
/** An extension route's JSON body. */
export type ExtBody<P extends ExtensionPath, M extends Method = 'post'> =
  NonNullable<paths[P][M & keyof paths[P]]> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

export type FundingSource = ExtAnswer<'/api/extension/funding-sources'>[number];
export type CreateExtensionBcardBody = ExtBody<'/api/extension/bcards'>;
export type ExtensionBcard = ExtAnswer<'/api/extension/bcards', 'post'>;
export type CollectionProgress = ExtAnswer<'/api/extension/bcards/progress'>;

/** The code the server answers for a revoked or expired token: the extension forgets it and says so. */
export const TOKEN_INVALID = 'extension_token_invalid';

/** What the client calls to send a request (the global fetch; a stub in tests). */
export type FetchLike = (request: Request) => Promise<Response>;

/** A client for `origin` whose calls carry `token()` as a Bearer token (none when it gives null). */
export function createExtensionClient(origin: string, token: () => Promise<string | null>, fetchImpl: FetchLike = (r) => globalThis.fetch(r)): Client<paths> {
  const client = createClient<paths>({ baseUrl: origin, fetch: (req: Request) => fetchImpl(req) });
  const rules: Middleware = {
    async onRequest({ request }) {
      const headers = new Headers(request.headers);
      headers.set('accept', 'application/json');
      const bearer = await token();
      if (bearer) headers.set('authorization', `Bearer ${bearer}`);
      return new Request(request, { headers, credentials: 'omit' });
    },
    async onResponse({ response }) {
      if (!response.ok) throw await apiErrorOf(response);
      return undefined;
    },
  };
  client.use(rules);
  return client;
}

/**
 * A failure as the popup shows it. An ApiError is the server's answer (its message, code); anything else thrown by
 * fetch means no answer came back (status 0), which is when resending the same attempt is right.
 */
export function failureOf(error: unknown): ApiFailure {
  if (error instanceof ApiError) return { status: error.status, code: error.code ?? null, message: error.serverMessage ?? error.message };
  return { status: 0, code: null, message: error instanceof Error ? error.message : String(error) };
}
