import { MobileMenuToggle, useMobileMenu } from '../../../components/ui/mobile-menu';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { usePageT, type Lang, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { LanguageSwitch } from './language-switch';
import { Logo } from '../../../components/public-page/logo';

interface NavItem {
  label: MessageKey;
  href: string;
  /** In-page anchors are plain links; routes go through wouter. */
  anchor: boolean;
}

function navItems(lang: Lang): NavItem[] {
  return [
    { label: 'landing.nav.howItWorks', href: '#how-it-works', anchor: true },
    { label: 'landing.nav.investors', href: lang === 'ar' ? '/investors-ar' : '/investors', anchor: false },
    { label: 'landing.nav.features', href: '#features', anchor: true },
    { label: 'landing.nav.merchantDemo', href: '/addon-checkout-demo', anchor: false },
  ];
}

function NavLink({ item, className, onNavigate, lang }: { item: NavItem; className: string; onNavigate?: () => void; lang: Lang }) {
  const t = usePageT(lang);
  if (item.anchor)
    return (
      <a href={item.href} className={className} onClick={onNavigate}>
        {t(item.label)}
      </a>
    );
  return (
    <Link href={item.href} className={className} onClick={onNavigate}>
      {t(item.label)}
    </Link>
  );
}

const MOBILE_MENU_ID = 'landing-mobile-menu';

export function SiteHeader({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { open, setOpen, toggleRef, close } = useMobileMenu();
  const items = navItems(lang);

  const desktopLink =
    'rounded-md px-3 py-2 text-sm font-medium text-slate-600 transition-colors hover:bg-slate-100 hover:text-slate-900';
  const mobileLink = 'block rounded-md px-3 py-2.5 text-base font-medium text-slate-700 hover:bg-slate-100';

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/85 backdrop-blur supports-[backdrop-filter]:bg-white/70">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
        <Link href={lang === 'ar' ? '/ar' : '/'} aria-label={t('landing.nav.home')} className="shrink-0 rounded-md">
          <Logo name={t('common.brand')} />
        </Link>

        <nav aria-label={t('landing.nav.label')} className="hidden md:block">
          <ul className="flex items-center gap-1">
            {items.map((item) => (
              <li key={item.href}>
                <NavLink item={item} className={desktopLink} lang={lang} />
              </li>
            ))}
          </ul>
        </nav>

        <div className="flex items-center gap-1 sm:gap-2">
          <LanguageSwitch lang={lang} />
          <Link href="/auth" className={buttonClasses('ghost', 'sm', 'max-md:hidden')}>
            {t('landing.nav.signIn')}
          </Link>
          <Link href="/auth?tab=register" className={buttonClasses('primary', 'sm', 'max-sm:hidden')}>
            {t('landing.nav.startFree')}
          </Link>
          <MobileMenuToggle
            open={open}
            onToggle={() => setOpen((o) => !o)}
            toggleRef={toggleRef}
            controls={MOBILE_MENU_ID}
            label={open ? t('landing.nav.closeMenu') : t('landing.nav.openMenu')}
          />
        </div>
      </div>

      {/* The container always exists so aria-controls points at something; its links exist only while open. */}
      <div id={MOBILE_MENU_ID} hidden={!open} className={cn('md:hidden', !open && 'hidden')}>
        {open && (
          <nav aria-label={t('landing.nav.mobileLabel')} className="border-t border-slate-200 bg-white px-4 pb-4 pt-2 shadow-lg">
        <ul className="space-y-1">
          {items.map((item) => (
            <li key={item.href}>
              <NavLink item={item} className={mobileLink} onNavigate={close} lang={lang} />
            </li>
          ))}
        </ul>
        <div className="mt-3 grid grid-cols-2 gap-2 border-t border-slate-100 pt-3">
          <Link href="/auth" className={buttonClasses('outline', 'md')} onClick={close}>
            {t('landing.nav.signIn')}
          </Link>
          <Link href="/auth?tab=register" className={buttonClasses('primary', 'md')} onClick={close}>
            {t('landing.nav.startFree')}
          </Link>
        </div>
          </nav>
        )}
      </div>
    </header>
  );
}
