/*
 * What the checkout popup takes from its URL. Both values come from whoever opened the page, so both are checked.
 */

const CLIENT_SECRET_RE = /^(pi_[A-Za-z0-9]+)_secret_[A-Za-z0-9_-]+$/;

/** "pi_123_secret_abc" -> "pi_123"; null for anything else. */
export function intentIdFromClientSecret(clientSecret: string | null | undefined): string | null {
  if (!clientSecret || clientSecret.length > 200) return null;
  return CLIENT_SECRET_RE.exec(clientSecret)?.[1] ?? null;
}

/**
 * The merchant page's origin to post the result to: only an http(s) origin, exactly as a browser writes one
 * (scheme, host and port, nothing more). Anything else means "do not post".
 */
export function openerOrigin(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
    return u.origin === value ? u.origin : null;
  } catch {
    return null;
  }
}
