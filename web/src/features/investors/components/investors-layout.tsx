import type { ReactNode } from 'react';
import type { Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { InvestorsFooter } from './investors-footer';
import { InvestorsHeader } from './investors-header';

/** The frame both investor pages share: the page's own lang and dir on its root, skip link, header, main, footer. */
export function InvestorsLayout({ lang, testId, children }: { lang: Lang; testId: string; children: ReactNode }) {
  const t = usePageT(lang);
  return (
    <div dir={lang === 'ar' ? 'rtl' : 'ltr'} lang={lang} data-testid={testId} className="min-h-screen bg-white text-slate-900">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:fixed focus:start-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:shadow-lg"
      >
        {t('investors.skipToContent')}
      </a>
      <InvestorsHeader lang={lang} />
      <main id="main-content" tabIndex={-1} className="outline-none">
        {children}
      </main>
      <InvestorsFooter lang={lang} />
    </div>
  );
}
