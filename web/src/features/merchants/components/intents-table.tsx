import { Eye, Receipt, Undo2 } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { formatDateTime, formatIntentAmount, metadataKeyCount } from '../display';
import { canRefund, refundState } from '../refunds';
import type { PaymentIntent } from '../api';
import { IntentStatusBadge } from './intent-status-badge';

/**
 * Payment intents as a table (spec §2): id, amount, status, created, metadata key count or None. With `onOpen` and
 * `onRefund` (the Payments tab), each row also opens its details, and a refundable one offers Refund.
 */
export function IntentsTable({
  intents,
  testId,
  onOpen,
  onRefund,
}: {
  intents: readonly PaymentIntent[];
  testId: string;
  onOpen?(intent: PaymentIntent): void;
  onRefund?(intent: PaymentIntent): void;
}) {
  const actions = onOpen !== undefined || onRefund !== undefined;
  const { t, lang } = useLanguage();
  if (intents.length === 0) {
    return (
      <div
        className="flex flex-col items-center justify-center rounded-xl border border-dashed border-slate-300 px-6 py-10 text-center"
        data-testid="payments-empty"
      >
        <span className="mb-3 flex h-11 w-11 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
          <Receipt className="h-5 w-5" />
        </span>
        <p className="text-base font-semibold text-slate-900">{t('merchants.payments.empty')}</p>
        <p className="mt-1 max-w-sm text-sm text-slate-500">{t('merchants.payments.emptyBody')}</p>
      </div>
    );
  }
  return (
    // relative: the actions header's sr-only text is absolutely placed; with no positioned ancestor it would sit at
    // the scrolled table's far edge, and on a right-to-left page widen the whole page to reach it.
    <div className="relative overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full min-w-[48rem] text-sm" data-testid={testId}>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.id')}</th>
            <th scope="col" className="px-4 py-2.5 text-end font-medium">{t('merchants.payments.col.amount')}</th>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.status')}</th>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.created')}</th>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.metadata')}</th>
            {actions && (
              <th scope="col" className="px-4 py-2.5 text-end font-medium">
                <span className="sr-only">{t('merchants.payments.col.actions')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {intents.map((pi) => {
            const keys = metadataKeyCount(pi.metadata);
            const refunded = refundState(pi);
            return (
              <tr key={pi.id} data-testid="payment-intent-row" data-id={pi.id}>
                <td className="px-4 py-3 font-mono text-xs text-slate-700" dir="ltr">
                  {pi.id}
                </td>
                <td className="px-4 py-3 text-end font-medium tabular-nums" dir="ltr">
                  {formatIntentAmount(pi.amount, pi.currency)}
                </td>
                <td className="px-4 py-3">
                  <div className="flex flex-wrap items-center gap-1.5">
                    <IntentStatusBadge status={pi.status} />
                    {refunded !== 'none' && (
                      <Badge tone="neutral" className="whitespace-nowrap" data-testid="intent-refund-state" data-state={refunded}>
                        {refunded === 'full' ? t('merchants.refundState.full') : t('merchants.refundState.partial')}
                      </Badge>
                    )}
                  </div>
                </td>
                <td className="whitespace-nowrap px-4 py-3 text-slate-600">{formatDateTime(pi.created, lang)}</td>
                <td className="px-4 py-3 text-slate-600">
                  {keys === null
                    ? t('merchants.payments.metadataNone')
                    : keys === 1
                      ? t('merchants.payments.metadataKey')
                      : t('merchants.payments.metadataKeys', { n: keys })}
                </td>
                {actions && (
                  <td className="px-4 py-3 text-end">
                    <div className="flex justify-end gap-1">
                      {onOpen && (
                        <Button
                          variant="ghost"
                          size="sm"
                          onClick={() => onOpen(pi)}
                          aria-label={t('merchants.payment.openLabel', { id: pi.id })}
                          data-testid="payment-open"
                        >
                          <Eye className="h-4 w-4" aria-hidden />
                          {t('merchants.payment.open')}
                        </Button>
                      )}
                      {onRefund && canRefund(pi) && (
                        <Button
                          variant="outline"
                          size="sm"
                          onClick={() => onRefund(pi)}
                          aria-label={t('merchants.refund.openLabel', { id: pi.id })}
                          data-testid="payment-refund-open"
                        >
                          <Undo2 className="h-4 w-4" aria-hidden />
                          {t('merchants.refund.open')}
                        </Button>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
