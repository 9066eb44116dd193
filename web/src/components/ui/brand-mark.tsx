import { CreditCard } from 'lucide-react';
import { useLanguage } from '../../i18n';

/** bpay's mark in the app's headers (dashboard, its loading frame, merchant pages): the card tile and the name. */
export function BrandMark() {
  const { t } = useLanguage();
  return (
    <>
      <span className="flex h-8 w-8 items-center justify-center rounded-lg bg-brand-600 text-white" aria-hidden>
        <CreditCard className="h-4 w-4" />
      </span>
      <span className="text-xl font-bold tracking-tight text-slate-900" dir="ltr">
        {t('common.brand')}
      </span>
    </>
  );
}
