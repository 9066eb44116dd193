import { api, unwrap, type ApiBody } from '../../lib/api';

/* The password reset calls, typed by the server's own OpenAPI document (sdk/src/schema.d.ts). */

export const requestResetLink = (body: ApiBody<'/api/auth/password-reset'>) => unwrap(api.POST('/api/auth/password-reset', { body }));
export const checkResetToken = (body: ApiBody<'/api/auth/password-reset/check'>) =>
  unwrap(api.POST('/api/auth/password-reset/check', { body }));
export const confirmReset = (body: ApiBody<'/api/auth/password-reset/confirm'>) =>
  unwrap(api.POST('/api/auth/password-reset/confirm', { body }));
