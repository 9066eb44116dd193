import { CreditCard, Loader2, Sparkles, TriangleAlert } from 'lucide-react';
import { useId, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useLanguage } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { formatCents } from '../../../lib/money';
import { formatExpiry } from '../../../lib/card-display';
import { DEMO_ORDER, type FlowCard } from '../flow';

/** The marking every card the demos show carries: a sandbox test card, or the demo card that is not a real card. */
export function CardFlag({ card, testId }: { card: FlowCard; testId: string }) {
  const { t } = useLanguage();
  return (
    <p
      className={cn(
        'w-fit rounded-md px-2.5 py-1 text-xs font-semibold',
        card.kind === 'sandbox' ? 'bg-yellow-100 text-yellow-800' : 'bg-amber-100 text-amber-900',
      )}
      data-testid={testId}
      data-kind={card.kind}
    >
      {card.kind === 'sandbox' ? t('demos.card.sandboxFlag') : t('demos.card.demoFlag')}
    </p>
  );
}

/**
 * TechStore's own card form. Without a card it is the traditional form, turned off in the demo; with the bcard it
 * is filled in by bpay (read-only) and 'Complete Payment' submits it.
 */
export function MerchantCardForm({
  card,
  pending = false,
  problem = null,
  onComplete,
}: {
  card: FlowCard | null;
  pending?: boolean;
  problem?: string | null;
  onComplete?(): void;
}) {
  const { t } = useLanguage();
  const id = useId();
  const filled = card !== null;

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (filled && !pending) onComplete?.();
  }

  const field = cn('font-mono', filled && 'border-green-300! bg-green-50! text-slate-900');
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" data-testid="merchant-card-form" data-filled={filled}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="flex items-center gap-2 font-semibold text-slate-900">
          <CreditCard className="h-4 w-4 text-slate-500" aria-hidden />
          {t('demos.merchant.cardTitle')}
        </h3>
        {filled && (
          <span className="flex items-center gap-1 text-xs font-medium text-green-700" data-testid="merchant-autofilled">
            <Sparkles className="h-3.5 w-3.5" aria-hidden />
            {t('demos.merchant.autofilled')}
          </span>
        )}
      </div>
      <fieldset disabled={!filled} className="space-y-3" aria-describedby={filled ? undefined : `${id}-off`}>
        <div className="space-y-1.5">
          <Label htmlFor={`${id}-number`}>{t('demos.merchant.cardNumber')}</Label>
          <Input
            id={`${id}-number`}
            readOnly
            dir="ltr"
            className={field}
            value={card?.number ?? ''}
            placeholder="1234 1234 1234 1234"
            autoComplete="off"
            data-testid="merchant-card-number"
          />
        </div>
        <div className="grid grid-cols-2 gap-3">
          <div className="space-y-1.5">
            <Label htmlFor={`${id}-expiry`}>{t('demos.merchant.expiry')}</Label>
            <Input
              id={`${id}-expiry`}
              readOnly
              dir="ltr"
              className={field}
              value={card ? formatExpiry(card.expiryMonth, card.expiryYear) : ''}
              placeholder={t('demos.merchant.expiryPlaceholder')}
              autoComplete="off"
              data-testid="merchant-card-expiry"
            />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor={`${id}-cvc`}>{t('demos.merchant.cvc')}</Label>
            <Input
              id={`${id}-cvc`}
              readOnly
              dir="ltr"
              className={field}
              value={card ? (card.cvv ?? '•••') : ''}
              placeholder={t('demos.merchant.cvc')}
              autoComplete="off"
              aria-describedby={card && card.cvv === null ? `${id}-cvc-note` : undefined}
              data-testid="merchant-card-cvc"
            />
          </div>
        </div>
        {card && card.cvv === null && (
          <p id={`${id}-cvc-note`} className="text-xs text-slate-500">
            {t('demos.merchant.cvcHidden')}
          </p>
        )}
        <div className="space-y-1.5">
          <Label htmlFor={`${id}-name`}>{t('demos.merchant.name')}</Label>
          <Input
            id={`${id}-name`}
            readOnly
            className={cn(filled && 'border-green-300! bg-green-50! text-slate-900')}
            value={card?.cardholderName ?? ''}
            placeholder={t('demos.merchant.namePlaceholder')}
            autoComplete="off"
            data-testid="merchant-card-name"
          />
        </div>
      </fieldset>
      {card ? (
        <CardFlag card={card} testId="merchant-card-flag" />
      ) : (
        <p id={`${id}-off`} className="text-xs text-slate-500" data-testid="merchant-card-off">
          {t('demos.merchant.cardOff')}
        </p>
      )}
      {problem && (
        <div className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="merchant-complete-error">
          <TriangleAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
          <span className="min-w-0 flex-1">{problem}</span>
          <Button type="submit" size="sm" variant="outline" disabled={pending} data-testid="merchant-complete-retry">
            {t('common.retry')}
          </Button>
        </div>
      )}
      {filled ? (
        <Button type="submit" size="lg" className="w-full" disabled={pending} data-testid="merchant-complete">
          {pending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {t('demos.merchant.complete')}
        </Button>
      ) : (
        <Button type="button" size="lg" variant="secondary" className="w-full" disabled data-testid="merchant-card-pay">
          {t('demos.merchant.payCard')}&nbsp;<span dir="ltr">{formatCents(DEMO_ORDER.amountCents)}</span>
        </Button>
      )}
    </form>
  );
}
