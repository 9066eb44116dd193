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

/**
 * The client's address: the TCP peer, or, when bpay runs behind one trusted proxy, the last X-Forwarded-For hop
 * (the one that proxy appended). Earlier hops are whatever the client chose to send and are never trusted.
 */
export function clientAddress(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim();
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
