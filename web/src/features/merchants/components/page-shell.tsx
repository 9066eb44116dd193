import { ArrowLeft, CreditCard, Languages } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';

/** The merchant pages' frame: the logo, Back to Home (spec §2), a language switch, then the page. */
export function MerchantShell({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const { t, lang, setLanguage } = useLanguage();
  return (
    <div className="min-h-screen bg-slate-50">
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
          <div className="flex items-center gap-4">
            <Link href="/" className="flex items-center gap-2 rounded-md" aria-label={t('merchants.shell.home')}>
              <span className="flex h-8 w-8 items-center justify-center rounded-lg bg-brand-600 text-white" aria-hidden>
                <CreditCard className="h-4 w-4" />
              </span>
              <span className="text-xl font-bold tracking-tight text-slate-900" dir="ltr">
                {t('common.brand')}
              </span>
            </Link>
            <Link
              href="/"
              className="hidden items-center gap-1.5 text-sm font-medium text-slate-600 hover:text-slate-900 sm:flex"
              data-testid="back-home"
            >
              <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
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
              data-testid="merchant-language-switch"
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

/** Back to Home as a link in the page body, for small screens where the header hides it. */
export function BackHomeLink() {
  const { t } = useLanguage();
  return (
    <Link href="/" className="mb-4 inline-flex items-center gap-1.5 text-sm font-medium text-slate-600 hover:text-slate-900 sm:hidden">
      <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
      {t('common.backHome')}
    </Link>
  );
}
