/*
 * Which bpay the extension talks to, and the keys it keeps in chrome.storage. bpay is self-hosted: the build bakes
 * in the origin of the site that served the download (BPAY_PUBLIC_URL); the options page may point it at another.
 */

/** The origin written into the build (build.ts `define`), else the development default. */
export const DEFAULT_ORIGIN: string =
  typeof BPAY_DEFAULT_ORIGIN === 'string' && BPAY_DEFAULT_ORIGIN !== '' ? BPAY_DEFAULT_ORIGIN : 'http://localhost:3000';

/**
 * chrome.storage.local keys. Only `pairing` holds a secret (the Bearer token): the background alone reads it; no card
 * data is ever stored (the number travels once, in memory, in the fill message).
 */
export const STORAGE = {
  /** {token, id, label, expiresAt, origin} */
  pairing: 'pairing',
  /** true after the server answered 401 extension_token_invalid: the popup says why it is not connected. */
  disconnected: 'disconnected',
  /** The origin chosen in the options page (absent = DEFAULT_ORIGIN). */
  origin: 'origin',
  /** 'auto' | 'en' | 'ar' */
  language: 'language',
  /** Registrable domains where the banner was dismissed. */
  dismissed: 'dismissedSites',
} as const;

/** The id of the bridge script registered at run time for an origin chosen in the options page. */
export const BRIDGE_SCRIPT_ID = 'bpay-bridge';

export type OriginCheck = { ok: true; origin: string } | { ok: false; reason: 'invalid' | 'scheme' | 'path' };

/**
 * What the options page accepts as bpay's address: an absolute http(s) URL with a host and no credentials, query or
 * fragment; a path other than "/" is refused (bpay serves from the origin's root). Answers the bare origin.
 */
export function checkOrigin(input: string): OriginCheck {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'scheme' };
  if (url.hostname === '' || url.username !== '' || url.password !== '') return { ok: false, reason: 'invalid' };
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return { ok: false, reason: 'path' };
  return { ok: true, origin: url.origin };
}

/** The host permission pattern of an origin ("http://localhost:3000/*"). */
export function originPattern(origin: string): string {
  return `${origin}/*`;
}

/** Where the bridge content script runs: bpay's connect page (and its Arabic or query-string variants). */
export function bridgeMatches(origin: string): string[] {
  return [`${origin}/extension/connect*`];
}

/** The pairing page the popup opens. */
export function connectUrl(origin: string): string {
  return `${origin}/extension/connect`;
}

/** The origin in use: the options page's choice, else the baked one. */
export async function currentOrigin(): Promise<string> {
  const got = await chrome.storage.local.get(STORAGE.origin);
  const stored = got[STORAGE.origin];
  return typeof stored === 'string' && checkOrigin(stored).ok ? stored : DEFAULT_ORIGIN;
}
