import { apiRequest } from '../../lib/api';
import type { User } from '../auth/types';

/** POST /api/auth/2fa/setup: a fresh pending TOTP secret; a new call replaces the previous pending one. */
export interface TwoFactorSetup {
  secret: string;
  otpauthUrl: string;
}

export const setupTwoFactorRequest = () => apiRequest<TwoFactorSetup>('POST', '/api/auth/2fa/setup');
export const confirmTwoFactorRequest = (code: string) => apiRequest<User>('POST', '/api/auth/2fa/confirm', { code });
/** Turning two-factor off needs the current password as well as a code. */
export const disableTwoFactorRequest = (input: { code: string; password: string }) =>
  apiRequest<User>('POST', '/api/auth/2fa/disable', input);
/** A new password, with the current one (PATCH /api/auth/user); the other sessions end. */
export const changePasswordRequest = (input: { password: string; currentPassword: string }) =>
  apiRequest<User>('PATCH', '/api/auth/user', input);

/** Authenticator codes are six digits (the API rejects anything else with a 400). */
export const TOTP_CODE_RE = /^\d{6}$/;
export const onlyDigits = (s: string, max = 6) => s.replace(/\D/g, '').slice(0, max);
