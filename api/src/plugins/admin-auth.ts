import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import { AppError } from '../errors';
import { verifyAdminToken } from '../modules/admin/auth-service';

/**
 * `{ admin: true }` on a route authenticates `Authorization: Bearer <admin JWT>` and resolves `{ admin }`
 * (id, username, jti, issuedAt), or answers 401 invalid_admin_token. Cookies are never read here: a consumer
 * session, even a user whose role is admin, authorizes nothing under /api/admin.
 */
export function adminAuthPlugin(deps: AppDeps) {
  return new Elysia({ name: 'bpay-admin-auth' }).macro({
    admin: {
      async resolve({ request }) {
        const m = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
        const admin = m?.[1] ? await verifyAdminToken(deps, m[1]) : null;
        if (!admin) throw new AppError('invalid_admin_token');
        return { admin };
      },
    },
  });
}
