import { useInfiniteQuery } from '@tanstack/react-query';
import { HandCoins } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { ListState, listStatus } from '../../../components/ui/list-state';
import { useLanguage } from '../../../i18n';
import { adminPayablesQuery, PAYABLES_KEY, settlePayable, type AdminPayable } from '../api';
import { formatAmount, personName } from '../display';
import { AmountReasonDialog } from './amount-reason-dialog';
import { AdminTable, EmptyState, ErrorBlock, LoadingBlock, LoadMore, Th } from './states';

/**
 * The Receivables tab's other direction (issue 26): users bpay owes (payable:<user>: refunds the processor failed,
 * money due back after a debt was settled), and Settle: record that support paid them another way (paid_outside).
 */
export function PayablesSection() {
  const { t } = useLanguage();
  const q = useInfiniteQuery(adminPayablesQuery());
  const all = q.data?.pages.flatMap((p) => p.items) ?? [];
  const [settling, setSettling] = useState<AdminPayable | null>(null);
  return (
    <section className="space-y-4" aria-labelledby="admin-payables-title">
      <div className="space-y-1">
        <h2 id="admin-payables-title" className="text-lg font-semibold text-slate-900">
          {t('admin.payables.title')}
        </h2>
        <p className="text-sm text-slate-500">{t('admin.payables.description')}</p>
      </div>
      <ListState
        status={listStatus({ isLoading: q.isLoading, error: q.error, total: all.length })}
        loading={<LoadingBlock />}
        error={<ErrorBlock message={t('admin.payables.loadFailed')} onRetry={() => void q.refetch()} />}
        empty={<EmptyState title={t('admin.payables.empty')} icon={<HandCoins className="h-8 w-8" />} testId="admin-payables-empty" />}
      >
        <AdminTable
          head={
            <>
              <Th>{t('admin.receivables.col.user')}</Th>
              <Th align="end">{t('admin.payables.col.owedToUser')}</Th>
              <Th>{t('admin.payables.col.failedRefunds')}</Th>
              <Th align="end">{t('admin.receivables.col.actions')}</Th>
            </>
          }
        >
          {all.map((r) => (
            <tr key={r.userId} data-testid="admin-payable-row">
              <td className="px-4 py-3">
                <div>{personName(r)}</div>
                <div className="text-xs text-slate-500" dir="ltr">
                  {r.email}
                </div>
              </td>
              <td className="px-4 py-3 text-end tabular-nums" data-testid="admin-payable-owed">
                {formatAmount(r.owedToUser)}
              </td>
              <td className="px-4 py-3 tabular-nums">{r.failedRefunds}</td>
              <td className="px-4 py-3 text-end">
                <Button variant="outline" size="sm" onClick={() => setSettling(r)} data-testid="admin-payable-settle">
                  {t('admin.payables.settle')}
                </Button>
              </td>
            </tr>
          ))}
        </AdminTable>
      </ListState>
      <LoadMore hasMore={q.hasNextPage && !q.error} loading={q.isFetchingNextPage} onLoad={() => void q.fetchNextPage()} testId="admin-payables-load-more" />
      {settling && <SettleDialog row={settling} onClose={() => setSettling(null)} />}
    </section>
  );
}

function SettleDialog({ row, onClose }: { row: AdminPayable; onClose(): void }) {
  const { t } = useLanguage();
  // One Idempotency-Key per dialog: a double click, or a resend after no answer, records the payment once. A second
  // settlement is a new dialog (a new key); a changed body under the same key is refused by the server, not paid.
  const [key] = useState(() => crypto.randomUUID());
  return (
    <AmountReasonDialog
      kind="settle"
      max={row.owedToUser}
      title={t('admin.payables.dialog.title', { user: row.email })}
      description={t('admin.payables.dialog.description', { owed: formatAmount(row.owedToUser) })}
      reasonHint={t('admin.payables.dialog.reasonHint')}
      tooMuch={t('admin.payables.error.tooMuch', { amount: formatAmount(row.owedToUser) })}
      submitLabel={t('admin.payables.settle')}
      failed={t('admin.payables.toast.failed')}
      listKey={PAYABLES_KEY}
      send={async (body) => {
        const s = await settlePayable(row.userId, { ...body, method: 'paid_outside' }, key);
        return { title: t('admin.payables.toast.settled', { amount: formatAmount(s.amount) }), description: t('admin.payables.toast.left', { owed: formatAmount(s.owedToUser) }) };
      }}
      onClose={onClose}
    />
  );
}
