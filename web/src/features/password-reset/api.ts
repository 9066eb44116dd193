import type { paths } from '../../../../sdk/src/schema';
import { apiRequest } from '../../lib/api';

/* The password reset calls, typed by the server's own OpenAPI document (sdk/src/schema.d.ts). */
type Json<P extends keyof paths, S extends number> = paths[P] extends { post: { responses: Record<S, { content: { 'application/json': infer T } }> } }
  ? T
  : never;
type Body<P extends keyof paths> = paths[P] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;

export type ResetRequested = Json<'/api/auth/password-reset', 200>;
export type ResetCheck = Json<'/api/auth/password-reset/check', 200>;

export const requestResetLink = (body: Body<'/api/auth/password-reset'>) =>
  apiRequest<ResetRequested>('POST', '/api/auth/password-reset', body);
export const checkResetToken = (body: Body<'/api/auth/password-reset/check'>) =>
  apiRequest<ResetCheck>('POST', '/api/auth/password-reset/check', body);
export const confirmReset = (body: Body<'/api/auth/password-reset/confirm'>) =>
  apiRequest<Json<'/api/auth/password-reset/confirm', 200>>('POST', '/api/auth/password-reset/confirm', body);
