import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { clientAddress } from '../../lib/request-context';
import { errors, PUBLIC_SECURITY, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { toPublicUser } from '../users/service';
import { updateAccount } from './account';
import {
  cancelEmailChange,
  confirmEmailChange,
  EMAIL_CHANGE_TTL_MS,
  EMAIL_REVERT_TTL_MS,
  pendingEmailChange,
  resendEmailChange,
  revertEmailChange,
} from './email-change';
import {
  EmailChangeConfirmed,
  EmailChangeReverted,
  EmailChangeTokenBody,
  PendingEmailChangeModel,
  PasswordResetCheck,
  PasswordResetCheckBody,
  PasswordResetConfirmBody,
  PasswordResetRequestBody,
  PasswordResetRequested,
} from './model';
import { checkResetToken, requestPasswordReset, resetPassword, RESET_TOKEN_TTL_MS } from './password-reset';
import { SignInLinkBody } from './model';
import { signInWithLink } from './sign-in-link';
import { LoginBody, ProfilePatchBody, RegisterBody, SessionModel, TotpCodeBody, TotpDisableBody, TotpEnrolmentModel, UserModel } from './model';
import { beginTotpEnrolment, confirmTotpEnrolment, disableTotp, login, register } from './service';
import {
  clearedSessionCookie,
  createSession,
  deleteSession,
  findSessionUser,
  readSessionToken,
  sessionCookie,
  type NewSession,
  type SessionClient,
} from './sessions';

export function authRoutes(deps: AppDeps) {
  const authDeps = {
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    totpKey: deps.totpKey,
    registrationLimit: deps.registrationLimit,
    session: deps.session,
    publicUrl: deps.publicUrl,
  };

  const clientOf = (request: Request): SessionClient => ({
    ip: clientAddress(request, deps.trustProxy),
    userAgent: request.headers.get('user-agent'),
  });

  /** The cookie for a fresh session (a new id at every sign-in); the one the request came with, if any, is ended. */
  async function handOver(request: Request, session: NewSession): Promise<string> {
    const previous = readSessionToken(request.headers.get('cookie'), deps.session);
    if (previous) await deleteSession(deps.db, deps.session, previous);
    return sessionCookie(deps.session, session.token, session.expiresAt);
  }

  return new Elysia({ prefix: '/api/auth', tags: ['Auth'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .post(
      '/register',
      async ({ body, request, set }) => {
        const client = clientOf(request);
        const user = await register(authDeps, body, client.ip);
        const session = await createSession(deps.db, deps.clock, deps.session, user.id, client);
        set.headers['set-cookie'] = await handOver(request, session);
        set.status = 201;
        return user;
      },
      {
        body: RegisterBody,
        // JSON only: the OpenAPI document then lists only application/json (the http plugin answers 415 to others).
        parse: 'json',
        response: { 201: UserModel, ...errors(400, 403, 409, 415, 429) },
        detail: {
          summary: 'Create an account on the free plan and sign in',
          security: PUBLIC_SECURITY,
          description:
            'A password that is too easy to guess (common or breached, a keyboard walk, a date, your name or e-mail, ' +
            'fewer than about a million guesses by the zxcvbn estimator) is 400 weak_password with param password, ' +
            'an English message saying why and what would be better, and details {reason, suggestions} (zxcvbn ' +
            'keys) for clients that say it in another language. One address may create 5 accounts an hour: 429 ' +
            'registration_rate_limited with Retry-After.',
        },
      },
    )
    .post(
      '/login',
      async ({ body, request, set }) => {
        // login creates the session itself: only while the password it verified is still the account's.
        const { user, session } = await login(authDeps, body, clientOf(request));
        set.headers['set-cookie'] = await handOver(request, session);
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
            'totpCode is answered 401 two_factor_required. Failures are throttled, never locking the owner out: ' +
            '10 failures in 15 minutes from one address (all accounts) get 429 rate_limited; for one account from ' +
            'one address, 5 failures are free and then each try waits 1, 2, 4 … up to 60 minutes after the last ' +
            '(429 account_network_limited: this account from this network), until a success from that address. Past 100 failures in a day for one account, an ' +
            'address it has not signed in from within 30 days does not get in by the password alone: without ' +
            'totpCode the answer is 401 sign_in_link_sent whether the password is right or wrong, and a right one ' +
            'mails the account a one-time link to /sign-in-link (POST /api/auth/sign-in-link), valid 15 minutes and ' +
            'only from this address; such attempts are at most 5 an hour per address (429 sign_in_link_rate_limited) ' +
            'and at most 3 links an hour are mailed per account (past that, the same answer and no mail). With ' +
            'totpCode it gets in only with the right password and code, and any failure is 429 account_sign_in_limited. ' +
            'Wrong codes for one account: 5 free, then the same growing delays (429 verification_rate_limited). ' +
            'Every 429 has Retry-After.',
        },
      },
    )
    .post(
      '/sign-in-link',
      async ({ body, request, set }) => {
        const { user, session } = await signInWithLink(authDeps, body, clientOf(request));
        set.headers['set-cookie'] = await handOver(request, session);
        return user;
      },
      {
        body: SignInLinkBody,
        parse: 'json',
        response: { 200: UserModel, ...errors(400, 401, 403, 415, 429) },
        detail: {
          summary: 'Sign in with a one-time sign-in link',
          security: PUBLIC_SECURITY,
          description:
            'The link mailed when the right password came from a new address past the account\'s daily cap of failed ' +
            'sign-ins (see POST /api/auth/login). It works once, within 15 minutes, and only from the address ' +
            '(IPv4 address or IPv6 /64) that asked: from another it is 403 sign_in_link_other_network and stays ' +
            'usable. With two-factor on, totpCode is required as at sign-in (401 two_factor_required, 400 ' +
            'invalid_two_factor_code, 429 verification_rate_limited; the link is not used up). 400 ' +
            'sign_in_link_invalid (unknown, or the password changed since), sign_in_link_used or ' +
            'sign_in_link_expired (param token). Success is a normal sign-in: the session cookie, the sign-in ' +
            'notices, and the address becomes one the account signs in from.',
        },
      },
    )
    .post(
      '/password-reset',
      async ({ body, request }) => {
        await requestPasswordReset(authDeps, body.email, clientOf(request).ip);
        return {
          success: true as const,
          message:
            'If an account uses this e-mail address, a link to reset its password is on its way. ' +
            `It expires in ${RESET_TOKEN_TTL_MS / 60_000} minutes.`,
        };
      },
      {
        body: PasswordResetRequestBody,
        parse: 'json',
        response: { 200: PasswordResetRequested, ...errors(400, 403, 415, 429) },
        detail: {
          summary: 'Ask for a password reset link by e-mail',
          security: PUBLIC_SECURITY,
          description:
            'The same 200 whether or not an account uses the address (no account enumeration). For an account, a ' +
            'single-use link to /reset-password, valid 30 minutes, is e-mailed; earlier unused links stop working. ' +
            'At most 10 requests an hour from one address and 3 an hour for one e-mail address (counted whether or ' +
            'not it has an account): 429 password_reset_rate_limited with Retry-After.',
        },
      },
    )
    .post('/password-reset/check', ({ body }) => checkResetToken(authDeps, body.token), {
      body: PasswordResetCheckBody,
      parse: 'json',
      response: { 200: PasswordResetCheck, ...errors(400, 403, 415, 429) },
      detail: {
        summary: 'Whether a password reset link can still be used',
        security: PUBLIC_SECURITY,
        description:
          '400 reset_token_invalid (unknown, or replaced by a newer link), reset_token_used or reset_token_expired ' +
          '(param token). Nothing is changed.',
      },
    })
    .post(
      '/password-reset/confirm',
      async ({ body }) => {
        await resetPassword(authDeps, body.token, body.password);
        return { success: true };
      },
      {
        body: PasswordResetConfirmBody,
        parse: 'json',
        response: { 200: t.Object({ success: t.Boolean() }), ...errors(400, 403, 415, 429) },
        detail: {
          summary: 'Set a new password with a reset link',
          security: PUBLIC_SECURITY,
          description:
            'The password follows the registration rules (400 weak_password). The link works once: it is marked used, ' +
            'the password stored and every session of the account ended in one transaction. Nobody is signed in: ' +
            'sign in with the new password (and the two-factor code, when on). 400 reset_token_invalid, ' +
            'reset_token_used or reset_token_expired (param token).',
        },
      },
    )
    .post(
      '/logout',
      async ({ request, set }) => {
        const token = readSessionToken(request.headers.get('cookie'), deps.session);
        if (token) await deleteSession(deps.db, deps.session, token);
        set.headers['set-cookie'] = clearedSessionCookie(deps.session);
        return { success: true };
      },
      {
        response: { 200: t.Object({ success: t.Boolean() }), ...errors(403) },
        detail: {
          summary: 'Sign out: the session is deleted on the server',
          description:
            'Signs out: the session is deleted on the server and the cookie cleared, so the same cookie no longer ' +
            'works anywhere. Answers 200 with or without a session.',
        },
      },
    )
    .get(
      '/session',
      async ({ request, set }) => {
        const token = readSessionToken(request.headers.get('cookie'), deps.session);
        const found = token ? await findSessionUser(deps.db, deps.clock, deps.session, token) : null;
        // A cookie naming no session (expired, revoked, another database) is cleared: the server picks the page for
        // `/` by its presence, and a dead one would keep a signed-out visitor off the prerendered landing.
        if (token && !found) set.headers['set-cookie'] = clearedSessionCookie(deps.session);
        return { user: found ? toPublicUser(found.user) : null };
      },
      {
        // 429: the consumer API's request-rate limit covers this path like every other.
        response: { 200: SessionModel, ...errors(429) },
        detail: {
          summary: 'Who is signed in, if anyone',
          description:
            'The session probe for browsers: 200 with the signed-in user, or 200 { user: null } when the request has ' +
            'no valid session cookie (where GET /api/auth/user answers 401), so a signed-out page load logs no failed ' +
            'request. The session cookie is optional here.',
        },
      },
    )
    .get('/user', ({ user }) => toPublicUser(user), {
      auth: true,
      response: { 200: UserModel, ...errors(401) },
      detail: {
        summary: 'The signed-in user',
        description:
          "The signed-in user's profile: name, e-mail, address, role, language and security settings. Needs a " +
          'session cookie (401 without one; GET /api/auth/session answers 200 with user null instead). Changes ' +
          'nothing.',
      },
    })
    .patch('/user', ({ user, sessionToken, body }) => updateAccount(authDeps, user.id, sessionToken, body), {
      auth: true,
      body: ProfilePatchBody,
      parse: 'json',
      response: { 200: UserModel, ...errors(400, 401, 403, 409, 415, 429) },
      detail: {
        summary: 'Update your own profile',
        description:
          'Changing email (to another address) or password needs currentPassword: 400 current_password_required ' +
          'when missing, 400 invalid_current_password when wrong (5 wrong ones a day are free, then growing delays: ' +
          '429 verification_rate_limited with Retry-After). A new password must not be easy to guess (400 ' +
          'weak_password, see register) and ends every other session. A new email is not applied at once: a ' +
          `confirmation link (valid ${EMAIL_CHANGE_TTL_MS / 3_600_000} hours, once) is mailed to the new address and the ` +
          'answer still shows the current address, which stays the sign-in address until the link is followed (GET ' +
          '/api/auth/email-change shows it pending). 409 email_taken when another account has it; at most 5 links ' +
          'an hour (429 email_change_rate_limited). Another letter case of the same address is applied at once. ' +
          'language (en or ar) is the language bpay writes to you in; another code is 400 validation_error (param ' +
          'language) and changes nothing.',
      },
    })
    .get('/email-change', async ({ user }) => ({ pending: await pendingEmailChange(authDeps, user.id) }), {
      auth: true,
      response: { 200: PendingEmailChangeModel, ...errors(401) },
      detail: {
        summary: 'The e-mail change waiting for its confirmation link, if any',
        description:
          'The new address waiting for its confirmation link, when the link expires and when it was sent, or ' +
          'pending null when no change waits. For the signed-in user; read only.',
      },
    })
    .post('/email-change/resend', async ({ user }) => ({ pending: await resendEmailChange(authDeps, user) }), {
      auth: true,
      response: { 200: PendingEmailChangeModel, ...errors(401, 403, 404, 409, 429) },
      detail: {
        summary: 'Send the confirmation link again',
        description:
          'A fresh link to the pending new address; the earlier link stops working. 404 when no change is pending, 409 ' +
          'email_taken when another account took the address meanwhile, 429 email_change_rate_limited past 5 links an hour.',
      },
    })
    .delete(
      '/email-change',
      async ({ user }) => {
        await cancelEmailChange(authDeps, user.id);
        return { pending: null };
      },
      {
        auth: true,
        response: { 200: PendingEmailChangeModel, ...errors(401, 403) },
        detail: {
          summary: 'Cancel the pending e-mail change (its link stops working)',
          description:
            'Cancels the e-mail change waiting for its confirmation link: the link stops working and the account ' +
            'keeps its current address. For the signed-in user; answers pending null, also when nothing was ' +
            'pending.',
        },
      },
    )
    .post('/email-change/confirm', ({ body }) => confirmEmailChange(authDeps, body.token), {
      body: EmailChangeTokenBody,
      parse: 'json',
      response: { 200: EmailChangeConfirmed, ...errors(400, 403, 409, 415, 429) },
      detail: {
        summary: 'Follow the confirmation link mailed to a new e-mail address',
        security: PUBLIC_SECURITY,
        description:
          'Makes the new address the sign-in address (no session needed: the link may be opened on another device). ' +
          'Unused password reset links stop working; sessions are kept. The old address is told, with a link to report ' +
          `that it was not you (valid ${EMAIL_REVERT_TTL_MS / 86_400_000} days). 400 email_change_token_invalid ` +
          '(unknown, replaced by a newer link or canceled), email_change_token_used or email_change_token_expired ' +
          '(param token); 409 email_taken when another account has the address now. Nothing changes on an error.',
      },
    })
    .post('/email-change/revert', ({ body }) => revertEmailChange(authDeps, body.token), {
      body: EmailChangeTokenBody,
      parse: 'json',
      response: { 200: EmailChangeReverted, ...errors(400, 403, 409, 415, 429) },
      detail: {
        summary: '"This was not me": undo a confirmed e-mail change from the link mailed to the old address',
        security: PUBLIC_SECURITY,
        description:
          'Puts the old address back, ends every session and connected browser, cancels pending changes and mails a ' +
          'password reset link to the old address. Works once, within 7 days. 400 email_change_token_invalid, ' +
          'email_change_token_used or email_change_token_expired (param token); 409 email_taken when another account ' +
          'has the old address now.',
      },
    })
    .post('/2fa/setup', ({ user }) => beginTotpEnrolment(authDeps, user.id), {
      auth: true,
      response: { 200: TotpEnrolmentModel, ...errors(401, 403, 409) },
      detail: {
        summary: 'Start two-factor enrolment: a TOTP secret to scan',
        description:
          'Starts two-factor enrolment for the signed-in user: answers a new TOTP secret and its otpauth:// URI ' +
          'to show as a QR code. Two-factor sign-in is not on until POST /api/auth/2fa/confirm gets a code from ' +
          'it; 409 when it is already on.',
      },
    })
    .post('/2fa/confirm', ({ user, body }) => confirmTotpEnrolment(authDeps, user.id, body.code), {
      auth: true,
      body: TotpCodeBody,
      parse: 'json',
      response: { 200: UserModel, ...errors(400, 401, 403, 409, 415, 429) },
      detail: {
        summary: 'Confirm enrolment with a code; sign-in asks for codes from then on',
        description: 'Wrong codes count like sign-in failures: 5 free, then growing delays (429 verification_rate_limited).',
      },
    })
    .post('/2fa/disable', ({ user, body }) => disableTotp(authDeps, user.id, body), {
      auth: true,
      body: TotpDisableBody,
      parse: 'json',
      response: { 200: UserModel, ...errors(400, 401, 403, 409, 415, 429) },
      detail: {
        summary: 'Turn two-factor authentication off (needs the current password and a current code)',
        description:
          'A wrong password is 400 invalid_current_password (param password), a wrong or used code 400 ' +
          'invalid_two_factor_code (param code). Both are counted before they are checked, per account: 5 wrong ' +
          'of each are free, then growing delays (429 verification_rate_limited with Retry-After).',
      },
    });
}
