import { CreditCard, Undo2 } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { useLanguage, type MessageKey } from '../../../i18n';
import { formatAmount, formatCents, partBrand, refundBackCents, refundReasonKind, type RefundReasonKind } from '../transactions';
import type { TransactionRefund, TransactionShare } from '../../transactions/api';
import { formatDateTime } from './format';

const statusTone = { succeeded: 'green', pending: 'yellow', failed: 'red' } as const;
const statusLabel: Record<TransactionRefund['status'], MessageKey> = {
  succeeded: 'dashboard.refunds.status.succeeded',
  pending: 'dashboard.refunds.status.pending',
  failed: 'dashboard.refunds.status.failed',
};
const reasonLabel: Record<Exclude<RefundReasonKind, 'other'>, MessageKey> = {
  requested_by_customer: 'dashboard.refunds.reason.requested_by_customer',
  duplicate: 'dashboard.refunds.reason.duplicate',
  fraudulent: 'dashboard.refunds.reason.fraudulent',
  none: 'dashboard.refunds.reason.none',
};
/* The funding sources tab's brand names (the dashboard area registers that catalogue too). */
const brandLabel: Record<string, MessageKey> = {
  visa: 'fundingSources.brand.visa',
  mastercard: 'fundingSources.brand.mastercard',
  amex: 'fundingSources.brand.amex',
};

/**
 * The merchant's refunds of a purchase, newest first: each refund's amount, date, status and reason in words, the
 * part of the bpay fee that came back with it, and how much went back to which funding source ("Visa •••• 4242:
 * $15.38"); then how the fee is returned. Nothing is rendered when there are no refunds.
 */
export function TransactionRefunds({ refunds, shares }: { refunds: readonly TransactionRefund[]; shares: readonly TransactionShare[] }) {
  const { t, lang } = useLanguage();
  if (refunds.length === 0) return null;
  return (
    <section aria-labelledby="transaction-refunds-title" data-testid="transaction-refunds">
      <h3 id="transaction-refunds-title" className="mb-2 flex items-center gap-2 text-sm font-semibold text-slate-900">
        <Undo2 className="h-4 w-4 text-slate-400" aria-hidden />
        {t('dashboard.refunds.title')}
      </h3>
      <ul className="space-y-3">
        {refunds.map((r) => {
          const reason = refundReasonKind(r.reason);
          const partsId = `refund-parts-${r.id}`;
          const failed = r.status === 'failed';
          return (
            <li key={r.id} className="rounded-lg border border-slate-200 p-3" data-testid="transaction-refund" data-refund-id={r.id}>
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-slate-900" data-testid="transaction-refund-amount">
                    {t('dashboard.refunds.refundOf')}{' '}
                    <span className="tabular-nums" dir="ltr">
                      {formatAmount(r.amount)}
                    </span>
                  </p>
                  <p className="text-xs text-slate-500">
                    <time dateTime={r.createdAt}>{formatDateTime(r.createdAt, lang)}</time>
                  </p>
                </div>
                <Badge tone={statusTone[r.status]} data-testid="transaction-refund-status">
                  {t(statusLabel[r.status])}
                </Badge>
              </div>

              <dl className="mt-2 space-y-1 text-sm">
                <div className="flex items-start justify-between gap-4">
                  <dt className="text-slate-500">{t('dashboard.refunds.reason')}</dt>
                  <dd className="text-end text-slate-900" data-testid="transaction-refund-reason">
                    {reason === 'other' ? r.reason : t(reasonLabel[reason])}
                  </dd>
                </div>
                {!failed && (
                  <div className="flex items-start justify-between gap-4">
                    <dt className="text-slate-500">{t('dashboard.refunds.fee')}</dt>
                    <dd className="text-end tabular-nums text-slate-900" dir="ltr" data-testid="transaction-refund-fee">
                      {formatAmount(r.fee)}
                    </dd>
                  </div>
                )}
              </dl>

              {/* A failed refund sent nothing back: no fee, no parts, only the note below. */}
              {!failed && r.parts.length > 0 && (
                <div className="mt-2 border-t border-slate-100 pt-2">
                  <p id={partsId} className="flex items-start justify-between gap-4 text-sm font-medium text-slate-900">
                    <span>{t('dashboard.refunds.total')}</span>
                    <span className="tabular-nums" dir="ltr" data-testid="transaction-refund-total">
                      {formatCents(refundBackCents(r))}
                    </span>
                  </p>
                  <ul aria-labelledby={partsId} className="mt-1 space-y-1" data-testid="transaction-refund-parts">
                    {r.parts.map((p) => {
                      const brand = partBrand(p, shares);
                      const brandKey = brand ? brandLabel[brand] : undefined;
                      return (
                        <li key={p.fundingSourceId} className="flex items-center gap-2 text-sm text-slate-700" data-testid="transaction-refund-part">
                          <CreditCard className="h-4 w-4 shrink-0 text-slate-400" aria-hidden />
                          <span className="min-w-0 flex-1 truncate">
                            {brandKey ? t(brandKey) : p.name}{' '}
                            <span className="font-mono text-slate-500" dir="ltr">
                              •••• {p.last4}
                            </span>
                            :
                          </span>{' '}
                          <span className="shrink-0 font-semibold tabular-nums text-slate-900" dir="ltr">
                            {formatAmount(p.amount)}
                          </span>
                        </li>
                      );
                    })}
                  </ul>
                </div>
              )}

              {r.status === 'pending' && <p className="mt-2 text-xs text-yellow-800">{t('dashboard.refunds.pendingNote')}</p>}
              {failed && <p className="mt-2 text-xs text-red-700">{t('dashboard.refunds.failedNote')}</p>}
            </li>
          );
        })}
      </ul>
      <p className="mt-2 text-xs text-slate-500" data-testid="transaction-refunds-fee-note">
        {t('dashboard.refunds.feeNote')}
      </p>
    </section>
  );
}
