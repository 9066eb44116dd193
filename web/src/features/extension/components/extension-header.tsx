import { Languages } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { MobileMenuToggle, useMobileMenu } from '../../../components/ui/mobile-menu';
import { useLanguage, usePageT, type Lang, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { useHydrated } from '../../../lib/use-hydrated';
// The brand mark is the landing's small presentational component, shared as the investor pages share it.
import { Logo } from '../../landing/components/logo';
import { extensionPagePath } from '../downloads';

const MOBILE_MENU_ID = 'extension-mobile-menu';

const homeHref = (lang: Lang) => (lang === 'ar' ? '/ar' : '/');

function navItems(lang: Lang): Array<{ label: MessageKey; href: string }> {
  return [
    { label: 'extension.nav.home', href: homeHref(lang) },
    { label: 'extension.nav.customerDemo', href: '/banner-checkout-demo' },
  ];
}

/** The language switch goes to the other language's extension page; its label is in the target language. */
function ExtensionLanguageSwitch({ lang }: { lang: Lang }) {
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
        navigate(extensionPagePath(target));
        window.scrollTo({ top: 0, behavior: 'instant' });
      }}
    >
      <Languages className="h-4 w-4" aria-hidden />
      <span lang={target}>{t('common.language.switch')}</span>
    </Button>
  );
}

export function ExtensionHeader({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { open, setOpen, toggleRef, close } = useMobileMenu();
  const items = navItems(lang);
  const desktopLink = 'rounded-md px-3 py-2 text-sm font-medium text-slate-700 transition-colors hover:bg-slate-100 hover:text-slate-900';
  const mobileLink = 'block rounded-md px-3 py-2.5 text-base font-medium text-slate-700 hover:bg-slate-100';

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Link href={homeHref(lang)} aria-label={t('extension.nav.homeAria')} className="shrink-0 rounded-md">
          <Logo name={t('common.brand')} />
        </Link>

        <nav aria-label={t('extension.nav.label')} className="hidden md:block">
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
          <ExtensionLanguageSwitch lang={lang} />
          <Link href="/auth" className={buttonClasses('ghost', 'sm', 'max-md:hidden')}>
            {t('extension.nav.signIn')}
          </Link>
          <MobileMenuToggle
            open={open}
            onToggle={() => setOpen((o) => !o)}
            toggleRef={toggleRef}
            controls={MOBILE_MENU_ID}
            label={open ? t('extension.nav.closeMenu') : t('extension.nav.openMenu')}
            testId="extension-menu-toggle"
          />
        </div>
      </div>

      {/* The container always exists so aria-controls points at something; its links exist only while open. */}
      <div id={MOBILE_MENU_ID} hidden={!open} className={cn('md:hidden', !open && 'hidden')}>
        {open && (
          <nav aria-label={t('extension.nav.mobileLabel')} className="border-t border-slate-200 bg-white px-4 pb-4 pt-2 shadow-lg">
            <ul className="space-y-1">
              {items.map((item) => (
                <li key={item.href}>
                  <Link href={item.href} className={mobileLink} onClick={close}>
                    {t(item.label)}
                  </Link>
                </li>
              ))}
            </ul>
            <div className="mt-3 border-t border-slate-100 pt-3">
              <Link href="/auth" className={buttonClasses('outline', 'md', 'w-full')} onClick={close}>
                {t('extension.nav.signIn')}
              </Link>
            </div>
          </nav>
        )}
      </div>
    </header>
  );
}
