import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The session calls. Every shape is read from the OpenAPI types the server's routes generate (sdk/src/schema.d.ts),
 * never written by hand: a renamed field breaks the web's typecheck.
 */

/** The signed-in user, as GET /api/auth/user (and GET /api/auth/session's `user`) answers it. */
export type User = ApiAnswer<'/api/auth/user'>;
export type LoginInput = ApiBody<'/api/auth/login'>;
export type RegisterInput = ApiBody<'/api/auth/register'>;
/** PATCH /api/auth/user: only these fields can change; a new e-mail address or password needs currentPassword. */
export type ProfileUpdate = ApiBody<'/api/auth/user', 'patch'>;

/*
 * The cache key keeps its historical name: every feature that saves the user (profile, settings, two-factor) writes
 * the answer of PATCH /api/auth/user under it, and it holds the same User object the probe below reads.
 */
export const USER_QUERY_KEY = ['/api/auth/user'] as const;

/**
 * Who am I: the user, or null when signed out. GET /api/auth/session answers 200 { user: null } for "no session"
 * (GET /api/auth/user answers 401), so a signed-out visit to a public page logs no failed request in the console.
 */
export function userQuery() {
  return queryOptions({
    queryKey: USER_QUERY_KEY,
    queryFn: async (): Promise<User | null> => (await unwrap(api.GET('/api/auth/session'))).user,
  });
}

export const loginRequest = (body: LoginInput): Promise<User> => unwrap(api.POST('/api/auth/login', { body }));
export const registerRequest = (body: RegisterInput): Promise<User> => unwrap(api.POST('/api/auth/register', { body }));
export const logoutRequest = () => unwrap(api.POST('/api/auth/logout'));

export const updateProfileRequest = (body: ProfileUpdate): Promise<User> => unwrap(api.PATCH('/api/auth/user', { body }));
