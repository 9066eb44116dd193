import { Languages } from 'lucide-react';
import { useLocation } from 'wouter';
import { Button } from '../../../components/ui/button';
import { useLanguage, type Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { useHydrated } from '../../../lib/use-hydrated';

/** Spec §2: toggles en/ar and goes to the other landing route. The label is written in the target language. */
export function LanguageSwitch({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { setLanguage } = useLanguage();
  const [, navigate] = useLocation();
  const hydrated = useHydrated();
  const target: Lang = lang === 'en' ? 'ar' : 'en';

  function onSwitch() {
    // Language first: `/` redirects to `/ar` while the saved language is Arabic, so the order matters.
    setLanguage(target);
    navigate(target === 'ar' ? '/ar' : '/');
    // The other language's page lays out differently: start it from the top.
    window.scrollTo({ top: 0, behavior: 'instant' });
  }

  return (
    <Button variant="ghost" size="sm" data-testid="language-switch" disabled={!hydrated} title={t('common.language.label')} onClick={onSwitch}>
      <Languages className="h-4 w-4" aria-hidden />
      <span lang={target}>{t('common.language.switch')}</span>
    </Button>
  );
}
