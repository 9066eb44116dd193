import { AppShell } from '../../../components/ui/app-shell';
import { FlaskConical, ShieldCheck } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { initialSplit, type SplitValue } from '../../../components/split-configurator';
import { useLanguage, type MessageKey } from '../../../i18n';
import { isolateFor } from '../../../lib/card-display';
import { formatCents } from '../../../lib/money';
import { amountInputToCents, DEFAULT_AMOUNT, DEFAULT_MERCHANT, STEPS, type Step } from '../flow';
import { usePaymentFlow } from '../hooks/use-payment-flow';
import { usePaymentSources, type PaymentSources } from '../hooks/use-payment-sources';
import { liveText, noticeText, type SplitSourcesState } from '../texts';
import { CheckoutStep } from './checkout-step';
import { CompleteStep } from './complete-step';
import { GenerationStep } from './generation-step';
import { MerchantStep } from './merchant-step';
import { SplitStep } from './split-step';

const STEP_NAME: Record<Step, MessageKey> = {
  checkout: 'paymentDemo.stepName.checkout',
  split: 'paymentDemo.stepName.split',
  bcard: 'paymentDemo.stepName.bcard',
  merchant: 'paymentDemo.stepName.merchant',
  complete: 'paymentDemo.stepName.complete',
};

/** The page's frame (spec §2 "links back to /"): the shared app shell. */
function Shell({ children }: { children: ReactNode }) {
  return <AppShell testIds={{ backHome: 'pd-back-home', languageSwitch: 'pd-language-switch' }}>{children}</AppShell>;
}

/** Says who pays: a visible demo label for every sample run, a plain notice when the consumer's money moves. */
function ModeBanner({ src }: { src: PaymentSources }) {
  const { t } = useLanguage();
  if (src.authLoading) return null;
  if (src.own) {
    return (
      <div className="flex items-start gap-3 rounded-lg border border-blue-200 bg-blue-50 p-4 text-sm text-blue-900" data-testid="pd-mode-banner" data-mode="real">
        <ShieldCheck className="mt-0.5 h-5 w-5 shrink-0" aria-hidden />
        <p>
          <span className="font-semibold">{t('paymentDemo.banner.real')}</span> {t('paymentDemo.banner.realBody')}
        </p>
      </div>
    );
  }
  return (
    <div className="flex items-start gap-3 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" data-testid="pd-mode-banner" data-mode="demo">
      <FlaskConical className="mt-0.5 h-5 w-5 shrink-0" aria-hidden />
      <p>
        <span className="font-semibold">{t('paymentDemo.banner.demo')}</span>{' '}
        {src.demoMode ? t('paymentDemo.banner.demoModeBody') : t('paymentDemo.banner.signedOutBody')}
      </p>
    </div>
  );
}

/**
 * /payment-demo (spec §2, §4): checkout -> split -> bcard -> merchant -> complete. Public: signed-out visitors and
 * demo mode get the labelled sample flow; a signed-in consumer with demo mode off pays for real.
 */
export function PaymentDemoPage() {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const formatters = { t, iso, money: (cents: number) => iso(formatCents(cents)) };
  const src = usePaymentSources();
  const flow = usePaymentFlow({ signedIn: src.signedIn, demoMode: src.demoMode });
  const { state } = flow;
  const [merchant, setMerchant] = useState(DEFAULT_MERCHANT);
  const [amount, setAmount] = useState(DEFAULT_AMOUNT);
  const amountCents = amountInputToCents(amount);

  // The split survives going back to the checkout; it starts over when the sources change (sign-in, demo mode).
  const sourcesKey = `${src.own ? 'own' : 'sample'}:${src.sources.map((s) => s.id).join(',')}`;
  const [split, setSplit] = useState<{ key: string; value: SplitValue } | null>(null);
  const splitValue = split?.key === sourcesKey ? split.value : initialSplit(src.sources, { useSourceDefaults: src.own });

  /*
   * A new step (or a new run of the bcard step, after Retry) replaces the button that led to it, which would leave the
   * focus on <body>: the new step's heading takes it, so keyboard and screen-reader users continue from there.
   */
  const stepRoot = useRef<HTMLDivElement>(null);
  const focusKey = state.step === 'bcard' ? `bcard:${state.generation?.runId ?? 0}` : state.step;
  const shownKey = useRef(focusKey);
  useEffect(() => {
    if (shownKey.current === focusKey) return;
    shownKey.current = focusKey;
    window.scrollTo({ top: 0 });
    stepRoot.current?.querySelector<HTMLElement>('[data-step-heading]')?.focus({ preventScroll: true });
  }, [focusKey]);

  const stepNumber = STEPS.indexOf(state.step) + 1;
  const g = state.generation;
  const merchantName = merchant.trim();
  const sourcesState: SplitSourcesState = src.sourcesLoading
    ? 'loading'
    : src.sourcesError
      ? 'failed'
      : src.sources.length === 0
        ? 'none'
        : 'ready';
  const announcement = liveText({ state, sources: sourcesState, purchasing: flow.purchasing, canceling: flow.canceling }, formatters);

  return (
    <Shell>
      <div className="mb-6 space-y-4">
        <div className="space-y-1">
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('paymentDemo.title')}</h1>
          <p className="text-sm text-slate-500">{t('paymentDemo.subtitle')}</p>
        </div>
        <ModeBanner src={src} />
        <p className="text-sm font-medium text-brand-700" data-testid="pd-step" data-step={state.step}>
          {t('paymentDemo.stepOf', { n: stepNumber })} · {t(STEP_NAME[state.step])}
        </p>
      </div>
      {/* The one polite live region, mounted for the whole visit so a screen reader hears each change of its text. */}
      <p className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="pd-live">
        {announcement}
      </p>

      <div ref={stepRoot} className="min-w-0">
        {state.step === 'checkout' && (
          <CheckoutStep
            merchant={merchant}
            onMerchantChange={setMerchant}
            amount={amount}
            onAmountChange={setAmount}
            feePercentage={src.feePercentage}
            showScenario={!src.demoMode}
            scenario={state.scenario}
            onScenarioChange={flow.setScenario}
            onPay={flow.toSplit}
            notice={state.notice ? noticeText(state.notice, formatters) : null}
          />
        )}
        {state.step === 'split' && (
          <SplitStep
            merchant={merchantName}
            amountCents={amountCents}
            src={src}
            value={splitValue}
            onChange={(value) => setSplit({ key: sourcesKey, value })}
            onBack={flow.toCheckout}
            onSubmit={(evaluation) => flow.pay(merchantName, evaluation)}
          />
        )}
        {state.step === 'bcard' && g && <GenerationStep generation={g} onRetry={flow.retry} onCancel={flow.cancelAfterFailure} />}
        {state.step === 'merchant' && state.card && g && (
          <MerchantStep
            card={state.card}
            kind={g.kind}
            merchant={merchantName}
            amountCents={g.amountCents}
            totalCents={g.totalCents}
            purchasing={flow.purchasing}
            canceling={flow.canceling}
            onComplete={() => void flow.completePurchase()}
            onBack={flow.leaveMerchant}
          />
        )}
        {state.step === 'complete' && state.completion && (
          <CompleteStep completion={state.completion} scenario={state.scenario} onAnother={flow.toCheckout} onTryOther={flow.tryOtherScenario} />
        )}
      </div>
    </Shell>
  );
}
