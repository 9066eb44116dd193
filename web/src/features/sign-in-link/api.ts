import { api, unwrap } from '../../lib/api';
import type { User } from '../auth/api';

/*
 * POST /api/auth/sign-in-link: the one-time link mailed past an account's cap of failed sign-ins. The answer is a
 * sign-in's (the user and the session cookie).
 */
export const signInWithLinkRequest = (body: { token: string; totpCode?: string }): Promise<User> =>
  unwrap(api.POST('/api/auth/sign-in-link', { body }));
