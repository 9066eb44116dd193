import { useEffect } from 'react';
import type { PublicPageFrame } from '../../../components/public-page/frame';
import { PublicPageLayout } from '../../../components/public-page/public-page-layout';
import { useLanguage, usePageT, type Lang } from '../../../i18n';
import { useDocumentTitle } from '../../../lib/document-title';
import { extensionPagePath } from '../downloads';
import { PairSection, PrivacySection, WhatSection } from './about-sections';
import { HeroSection } from './hero-section';
import { InstallSection } from './install-section';

/** The public pages' frame with the extension's texts: Sign In alone, the language switch to the other extension page. */
const EXTENSION_FRAME: PublicPageFrame = {
  name: 'extension',
  pagePath: extensionPagePath,
  links: [{ label: 'extension.nav.customerDemo', href: '/banner-checkout-demo' }],
  texts: {
    skipToContent: 'extension.skipToContent',
    nav: {
      label: 'extension.nav.label',
      mobileLabel: 'extension.nav.mobileLabel',
      home: 'extension.nav.home',
      homeAria: 'extension.nav.homeAria',
      signIn: 'extension.nav.signIn',
      openMenu: 'extension.nav.openMenu',
      closeMenu: 'extension.nav.closeMenu',
    },
    footer: {
      tagline: 'extension.footer.tagline',
      legal: 'extension.footer.legal',
      terms: 'extension.footer.terms',
      privacy: 'extension.footer.privacy',
      disclaimers: 'extension.footer.disclaimers',
      copyright: 'extension.footer.copyright',
    },
  },
};

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
  return (
    <PublicPageLayout lang={lang} testId={testId} frame={EXTENSION_FRAME}>
      <HeroSection lang={lang} />
      <WhatSection lang={lang} />
      <InstallSection lang={lang} />
      <PairSection lang={lang} />
      <PrivacySection lang={lang} />
    </PublicPageLayout>
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
