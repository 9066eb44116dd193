import { Activity, CalendarDays, CreditCard, TrendingUp } from 'lucide-react';
import { useMemo, type ReactNode } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { dashboardStats, formatAmount, formatCents, recentTransactions } from '../transactions';
import type { Transaction } from '../types';
import { EmptyState } from './empty-state';
import { formatDate } from './format';
import { StatusDot } from './transaction-status';

function StatCard({
  label,
  value,
  hint,
  icon,
  testId,
}: {
  label: string;
  value: string;
  hint: string;
  icon: ReactNode;
  testId: string;
}) {
  return (
    <Card className="p-5">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="text-sm font-medium text-slate-500">{label}</p>
          <p className="mt-2 text-2xl font-bold tabular-nums tracking-tight text-slate-900" data-testid={testId}>
            {value}
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

/** Overview: the three figures and the latest three transactions. */
export function OverviewTab({ transactions, onViewAll }: { transactions: readonly Transaction[]; onViewAll(): void }) {
  const { t, lang } = useLanguage();
  const stats = useMemo(() => dashboardStats(transactions, new Date()), [transactions]);
  const recent = useMemo(() => recentTransactions(transactions), [transactions]);

  return (
    <div className="space-y-6">
      <section aria-label={t('dashboard.stats.label')} className="grid gap-4 sm:grid-cols-3">
        <StatCard
          label={t('dashboard.stats.activeBcards')}
          value={String(stats.activeBcards)}
          hint={t('dashboard.stats.activeBcardsHint')}
          icon={<CreditCard className="h-5 w-5" />}
          testId="stat-active-bcards"
        />
        <StatCard
          label={t('dashboard.stats.totalSpent')}
          value={formatCents(stats.totalSpentCents)}
          hint={t('dashboard.stats.totalSpentHint')}
          icon={<TrendingUp className="h-5 w-5" />}
          testId="stat-total-spent"
        />
        <StatCard
          label={t('dashboard.stats.thisMonth')}
          value={formatCents(stats.thisMonthCents)}
          hint={t('dashboard.stats.thisMonthHint')}
          icon={<CalendarDays className="h-5 w-5" />}
          testId="stat-this-month"
        />
      </section>

      <Card>
        <div className="flex items-center justify-between gap-4 p-6">
          <div className="space-y-1.5">
            <CardTitle>{t('dashboard.activity.title')}</CardTitle>
            <CardDescription>{t('dashboard.activity.description')}</CardDescription>
          </div>
          {recent.length > 0 && (
            <Button variant="link" size="sm" onClick={onViewAll} className="shrink-0 px-0">
              {t('dashboard.activity.viewAll')}
            </Button>
          )}
        </div>
        <CardContent>
          {recent.length === 0 ? (
            <EmptyState
              icon={<Activity className="h-6 w-6" />}
              title={t('dashboard.activity.empty')}
              description={t('dashboard.activity.emptyBody')}
              testId="recent-activity-empty"
            />
          ) : (
            <ul className="divide-y divide-slate-100" data-testid="recent-activity">
              {recent.map((tx) => (
                <li key={tx.id} className="flex items-center gap-4 py-3">
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
  );
}
