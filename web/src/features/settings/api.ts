import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/* The security calls. Every shape is read from the OpenAPI types the server's routes generate (sdk/src/schema.d.ts). */

/** POST /api/auth/2fa/setup: a fresh pending TOTP secret; a new call replaces the previous pending one. */
export type TwoFactorSetup = ApiAnswer<'/api/auth/2fa/setup', 'post'>;

export const setupTwoFactorRequest = (): Promise<TwoFactorSetup> => unwrap(api.POST('/api/auth/2fa/setup'));
export const confirmTwoFactorRequest = (code: string) => unwrap(api.POST('/api/auth/2fa/confirm', { body: { code } }));
/** Turning two-factor off needs the current password as well as a code. */
export const disableTwoFactorRequest = (body: ApiBody<'/api/auth/2fa/disable'>) => unwrap(api.POST('/api/auth/2fa/disable', { body }));
/** A new password, with the current one (PATCH /api/auth/user); the other sessions end. */
export const changePasswordRequest = (body: Required<Pick<ApiBody<'/api/auth/user', 'patch'>, 'password' | 'currentPassword'>>) =>
  unwrap(api.PATCH('/api/auth/user', { body }));

/** Authenticator codes are six digits (the API rejects anything else with a 400). */
export const TOTP_CODE_RE = /^\d{6}$/;
export const onlyDigits = (s: string, max = 6) => s.replace(/\D/g, '').slice(0, max);
