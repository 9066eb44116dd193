/**
 * The pages the build prerenders to HTML (web/src/app/prerender.tsx): the public pages a visitor lands on. A plain
 * list without imports, so the e2e tests can read it too.
 */
export const PRERENDERED_PAGES = [
  '/',
  '/ar',
  '/auth',
  '/terms-conditions',
  '/privacy-policy',
  '/legal-disclaimers',
  '/investors',
  '/investors-ar',
  '/extension',
  '/extension-ar',
] as const;
