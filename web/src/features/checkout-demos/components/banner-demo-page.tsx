import { Loader2 } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { useLanguage } from '../../../i18n';
import { isBpayPhase, isCancellable, stepOf } from '../flow';
import { useCheckoutDemo } from '../hooks/use-checkout-demo';
import { BpayFlowContent, bpayPhaseTitle } from './bpay-flow';
import { Completion } from './completion';
import { BpayMark, DemoPage, StoreFrame, storeHeading } from './demo-layout';
import { ExtensionBanner } from './extension-banner';
import { MerchantCardForm } from './merchant-card-form';
import { OrderSummary } from './order-summary';

/**
 * /banner-checkout-demo — the Customer Demo: TechStore knows nothing of bpay; bpay's extension offers itself in a
 * banner, runs the split and the bcard in an overlay, then fills the store's own card form (step 4/5).
 */
export function BannerCheckoutDemoPage() {
  const { t } = useLanguage();
  const demo = useCheckoutDemo();
  const { phase, receipt, card } = demo.flow;
  // Dismissed for this page view only: a new visit shows the banner again.
  const [bannerOpen, setBannerOpen] = useState(true);
  const tryDisabled = demo.modeLoading || demo.startPending;

  function onOverlayOpenChange(open: boolean) {
    if (open) return;
    if (phase.kind === 'card') demo.showMerchant();
    else if (isCancellable(phase)) demo.cancel();
    // While the bcard is being created the overlay stays: the payment is in flight.
  }

  return (
    <DemoPage
      title={t('demos.banner.title')}
      path="/banner-checkout-demo"
      demo={demo}
      testId="BannerCheckoutDemoPage"
      banner={bannerOpen && phase.kind === 'checkout' ? <ExtensionBanner onTry={demo.tryBpay} onDismiss={() => setBannerOpen(false)} disabled={tryDisabled} /> : null}
    >
      <StoreFrame step={stepOf(phase)} heading={t(storeHeading(phase))}>
        {phase.kind === 'complete' && receipt ? (
          <Completion receipt={receipt} card={card} onRestart={demo.restart} />
        ) : (
          <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
            <div className="min-w-0">
              {phase.kind === 'merchant' ? (
                <MerchantCardForm card={card} pending={demo.completePending} problem={demo.completeProblem} onComplete={demo.completePayment} />
              ) : (
                <MerchantCardForm card={null} />
              )}
            </div>
            <OrderSummary />
          </div>
        )}
      </StoreFrame>

      {!bannerOpen && phase.kind === 'checkout' && (
        <Button size="lg" className="fixed bottom-4 end-4 z-30 shadow-lg" onClick={demo.tryBpay} disabled={tryDisabled} data-testid="extension-try-bpay">
          {demo.startPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {t('demos.banner.try')}
        </Button>
      )}

      <Dialog open={isBpayPhase(phase)} onOpenChange={onOverlayOpenChange}>
        <DialogContent
          closeLabel={t('common.close')}
          onEscapeKeyDown={(e) => {
            if (phase.kind === 'creating') e.preventDefault();
          }}
          // A click beside the overlay must not abandon a payment half-way; Close and Escape do.
          onInteractOutside={(e) => e.preventDefault()}
          data-testid="bpay-overlay"
          data-phase={phase.kind}
        >
          <DialogHeader>
            <DialogTitle className="flex flex-wrap items-center gap-2">
              <BpayMark small />
              <span>{t(bpayPhaseTitle(phase))}</span>
            </DialogTitle>
            <DialogDescription>{t('demos.banner.overlayDescription')}</DialogDescription>
          </DialogHeader>
          <BpayFlowContent demo={demo} />
        </DialogContent>
      </Dialog>
    </DemoPage>
  );
}
