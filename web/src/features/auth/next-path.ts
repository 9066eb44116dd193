/*
 * Where to go after signing in: a `next` query parameter, honoured only when it is a path on this same site
 * (an open redirect to another origin would make bpay's sign-in page a phishing aid).
 */

/** The `next` value as a same-origin path with its query ("/checkout/pay?client_secret=…"), or null. */
export function safeNextPath(next: string | null | undefined, origin: string): string | null {
  if (!next || next.length > 2000) return null;
  // Only site-relative paths: not "//host", not "/\host" (browsers read a backslash as a slash), no schemes.
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return null;
  if (/[\u0000-\u001f\u007f]/.test(next)) return null;
  try {
    const u = new URL(next, origin);
    if (u.origin !== origin) return null;
    // Going back to the sign-in page itself would loop.
    if (u.pathname.toLowerCase() === '/auth') return null;
    return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    return null;
  }
}

/** The current page's `next`, checked; none while the build prerenders (no window there). */
export function nextFromLocation(): string | null {
  if (typeof window === 'undefined') return null;
  return safeNextPath(new URLSearchParams(window.location.search).get('next'), window.location.origin);
}
