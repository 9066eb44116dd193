import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Activity, CalendarDays, CreditCard, ExternalLink, Plus, ShoppingCart, TrendingUp, Wallet } from 'lucide-react';
import { useMemo, type ReactNode } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { EmptyState } from '../../../components/ui/list-state';
import { useLanguage } from '../../../i18n';
import { transactionSummaryQuery } from '../../transactions/api';
import { spendingActivityQuery, type SpendingActivityItem } from '../../analytics/api';
import { demoTransactions } from '../demo-data';
import { dashboardStats, formatAmount, formatCents, parseCents, recentTransactions, RECENT_ACTIVITY_COUNT } from '../transactions';
import type { Bcard } from '../../bcards/api';
import { formatDate } from './format';

function StatCard({
  label,
  value,
  hint,
  icon,
  testId,
  loading,
}: {
  label: string;
  value: string;
  hint: string;
  icon: ReactNode;
  testId: string;
  loading: boolean;
}) {
  return (
    <Card className="p-5">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="text-sm font-medium text-slate-500">{label}</p>
          <p
            className="mt-2 text-2xl font-bold tabular-nums tracking-tight text-slate-900"
            data-testid={testId}
            aria-busy={loading}
            dir="ltr"
          >
            {loading ? '…' : value}
          </p>
        </div>
        <span
          className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-600"
          aria-hidden
        >
          {icon}
        </span>
      </div>
      <p className="mt-3 text-xs text-slate-500">{hint}</p>
    </Card>
  );
}

/** Where the money is besides what was spent (GET /api/transactions/summary), in cents. */
interface MoneyFigures {
  heldCents: number;
  returnedCents: number;
  refundedCents: number;
  feesChargedCents: number;
  feesReturnedCents: number;
  planChargesCents: number;
}

/**
 * The Overview's figures and Recent Activity: in demo mode from the samples, else from the one definition of
 * spending on the server (GET /api/transactions/summary and GET /api/spending/activity; the same as Analytics).
 */
function useOverviewSpending(isDemo: boolean, bcards: readonly Bcard[]) {
  const monthStart = useMemo(() => {
    const now = new Date();
    return new Date(now.getFullYear(), now.getMonth(), 1);
  }, []);
  const summary = useQuery({ ...transactionSummaryQuery(monthStart), enabled: !isDemo });
  const latest = useQuery({ ...spendingActivityQuery(RECENT_ACTIVITY_COUNT), enabled: !isDemo });
  const demo = useMemo(() => (isDemo ? demoTransactions(new Date()) : []), [isDemo]);
  const demoStats = useMemo(() => dashboardStats(demo, bcards, new Date()), [demo, bcards]);
  if (isDemo) {
    // The samples' purchases, as Recent Activity shows purchases.
    const recent: SpendingActivityItem[] = recentTransactions(demo.filter((t) => t.status === 'completed')).map((t) => ({
      kind: 'purchase',
      id: t.id,
      at: t.createdAt,
      title: t.merchant,
      amount: t.amount,
      charged: t.amount,
      refunded: '0.00',
      transactionId: null,
    }));
    return { stats: demoStats, money: null, recent, statsLoading: false, recentLoading: false };
  }
  const s = summary.data;
  const c = (x: string | undefined) => (x ? parseCents(x) : 0);
  const money: MoneyFigures | null = s
    ? {
        heldCents: c(s.heldOnBcards),
        returnedCents: c(s.returned),
        refundedCents: c(s.refunded),
        feesChargedCents: c(s.fees),
        feesReturnedCents: c(s.feesReturned),
        planChargesCents: c(s.planCharges),
      }
    : null;
  return {
    stats: {
      activeBcards: s?.activeBcards ?? 0,
      totalSpentCents: c(s?.totalSpent),
      thisMonthCents: c(s?.thisMonth),
    },
    money,
    recent: latest.data ?? [],
    statsLoading: summary.isLoading,
    recentLoading: latest.isLoading,
  };
}

/** One small figure of "Where your money is". */
function MoneyFigure({ label, cents, hint, testId }: { label: string; cents: number; hint: string; testId: string }) {
  return (
    <div className="min-w-0 rounded-xl border border-slate-200 bg-white p-4" data-testid={testId}>
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="mt-1 text-lg font-semibold tabular-nums text-slate-900" dir="ltr" data-testid={`${testId}-value`}>
        {formatCents(cents)}
      </dd>
      <dd className="mt-1 text-xs text-slate-500">{hint}</dd>
    </div>
  );
}

