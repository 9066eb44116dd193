import { MobileMenuToggle, useMobileMenu } from '../../../components/ui/mobile-menu';
import { Languages } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { usePageT, useLanguage, type Lang, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { useHydrated } from '../../../lib/use-hydrated';
// The brand mark is the landing's own small presentational component, shared rather than copied (noted in the report).
import { Logo } from '../../landing/components/logo';

const MOBILE_MENU_ID = 'investors-mobile-menu';

function homeHref(lang: Lang) {
  return lang === 'ar' ? '/ar' : '/';
}

function navItems(lang: Lang): Array<{ label: MessageKey; href: string }> {
  return [
    { label: 'investors.nav.home', href: homeHref(lang) },
    { label: 'investors.nav.merchantDemo', href: '/addon-checkout-demo' },
  ];
}

/** Spec §2: on an investor page the language switch goes to the other investor page. Its label is in the target language. */
function InvestorsLanguageSwitch({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { setLanguage } = useLanguage();
  const [, navigate] = useLocation();
  const hydrated = useHydrated();
  const target: Lang = lang === 'en' ? 'ar' : 'en';
  return (
    <Button
      variant="ghost"
      size="sm"
      data-testid="language-switch"
      disabled={!hydrated}
      title={t('common.language.label')}
      onClick={() => {
        setLanguage(target);
        navigate(target === 'ar' ? '/investors-ar' : '/investors');
        window.scrollTo({ top: 0, behavior: 'instant' });
      }}
    >
      <Languages className="h-4 w-4" aria-hidden />
      <span lang={target}>{t('common.language.switch')}</span>
    </Button>
  );
}

export function InvestorsHeader({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { open, setOpen, toggleRef, close } = useMobileMenu();
  const items = navItems(lang);

  const desktopLink = 'rounded-md px-3 py-2 text-sm font-medium text-slate-700 transition-colors hover:bg-slate-100 hover:text-slate-900';
  const mobileLink = 'block rounded-md px-3 py-2.5 text-base font-medium text-slate-700 hover:bg-slate-100';

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Link href={homeHref(lang)} aria-label={t('investors.nav.homeAria')} className="shrink-0 rounded-md">
          <Logo name={t('common.brand')} />
        </Link>

        <nav aria-label={t('investors.nav.label')} className="hidden md:block">
          <ul className="flex items-center gap-1">
            {items.map((item) => (
              <li key={item.href}>
                <Link href={item.href} className={desktopLink}>
                  {t(item.label)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>

        <div className="flex items-center gap-1 sm:gap-2">
          <InvestorsLanguageSwitch lang={lang} />
          <Link href="/auth" className={buttonClasses('ghost', 'sm', 'max-md:hidden')}>
            {t('investors.nav.signIn')}
          </Link>
          <Link href="/auth" className={buttonClasses('primary', 'sm', 'max-sm:hidden')}>
            {t('investors.nav.startFree')}
          </Link>
          <MobileMenuToggle
            open={open}
            onToggle={() => setOpen((o) => !o)}
            toggleRef={toggleRef}
            controls={MOBILE_MENU_ID}
            label={open ? t('investors.nav.closeMenu') : t('investors.nav.openMenu')}
            testId="investors-menu-toggle"
          />
        </div>
      </div>

      {/* The container always exists so aria-controls points at something; its links exist only while open. */}
      <div id={MOBILE_MENU_ID} hidden={!open} className={cn('md:hidden', !open && 'hidden')}>
        {open && (
          <nav aria-label={t('investors.nav.mobileLabel')} className="border-t border-slate-200 bg-white px-4 pb-4 pt-2 shadow-lg">
            <ul className="space-y-1">
              {items.map((item) => (
                <li key={item.href}>
                  <Link href={item.href} className={mobileLink} onClick={close}>
                    {t(item.label)}
                  </Link>
                </li>
              ))}
            </ul>
            <div className="mt-3 grid grid-cols-2 gap-2 border-t border-slate-100 pt-3">
              <Link href="/auth" className={buttonClasses('outline', 'md')} onClick={close}>
                {t('investors.nav.signIn')}
              </Link>
              <Link href="/auth" className={buttonClasses('primary', 'md')} onClick={close}>
                {t('investors.nav.startFree')}
              </Link>
            </div>
          </nav>
        )}
      </div>
    </header>
  );
}
