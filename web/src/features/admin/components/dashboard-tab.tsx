import { useQuery } from '@tanstack/react-query';
import { Activity, CheckCircle2, CreditCard, DollarSign, Store, Users } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { useT } from '../../../i18n';
import { adminDashboardQuery } from '../api';
import { formatAmount, fundingRateHealthy } from '../display';
import { ErrorBlock, LoadingBlock, StatCard } from './states';

const pct = (n: number) => `${Math.round(n * 10) / 10}%`;

export function DashboardTab() {
  const t = useT();
  const q = useQuery(adminDashboardQuery());
  if (q.isLoading) return <LoadingBlock />;
  if (q.error || !q.data) return <ErrorBlock message={t('admin.errors.dashboard')} onRetry={() => void q.refetch()} />;
  const d = q.data;
  const fundingRate = d.fundingDeductions.successRate;
  const healthy = fundingRateHealthy(fundingRate);
  const bcardsToday = d.bcardsToday;
  return (
    <div className="space-y-6" data-testid="admin-dashboard">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard label={t('admin.dashboard.revenue')} value={formatAmount(d.revenue.total)} icon={<DollarSign className="h-4 w-4" />} testId="admin-stat-revenue" />
        <StatCard label={t('admin.dashboard.users')} value={d.users.total} icon={<Users className="h-4 w-4" />} testId="admin-stat-users" />
        <StatCard
          label={t('admin.dashboard.merchants')}
          value={d.merchants.total}
          icon={<Store className="h-4 w-4" />}
          testId="admin-stat-merchants"
        />
        <StatCard
          label={t('admin.dashboard.bcardRate')}
          value={pct(d.bcardGeneration.successRate)}
          hint={t('admin.dashboard.bcardTotal', { issued: d.bcardGeneration.issued, total: d.bcardGeneration.total })}
          icon={<CreditCard className="h-4 w-4" />}
          testId="admin-stat-bcards"
        />
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <section className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm" aria-labelledby="admin-health-title">
          <h2 id="admin-health-title" className="mb-4 text-lg font-semibold text-slate-900">
            {t('admin.dashboard.health')}
          </h2>
          <dl className="space-y-3 text-sm">
            <div className="flex items-center justify-between">
              <dt className="text-slate-500">{t('admin.dashboard.fundingPool')}</dt>
              <dd className="font-semibold">{formatAmount(d.fundingPool.balance)}</dd>
            </div>
            <div className="flex items-center justify-between">
              <dt className="text-slate-500">{t('admin.dashboard.volume')}</dt>
              <dd className="font-semibold">{formatAmount(d.transactions.volume)}</dd>
            </div>
            <div className="flex items-center justify-between">
              <dt className="text-slate-500">{t('admin.dashboard.fundingRate')}</dt>
              <dd>
                <Badge tone={healthy ? 'green' : 'red'} data-testid="admin-funding-rate" data-healthy={healthy}>
                  {pct(fundingRate)}
                </Badge>
              </dd>
            </div>
          </dl>
        </section>
        <section className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm" aria-labelledby="admin-activity-title">
          <h2 id="admin-activity-title" className="mb-4 text-lg font-semibold text-slate-900">
            {t('admin.dashboard.activity')}
          </h2>
          <ul className="space-y-3 text-sm">
            <li className="flex items-center gap-2">
              <CheckCircle2 className="h-4 w-4 text-green-600" aria-hidden />
              {t('admin.dashboard.operational')}
            </li>
            <li className="flex items-center gap-2" data-testid="admin-bcards-today">
              <Activity className="h-4 w-4 text-brand-600" aria-hidden />
              {t('admin.dashboard.bcardsToday', { count: bcardsToday })}
            </li>
          </ul>
        </section>
      </div>
    </div>
  );
}
