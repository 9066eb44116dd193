import { Languages } from 'lucide-react';
import { Link, useLocation } from 'wouter';
import { useLanguage, usePageT, type Lang } from '../../i18n';
import { cn } from '../../lib/cn';
import { useHydrated } from '../../lib/use-hydrated';
import { Button, buttonClasses } from '../ui/button';
import { MobileMenuToggle, useMobileMenu } from '../ui/mobile-menu';
import { homeHref, type PublicPageFrame } from './frame';
import { Logo } from './logo';

/** Spec §2: the language switch goes to the same page in the other language; its label is in the target language. */
function LanguageSwitch({ lang, pagePath }: { lang: Lang; pagePath: PublicPageFrame['pagePath'] }) {
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
        navigate(pagePath(target));
        window.scrollTo({ top: 0, behavior: 'instant' });
      }}
    >
      <Languages className="h-4 w-4" aria-hidden />
      <span lang={target}>{t('common.language.switch')}</span>
    </Button>
  );
}

const desktopLink = 'rounded-md px-3 py-2 text-sm font-medium text-slate-700 transition-colors hover:bg-slate-100 hover:text-slate-900';
const mobileLink = 'block rounded-md px-3 py-2.5 text-base font-medium text-slate-700 hover:bg-slate-100';

/** A public page's sticky header: logo home, Home and the page's links, language switch, Sign In (and Start Free), mobile menu. */
export function PublicPageHeader({ lang, frame }: { lang: Lang; frame: PublicPageFrame }) {
  const t = usePageT(lang);
  const { open, setOpen, toggleRef, close } = useMobileMenu();
  const { nav } = frame.texts;
  const items = [{ label: nav.home, href: homeHref(lang) }, ...frame.links];
  const menuId = `${frame.name}-mobile-menu`;

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Link href={homeHref(lang)} aria-label={t(nav.homeAria)} className="shrink-0 rounded-md">
          <Logo name={t('common.brand')} />
        </Link>

        <nav aria-label={t(nav.label)} className="hidden md:block">
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
          <LanguageSwitch lang={lang} pagePath={frame.pagePath} />
          <Link href="/auth" className={buttonClasses('ghost', 'sm', 'max-md:hidden')}>
            {t(nav.signIn)}
          </Link>
          {nav.startFree && (
            <Link href="/auth" className={buttonClasses('primary', 'sm', 'max-sm:hidden')}>
              {t(nav.startFree)}
            </Link>
          )}
          <MobileMenuToggle
            open={open}
            onToggle={() => setOpen((o) => !o)}
            toggleRef={toggleRef}
            controls={menuId}
            label={open ? t(nav.closeMenu) : t(nav.openMenu)}
            testId={`${frame.name}-menu-toggle`}
          />
        </div>
      </div>

      {/* The container always exists so aria-controls points at something; its links exist only while open. */}
      <div id={menuId} hidden={!open} className={cn('md:hidden', !open && 'hidden')}>
        {open && (
          <nav aria-label={t(nav.mobileLabel)} className="border-t border-slate-200 bg-white px-4 pb-4 pt-2 shadow-lg">
            <ul className="space-y-1">
              {items.map((item) => (
                <li key={item.href}>
                  <Link href={item.href} className={mobileLink} onClick={close}>
                    {t(item.label)}
                  </Link>
                </li>
              ))}
            </ul>
            {/* Two buttons share the row; Sign In alone spans it. */}
            <div className={nav.startFree ? 'mt-3 grid grid-cols-2 gap-2 border-t border-slate-100 pt-3' : 'mt-3 border-t border-slate-100 pt-3'}>
              <Link href="/auth" className={buttonClasses('outline', 'md', nav.startFree ? undefined : 'w-full')} onClick={close}>
                {t(nav.signIn)}
              </Link>
              {nav.startFree && (
                <Link href="/auth" className={buttonClasses('primary', 'md')} onClick={close}>
                  {t(nav.startFree)}
                </Link>
              )}
            </div>
          </nav>
        )}
      </div>
    </header>
  );
}
