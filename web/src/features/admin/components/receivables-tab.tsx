import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { HandCoins } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { ListState, listStatus } from '../../../components/ui/list-state';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { centsToDecimal, parseCents } from '../../../lib/money';
import { adminReceivablesQuery, RECEIVABLES_KEY, waiveReceivable, type AdminReceivable } from '../api';
import { formatAmount, formatDate, personName } from '../display';
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

/**
 * An amount (at most `max`) and a reason of 3 to 500 characters, sent by `send`: the Waive dialog, and the Settle
 * dialog of what bpay owes (payables-section.tsx). Test ids: admin-<kind>-dialog, -amount, -reason, -submit.
 */
export function AmountReasonDialog(p: {
  kind: 'waive' | 'settle';
  max: string;
  title: string;
  description: string;
  reasonHint: string;
  tooMuch: string;
  submitLabel: string;
  failed: string;
  listKey: readonly unknown[];
  send(body: { amount: string; reason: string }): Promise<{ title: string; description: string }>;
  onClose(): void;
}) {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const [amount, setAmount] = useState(p.max);
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ amount?: string; reason?: string }>({});
  const max = parseCents(p.max) ?? 0;
  const mutation = useMutation({
    mutationFn: p.send,
    onSuccess: (done) => {
      void qc.invalidateQueries({ queryKey: p.listKey });
      toast(done);
      p.onClose();
    },
    onError: (error) => {
      const message = messageOf(error) ?? p.failed;
      const param = error instanceof ApiError ? error.param : undefined;
      if (param === 'amount' || param === 'reason') setErrors({ [param]: message });
      toast({ title: p.failed, description: message, variant: 'destructive' });
    },
  });
  function onSubmit() {
    if (mutation.isPending) return;
    const cents = parseCents(amount);
    const found: { amount?: string; reason?: string } = {};
    if (cents === null || cents <= 0) found.amount = t('admin.receivables.error.amount');
    else if (cents > max) found.amount = p.tooMuch;
    const trimmed = reason.trim();
    if (trimmed.length < 3 || trimmed.length > 500) found.reason = t('admin.receivables.error.reason');
    setErrors(found);
    if (found.amount || found.reason) return;
    mutation.mutate({ amount: centsToDecimal(cents!), reason: trimmed });
  }
  const id = `admin-${p.kind}`;
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && !mutation.isPending && p.onClose()}
      busy={mutation.isPending}
      testId={`${id}-dialog`}
      title={p.title}
      description={p.description}
    >
      <DialogForm
        onSubmit={onSubmit}
        submit={{ label: p.submitLabel, pending: mutation.isPending, testId: `${id}-submit` }}
        cancel={{ label: t('admin.receivables.cancel'), onClick: p.onClose, disabled: mutation.isPending }}
      >
        <FormField id={`${p.kind}-amount`} label={t('admin.receivables.dialog.amount')} error={errors.amount}>
          {(control) => (
            <Input {...control} dir="ltr" inputMode="decimal" data-testid={`${id}-amount`} value={amount} onChange={(e) => setAmount(e.target.value)} />
          )}
        </FormField>
        <FormField id={`${p.kind}-reason`} label={t('admin.receivables.dialog.reason')} description={p.reasonHint} error={errors.reason}>
          {(control) => (
            <textarea
              {...control}
              data-testid={`${id}-reason`}
              maxLength={500}
              rows={3}
              className="flex w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm aria-invalid:border-red-500"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          )}
        </FormField>
      </DialogForm>
    </FormDialog>
  );
}
