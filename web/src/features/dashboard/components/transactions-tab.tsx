import { Receipt } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { useT, type MessageKey } from '../../../i18n';
import { filterByStatus, recentTransactions, STATUS_FILTERS, type StatusFilter } from '../transactions';
import type { Transaction } from '../types';
import { EmptyState } from './empty-state';
import { TransactionRow } from './transaction-row';

const filterLabel: Record<StatusFilter, MessageKey> = {
  all: 'dashboard.transactions.filter.all',
  completed: 'dashboard.transactions.filter.completed',
  pending: 'dashboard.transactions.filter.pending',
  failed: 'dashboard.transactions.filter.failed',
};
const isFilter = (v: string): v is StatusFilter => (STATUS_FILTERS as readonly string[]).includes(v);

/** Transactions: the full history, newest first, filterable by status. */
export function TransactionsTab({ transactions }: { transactions: readonly Transaction[] }) {
  const t = useT();
  const [filter, setFilter] = useState<StatusFilter>('all');
  const sorted = useMemo(() => recentTransactions(transactions, transactions.length), [transactions]);
  const shown = useMemo(() => filterByStatus(sorted, filter), [sorted, filter]);

  return (
    <Card>
      <div className="flex flex-col gap-4 p-6 sm:flex-row sm:items-end sm:justify-between">
        <div className="space-y-1.5">
          <CardTitle>{t('dashboard.transactions.title')}</CardTitle>
          <CardDescription>{t('dashboard.transactions.description')}</CardDescription>
        </div>
        <div className="flex items-center gap-2">
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
        </div>
      </div>
      <CardContent>
        {transactions.length === 0 ? (
          <EmptyState
            icon={<Receipt className="h-6 w-6" />}
            title={t('dashboard.transactions.empty')}
            description={t('dashboard.transactions.emptyBody')}
            testId="transactions-empty"
          />
        ) : shown.length === 0 ? (
          <EmptyState
            icon={<Receipt className="h-6 w-6" />}
            title={t('dashboard.transactions.noMatch')}
            description={t('dashboard.transactions.noMatchBody')}
            testId="transactions-no-match"
          />
        ) : (
          <ul className="divide-y divide-slate-100" aria-live="polite" data-testid="transaction-list">
            {shown.map((tx) => (
              <TransactionRow key={tx.id} transaction={tx} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
