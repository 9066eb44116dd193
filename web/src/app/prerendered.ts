import { detectLanguage } from '../i18n';

/*
 * Prerendered pages (issue 13, docs/DECISIONS.md "Prerendered public pages"). The build renders the public pages to
 * HTML (web/src/app/prerender.tsx, written by web/prerender-pages.ts) and the server sends that HTML for their routes.
 * The browser then hydrates it when its first render will produce the same markup, and renders afresh otherwise.
 * The root element names the page it holds: <div id="root" data-prerendered="/ar">.
 */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered';

let prerendered = false;

/** Said by the prerender and by main.tsx before it hydrates: the first render must be the prerendered one. */
export function markPrerendered(): void {
  prerendered = true;
}

/**
 * Whether this page started from prerendered HTML. `/` then shows the landing page while the session loads, as the
 * HTML does; a page that did not (the server sends no landing HTML to a browser holding a session cookie) shows
 * the dashboard's frame instead, so a signed-in user does not see the landing flash before the dashboard.
 */
export function startedPrerendered(): boolean {
  return prerendered;
}

/** A path as the router matches it: lower case, no trailing slash (`/AR/` is `/ar`). */
export const routeOf = (path: string) => (path.replace(/\/+$/, '') || '/').toLowerCase();

/**
 * Whether the browser's first render matches the HTML in `root`: it holds the current page (routes are
 * case-insensitive and a trailing slash is the same page) rendered in the language this browser will use (the
 * prerender uses the route's; a saved choice may differ).
 */
export function canHydrate(root: HTMLElement, path: string, savedLanguage: string | null): boolean {
  const page = root.getAttribute(PRERENDERED_ATTRIBUTE);
  if (page === null || routeOf(page) !== routeOf(path)) return false;
  return detectLanguage(path, savedLanguage) === detectLanguage(page, null);
}
