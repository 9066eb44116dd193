/**
 * Every path pattern the SPA's router (./router.tsx) has a page for, in its order. A plain module without imports: the
 * server reads it too (api/src/static-files.ts) to answer a path no route matches with HTTP 404 and the SPA's HTML,
 * which renders the not-found page (issue 25 6e). router.test.ts checks that router.tsx's <Route path=…> list is this.
 */
export const WEB_ROUTES = [
  '/',
  '/ar',
  '/auth',
  '/auth/logout',
  '/forgot-password',
  '/reset-password',
  '/sign-in-link',
  '/confirm-email',
  '/revert-email',
  '/email-outbox',
  '/terms-conditions',
  '/privacy-policy',
  '/legal-disclaimers',
  '/admin-login',
  '/admin-panel',
  '/kyc-verification',
  '/plans',
  '/merchant-portal',
  '/merchant-dashboard',
  '/checkout/pay',
  '/payment-demo',
  '/addon-checkout-demo',
  '/checkout-demo',
  '/banner-checkout-demo',
  '/investors',
  '/investors-ar',
  '/extension',
  '/extension-ar',
  '/extension/connect',
] as const;

/**
 * The router's regular expression for a pattern, as regexparam (the router's parser) builds it, case-insensitive
 * (caseInsensitiveParser): literal segments, `:name` for one segment, `:name?` for an optional one, `*` (or `*?`) for
 * the rest; one optional trailing slash.
 */
export function routePattern(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .filter(Boolean)
    .map((s) => {
      if (s[0] === '*') return s[1] === '?' ? '(?:/(.*))?' : '/(.*)';
      if (s[0] === ':') return s.endsWith('?') ? '(?:/([^/]+?))?' : '/([^/]+?)';
      return `/${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

export function matchesRoute(pattern: string, path: string): boolean {
  return routePattern(pattern).test(path);
}

/** Whether the SPA has a page for the path (else it renders its not-found page). */
export function isWebRoute(path: string): boolean {
  return COMPILED.some((re) => re.test(path));
}

const COMPILED = WEB_ROUTES.map(routePattern);
