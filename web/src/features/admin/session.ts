import { useSyncExternalStore } from 'react';

/*
 * Where the admin token lives (docs/DECISIONS.md, Admin panel). The spec keeps it in browser storage under
 * admin_token; here it is held in memory and mirrored to sessionStorage only, so it is scoped to one tab and
 * gone when the tab closes, never in localStorage. It is sent only as an Authorization header (never a cookie),
 * cleared on any 401 and after Logout revokes it on the server.
 */
export const ADMIN_TOKEN_KEY = 'bpay-admin-token';

function readStored(): string | null {
  try {
    return window.sessionStorage.getItem(ADMIN_TOKEN_KEY);
  } catch {
    return null;
  }
}

let token: string | null = typeof window === 'undefined' ? null : readStored();
const listeners = new Set<() => void>();

function emit() {
  for (const l of listeners) l();
}

export function getAdminToken(): string | null {
  return token;
}

export function setAdminToken(next: string): void {
  token = next;
  try {
    window.sessionStorage.setItem(ADMIN_TOKEN_KEY, next);
  } catch {
    /* memory only: the token lasts until the page reloads */
  }
  emit();
}

export function clearAdminToken(): void {
  if (token === null) return;
  token = null;
  try {
    window.sessionStorage.removeItem(ADMIN_TOKEN_KEY);
  } catch {
    /* nothing stored */
  }
  emit();
}

/** The current admin token, re-rendering when it is set or cleared. */
export function useAdminToken(): string | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => token,
    () => null,
  );
}
