import { randomBytes } from 'node:crypto';

/*
 * Per-request facts that exist before Elysia sees the request: the peer address (only Bun.serve knows it) and
 * the request id (needed even when parsing fails). Keyed by the Request object, which Elysia passes through.
 */
const peerAddresses = new WeakMap<Request, string>();
const requestIds = new WeakMap<Request, string>();

export function setPeerAddress(request: Request, address: string): void {
  peerAddresses.set(request, address);
}

/** The client's address: the TCP peer, or the first X-Forwarded-For hop when bpay runs behind a trusted proxy. */
export function clientAddress(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (fwd) return fwd;
  }
  return peerAddresses.get(request) ?? 'unknown';
}

export function requestIdOf(request: Request): string {
  let id = requestIds.get(request);
  if (!id) {
    id = `req_${randomBytes(10).toString('hex')}`;
    requestIds.set(request, id);
  }
  return id;
}
