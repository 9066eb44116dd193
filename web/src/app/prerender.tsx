import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
import { detectLanguage, type Lang } from '../i18n';
import { TitleSinkProvider } from '../lib/document-title';
import { markPrerendered } from './prerendered';
import { Providers } from './providers';
import { AppRouter } from './router';

/*
 * Build time only (web/prerender-pages.ts imports this under Bun; the browser bundle never does): the public pages
 * rendered to HTML by the same components, router and providers as in the browser, as a signed-out visitor with
 * nothing saved sees them while the session probe and the plans are still loading. React's static prerender waits
 * for every lazy route area, so the HTML holds the page, not its loading placeholder.
 */

export { PRERENDERED_PAGES } from './prerendered-pages';

export interface RenderedPage {
  /** The markup inside #root. */
  html: string;
  /** The page's title (useDocumentTitle), or null when it sets none. */
  title: string | null;
  lang: Lang;
}

export async function renderPage(path: string): Promise<RenderedPage> {
  markPrerendered();
  let title: string | null = null;
  const { prelude } = await prerender(
    <StrictMode>
      <TitleSinkProvider value={(t) => (title = t)}>
        <Providers path={path}>
          <AppRouter ssrPath={path} />
        </Providers>
      </TitleSinkProvider>
    </StrictMode>,
  );
  const html = await new Response(prelude).text();
  return { html, title, lang: detectLanguage(path, null) };
}
