import { CheckCircle2, FlaskConical, LayoutDashboard, RefreshCw, Shuffle } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import type { Completion, Scenario } from '../flow';

function Line({ label, children, testId, strong }: { label: string; children: ReactNode; testId: string; strong?: boolean }) {
  return (
    <div className={strong ? 'flex justify-between gap-4 border-t border-slate-200 pt-2 font-semibold' : 'flex justify-between gap-4'}>
      <dt className="text-slate-600">{label}</dt>
      <dd className="min-w-0 text-end tabular-nums text-slate-900 [overflow-wrap:anywhere]" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** Complete (spec §2): 'Payment Successful!' with amount, merchant, bpay fee and transaction id, and the three ways on. */
export function CompleteStep({
  completion: c,
  scenario,
  onAnother,
  onTryOther,
}: {
  completion: Completion;
  scenario: Scenario;
  onAnother(): void;
  onTryOther(): void;
}) {
  const { t } = useLanguage();
  return (
    <Card data-testid="pd-complete-step" className="mx-auto max-w-xl">
      <CardContent className="space-y-6 pt-6">
        <div className="flex flex-col items-center gap-2 text-center">
          <CheckCircle2 className="h-14 w-14 text-green-600" aria-hidden />
          <h2 tabIndex={-1} data-step-heading data-testid="pd-step-heading" className="text-2xl font-bold text-slate-900 outline-none">
            {t('paymentDemo.complete.title')}
          </h2>
          <p className="text-sm text-slate-600">{t('paymentDemo.complete.description')}</p>
        </div>
        <dl className="space-y-2 rounded-lg bg-slate-50 p-4 text-sm">
          <Line label={t('paymentDemo.complete.amount')} testId="pd-complete-amount">
            <span dir="ltr">{formatCents(c.amountCents)}</span>
          </Line>
          <Line label={t('paymentDemo.complete.merchant')} testId="pd-complete-merchant">
            {c.merchant}
          </Line>
          <Line label={t('paymentDemo.complete.fee')} testId="pd-complete-fee">
            <span dir="ltr">{formatCents(c.feeCents)}</span>
          </Line>
          <Line label={t('paymentDemo.complete.total')} testId="pd-complete-total" strong>
            <span dir="ltr">{formatCents(c.totalCents)}</span>
          </Line>
          <Line label={t('paymentDemo.complete.transactionId')} testId="pd-transaction-id">
            <span className="font-mono text-xs" dir="ltr">
              {c.transactionId}
            </span>
          </Line>
        </dl>
        {c.isDemo ? (
          <p className="flex items-center justify-center gap-2 text-sm text-amber-800" data-testid="pd-demo-transaction">
            <FlaskConical className="h-4 w-4 shrink-0" aria-hidden />
            {t('paymentDemo.complete.demoId')}
          </p>
        ) : (
          <p className="flex items-center justify-center gap-2 text-center text-sm text-blue-900" data-testid="pd-test-payment">
            {t('paymentDemo.complete.testPayment')}
          </p>
        )}
        <div className="flex flex-col gap-2">
          <Button onClick={onAnother} data-testid="pd-another">
            <RefreshCw className="h-4 w-4" aria-hidden />
            {t('paymentDemo.complete.another')}
          </Button>
          <Button variant="outline" onClick={onTryOther} data-testid="pd-try-other">
            <Shuffle className="h-4 w-4" aria-hidden />
            {scenario === 'success' ? t('paymentDemo.complete.tryFailure') : t('paymentDemo.complete.trySuccess')}
          </Button>
          <Link href="/" className={buttonClasses('ghost')} data-testid="pd-dashboard">
            <LayoutDashboard className="h-4 w-4" aria-hidden />
            {t('paymentDemo.complete.dashboard')}
          </Link>
        </div>
      </CardContent>
    </Card>
  );
}
