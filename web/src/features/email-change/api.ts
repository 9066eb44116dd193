import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';

/*
 * The e-mail change calls (issue 25): a new address waits for the link mailed to it. Shapes come from the server's
 * OpenAPI document (sdk/src/schema.d.ts).
 */

export type PendingEmailChange = ApiAnswer<'/api/auth/email-change'>['pending'];

export const PENDING_EMAIL_CHANGE_KEY = ['/api/auth/email-change'] as const;

/** The address waiting for its confirmation link, or null. */
export function pendingEmailChangeQuery() {
  return queryOptions({
    queryKey: PENDING_EMAIL_CHANGE_KEY,
    queryFn: async () => (await unwrap(api.GET('/api/auth/email-change'))).pending,
  });
}

export const resendEmailChangeRequest = async () => (await unwrap(api.POST('/api/auth/email-change/resend'))).pending;
export const cancelEmailChangeRequest = () => unwrap(api.DELETE('/api/auth/email-change'));
export const confirmEmailChangeRequest = (token: string) => unwrap(api.POST('/api/auth/email-change/confirm', { body: { token } }));
export const revertEmailChangeRequest = (token: string) => unwrap(api.POST('/api/auth/email-change/revert', { body: { token } }));
