import { queryOptions } from '@tanstack/react-query';
import type { paths } from '../../../../sdk/src/schema';
import { apiRequest } from '../../lib/api';
import type { LoginInput, RegisterInput, User } from './types';

/*
 * The cache key keeps its historical name: every feature that saves the user (profile, settings, two-factor) writes
 * the answer of PATCH /api/auth/user under it, and it holds the same User object the probe below reads.
 */
export const USER_QUERY_KEY = ['/api/auth/user'] as const;

/** GET /api/auth/session, exactly as the server answers it (sdk/src/schema.d.ts, generated from the routes). */
type SessionAnswer = paths['/api/auth/session']['get']['responses'][200]['content']['application/json'];
/* The hand-written User must match the generated one both ways: a renamed or retyped field breaks the typecheck. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const userMatchesApi: Same<NonNullable<SessionAnswer['user']>, User> = true;
void userMatchesApi;

/**
 * Who am I: the user, or null when signed out. GET /api/auth/session answers 200 { user: null } for "no session"
 * (GET /api/auth/user answers 401), so a signed-out visit to a public page logs no failed request in the console.
 */
export function userQuery() {
  return queryOptions({
    queryKey: USER_QUERY_KEY,
    queryFn: async (): Promise<User | null> => (await apiRequest<SessionAnswer>('GET', '/api/auth/session')).user,
  });
}

export const loginRequest = (input: LoginInput) => apiRequest<User>('POST', '/api/auth/login', input);
export const registerRequest = (input: RegisterInput) => apiRequest<User>('POST', '/api/auth/register', input);
export const logoutRequest = () => apiRequest<unknown>('POST', '/api/auth/logout');

export interface ProfileUpdate {
  firstName?: string;
  lastName?: string;
  email?: string;
  country?: string;
  phoneNumber?: string;
  loginNotifications?: boolean;
  address?: { line1: string; city: string; state?: string; postal_code?: string; country?: string };
  /** A new password; needs currentPassword. */
  password?: string;
  /** Required with a new e-mail address or password. */
  currentPassword?: string;
}
export const updateProfileRequest = (patch: ProfileUpdate) => apiRequest<User>('PATCH', '/api/auth/user', patch);
