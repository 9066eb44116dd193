import { useInfiniteQuery } from '@tanstack/react-query';
import { Download, FlaskConical, Loader2, Receipt } from 'lucide-react';
import { Suspense, useMemo, useState } from 'react';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { EmptyState, ListState, listStatus, LoadError } from '../../../components/ui/list-state';
import { useLanguage, type MessageKey } from '../../../i18n';
import { exportCsvUrl, transactionsQuery, type Transaction } from '../../transactions/api';
import { demoTransactions } from '../demo-data';
import { filterByStatus, recentTransactions, STATUS_FILTERS, type StatusFilter } from '../transactions';
import { TransactionDetailDialog } from './transaction-detail-dialog';
import { TransactionRow } from './transaction-row';
import { planPaymentsSection } from '../prefetch';

// Its own chunk: only the Transactions tab needs it, and the dashboard's first load has a size budget.
const PlanPaymentsSection = planPaymentsSection.Component;

const filterLabel: Record<StatusFilter, MessageKey> = {
  all: 'dashboard.transactions.filter.all',
  completed: 'dashboard.transactions.filter.completed',
  pending: 'dashboard.transactions.filter.pending',
  failed: 'dashboard.transactions.filter.failed',
  active: 'dashboard.transactions.filter.active',
  used: 'dashboard.transactions.filter.used',
  returned: 'dashboard.transactions.filter.returned',
  bank_pending: 'dashboard.transactions.filter.bank_pending',
  bank_returned: 'dashboard.transactions.filter.bank_returned',
};
const isFilter = (v: string): v is StatusFilter => (STATUS_FILTERS as readonly string[]).includes(v);

/**
 * Transactions: the history newest first, filtered by status on the server, a page at a time; Export downloads
 * the CSV with the same filter; View opens one transaction with its shares. Demo mode lists the five samples.
 * Below them, the plan payments (a section of their own: they are not bcard purchases and have their own list).
 */
export function TransactionsTab({ isDemo }: { isDemo: boolean }) {
  const { t, lang } = useLanguage();
  const [filter, setFilter] = useState<StatusFilter>('all');
  const [viewing, setViewing] = useState<Transaction | null>(null);
  const query = useInfiniteQuery({ ...transactionsQuery(filter, lang), enabled: !isDemo });
  const demo = useMemo(() => (isDemo ? recentTransactions(demoTransactions(new Date()), Infinity) : []), [isDemo]);
  const rows = useMemo(
    () => (isDemo ? filterByStatus(demo, filter) : (query.data?.pages.flatMap((p) => p.items) ?? [])),
    [isDemo, demo, filter, query.data],
  );
  const loading = !isDemo && query.isLoading;
  const error = !isDemo && query.isError ? query.error : null;

  return (
    <div className="space-y-6">
      <Card>
        <div className="flex flex-col gap-4 p-6 lg:flex-row lg:items-end lg:justify-between">
          <div className="space-y-1.5">
            <CardTitle level={2}>{t('dashboard.transactions.title')}</CardTitle>
            <CardDescription>{t('dashboard.transactions.description')}</CardDescription>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <Label htmlFor="transaction-status-filter" className="shrink-0 text-slate-500">
              {t('dashboard.transactions.filter.label')}
            </Label>
            <select
              id="transaction-status-filter"
              data-testid="transaction-filter"
              className="h-9 rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900"
              value={filter}
              onChange={(e) => {
                if (isFilter(e.target.value)) setFilter(e.target.value);
              }}
            >
              {STATUS_FILTERS.map((f) => (
                <option key={f} value={f}>
                  {t(filterLabel[f])}
                </option>
              ))}
            </select>
            {isDemo ? (
              <Button
                variant="outline"
                size="sm"
                disabled
                data-testid="transaction-export"
                aria-describedby="transactions-demo-note"
                className="h-9"
              >
                <Download className="h-4 w-4" aria-hidden />
                {t('dashboard.transactions.export')}
              </Button>
            ) : (
              <a
                href={exportCsvUrl(filter, lang)}
                download
                data-testid="transaction-export"
                className={buttonClasses('outline', 'sm', 'h-9')}
              >
                <Download className="h-4 w-4" aria-hidden />
                {t('dashboard.transactions.export')}
              </a>
            )}
          </div>
        </div>
        <CardContent>
          {isDemo && (
            <p id="transactions-demo-note" className="mb-4 flex items-start gap-2 text-sm text-amber-800">
              <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              {t('dashboard.transactions.demoNote')}
            </p>
          )}
          <ListState
            status={listStatus({ isLoading: loading, error, total: rows.length, filtered: filter !== 'all' })}
            error={<LoadError message={t('dashboard.transactions.loadFailed')} error={error} onRetry={() => void query.refetch()} />}
            empty={
              <EmptyState
                icon={<Receipt className="h-6 w-6" />}
                title={t('dashboard.transactions.empty')}
                description={t('dashboard.transactions.emptyBody')}
                testId="transactions-empty"
              />
            }
            noMatch={
              <EmptyState
                icon={<Receipt className="h-6 w-6" />}
                title={t('dashboard.transactions.noMatch')}
                description={t('dashboard.transactions.noMatchBody')}
                testId="transactions-no-match"
              />
            }
          >
            <ul className="divide-y divide-slate-100" aria-live="polite" data-testid="transaction-list">
              {rows.map((tx) => (
                <TransactionRow key={tx.id} transaction={tx} onView={setViewing} />
              ))}
            </ul>
            {!isDemo && query.hasNextPage && (
              <div className="flex justify-center pt-4">
                <Button
                  variant="outline"
                  onClick={() => void query.fetchNextPage()}
                  disabled={query.isFetchingNextPage}
                  data-testid="transaction-load-more"
                >
                  {query.isFetchingNextPage && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                  {query.isFetchingNextPage ? t('common.loading') : t('dashboard.transactions.loadMore')}
                </Button>
              </div>
            )}
          </ListState>
        </CardContent>
        <TransactionDetailDialog transaction={viewing} isDemo={isDemo} onClose={() => setViewing(null)} />
      </Card>
      {/* Demo mode shows sample data only; plan payments are real money, listed with the real data. */}
      {!isDemo && (
        <Suspense fallback={null}>
          <PlanPaymentsSection filter={filter} />
        </Suspense>
      )}
    </div>
  );
}
