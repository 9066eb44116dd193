import { Link } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button, buttonClasses } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { PLAN_PAYMENT_TONE, type PlanPayment } from '../plan-payments';
import { formatAmount } from '../transactions';
import { formatDateTime, formatDateUtc } from './format';
import { DetailDialog, DetailRow as Row } from './detail-dialog';

/** One plan payment's receipt: plan, period, amount, card, status (and why it failed), and the charge id to quote. */
export function PlanPaymentReceiptDialog({ payment, onClose }: { payment: PlanPayment | null; onClose(): void }) {
  const { t, lang } = useLanguage();
  const p = payment;
  const period = !p ? '' : t('dashboard.planPayments.period', { start: formatDateUtc(p.periodStart, lang), end: formatDateUtc(p.periodEnd, lang) });

  return (
    <DetailDialog
      open={p !== null}
      onClose={onClose}
      testId="plan-payment-receipt"
      title={t('dashboard.planPayments.receipt.title')}
      description={t('dashboard.planPayments.receipt.description')}
    >
        {p && (
          <dl className="divide-y divide-slate-100">
            <Row label={t('dashboard.planPayments.receipt.plan')} testId="plan-payment-receipt-plan">
              {p.planName} · {t(`dashboard.planPayments.kind.${p.kind}`)}
            </Row>
            <Row label={t('dashboard.planPayments.receipt.period')} testId="plan-payment-receipt-period">
              {period}
            </Row>
            <Row label={t('dashboard.planPayments.receipt.date')}>
              <time dateTime={p.createdAt}>{formatDateTime(p.createdAt, lang)}</time>
            </Row>
            {p.proration && (
              <>
                <Row label={t('dashboard.planPayments.unused', { plan: p.proration.unusedPlanName, period })} testId="plan-payment-receipt-unused">
                  <span dir="ltr">−{formatAmount(p.proration.credit)}</span>
                </Row>
                <Row label={t('dashboard.planPayments.remaining', { plan: p.planName, period })} testId="plan-payment-receipt-remaining">
                  <span dir="ltr">{formatAmount(p.proration.remaining)}</span>
                </Row>
              </>
            )}
            <Row label={t(p.proration ? 'dashboard.planPayments.total' : 'dashboard.planPayments.receipt.amount')} testId="plan-payment-receipt-amount">
              <span dir="ltr">{formatAmount(p.amount)}</span>
            </Row>
            <Row label={t('dashboard.planPayments.receipt.card')} testId="plan-payment-receipt-card">
              {p.fundingSource.name}{' '}
              <span className="font-mono text-slate-500" dir="ltr">
                •••• {p.fundingSource.last4}
              </span>
            </Row>
            <Row label={t('dashboard.planPayments.receipt.status')} testId="plan-payment-receipt-status">
              <Badge tone={PLAN_PAYMENT_TONE[p.status]}>{t(`dashboard.planPayments.status.${p.status}`)}</Badge>
            </Row>
            {p.failureMessage && (
              <Row label={t('dashboard.planPayments.receipt.failure')}>
                <span className="text-red-700">{p.failureMessage}</span>
              </Row>
            )}
            <Row label={t('dashboard.planPayments.receipt.id')} testId="plan-payment-receipt-id">
              <span className="break-all font-mono text-xs" dir="ltr">
                {p.id}
              </span>
            </Row>
          </dl>
        )}
        <div className="mt-5 flex flex-wrap justify-end gap-2">
          <Link href="/plans" className={buttonClasses('outline')} data-testid="plan-payment-receipt-plans">
            {t('dashboard.planPayments.manage')}
          </Link>
          <Button variant="outline" onClick={onClose}>
            {t('common.close')}
          </Button>
        </div>
    </DetailDialog>
  );
}
