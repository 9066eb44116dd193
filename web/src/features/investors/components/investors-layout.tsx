import type { ReactNode } from 'react';
import type { PublicPageFrame } from '../../../components/public-page/frame';
import { PublicPageLayout } from '../../../components/public-page/public-page-layout';
import type { Lang } from '../../../i18n';

/** Spec §2: the investor pages' header offers Start Free, their language switch goes to the other investor page. */
const INVESTORS_FRAME: PublicPageFrame = {
  name: 'investors',
  pagePath: (lang) => (lang === 'ar' ? '/investors-ar' : '/investors'),
  links: [{ label: 'investors.nav.merchantDemo', href: '/addon-checkout-demo' }],
  texts: {
    skipToContent: 'investors.skipToContent',
    nav: {
      label: 'investors.nav.label',
      mobileLabel: 'investors.nav.mobileLabel',
      home: 'investors.nav.home',
      homeAria: 'investors.nav.homeAria',
      signIn: 'investors.nav.signIn',
      startFree: 'investors.nav.startFree',
      openMenu: 'investors.nav.openMenu',
      closeMenu: 'investors.nav.closeMenu',
    },
    footer: {
      tagline: 'investors.footer.tagline',
      disclosure: 'investors.footer.disclosure',
      legal: 'investors.footer.legal',
      terms: 'investors.footer.terms',
      privacy: 'investors.footer.privacy',
      disclaimers: 'investors.footer.disclaimers',
      copyright: 'investors.footer.copyright',
    },
  },
};

/** The frame both investor pages share (the public pages' one frame with the investor texts and links). */
export function InvestorsLayout({ lang, testId, children }: { lang: Lang; testId: string; children: ReactNode }) {
  return (
    <PublicPageLayout lang={lang} testId={testId} frame={INVESTORS_FRAME}>
      {children}
    </PublicPageLayout>
  );
}
