import { ArrowLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { AppShell } from '../../../components/ui/app-shell';
import { useLanguage } from '../../../i18n';

/** The merchant pages' frame: the shared app shell, its Back to Home hidden on small screens (see BackHomeLink). */
export function MerchantShell({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <AppShell actions={actions} backHomeOnSmallScreens={false} testIds={{ backHome: 'back-home', languageSwitch: 'merchant-language-switch' }}>
      {children}
    </AppShell>
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
