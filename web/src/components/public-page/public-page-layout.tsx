import type { ReactNode } from 'react';
import { usePageT, type Lang } from '../../i18n';
import type { PublicPageFrame } from './frame';
import { PublicPageFooter } from './public-page-footer';
import { PublicPageHeader } from './public-page-header';

/**
 * The frame of a public page in one language: the page's own lang and dir on its root (the page may render before
 * the context language follows the route), skip link, header, main, footer.
 */
export function PublicPageLayout({ lang, testId, frame, children }: { lang: Lang; testId: string; frame: PublicPageFrame; children: ReactNode }) {
  const t = usePageT(lang);
  return (
    <div dir={lang === 'ar' ? 'rtl' : 'ltr'} lang={lang} data-testid={testId} className="min-h-screen bg-white text-slate-900">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:fixed focus:start-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:shadow-lg"
      >
        {t(frame.texts.skipToContent)}
      </a>
      <PublicPageHeader lang={lang} frame={frame} />
      <main id="main-content" tabIndex={-1} className="outline-none">
        {children}
      </main>
      <PublicPageFooter lang={lang} frame={frame} />
    </div>
  );
}
