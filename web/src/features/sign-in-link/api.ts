import { api, unwrap } from '../../lib/api';
import type { User } from '../auth/api';

/*
 * POST /api/auth/sign-in-link: the one-time link mailed past an account's cap of failed sign-ins. The path is cast
 * until sdk/src/schema.d.ts is regenerated with it (issue 27's SDK run); the answer is a sign-in's (the user and the
 * session cookie).
 */
type Post = (path: string, init: { body: { token: string; totpCode?: string } }) => Promise<{ data?: User; error?: unknown; response: Response }>;

export const signInWithLinkRequest = (body: { token: string; totpCode?: string }): Promise<User> =>
  unwrap((api.POST as unknown as Post)('/api/auth/sign-in-link', { body }));
