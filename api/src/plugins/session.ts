import { Elysia } from 'elysia';
import { AppError } from '../errors';
import type { AppDeps } from '../deps';
import { findSessionUser, readSessionToken } from '../modules/auth/sessions';

/**
 * `{ auth: true }` on a route resolves the signed-in consumer from the session cookie, or answers 401.
 * Only the cookie authenticates here: bearer tokens (merchant keys, admin tokens) never reach these routes.
 */
export function sessionPlugin(deps: AppDeps) {
  return new Elysia({ name: 'bpay-session' }).macro({
    auth: {
      async resolve({ request }) {
        const token = readSessionToken(request.headers.get('cookie'), deps.session);
        if (!token) throw new AppError('unauthenticated');
        const found = await findSessionUser(deps.db, deps.clock, deps.session, token);
        if (!found) throw new AppError('unauthenticated');
        return { user: found.user, sessionToken: token };
      },
    },
  });
}
