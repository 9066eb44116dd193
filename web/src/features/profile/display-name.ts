import type { User } from '../auth/api';

type NamedUser = Pick<User, 'firstName' | 'lastName' | 'email'>;

/**
 * The name shown for a user (spec §2, Profile modal): first and last name; else the part of the e-mail before
 * the @; else the fallback ('User', passed in translated).
 */
export function displayName(user: NamedUser | null | undefined, fallback = 'User'): string {
  if (!user) return fallback;
  const full = [user.firstName, user.lastName]
    .map((part) => part?.trim() ?? '')
    .filter(Boolean)
    .join(' ');
  if (full) return full;
  const local = (user.email ?? '').split('@')[0]?.trim() ?? '';
  return local || fallback;
}

/** Up to two letters for the avatar: initials of the names, else the first letter of the displayed name. */
export function initials(user: NamedUser | null | undefined, fallback = 'User'): string {
  const names = [user?.firstName, user?.lastName].map((p) => p?.trim() ?? '').filter(Boolean);
  const letters =
    names.length > 0 ? names.map((n) => Array.from(n)[0] ?? '') : [Array.from(displayName(user, fallback))[0] ?? ''];
  return letters.join('').toUpperCase();
}
