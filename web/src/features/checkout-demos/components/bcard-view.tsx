import { ArrowRight, Loader2 } from 'lucide-react';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import { formatExpiry, isolateFor } from '../../../lib/card-display';
import { DEMO_ORDER, type FlowCard } from '../flow';
import { CardFlag } from './merchant-card-form';

/**
 * The bcard that will pay TechStore: the sandbox bcard's real details (masked number, no CVV) or the demo card.
 * A card face is left to right in every language.
 */
export function BcardView({ card, onContinue }: { card: FlowCard; onContinue(): void }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  return (
    <div className="space-y-4" data-testid="demo-bcard" data-kind={card.kind}>
      {/* Read out by the flow's live region (ProgressAnnouncer), which was there before this card appeared. */}
      <p className="text-sm font-medium text-green-700">
        {t('demos.card.ready', { amount: iso(formatCents(card.totalCents)) })}
      </p>
      <div
        className="mx-auto aspect-[1.586] w-full max-w-sm rounded-2xl bg-linear-to-br from-brand-600 via-brand-700 to-slate-900 p-5 text-white shadow-lg"
        dir="ltr"
        aria-label={t('demos.card.label')}
        role="group"
      >
        <div className="flex h-full flex-col justify-between">
          <div className="flex items-start justify-between gap-2">
            <span className="text-lg font-bold tracking-tight">{t('demos.card.brand')}</span>
            <span className="rounded bg-white/15 px-2 py-0.5 text-[10px] font-semibold uppercase tracking-wider">{card.kind === 'sandbox' ? t('demos.card.faceSandbox') : t('demos.card.faceDemo')}</span>
          </div>
          <p className="font-mono text-lg tracking-wider sm:text-xl" data-testid="demo-bcard-number">
            {card.number}
          </p>
          <div className="flex items-end justify-between gap-3 text-xs">
            <div className="min-w-0">
              <p className="text-white/60">{t('demos.card.holder')}</p>
              <p className="truncate font-medium uppercase" data-testid="demo-bcard-holder">
                {card.cardholderName}
              </p>
            </div>
            <div>
              <p className="text-white/60">{t('demos.card.expiry')}</p>
              <p className="font-mono font-medium" data-testid="demo-bcard-expiry">
                {formatExpiry(card.expiryMonth, card.expiryYear)}
              </p>
            </div>
            <div>
              <p className="text-white/60">{t('demos.card.cvv')}</p>
              <p className="font-mono font-medium" data-testid="demo-bcard-cvv">
                {card.cvv ?? '•••'}
              </p>
            </div>
          </div>
        </div>
      </div>
      <CardFlag card={card} testId="demo-card-flag" />
      {card.cvv === null && <p className="text-xs text-slate-500">{t('demos.card.cvvHidden')}</p>}
      <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
        <span className="flex items-center gap-2">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
          {t('demos.card.filling', { merchant: DEMO_ORDER.merchant })}
        </span>
        <Button variant="outline" size="sm" onClick={onContinue} data-testid="demo-bcard-continue">
          {t('demos.card.continue')}
          <ArrowRight className="h-4 w-4 rtl:rotate-180" aria-hidden />
        </Button>
      </div>
    </div>
  );
}
