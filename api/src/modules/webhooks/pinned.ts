import { isIpLiteral } from './address';
import type { WebhookTarget } from './url-policy';

/*
 * Connecting to the address that was checked (DNS rebinding). A name checked at one address and fetched by name
 * would be resolved a second time by the connection, and a name whose DNS changes in between (a short TTL, an
 * attacker's server answering public and then 127.0.0.1) would send the delivery into bpay's own network. So the
 * request is made to the checked address itself, and speaks to the name only where the receiver needs it: the
 * Host header, the TLS server name (SNI) and the certificate check, which Bun's fetch takes from `tls.serverName`.
 */

/** A fetch init with Bun's TLS options (the server name a certificate is checked against). */
export type PinnedInit = RequestInit & { tls?: { serverName?: string } };

/** The request to `address` that the URL's own host would have received: the same path, Host, SNI and certificate. */
export function pinnedRequest(rawUrl: string, address: string, init: RequestInit): { url: string; init: PinnedInit } {
  const url = new URL(rawUrl);
  const name = url.hostname;
  if (isIpLiteral(name)) return { url: url.toString(), init };
  const host = url.host;
  url.hostname = address.includes(':') ? `[${address}]` : address;
  const headers = new Headers(init.headers);
  headers.set('host', host);
  return {
    url: url.toString(),
    init: {
      ...init,
      headers,
      // A connection kept for one name must not carry another name's request to the same address.
      keepalive: false,
      ...(url.protocol === 'https:' ? { tls: { serverName: name.replace(/\.$/, '') } } : {}),
    },
  };
}

/** Whether a failed fetch may be tried at the next address: it could not connect (not a timeout, not an answer). */
function mayTryNext(e: unknown, signal: AbortSignal | null | undefined): boolean {
  if (signal?.aborted) return false;
  const name = (e as { name?: string } | null)?.name;
  return name !== 'AbortError' && name !== 'TimeoutError';
}

/**
 * Sends `init` to the target: by name when no rule applied (target.addresses empty), otherwise to each checked
 * address in the resolver's order until one connects (an IPv6 address first on a host without IPv6, a dead one among
 * several), all within the one `init.signal`. Never resolves the name again and never follows a redirect.
 */
export async function sendToTarget(
  fetchImpl: (url: string, init: RequestInit) => Promise<Response>,
  target: WebhookTarget,
  init: RequestInit,
): Promise<Response> {
  const request: RequestInit = { ...init, redirect: 'manual' };
  if (target.addresses.length === 0) return fetchImpl(target.url, request);
  let last: unknown;
  for (const address of target.addresses) {
    const pinned = pinnedRequest(target.url, address, request);
    try {
      return await fetchImpl(pinned.url, pinned.init);
    } catch (e) {
      last = e;
      if (!mayTryNext(e, init.signal)) throw e;
    }
  }
  throw last;
}
