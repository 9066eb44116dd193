import { useQuery } from '@tanstack/react-query';
import { CreditCard, Download, Eye, Sparkles } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { PLAN_PAYMENT_TONE, planPaymentsCsvUrl, planPaymentsFor, planPaymentsQuery, type PlanPayment } from '../plan-payments';
import { formatAmount, type StatusFilter } from '../transactions';
import { formatDate } from './format';
import { PlanPaymentReceiptDialog } from './plan-payment-receipt-dialog';

/**
 * The Transactions tab's plan payments: what the user paid (or tried to pay) for their bpay plan, under the tab's
 * status filter, each with its receipt. Nothing at all is shown while there are none (or none match the filter),
 * and nothing while loading; a failed load says so, with Retry.
 */
export function PlanPaymentsSection({ filter }: { filter: StatusFilter }) {
  const { t, lang } = useLanguage();
  const query = useQuery(planPaymentsQuery());
  const [viewing, setViewing] = useState<PlanPayment | null>(null);
  const rows = planPaymentsFor(query.data ?? [], filter);

  if (query.isError) {
    return (
      <Card>
        <CardContent className="pt-6">
          <div className="space-y-3 rounded-xl border border-red-200 bg-red-50 p-6" role="alert" data-testid="plan-payments-error">
            <p className="text-sm text-red-700">
              {t('dashboard.planPayments.loadFailed')} {messageOf(query.error)}
            </p>
            <Button variant="outline" size="sm" onClick={() => void query.refetch()}>
              {t('common.retry')}
            </Button>
          </div>
        </CardContent>
      </Card>
    );
  }
  if (rows.length === 0) return null;

  return (
    <Card aria-labelledby="plan-payments-title" role="region" data-testid="plan-payments">
      <div className="flex flex-col gap-4 p-6 lg:flex-row lg:items-end lg:justify-between">
        <div className="space-y-1.5">
          <CardTitle level={2} id="plan-payments-title">
            {t('dashboard.planPayments.title')}
          </CardTitle>
          <CardDescription>{t('dashboard.planPayments.description')}</CardDescription>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Link href="/plans" className={buttonClasses('outline', 'sm', 'h-9')} data-testid="plan-payments-plans">
            <Sparkles className="h-4 w-4" aria-hidden />
            {t('dashboard.planPayments.manage')}
          </Link>
          <a href={planPaymentsCsvUrl(filter)} download className={buttonClasses('outline', 'sm', 'h-9')} data-testid="plan-payments-export">
            <Download className="h-4 w-4" aria-hidden />
            {t('dashboard.planPayments.export')}
          </a>
        </div>
      </div>
      <CardContent>
        <ul className="divide-y divide-slate-100" data-testid="plan-payment-list">
          {rows.map((p) => {
            const status = t(`dashboard.planPayments.status.${p.status}`);
            return (
              <li key={p.id} className="flex items-start gap-4 py-4" data-testid="plan-payment-row" data-charge-id={p.id}>
                <span
                  className="hidden h-10 w-10 shrink-0 items-center justify-center rounded-full bg-blue-50 text-blue-600 sm:flex"
                  aria-hidden
                >
                  <Sparkles className="h-5 w-5" />
                </span>
                <div className="min-w-0 flex-1 space-y-1">
                  <div className="flex flex-wrap items-center gap-2">
                    <p className="font-medium text-slate-900" data-testid="plan-payment-plan">
                      {t('dashboard.planPayments.rowTitle', { plan: p.planName })}
                    </p>
                    <Badge tone={PLAN_PAYMENT_TONE[p.status]} data-testid="plan-payment-status">
                      {status}
                    </Badge>
                  </div>
                  <p className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-slate-500">
                    <time dateTime={p.createdAt}>{formatDate(p.createdAt, lang)}</time>
                    <span aria-hidden>·</span>
                    <span>{t(`dashboard.planPayments.kind.${p.kind}`)}</span>
                    <span aria-hidden>·</span>
                    <span className="inline-flex items-center gap-1" data-testid="plan-payment-card">
                      <CreditCard className="h-3.5 w-3.5" aria-hidden />
                      <span className="font-mono" dir="ltr">
                        •••• {p.fundingSource.last4}
                      </span>
                    </span>
                  </p>
                  {p.failureMessage && <p className="text-sm text-red-700">{p.failureMessage}</p>}
                </div>
                <div className="flex shrink-0 flex-col items-end gap-1.5">
                  <p className="font-semibold tabular-nums text-slate-900" dir="ltr" data-testid="plan-payment-amount">
                    {formatAmount(p.amount)}
                  </p>
                  <Button
                    variant="outline"
                    size="sm"
                    onClick={() => setViewing(p)}
                    data-testid="plan-payment-view"
                    aria-label={t('dashboard.planPayments.viewLabel', { plan: p.planName, date: formatDate(p.createdAt, lang) })}
                  >
                    <Eye className="h-4 w-4" aria-hidden />
                    {t('dashboard.planPayments.view')}
                  </Button>
                </div>
              </li>
            );
          })}
        </ul>
      </CardContent>
      <PlanPaymentReceiptDialog payment={viewing} onClose={() => setViewing(null)} />
    </Card>
  );
}
