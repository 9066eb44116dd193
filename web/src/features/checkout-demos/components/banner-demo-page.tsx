import { Loader2, Puzzle } from 'lucide-react';
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { useLanguage } from '../../../i18n';
import { isBpayPhase, isCancellable, stepOf } from '../flow';
import { useCheckoutDemo } from '../hooks/use-checkout-demo';
import { useStepFocus } from '../hooks/use-step-focus';
import { BpayFlowContent, bpayPhaseTitle } from './bpay-flow';
import { BpayOverlayContent } from './bpay-overlay';
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
  const { t, lang } = useLanguage();
  const demo = useCheckoutDemo();
  const { phase, receipt, card } = demo.flow;
  // Dismissed for this page view only: a new visit shows the banner again.
  const [bannerOpen, setBannerOpen] = useState(true);
  const tryDisabled = demo.modeLoading || demo.startPending;
  /*
   * Each new step takes the focus: the overlay's title inside bpay, the store's heading on the store's own steps.
   * The overlay focuses its title itself as it opens (it is not mounted yet when the step changes), and on closing
   * hands the focus to the store's heading instead of the 'Try bpay' button that opened it, which is gone by then.
   */
  const storeHeadingRef = useRef<HTMLHeadingElement>(null);
  const overlayTitleRef = useRef<HTMLHeadingElement>(null);
  useStepFocus(phase, (p) => (isBpayPhase(p) ? overlayTitleRef.current : storeHeadingRef.current));
  // While the bcard is being created the payment is in flight: the overlay cannot be closed, and says why.
  const busy = phase.kind === 'creating';

  function onOverlayOpenChange(open: boolean) {
    if (open) return;
    if (phase.kind === 'card') demo.showMerchant();
    else if (isCancellable(phase)) demo.cancel();
    // While the bcard is being created (busy) nothing closes the overlay: the payment is in flight.
  }

  return (
    <DemoPage
      title={t('demos.banner.title')}
      path="/banner-checkout-demo"
      demo={demo}
      testId="BannerCheckoutDemoPage"
      banner={bannerOpen && phase.kind === 'checkout' ? <ExtensionBanner onTry={demo.tryBpay} onDismiss={() => setBannerOpen(false)} disabled={tryDisabled} /> : null}
    >
      <StoreFrame step={stepOf(phase)} heading={t(storeHeading(phase))} headingRef={storeHeadingRef}>
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

      {/* The real thing this demo plays (issue 24). */}
      <p className="flex flex-wrap items-center justify-center gap-x-2 gap-y-1 text-center text-sm text-slate-600" data-testid="demo-get-extension">
        <Puzzle className="h-4 w-4 text-brand-600" aria-hidden />
        <span>{t('demos.banner.extensionNote')}</span>
        <Link href={lang === 'ar' ? '/extension-ar' : '/extension'} className="font-medium text-brand-700 underline underline-offset-4">
          {t('demos.banner.getExtension')}
        </Link>
      </p>

      {!bannerOpen && phase.kind === 'checkout' && (
        <Button size="lg" className="fixed bottom-4 end-4 z-30 shadow-lg" onClick={demo.tryBpay} disabled={tryDisabled} data-testid="extension-try-bpay">
          {demo.startPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {t('demos.banner.try')}
        </Button>
      )}

      <Dialog open={isBpayPhase(phase)} onOpenChange={onOverlayOpenChange}>
        <BpayOverlayContent
          busy={busy}
          header={
            <DialogHeader>
              <DialogTitle ref={overlayTitleRef} tabIndex={-1} className="flex flex-wrap items-center gap-2" data-testid="bpay-overlay-title">
                <BpayMark small />
                <span>{t(bpayPhaseTitle(phase))}</span>
              </DialogTitle>
              <DialogDescription>{t('demos.banner.overlayDescription')}</DialogDescription>
            </DialogHeader>
          }
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            overlayTitleRef.current?.focus();
          }}
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            storeHeadingRef.current?.focus();
          }}
          // A click beside the overlay must not abandon a payment half-way; Close and Escape do (except while busy).
          onInteractOutside={(e) => e.preventDefault()}
          data-testid="bpay-overlay"
          data-phase={phase.kind}
        >
          <BpayFlowContent demo={demo} />
        </BpayOverlayContent>
      </Dialog>
    </DemoPage>
  );
}
