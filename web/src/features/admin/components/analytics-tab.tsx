import { useQuery } from '@tanstack/react-query';
import { useLanguage } from '../../../i18n';
import { adminAnalyticsQuery } from '../api';
import { amountNumber } from '../display';
import { Chart } from './charts';
import { ErrorBlock, LoadingBlock } from './states';

const shortDate = (iso: string, lang: string) => {
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString(lang === 'ar' ? 'ar' : 'en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
};

/** Analytics (spec §2 says 'coming soon'; issue 5 asks for real charts). */
export function AnalyticsTab() {
  const { t, lang } = useLanguage();
  const q = useQuery(adminAnalyticsQuery());
  if (q.isLoading) return <LoadingBlock />;
  if (q.error || !q.data) return <ErrorBlock message={t('admin.errors.analytics')} onRetry={() => void q.refetch()} />;
  const a = q.data;
  const nf = new Intl.NumberFormat(lang === 'ar' ? 'ar' : 'en-US');
  const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 1 });
  const money = (v: number) => usd.format(v);
  const count = (v: number) => nf.format(v);
  return (
    <div className="grid gap-6 lg:grid-cols-2" data-testid="admin-analytics">
      <Chart
        kind="line"
        title={t('admin.analytics.volume')}
        points={(a.paymentVolumeByDay ?? []).map((p) => ({ label: shortDate(p.date, lang), value: amountNumber(p.amount) }))}
        xLabel={t('admin.analytics.date')}
        yLabel={t('admin.analytics.amount')}
        format={money}
        emptyText={t('admin.analytics.empty')}
        testId="chart-volume"
      />
      <Chart
        kind="bar"
        title={t('admin.analytics.bcards')}
        points={(a.bcardsByDay ?? []).map((p) => ({ label: shortDate(p.date, lang), value: p.count }))}
        xLabel={t('admin.analytics.date')}
        yLabel={t('admin.analytics.count')}
        format={count}
        emptyText={t('admin.analytics.empty')}
        testId="chart-bcards"
      />
      <Chart
        kind="bar"
        title={t('admin.analytics.shares')}
        points={(a.sharesPerPayment ?? []).map((p) => ({ label: t('admin.analytics.sharesLabel', { count: p.shares }), value: p.count }))}
        xLabel={t('admin.analytics.sharesAxis')}
        yLabel={t('admin.analytics.payments')}
        format={count}
        emptyText={t('admin.analytics.empty')}
        testId="chart-shares"
      />
      <Chart
        kind="bar"
        title={t('admin.analytics.revenueByPlan')}
        points={(a.revenueByPlan ?? []).map((p) => ({ label: p.plan, value: amountNumber(p.revenue) }))}
        xLabel={t('admin.analytics.plan')}
        yLabel={t('admin.analytics.revenue')}
        format={money}
        emptyText={t('admin.analytics.empty')}
        testId="chart-revenue"
      />
    </div>
  );
}
