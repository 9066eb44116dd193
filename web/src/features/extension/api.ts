import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';

/*
 * The connected browsers' calls (session cookie; the typed client sends it). Every shape is read from the OpenAPI
 * types the server's routes generate (sdk/src/schema.d.ts): a renamed field breaks this feature's typecheck.
 */

/** A connected browser: its extension token as GET /api/extension/tokens lists it (active ones, newest first). */
export type ExtensionToken = ApiAnswer<'/api/extension/tokens'>[number];
/** POST /api/extension/pairings: a one-time code (valid two minutes) the page hands to the extension. */
export type Pairing = ApiAnswer<'/api/extension/pairings', 'post'>;

export const EXTENSION_TOKENS_QUERY_KEY = ['/api/extension/tokens'] as const;

/** The signed-in user's connected browsers. */
export function extensionTokensQuery() {
  return queryOptions({
    queryKey: EXTENSION_TOKENS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/extension/tokens')),
  });
}

/** A one-time pairing code for this browser, named `label` in Settings. */
export const createPairingRequest = (label: string): Promise<Pairing> => unwrap(api.POST('/api/extension/pairings', { body: { label } }));

/** Disconnects a browser: its token stops working at once. */
export const revokeExtensionTokenRequest = (id: string) =>
  unwrap(api.DELETE('/api/extension/tokens/{id}', { params: { path: { id } } }));
