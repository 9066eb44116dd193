import { useInfiniteQuery } from '@tanstack/react-query';
import { HandCoins } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { ListState, listStatus } from '../../../components/ui/list-state';
import { useLanguage } from '../../../i18n';
import { parseCents } from '../../../lib/money';
import { adminReceivablesQuery, RECEIVABLES_KEY, waiveReceivable, type AdminReceivable } from '../api';
import { formatAmount, formatDate, personName } from '../display';
import { AmountReasonDialog } from './amount-reason-dialog';
import { PayablesSection } from './payables-section';
import { AdminTable, EmptyState, ErrorBlock, LoadingBlock, LoadMore, Th } from './states';

/**
 * Receivables (issue 26): the users who owe bpay, what and since when, and Waive: forgive all or part of what is
 * owed outside open disputes, with a reason the user is told (audited by the server). Below, the other way round:
 * what bpay owes users, and Settle (PayablesSection).
 */
export function ReceivablesTab() {
  const { t, lang } = useLanguage();
  const q = useInfiniteQuery(adminReceivablesQuery());
  const all = q.data?.pages.flatMap((p) => p.items) ?? [];
  const [waiving, setWaiving] = useState<AdminReceivable | null>(null);
  return (
    <section className="space-y-4" aria-labelledby="admin-receivables-title">
      <div className="space-y-1">
        <h2 id="admin-receivables-title" className="text-lg font-semibold text-slate-900">
          {t('admin.receivables.title')}
        </h2>
        <p className="text-sm text-slate-500">{t('admin.receivables.description')}</p>
      </div>
      <ListState
        status={listStatus({ isLoading: q.isLoading, error: q.error, total: all.length })}
        loading={<LoadingBlock />}
        error={<ErrorBlock message={t('admin.receivables.loadFailed')} onRetry={() => void q.refetch()} />}
        empty={<EmptyState title={t('admin.receivables.empty')} icon={<HandCoins className="h-8 w-8" />} testId="admin-receivables-empty" />}
      >
        <AdminTable
          head={
            <>
              <Th>{t('admin.receivables.col.user')}</Th>
              <Th align="end">{t('admin.receivables.col.owed')}</Th>
              <Th>{t('admin.receivables.col.disputes')}</Th>
              <Th>{t('admin.receivables.col.since')}</Th>
              <Th align="end">{t('admin.receivables.col.actions')}</Th>
            </>
          }
        >
          {all.map((r) => (
            <tr key={r.userId} data-testid="admin-receivable-row">
              <td className="px-4 py-3">
                <div>{personName(r)}</div>
                <div className="text-xs text-slate-500" dir="ltr">
                  {r.email}
                </div>
              </td>
              <td className="px-4 py-3 text-end tabular-nums" data-testid="admin-receivable-owed">
                {formatAmount(r.owed)}
              </td>
              <td className="px-4 py-3">
                {r.openDisputes > 0 ? (
                  <Badge tone="yellow">{t('admin.receivables.underDispute', { count: r.openDisputes, amount: formatAmount(r.underDispute) })}</Badge>
                ) : (
                  '—'
                )}
              </td>
              <td className="px-4 py-3 text-slate-500">{r.oldestItemAt ? formatDate(r.oldestItemAt, lang) : '—'}</td>
              <td className="px-4 py-3 text-end">
                <Button
                  variant="outline"
                  size="sm"
                  disabled={(parseCents(r.repayable) ?? 0) <= 0}
                  onClick={() => setWaiving(r)}
                  data-testid="admin-receivable-waive"
                >
                  {t('admin.receivables.waive')}
                </Button>
              </td>
            </tr>
          ))}
        </AdminTable>
      </ListState>
      <LoadMore hasMore={q.hasNextPage && !q.error} loading={q.isFetchingNextPage} onLoad={() => void q.fetchNextPage()} testId="admin-receivables-load-more" />
      {waiving && <WaiveDialog row={waiving} onClose={() => setWaiving(null)} />}
      <PayablesSection />
    </section>
  );
}

function WaiveDialog({ row, onClose }: { row: AdminReceivable; onClose(): void }) {
  const { t } = useLanguage();
  return (
    <AmountReasonDialog
      kind="waive"
      max={row.repayable}
      title={t('admin.receivables.dialog.title', { user: row.email })}
      description={t('admin.receivables.dialog.description', { owed: formatAmount(row.owed), repayable: formatAmount(row.repayable) })}
      reasonHint={t('admin.receivables.dialog.reasonHint')}
      tooMuch={t('admin.receivables.error.tooMuch', { amount: formatAmount(row.repayable) })}
      submitLabel={t('admin.receivables.waive')}
      failed={t('admin.receivables.toast.failed')}
      listKey={RECEIVABLES_KEY}
      send={async (body) => {
        const w = await waiveReceivable(row.userId, body);
        return { title: t('admin.receivables.toast.waived', { amount: formatAmount(w.amount) }), description: t('admin.receivables.toast.left', { owed: formatAmount(w.owed) }) };
      }}
      onClose={onClose}
    />
  );
}
