import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { LANGUAGE_KEY } from '../i18n';
import { readSetting } from '../lib/storage';
import { canHydrate, markPrerendered, PRERENDERED_ATTRIBUTE, routeOf } from './prerendered';
import { Providers } from './providers';
import { AppRouter, PRERENDERED_ROUTE_PAGES } from './router';

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');
const app = (
  <StrictMode>
    <Providers>
      <AppRouter />
    </Providers>
  </StrictMode>
);
const page = PRERENDERED_ROUTE_PAGES[routeOf(window.location.pathname)];
// The HTML came prerendered (a signed-out visitor's page): `/` shows the landing while the session loads, whether
// React hydrates it or, in another language, renders it afresh.
if (root.hasAttribute(PRERENDERED_ATTRIBUTE)) markPrerendered();
if (canHydrate(root, window.location.pathname, readSetting(LANGUAGE_KEY))) {
  // A prerendered public page: its text is on screen already; React takes it over without repainting, once the page's
  // own chunk is here (PRERENDERED_ROUTE_PAGES). If that chunk cannot be loaded, the HTML stays as it is: readable,
  // its links working without script.
  // In a transition, React hydrates in slices of a few milliseconds and lets the browser answer input in between,
  // instead of one long task for the whole page (Lighthouse's Total Blocking Time).
  const hydrate = () =>
    startTransition(() => {
      hydrateRoot(root, app, {
        // A mismatch is a bug (React repaints the part and recovers): say so where the e2e tests look for errors.
        onRecoverableError: (error) => console.error('hydration:', error),
      });
    });
  if (page) void page.preload().then(hydrate, () => undefined);
  else hydrate();
} else {
  // No HTML for this page, or HTML in another language than this browser's saved choice: render afresh, the page's
  // chunk loading meanwhile. The HTML stays on screen until React's first commit replaces it.
  void page?.preload().catch(() => undefined);
  const reactRoot = createRoot(root);
  startTransition(() => reactRoot.render(app));
}
