import { queryOptions } from '@tanstack/react-query';
import { apiGetOrNull, apiRequest } from '../../lib/api';
import type { LoginInput, RegisterInput, User } from './types';

export const USER_QUERY_KEY = ['/api/auth/user'] as const;

/** Who am I: null when signed out (401). */
export function userQuery() {
  return queryOptions({ queryKey: USER_QUERY_KEY, queryFn: () => apiGetOrNull<User>('/api/auth/user') });
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
