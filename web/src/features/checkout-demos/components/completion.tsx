import { CircleCheck, RotateCcw } from 'lucide-react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import { DEMO_ORDER, type FlowCard, type FlowReceipt } from '../flow';

/**
 * TechStore's confirmation (step 5/5). A sandbox run shows the payment intent as the server has it (only reached
 * when it read back `succeeded`); a simulated run shows a made-up order number, marked as such.
 */
export function Completion({ receipt, card, onRestart }: { receipt: FlowReceipt; card: FlowCard | null; onRestart(): void }) {
  const { t } = useLanguage();
  const sandbox = receipt.kind === 'sandbox';
  return (
    <div className="mx-auto flex max-w-lg flex-col items-center gap-4 py-4 text-center" data-testid="demo-complete" data-kind={receipt.kind}>
      <CircleCheck className="h-14 w-14 text-green-600" aria-hidden />
      <div className="space-y-1">
        <p className="text-2xl font-semibold text-slate-900" role="status">
          {t('demos.complete.title')}
        </p>
        <p className="text-sm text-slate-600">{t('demos.complete.body', { merchant: DEMO_ORDER.merchant, item: t('demos.order.item') })}</p>
      </div>
      <dl className="w-full space-y-2 rounded-lg bg-slate-50 p-4 text-start text-sm">
        <div className="flex flex-wrap justify-between gap-x-4 gap-y-1">
          <dt className="text-slate-600">{sandbox ? t('demos.complete.intent') : t('demos.complete.order')}</dt>
          <dd className="break-all font-mono text-slate-900" dir="ltr" data-testid="demo-complete-reference">
            {receipt.reference}
          </dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-slate-600">{t('demos.complete.amount')}</dt>
          <dd className="tabular-nums font-medium" dir="ltr" data-testid="demo-complete-amount">
            {formatCents(receipt.amountCents)}
          </dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-slate-600">{t('demos.complete.status')}</dt>
          <dd className="font-mono text-green-700" dir="ltr" data-testid="demo-complete-status">
            {receipt.status}
          </dd>
        </div>
        {card && (
          <div className="flex justify-between gap-4">
            <dt className="text-slate-600">{t('demos.complete.paidWith')}</dt>
            <dd className="font-mono" dir="ltr">
              {t('demos.card.brand')} •••• {card.last4}
            </dd>
          </div>
        )}
      </dl>
      <p
        className={sandbox ? 'rounded-md bg-yellow-100 px-3 py-1.5 text-sm font-medium text-yellow-800' : 'rounded-md bg-amber-100 px-3 py-1.5 text-sm font-medium text-amber-900'}
        data-testid="demo-complete-flag"
      >
        {sandbox ? t('demos.complete.sandboxFlag') : t('demos.complete.demoFlag')}
      </p>
      <div className="flex w-full flex-col gap-2 sm:flex-row sm:justify-center">
        <Button variant="outline" onClick={onRestart} data-testid="demo-restart">
          <RotateCcw className="h-4 w-4" aria-hidden />
          {t('demos.complete.again')}
        </Button>
        <Link href="/" className={buttonClasses('primary', 'md')} data-testid="demo-complete-home">
          {t('common.backHome')}
        </Link>
      </div>
    </div>
  );
}
