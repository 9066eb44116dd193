import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Activity, CalendarDays, CreditCard, ExternalLink, Plus, ShoppingCart, TrendingUp, Wallet } from 'lucide-react';
import { useMemo, type ReactNode } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { EmptyState } from '../../../components/ui/list-state';
import { useLanguage } from '../../../i18n';
import { transactionSummaryQuery, transactionsQuery } from '../../transactions/api';
import { demoTransactions } from '../demo-data';
import { dashboardStats, formatAmount, formatCents, parseCents, recentTransactions, RECENT_ACTIVITY_COUNT } from '../transactions';
import type { Bcard } from '../../bcards/api';
import { formatDate } from './format';
import { StatusDot } from './transaction-status';

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

/** The Overview's figures and latest transactions: computed from the samples in demo mode, else from the API. */
function useOverviewTransactions(isDemo: boolean, bcards: readonly Bcard[]) {
  const monthStart = useMemo(() => {
    const now = new Date();
    return new Date(now.getFullYear(), now.getMonth(), 1);
  }, []);
  const summary = useQuery({ ...transactionSummaryQuery(monthStart), enabled: !isDemo });
  const latest = useInfiniteQuery({ ...transactionsQuery('all'), enabled: !isDemo });
  const demo = useMemo(() => (isDemo ? demoTransactions(new Date()) : []), [isDemo]);
  const demoStats = useMemo(() => dashboardStats(demo, bcards, new Date()), [demo, bcards]);
  if (isDemo) return { stats: demoStats, recent: recentTransactions(demo), statsLoading: false, recentLoading: false };
  const s = summary.data;
  return {
    stats: {
      activeBcards: s?.activeBcards ?? 0,
      totalSpentCents: s ? parseCents(s.totalSpent) : 0,
      thisMonthCents: s ? parseCents(s.thisMonth) : 0,
    },
    recent: (latest.data?.pages[0]?.items ?? []).slice(0, RECENT_ACTIVITY_COUNT),
    statsLoading: summary.isLoading,
    recentLoading: latest.isLoading,
  };
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
  const { stats, recent, statsLoading, recentLoading } = useOverviewTransactions(isDemo, bcards);

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
          label={t('dashboard.stats.totalSpent')}
          value={formatCents(stats.totalSpentCents)}
          hint={t('dashboard.stats.totalSpentHint')}
          icon={<TrendingUp className="h-5 w-5" />}
          testId="stat-total-spent"
          loading={statsLoading}
        />
        <StatCard
          label={t('dashboard.stats.thisMonth')}
          value={formatCents(stats.thisMonthCents)}
          hint={t('dashboard.stats.thisMonthHint')}
          icon={<CalendarDays className="h-5 w-5" />}
          testId="stat-this-month"
          loading={statsLoading}
        />
      </section>

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
              <CardDescription>{t('dashboard.activity.description')}</CardDescription>
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
                title={t('dashboard.activity.empty')}
                description={t('dashboard.activity.emptyBody')}
                testId="recent-activity-empty"
              />
            ) : (
              <ul className="divide-y divide-slate-100" data-testid="recent-activity">
                {recent.map((tx) => (
                  <li key={tx.id} className="flex items-center gap-4 py-3" data-testid="recent-activity-item">
                    <div className="min-w-0 flex-1">
                      <p className="truncate font-medium text-slate-900">{tx.merchant}</p>
                      <div className="mt-0.5 flex flex-wrap items-center gap-x-3 gap-y-0.5">
                        <StatusDot status={tx.status} />
                        <time className="text-xs text-slate-400" dateTime={tx.createdAt}>
                          {formatDate(tx.createdAt, lang)}
                        </time>
                      </div>
                    </div>
                    <p className="shrink-0 font-semibold tabular-nums text-slate-900" dir="ltr">
                      {formatAmount(tx.amount)}
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
