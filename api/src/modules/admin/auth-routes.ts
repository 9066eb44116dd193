import { Elysia } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, sharedModels } from '../../models';
import { adminAuthPlugin } from '../../plugins/admin-auth';
import { adminLogin, adminLogout } from './auth-service';
import { AdminLoginBody, AdminTokenModel, AdminVerifyModel, SuccessModel } from './model';

const security = [{ adminToken: [] }];

/** Admin sign-in, sign-out and token check. Cookies are never read under /api/admin. */
export function adminAuthRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/admin/auth', tags: ['Admin'] })
    .use(sharedModels)
    .use(adminAuthPlugin(deps))
    .post(
      '/login',
      async ({ body, request }) => {
        const r = await adminLogin(deps, body, clientAddress(request, deps.trustProxy));
        return {
          token: r.token,
          expiresAt: r.expiresAt.toISOString(),
          admin: { username: r.admin.username, loginTime: r.issuedAt.toISOString() },
        };
      },
      {
        body: AdminLoginBody,
        parse: 'json',
        response: { 200: AdminTokenModel, ...errors(400, 401, 415, 429) },
        detail: {
          summary: 'Admin sign-in (username, password and the current TOTP code)',
          description:
            'Unknown username, wrong password and a wrong or already used code all get the same 401 ' +
            'invalid_admin_credentials. Failures are throttled without locking the real admin out: 10 in 15 minutes ' +
            'from one address get 429 rate_limited; for one username from one address 5 are free, then each try ' +
            'waits 1, 2, 4 … up to 60 minutes (429 rate_limited) until a success from there; after 10 failures in ' +
            '30 minutes for a username (the same for names no admin has) every failure answers 429 admin_locked ' +
            'with Retry-After, while the right password and an unused current code still sign in. The token expires after ' +
            'BPAY_ADMIN_TOKEN_TTL_MINUTES (15 by default) and can be revoked with /logout.',
          security: [],
        },
      },
    )
    .post(
      '/logout',
      async ({ admin, request }) => {
        await adminLogout(deps, admin, clientAddress(request, deps.trustProxy));
        return { success: true };
      },
      {
        admin: true,
        response: { 200: SuccessModel, ...errors(401) },
        detail: {
          summary: 'Revoke this admin token on the server',
          description:
            'Revokes the admin token this request carries, on the server: from now on it answers 401 even before ' +
            'it would expire. For a signed-in admin (Bearer admin token); nothing else changes.',
          security,
        },
      },
    )
    .get('/verify', ({ admin }) => ({ admin: { username: admin.username, loginTime: admin.issuedAt.toISOString() } }), {
      admin: true,
      response: { 200: AdminVerifyModel, ...errors(401) },
      detail: {
        summary: 'Check an admin token: the admin and when the token was issued',
        description:
          "Answers the admin's username and when this token was issued, or 401 when the token is missing, expired " +
          'or revoked. The back office calls it to check a stored token; it changes nothing.',
        security,
      },
    });
}
