import { useEffect } from 'react';
import { Redirect } from 'wouter';
import { useLanguage, type Lang } from '../../../i18n';
import { useAuth } from '../../auth/auth-context';
import { usePageT } from '../../../i18n';
import { useDocumentTitle } from '../../../lib/document-title';
import { CtaSection } from './cta-section';
import { FeaturesSection } from './features-section';
import { HeroSection } from './hero-section';
import { HowItWorksSection } from './how-it-works-section';
import { PricingSection } from './pricing-section';
import { SiteFooter } from './site-footer';
import { SiteHeader } from './site-header';

/**
 * The public landing page. The route fixes the language (`/` English, `/ar` Arabic) and the page keeps the
 * saved choice in step: `/ar` makes Arabic the context language, and `/` sends a visitor whose saved choice is
 * Arabic to `/ar`, so the choice survives reloads.
 */
export function LandingPage({ lang }: { lang: 'en' | 'ar' }) {
  const { lang: current, setLanguage } = useLanguage();
  // `/` also shows this page while the session loads; a signed-in user must reach the dashboard, not `/ar`.
  const { isLoading: sessionLoading } = useAuth();
  const t = usePageT(lang);

  useEffect(() => {
    if (lang === 'ar' && current !== 'ar') setLanguage('ar');
  }, [lang, current, setLanguage]);

  useDocumentTitle(t('landing.meta.title'));

  if (lang === 'en' && current === 'ar') {
    // Until the session is known, show the Arabic page in place (no blank flash); then move to its route.
    if (sessionLoading) return <LandingContent lang="ar" />;
    return <Redirect to="/ar" replace />;
  }

  return <LandingContent lang={lang} />;
}

function LandingContent({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <div dir={lang === 'ar' ? 'rtl' : 'ltr'} lang={lang} className="min-h-screen bg-white text-slate-900">
      <a
        href="#main-content"
        className="sr-only focus:not-sr-only focus:fixed focus:start-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:shadow-lg"
      >
        {t('landing.skipToContent')}
      </a>
      <SiteHeader lang={lang} />
      <main id="main-content" tabIndex={-1} className="outline-none">
        <HeroSection lang={lang} />
        <HowItWorksSection lang={lang} />
        <FeaturesSection lang={lang} />
        <PricingSection lang={lang} />
        <CtaSection lang={lang} />
      </main>
      <SiteFooter lang={lang} />
    </div>
  );
}