/** Overview: the three figures, Quick Actions and the latest three transactions. */
export function OverviewTab({
  isDemo,
  bcards,
  bcardsLoading,
  onCreateBcard,
  onAddSource,
  onViewAll,
}: {
  isDemo: boolean;
  bcards: readonly Bcard[];
  bcardsLoading: boolean;
  onCreateBcard(): void;
  onAddSource(): void;
  onViewAll(): void;
}) {
  const { t, lang } = useLanguage();
  const { stats, money, recent, statsLoading, recentLoading } = useOverviewSpending(isDemo, bcards);
  const kindLabel = (item: SpendingActivityItem) =>
    item.kind === 'plan_charge'
      ? t('spending.activity.planCharge')
      : item.kind === 'returned'
        ? t('spending.activity.returned')
        : parseCents(item.refunded) > 0
          ? t('spending.activity.purchaseRefunded', { amount: formatAmount(item.refunded) })
          : t('spending.activity.purchase');

  return (
    <div className="space-y-6">
      <section aria-label={t('dashboard.stats.label')} className="grid gap-4 sm:grid-cols-3">
        <StatCard
          label={t('dashboard.stats.activeBcards')}
          value={String(stats.activeBcards)}
          hint={t('dashboard.stats.activeBcardsHint')}
          icon={<CreditCard className="h-5 w-5" />}
          testId="stat-active-bcards"
          loading={bcardsLoading}
        />
        <StatCard
          label={t('spending.overview.totalSpent')}
          value={formatCents(stats.totalSpentCents)}
          hint={t('spending.overview.totalSpentHint')}
          icon={<TrendingUp className="h-5 w-5" />}
          testId="stat-total-spent"
          loading={statsLoading}
        />
        <StatCard
          label={t('spending.overview.thisMonth')}
          value={formatCents(stats.thisMonthCents)}
          hint={t('spending.overview.thisMonthHint')}
          icon={<CalendarDays className="h-5 w-5" />}
          testId="stat-this-month"
          loading={statsLoading}
        />
      </section>

      {money && (
        <section aria-label={t('spending.overview.moneyLabel')}>
          <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4" data-testid="money-figures">
            <MoneyFigure label={t('spending.held')} cents={money.heldCents} hint={t('spending.heldHint')} testId="stat-held" />
            <MoneyFigure label={t('spending.returned')} cents={money.returnedCents} hint={t('spending.returnedHint')} testId="stat-returned" />
            <MoneyFigure
              label={t('spending.fees')}
              cents={money.feesChargedCents - money.feesReturnedCents}
              hint={t('spending.feesHint', { returned: formatCents(money.feesReturnedCents), charged: formatCents(money.feesChargedCents) })}
              testId="stat-fees"
            />
            <MoneyFigure label={t('spending.planCharges')} cents={money.planChargesCents} hint={t('spending.planChargesHint')} testId="stat-plan-charges" />
          </dl>
        </section>
      )}

      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="lg:col-span-1">
          <div className="space-y-1.5 p-6">
            <CardTitle level={2}>{t('dashboard.quick.title')}</CardTitle>
            <CardDescription>{t('dashboard.quick.description')}</CardDescription>
          </div>
          <CardContent className="flex flex-col gap-2">
            <Button onClick={onCreateBcard} className="justify-start" data-testid="quick-create-bcard">
              <Plus className="h-4 w-4" aria-hidden />
              {t('dashboard.quick.createBcard')}
            </Button>
            <Button variant="outline" onClick={onAddSource} className="justify-start" data-testid="quick-add-source">
              <Wallet className="h-4 w-4" aria-hidden />
              {t('dashboard.quick.addSource')}
            </Button>
            <Link href="/payment-demo" className={buttonClasses('ghost', 'md', 'justify-start')} data-testid="quick-payment-demo">
              <ShoppingCart className="h-4 w-4" aria-hidden />
              {t('dashboard.quick.paymentDemo')}
            </Link>
            <Link href="/checkout-demo" className={buttonClasses('ghost', 'md', 'justify-start')} data-testid="quick-checkout-demo">
              <ExternalLink className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
              {t('dashboard.quick.checkoutDemo')}
            </Link>
          </CardContent>
        </Card>

        <Card className="lg:col-span-2">
          <div className="flex items-center justify-between gap-4 p-6">
            <div className="space-y-1.5">
              <CardTitle level={2}>{t('dashboard.activity.title')}</CardTitle>
              <CardDescription>{t('spending.activity.description')}</CardDescription>
            </div>
            {recent.length > 0 && (
              <Button variant="link" size="sm" onClick={onViewAll} className="shrink-0 px-0">
                {t('dashboard.activity.viewAll')}
              </Button>
            )}
          </div>
          <CardContent>
            {recentLoading ? (
              <p className="py-6 text-sm text-slate-500" aria-busy="true">
                {t('common.loading')}
              </p>
            ) : recent.length === 0 ? (
              <EmptyState
                icon={<Activity className="h-6 w-6" />}
                title={t('spending.activity.empty')}
                description={t('spending.activity.emptyBody')}
                testId="recent-activity-empty"
              />
            ) : (
              <ul className="divide-y divide-slate-100" data-testid="recent-activity">
                {recent.map((item) => (
                  <li key={`${item.kind}:${item.id}`} className="flex items-center gap-4 py-3" data-testid="recent-activity-item" data-kind={item.kind}>
                    <div className="min-w-0 flex-1">
                      <p className="truncate font-medium text-slate-900">{item.title}</p>
                      <div className="mt-0.5 flex flex-wrap items-center gap-x-3 gap-y-0.5">
                        <span className="text-xs text-slate-500" data-testid="recent-activity-kind">
                          {kindLabel(item)}
                        </span>
                        <time className="text-xs text-slate-400" dateTime={item.at}>
                          {formatDate(item.at, lang)}
                        </time>
                      </div>
                    </div>
                    <p
                      className={`shrink-0 font-semibold tabular-nums ${item.kind === 'returned' ? 'text-emerald-700' : 'text-slate-900'}`}
                      dir="ltr"
                      data-testid="recent-activity-amount"
                    >
                      {item.kind === 'returned' ? '+' : ''}
                      {formatAmount(item.amount)}
                    </p>
                  </li>
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </div>
    </div>
  );
}
