import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, PUBLIC_SECURITY, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { updateProfile } from '../users/service';
import { toPublicUser } from '../users/service';
import { LoginBody, ProfilePatchBody, RegisterBody, TotpCodeBody, TotpEnrolmentModel, UserModel } from './model';
import { beginTotpEnrolment, confirmTotpEnrolment, disableTotp, login, register } from './service';
import { clearedSessionCookie, createSession, deleteSession, readSessionToken, sessionCookie } from './sessions';

export function authRoutes(deps: AppDeps) {
  const authDeps = { db: deps.db, clock: deps.clock, totpKey: deps.totpKey };

  /** Starts a fresh session (a new id at every sign-in) and drops the one the request came with, if any. */
  async function signIn(request: Request, userId: string): Promise<string> {
    const previous = readSessionToken(request.headers.get('cookie'));
    if (previous) await deleteSession(deps.db, deps.session, previous);
    const { token, expiresAt } = await createSession(deps.db, deps.clock, deps.session, userId, {
      ip: clientAddress(request, deps.trustProxy),
      userAgent: request.headers.get('user-agent'),
    });
    return sessionCookie(deps.session, token, expiresAt);
  }

  return new Elysia({ prefix: '/api/auth', tags: ['Auth'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .post(
      '/register',
      async ({ body, request, set }) => {
        const user = await register(authDeps, body);
        set.headers['set-cookie'] = await signIn(request, user.id);
        set.status = 201;
        return user;
      },
      {
        body: RegisterBody,
        // JSON only: the OpenAPI document then lists only application/json (the http plugin answers 415 to others).
        parse: 'json',
        response: { 201: UserModel, ...errors(400, 403, 409, 415) },
        detail: { summary: 'Create an account on the free plan and sign in', security: PUBLIC_SECURITY },
      },
    )
    .post(
      '/login',
      async ({ body, request, set }) => {
        const user = await login(authDeps, body, clientAddress(request, deps.trustProxy));
        set.headers['set-cookie'] = await signIn(request, user.id);
        return user;
      },
      {
        body: LoginBody,
        parse: 'json',
        response: { 200: UserModel, ...errors(400, 401, 403, 415, 429) },
        detail: {
          summary: 'Sign in',
          security: PUBLIC_SECURITY,
          description:
            'Unknown e-mail and wrong password get the same answer. With two-factor enabled, a request without ' +
            'totpCode is answered 401 two_factor_required. 10 failures in 15 minutes for an account or an address ' +
            'get 429 with Retry-After.',
        },
      },
    )
    .post(
      '/logout',
      async ({ request, set }) => {
        const token = readSessionToken(request.headers.get('cookie'));
        if (token) await deleteSession(deps.db, deps.session, token);
        set.headers['set-cookie'] = clearedSessionCookie(deps.session);
        return { success: true };
      },
      {
        response: { 200: t.Object({ success: t.Boolean() }), ...errors(403) },
        detail: { summary: 'Sign out: the session is deleted on the server' },
      },
    )
    .get('/user', ({ user }) => toPublicUser(user), {
      auth: true,
      response: { 200: UserModel, ...errors(401) },
      detail: { summary: 'The signed-in user' },
    })
    .patch('/user', ({ user, body }) => updateProfile(deps.db, deps.clock, user.id, body), {
      auth: true,
      body: ProfilePatchBody,
      parse: 'json',
      response: { 200: UserModel, ...errors(400, 401, 403, 409, 415) },
      detail: { summary: 'Update your own profile' },
    })
    .post('/2fa/setup', ({ user }) => beginTotpEnrolment(authDeps, user.id), {
      auth: true,
      response: { 200: TotpEnrolmentModel, ...errors(401, 403, 409) },
      detail: { summary: 'Start two-factor enrolment: a TOTP secret to scan' },
    })
    .post('/2fa/confirm', ({ user, body }) => confirmTotpEnrolment(authDeps, user.id, body.code), {
      auth: true,
      body: TotpCodeBody,
      parse: 'json',
      response: { 200: UserModel, ...errors(400, 401, 403, 409, 415) },
      detail: { summary: 'Confirm enrolment with a code; sign-in asks for codes from then on' },
    })
    .post('/2fa/disable', ({ user, body }) => disableTotp(authDeps, user.id, body.code), {
      auth: true,
      body: TotpCodeBody,
      parse: 'json',
      response: { 200: UserModel, ...errors(400, 401, 403, 409, 415) },
      detail: { summary: 'Turn two-factor authentication off (needs a current code)' },
    });
}
