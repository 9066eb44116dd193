import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../../components/ui/badge';
import { LoadError } from '../../../components/ui/list-state';
import { useLanguage, type MessageKey } from '../../../i18n';
import { paymentChargeQuery, refundAllocations, type ChargeAllocation, type PaymentIntent, type Refund, type RefundAllocation } from '../api';
import { formatIntentAmount, type Tone } from '../display';

/*
 * How a payment was funded (issue 28 §2): each share of the consumer's bcard (card or bank, •••• last 4, funding type,
 * amount, status, amount refunded to it), and how much of each refund went back to each share. Nothing more of the
 * consumer than a Stripe charge shows.
 */

const SHARE_STATUS: Record<ChargeAllocation['status'], { tone: Tone; label: MessageKey }> = {
  succeeded: { tone: 'green', label: 'merchants.split.status.succeeded' },
  pending: { tone: 'yellow', label: 'merchants.split.status.pending' },
  failed: { tone: 'red', label: 'merchants.split.status.failed' },
};
const REFUND_SHARE_STATUS: Record<RefundAllocation['status'], { tone: Tone; label: MessageKey }> = {
  succeeded: { tone: 'green', label: 'merchants.split.refundStatus.succeeded' },
  pending: { tone: 'yellow', label: 'merchants.split.refundStatus.pending' },
  failed: { tone: 'red', label: 'merchants.split.refundStatus.failed' },
};
const FUNDING: Record<ChargeAllocation['funding'], MessageKey> = {
  credit: 'merchants.split.funding.credit',
  debit: 'merchants.split.funding.debit',
  prepaid: 'merchants.split.funding.prepaid',
  bank_account: 'merchants.split.funding.bank_account',
};

/** An intent a bcard paid or authorized has a charge. */
export const hasCharge = (intent: PaymentIntent) => intent.status === 'succeeded' || intent.status === 'requires_capture';

function useSourceName() {
  const { t } = useLanguage();
  return (a: { funding: ChargeAllocation['funding']; brand: string | null; last4: string }) =>
    t('merchants.split.source', {
      name: a.funding === 'bank_account' ? t('merchants.split.bank') : a.brand ? a.brand.charAt(0).toUpperCase() + a.brand.slice(1) : t('merchants.split.card'),
      last4: a.last4,
    });
}

/** The payment's shares, in the order they were collected. */
export function PaymentSplit({ merchantId, intent }: { merchantId: string; intent: PaymentIntent }) {
  const { t } = useLanguage();
  const sourceName = useSourceName();
  const charge = useQuery(paymentChargeQuery(merchantId, intent.id));
  const money = (cents: number) => formatIntentAmount(cents, intent.currency);
  const shares = charge.data?.allocations ?? [];
  return (
    <section className="space-y-2" aria-labelledby="payment-split-title" data-testid="payment-split">
      <h3 id="payment-split-title" className="text-sm font-semibold text-slate-900">
        {t('merchants.split.title')}
      </h3>
      {charge.isLoading ? (
        <div className="h-12 animate-pulse rounded-lg bg-slate-100" aria-busy="true" aria-label={t('common.loading')} />
      ) : charge.isError ? (
        <LoadError message={t('merchants.split.loadFailed')} error={charge.error} onRetry={() => void charge.refetch()} />
      ) : (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200">
          {shares.map((a, i) => {
            const status = SHARE_STATUS[a.status];
            return (
              <li key={i} className="space-y-1 px-3 py-2 text-sm" data-testid="split-share" data-status={a.status} data-funding={a.funding}>
                <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
                  <span className="min-w-0">
                    <span className="font-medium text-slate-900" dir="ltr" data-testid="split-share-source">
                      {sourceName(a)}
                    </span>{' '}
                    <span className="text-xs text-slate-500" data-testid="split-share-funding">
                      {t(FUNDING[a.funding])}
                    </span>
                  </span>
                  <span className="font-medium tabular-nums" dir="ltr" data-testid="split-share-amount">
                    {money(a.amount)}
                  </span>
                </div>
                <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 text-xs text-slate-500">
                  <Badge tone={status.tone} data-testid="split-share-status">
                    {t(status.label)}
                  </Badge>
                  {a.amount_refunded > 0 && (
                    <span data-testid="split-share-refunded">{t('merchants.split.refunded', { amount: money(a.amount_refunded) })}</span>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** How much of one refund went back to each share (nothing when the refund carries no split). */
export function RefundSplit({ refund }: { refund: Refund }) {
  const { t } = useLanguage();
  const sourceName = useSourceName();
  const parts = refundAllocations(refund);
  if (parts.length === 0) return null;
  return (
    <div className="pt-1">
      <p className="text-xs font-medium text-slate-600">{t('merchants.split.refundTitle')}</p>
      <ul className="mt-1 space-y-1" data-testid="refund-split">
        {parts.map((a, i) => {
          const status = REFUND_SHARE_STATUS[a.status];
          return (
            <li key={i} className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 text-xs" data-testid="refund-split-share" data-status={a.status}>
              <span className="text-slate-700" dir="ltr" data-testid="refund-split-source">
                {sourceName(a)}
              </span>
              <span className="flex items-center gap-2">
                <span className="tabular-nums" dir="ltr" data-testid="refund-split-amount">
                  {formatIntentAmount(a.amount, refund.currency)}
                </span>
                <Badge tone={status.tone} data-testid="refund-split-status">
                  {t(status.label)}
                </Badge>
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
