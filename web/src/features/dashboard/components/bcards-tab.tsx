import { CreditCard } from 'lucide-react';
import { useT } from '../../../i18n';
import { EmptyState } from './empty-state';

/** bcards: nothing to list until the virtual-card API exists. */
export function BcardsTab() {
  const t = useT();
  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-1">
        <h2 className="text-lg font-semibold text-slate-900">{t('dashboard.bcards.title')}</h2>
        <p className="text-sm text-slate-500">{t('dashboard.bcards.description')}</p>
      </div>
      <EmptyState
        icon={<CreditCard className="h-6 w-6" />}
        title={t('dashboard.bcards.empty')}
        description={t('dashboard.bcards.emptyBody')}
        testId="bcards-empty"
      />
    </div>
  );
}
