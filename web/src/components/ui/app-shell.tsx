import { ArrowLeft, Languages } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useLanguage } from '../../i18n';
import { cn } from '../../lib/cn';
import { Button } from './button';
import { BrandMark } from './brand-mark';

/**
 * The frame of the signed-in tools and the demos (merchant pages, payment demo): the mark, Back to Home (spec §2),
 * optional actions, a language switch, then the page.
 */
export function AppShell({
  children,
  actions,
  backHomeOnSmallScreens = true,
  testIds,
}: {
  children: ReactNode;
  actions?: ReactNode;
  /** False hides the header's Back to Home below `sm` (the page then shows its own, see merchants' BackHomeLink). */
  backHomeOnSmallScreens?: boolean;
  testIds: { backHome: string; languageSwitch: string };
}) {
  const { t, lang, setLanguage } = useLanguage();
  return (
    <div className="min-h-screen bg-slate-50">
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-3 px-4 sm:px-6 lg:px-8">
          <div className="flex min-w-0 items-center gap-4">
            <Link href="/" className="flex items-center gap-2 rounded-md" aria-label={t('common.brandHome')}>
              <BrandMark />
            </Link>
            <Link
              href="/"
              className={cn(
                'items-center gap-1.5 truncate text-sm font-medium text-slate-600 hover:text-slate-900',
                backHomeOnSmallScreens ? 'flex' : 'hidden sm:flex',
              )}
              data-testid={testIds.backHome}
            >
              <ArrowLeft className="h-4 w-4 shrink-0 rtl:-scale-x-100" aria-hidden />
              {t('common.backHome')}
            </Link>
          </div>
          <div className="flex items-center gap-2">
            {actions}
            <Button
              variant="ghost"
              size="sm"
              onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
              lang={lang === 'ar' ? 'en' : 'ar'}
              aria-label={t('common.language.label')}
              data-testid={testIds.languageSwitch}
            >
              <Languages className="h-4 w-4" aria-hidden />
              {t('common.language.switch')}
            </Button>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:px-8">{children}</main>
    </div>
  );
}
