import { useEffect } from 'react';
import { useLanguage, usePageT, type Lang } from '../../../i18n';
import { useDocumentTitle } from '../../../lib/document-title';
import { PairSection, PrivacySection, WhatSection } from './about-sections';
import { ExtensionFooter } from './extension-footer';
import { ExtensionHeader } from './extension-header';
import { HeroSection } from './hero-section';
import { InstallSection } from './install-section';

/**
 * What both routes do on arrival, like the investor pages: the route's language becomes the context language (so
 * the document's lang and dir follow and the choice is saved), and the tab gets the page's title.
 */
function useExtensionPage(lang: Lang): void {
  const { lang: current, setLanguage } = useLanguage();
  const t = usePageT(lang);
  useEffect(() => {
    if (current !== lang) setLanguage(lang);
  }, [lang, current, setLanguage]);
  useDocumentTitle(t('extension.meta.title'));
}

/** The public page about the extension: what it does, download, install, connect, what data it touches. */
function ExtensionContent({ lang, testId }: { lang: Lang; testId: string }) {
  useExtensionPage(lang);
  const t = usePageT(lang);
  return (
    <div dir={lang === 'ar' ? 'rtl' : 'ltr'} lang={lang} data-testid={testId} className="min-h-screen bg-white text-slate-900">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:fixed focus:start-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:shadow-lg"
      >
        {t('extension.skipToContent')}
      </a>
      <ExtensionHeader lang={lang} />
      <main id="main-content" tabIndex={-1} className="outline-none">
        <HeroSection lang={lang} />
        <WhatSection lang={lang} />
        <InstallSection lang={lang} />
        <PairSection lang={lang} />
        <PrivacySection lang={lang} />
      </main>
      <ExtensionFooter lang={lang} />
    </div>
  );
}

/** /extension: English. */
export function ExtensionPage() {
  return <ExtensionContent lang="en" testId="ExtensionPage" />;
}

/** /extension-ar: Arabic, right to left. */
export function ExtensionArPage() {
  return <ExtensionContent lang="ar" testId="ExtensionArPage" />;
}
