import type { AppDeps } from '../../deps';
import { isLoopbackUrl } from '../../env';
import { AppError } from '../../errors';
import { clientAddress } from '../../lib/request-context';
import { verifyAdminToken } from './auth-service';

/*
 * Who may read the e-mail outbox: it holds password reset links, so only
 *  - a signed-in admin (Authorization: Bearer <admin token>), or
 *  - a local install: no SMTP server configured (the outbox is where its mail goes), a loopback public URL, bpay not
 *    behind a proxy (BPAY_TRUST_PROXY off), and a request that came from this very machine — its TCP peer is a loopback
 *    address, its Host names a loopback host, and it carries no forwarding header (a reverse proxy on the same
 *    machine would make every visitor's peer address loopback; a proxy adds those headers, or sends another Host).
 * Anything else is refused, including a consumer session of a user whose role is admin.
 */

export type OutboxAccess = 'admin' | 'local';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'via'];

export function isLoopbackAddress(ip: string): boolean {
  const a = ip.toLowerCase().replace(/^::ffff:/, '');
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a) || a === '::1';
}

/** Whether this request is a local install's own browser (see above); each condition is needed. */
export function isLocalInstallRequest(deps: Pick<AppDeps, 'mail' | 'publicUrl' | 'trustProxy'>, request: Request): boolean {
  if (deps.mail.transport !== null || deps.trustProxy || !isLoopbackUrl(deps.publicUrl.href)) return false;
  if (!isLoopbackAddress(clientAddress(request, false))) return false;
  if (FORWARDING_HEADERS.some((h) => request.headers.has(h))) return false;
  // The server builds request.url from the Host header; a Host header (when the request carries one) is checked too.
  const host = request.headers.get('host');
  try {
    return isLoopbackUrl(request.url) && (host === null || isLoopbackUrl(`http://${host}`));
  } catch {
    return false;
  }
}

/**
 * Fails with: invalid_admin_token (401: a bearer token was sent and is not a valid admin token), outbox_forbidden
 * (403: no admin token, and not a local install's own request).
 */
export async function outboxAccess(deps: AppDeps, request: Request): Promise<OutboxAccess> {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (m?.[1] && (await verifyAdminToken(deps, m[1]))) return 'admin';
    throw new AppError('invalid_admin_token');
  }
  if (isLocalInstallRequest(deps, request)) return 'local';
  throw new AppError('outbox_forbidden');
}
