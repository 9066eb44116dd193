import { Receipt } from 'lucide-react';
import { useLanguage } from '../../../i18n';
import { formatDateTime, formatIntentAmount, metadataKeyCount } from '../display';
import type { PaymentIntent } from '../types';
import { IntentStatusBadge } from './intent-status-badge';

/** Payment intents as a table (spec §2): id, amount, status, created, metadata key count or None. */
export function IntentsTable({ intents, testId }: { intents: readonly PaymentIntent[]; testId: string }) {
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
    <div className="overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full min-w-[40rem] text-sm" data-testid={testId}>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.id')}</th>
            <th scope="col" className="px-4 py-2.5 text-end font-medium">{t('merchants.payments.col.amount')}</th>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.status')}</th>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.created')}</th>
            <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.payments.col.metadata')}</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {intents.map((pi) => {
            const keys = metadataKeyCount(pi.metadata);
            return (
              <tr key={pi.id} data-testid="payment-intent-row" data-id={pi.id}>
                <td className="px-4 py-3 font-mono text-xs text-slate-700" dir="ltr">
                  {pi.id}
                </td>
                <td className="px-4 py-3 text-end font-medium tabular-nums" dir="ltr">
                  {formatIntentAmount(pi.amount, pi.currency)}
                </td>
                <td className="px-4 py-3">
                  <IntentStatusBadge status={pi.status} />
                </td>
                <td className="whitespace-nowrap px-4 py-3 text-slate-600">{formatDateTime(pi.created, lang)}</td>
                <td className="px-4 py-3 text-slate-600">
                  {keys === null
                    ? t('merchants.payments.metadataNone')
                    : keys === 1
                      ? t('merchants.payments.metadataKey')
                      : t('merchants.payments.metadataKeys', { n: keys })}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
