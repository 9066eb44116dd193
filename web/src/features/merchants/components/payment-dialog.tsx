import { useInfiniteQuery } from '@tanstack/react-query';
import { Undo2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { LoadError } from '../../../components/ui/list-state';
import { useLanguage, type MessageKey } from '../../../i18n';
import { refundsQuery, type PaymentIntent, type Refund } from '../api';
import { formatDateTime, formatIntentAmount, type Tone } from '../display';
import { canRefund, refundableCents } from '../refunds';
import { IntentStatusBadge } from './intent-status-badge';
import { RefundForm } from './refund-form';
import { hasCharge, PaymentSplit, RefundSplit } from './payment-split';

export type PaymentDialogMode = 'detail' | 'refund';

const REFUND_STATUS: Record<Refund['status'], { tone: Tone; label: MessageKey }> = {
  pending: { tone: 'yellow', label: 'merchants.refundStatus.pending' },
  succeeded: { tone: 'green', label: 'merchants.refundStatus.succeeded' },
  failed: { tone: 'red', label: 'merchants.refundStatus.failed' },
};

function Figure({ label, children, testId }: { label: string; children: ReactNode; testId: string }) {
  return (
    <div>
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="text-sm text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** A payment's refunds, newest first: amount, status, reason, date (and why, when one failed). */
function RefundHistory({ merchantId, intent }: { merchantId: string; intent: PaymentIntent }) {
  const { t, lang } = useLanguage();
  const refunds = useInfiniteQuery(refundsQuery(merchantId, intent.id));
  const rows = refunds.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <section className="space-y-2" aria-labelledby="refund-history-title" data-testid="refund-history">
      <h3 id="refund-history-title" className="text-sm font-semibold text-slate-900">
        {t('merchants.payment.refunds')}
      </h3>
      {refunds.isLoading ? (
        <div className="h-16 animate-pulse rounded-lg bg-slate-100" aria-busy="true" aria-label={t('common.loading')} />
      ) : refunds.isError ? (
        <LoadError message={t('merchants.payment.refundsLoadFailed')} error={refunds.error} onRetry={() => void refunds.refetch()} />
      ) : rows.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-4 text-center text-sm text-slate-500" data-testid="refund-history-empty">
          {t('merchants.payment.refundsEmpty')}
        </p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200">
          {rows.map((r) => {
            const status = REFUND_STATUS[r.status];
            return (
              <li key={r.id} className="space-y-1 px-3 py-2 text-sm" data-testid="refund-row" data-id={r.id} data-status={r.status}>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <span className="font-medium tabular-nums" dir="ltr" data-testid="refund-row-amount">
                    {formatIntentAmount(r.amount, r.currency)}
                  </span>
                  <Badge tone={status.tone} data-testid="refund-row-status">
                    {t(status.label)}
                  </Badge>
                </div>
                <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-slate-500">
                  <span data-testid="refund-row-reason">
                    {r.reason ? t(`merchants.refund.reason.${r.reason}`) : t('merchants.refund.reasonNone')}
                  </span>
                  <span>{formatDateTime(r.created, lang)}</span>
                </div>
                {r.failure_reason && (
                  <p className="text-xs text-red-700" dir="ltr">
                    {r.failure_reason}
                  </p>
                )}
                <RefundSplit refund={r} />
              </li>
            );
          })}
        </ul>
      )}
      {refunds.hasNextPage && (
        <Button variant="outline" size="sm" onClick={() => void refunds.fetchNextPage()} disabled={refunds.isFetchingNextPage}>
          {t('merchants.payment.loadMore')}
        </Button>
      )}
    </section>
  );
}

/**
 * A payment opened: its figures (amount, received, refunded, what is left), its refund history, and Refund; or, in
 * refund mode, the refund form. A refund made returns to the details, where it shows in the history.
 */
export function PaymentDialog({
  merchantId,
  intent,
  mode,
  onModeChange,
  onClose,
}: {
  merchantId: string;
  intent: PaymentIntent | null;
  mode: PaymentDialogMode;
  onModeChange(mode: PaymentDialogMode): void;
  onClose(): void;
}) {
  const { t, lang } = useLanguage();
  const money = (cents: number) => (intent ? formatIntentAmount(cents, intent.currency) : '');
  const refundable = intent ? canRefund(intent) : false;
  return (
    <Dialog open={intent !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t('common.close')} data-testid="payment-dialog">
        <DialogHeader>
          <DialogTitle>{mode === 'refund' ? t('merchants.refund.title') : t('merchants.payment.title')}</DialogTitle>
          <DialogDescription>
            {mode === 'refund' ? (
              t('merchants.refund.description')
            ) : (
              <span className="break-all font-mono text-xs" dir="ltr">
                {intent?.id}
              </span>
            )}
          </DialogDescription>
        </DialogHeader>
        {intent &&
          (mode === 'refund' && refundable ? (
            <RefundForm
              key={intent.id}
              merchantId={merchantId}
              intent={intent}
              onDone={() => onModeChange('detail')}
              onCancel={() => onModeChange('detail')}
            />
          ) : (
            <div className="space-y-5">
              <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3">
                <Figure label={t('merchants.payment.amount')} testId="payment-amount">
                  <span dir="ltr">{money(intent.amount)}</span>
                </Figure>
                <Figure label={t('merchants.payment.received')} testId="payment-received">
                  <span dir="ltr">{money(intent.amount_received)}</span>
                </Figure>
                <Figure label={t('merchants.payment.refunded')} testId="payment-refunded">
                  <span dir="ltr">{money(intent.amount_refunded)}</span>
                </Figure>
                <Figure label={t('merchants.payment.left')} testId="payment-left">
                  <span dir="ltr">{money(refundableCents(intent))}</span>
                </Figure>
                <Figure label={t('merchants.payment.status')} testId="payment-status">
                  <IntentStatusBadge status={intent.status} />
                </Figure>
                <Figure label={t('merchants.payment.created')} testId="payment-created">
                  {formatDateTime(intent.created, lang)}
                </Figure>
              </dl>
              <Figure label={t('merchants.payment.descriptionLabel')} testId="payment-description">
                {intent.description ?? <span className="text-slate-400">{t('merchants.payment.noDescription')}</span>}
              </Figure>
              {hasCharge(intent) && <PaymentSplit merchantId={merchantId} intent={intent} />}
              <RefundHistory merchantId={merchantId} intent={intent} />
              <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
                <p className="text-xs text-slate-500" data-testid="payment-refund-note">
                  {refundable
                    ? ''
                    : intent.status === 'succeeded'
                      ? t('merchants.payment.fullyRefunded')
                      : t('merchants.payment.notRefundable')}
                </p>
                {refundable && (
                  <Button onClick={() => onModeChange('refund')} data-testid="payment-refund">
                    <Undo2 className="h-4 w-4" aria-hidden />
                    {t('merchants.refund.open')}
                  </Button>
                )}
              </div>
            </div>
          ))}
      </DialogContent>
    </Dialog>
  );
}
