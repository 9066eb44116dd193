import { Loader2, Sparkles } from 'lucide-react';
import { useRef } from 'react';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { isolateFor } from '../../../lib/card-display';
import { isBpayPhase, stepOf } from '../flow';
import { useCheckoutDemo, type CheckoutDemo } from '../hooks/use-checkout-demo';
import { useStepFocus } from '../hooks/use-step-focus';
import { BpayFlowContent, bpayPhaseTitle } from './bpay-flow';
import { Completion } from './completion';
import { BpayMark, DemoPage, StoreFrame, storeHeading } from './demo-layout';
import { MerchantCardForm } from './merchant-card-form';
import { OrderSummary } from './order-summary';

/** The merchant's bpay add-on: an offer beside the card form (spec §2, Addon-mode demo). */
function TryBpayOffer({ demo }: { demo: CheckoutDemo }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  return (
    <div className="space-y-3 rounded-xl border-2 border-brand-500/40 bg-brand-50/50 p-4" data-testid="try-bpay-offer">
      <div className="flex flex-wrap items-center gap-2">
        <BpayMark small />
        <span className="flex items-center gap-1 text-xs font-medium text-brand-700">
          <Sparkles className="h-3.5 w-3.5" aria-hidden />
          {t('demos.addon.offerBadge')}
        </span>
      </div>
      <p className="text-sm text-slate-700">{t('demos.addon.offerBody')}</p>
      <p className="text-xs text-slate-600" data-testid="try-bpay-fee">
        {t('demos.addon.fee', { fee: iso(`${demo.feePercentage}%`) })}
      </p>
      <Button size="lg" className="w-full" onClick={demo.tryBpay} disabled={demo.modeLoading || demo.startPending} data-testid="try-bpay">
        {demo.startPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {t('demos.addon.try')}
      </Button>
    </div>
  );
}

/** /addon-checkout-demo — the Merchant Demo: TechStore's checkout with bpay built in (the widget's flow). */
export function AddonCheckoutDemoPage() {
  const { t } = useLanguage();
  const demo = useCheckoutDemo();
  const { phase, receipt, card } = demo.flow;
  // Each new step takes the focus: bpay's panel heading inside bpay, the store's heading on the store's own steps.
  const storeHeadingRef = useRef<HTMLHeadingElement>(null);
  const bpayHeadingRef = useRef<HTMLHeadingElement>(null);
  useStepFocus(phase, (p) => (isBpayPhase(p) ? bpayHeadingRef.current : storeHeadingRef.current));
  return (
    <DemoPage title={t('demos.addon.title')} path="/addon-checkout-demo" demo={demo} testId="AddonCheckoutDemoPage">
      <StoreFrame step={stepOf(phase)} heading={t(storeHeading(phase))} headingRef={storeHeadingRef}>
        {phase.kind === 'complete' && receipt ? (
          <Completion receipt={receipt} card={card} onRestart={demo.restart} />
        ) : (
          <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
            <div className="min-w-0 space-y-6">
              {phase.kind === 'checkout' && (
                <>
                  <TryBpayOffer demo={demo} />
                  <div className="flex items-center gap-3 text-xs uppercase tracking-wider text-slate-500" aria-hidden>
                    <span className="h-px flex-1 bg-slate-200" />
                    {t('demos.addon.or')}
                    <span className="h-px flex-1 bg-slate-200" />
                  </div>
                  <MerchantCardForm card={null} />
                </>
              )}
              {isBpayPhase(phase) && (
                <section className="space-y-4 rounded-xl border-2 border-brand-500/40 p-4" aria-labelledby="bpay-panel-title" data-testid="bpay-panel" data-phase={phase.kind}>
                  <div className="flex flex-wrap items-center gap-3">
                    <BpayMark small />
                    <h3 id="bpay-panel-title" ref={bpayHeadingRef} tabIndex={-1} className="font-semibold text-slate-900">
                      {t(bpayPhaseTitle(phase))}
                    </h3>
                  </div>
                  <BpayFlowContent demo={demo} />
                </section>
              )}
              {phase.kind === 'merchant' && (
                <MerchantCardForm card={card} pending={demo.completePending} problem={demo.completeProblem} onComplete={demo.completePayment} />
              )}
            </div>
            <OrderSummary />
          </div>
        )}
      </StoreFrame>
    </DemoPage>
  );
}
