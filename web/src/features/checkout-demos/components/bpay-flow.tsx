import { Loader2, TriangleAlert } from 'lucide-react';
import { Link } from 'wouter';
import { SplitConfigurator } from '../../../components/split-configurator';
import { Button, buttonClasses } from '../../../components/ui/button';
import { useLanguage, type MessageKey } from '../../../i18n';
import { formatMoney } from '../../../lib/money';
import { isolateFor } from '../../../lib/card-display';
import { type Phase } from '../flow';
import type { CheckoutDemo, PayProblem } from '../hooks/use-checkout-demo';
import { BcardView } from './bcard-view';
import { ProgressAnnouncer, ProgressList, useProgressAnnouncement } from './progress-list';
import { ThreeDsStep } from './three-ds-step';

/** The heading of each step inside bpay. */
export function bpayPhaseTitle(phase: Phase): MessageKey {
  switch (phase.kind) {
    case 'verify':
      return 'demos.flow.verifyTitle';
    case 'processing':
      return 'demos.flow.processingTitle';
    case 'creating':
      return 'demos.progress.creating';
    case 'card':
      return 'demos.flow.cardTitle';
    default:
      return 'demos.flow.splitTitle';
  }
}

/** A failed payment, shown above the split it returned to, with the checkout popup's texts. */
function PayProblemPanel({ problem }: { problem: PayProblem }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  return (
    <div className="space-y-1.5 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="demo-pay-error" data-kind={problem.kind}>
      <p className="flex items-center gap-2 font-semibold">
        <TriangleAlert className="h-4 w-4 shrink-0" aria-hidden />
        {problem.kind === 'insufficient' ? t('demos.pay.insufficient') : t('demos.pay.failed')}
      </p>
      {problem.kind === 'insufficient' && problem.details ? (
        <>
          <p>{t('demos.pay.insufficientBody', { need: iso(formatMoney(problem.details.totalRequired)), have: iso(formatMoney(problem.details.totalAvailable)) })}</p>
          <ul className="list-disc space-y-0.5 ps-5">
            {problem.details.insufficientSources.map((s) => (
              <li key={s.fundingSourceId ?? s.name}>
                {s.availableBalance === null
                  ? t('demos.pay.sourceNeeds', { name: s.name, needs: iso(formatMoney(s.requiredAmount)) })
                  : t('demos.pay.sourceNeedsHas', { name: s.name, needs: iso(formatMoney(s.requiredAmount)), has: iso(formatMoney(s.availableBalance)) })}
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="break-words">{problem.message}</p>
      )}
      <p className="text-xs text-red-700">{t('demos.pay.tryAgain')}</p>
    </div>
  );
}

/** The split step: the shared configurator over the visitor's sources (or the samples). */
function SplitStep({ demo }: { demo: CheckoutDemo }) {
  const { t } = useLanguage();
  const back = (
    <Button variant="outline" onClick={demo.back} data-testid="demo-split-back">
      {t('demos.flow.back')}
    </Button>
  );
  if (demo.sourcesLoading) {
    return (
      <p className="flex items-center gap-2 py-6 text-sm text-slate-600" aria-busy="true" data-testid="demo-sources-loading">
        <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
        {t('common.loading')}
      </p>
    );
  }
  if (demo.sourcesError !== null) {
    return (
      <div className="space-y-3 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800" role="alert" data-testid="demo-sources-error">
        <p className="font-medium">{t('demos.flow.sourcesFailed')}</p>
        <p className="break-words">{demo.sourcesError}</p>
        <div className="flex gap-2">
          <Button variant="outline" size="sm" onClick={demo.retrySources}>
            {t('common.retry')}
          </Button>
          {back}
        </div>
      </div>
    );
  }
  if (demo.sources.length === 0) {
    return (
      <div className="space-y-3 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" role="alert" data-testid="demo-no-sources">
        <p>{t('demos.flow.noSources')}</p>
        <div className="flex flex-wrap gap-2">
          <Link href="/" className={buttonClasses('primary', 'sm')}>
            {t('demos.flow.openDashboard')}
          </Link>
          {back}
        </div>
      </div>
    );
  }
  return (
    <div className="space-y-4">
      {demo.payProblem && <PayProblemPanel problem={demo.payProblem} />}
      <SplitConfigurator
        sources={demo.sources}
        value={demo.splitValue}
        onChange={demo.setSplitValue}
        amountCents={demo.amountCents}
        feePercentage={demo.feePercentage}
        checkAvailable={demo.mode === 'sample'}
        pending={false}
        submitLabel={t('demos.flow.splitSubmit')}
        onSubmit={demo.submitSplit}
        secondaryAction={back}
        messages="demo"
      />
    </div>
  );
}

/**
 * Everything that happens inside bpay, by phase: split, a code per share, processing, creating, the card; with the
 * one live region that reads the progress, which stays mounted while the phases' content comes and goes.
 */
export function BpayFlowContent({ demo }: { demo: CheckoutDemo }) {
  const { flow } = demo;
  const announcement = useProgressAnnouncement(flow.phase, flow.shares, flow.card?.totalCents ?? null);
  return (
    <>
      <ProgressAnnouncer text={announcement} />
      <PhaseContent demo={demo} />
    </>
  );
}

function PhaseContent({ demo }: { demo: CheckoutDemo }) {
  const { flow } = demo;
  const { phase } = flow;
  switch (phase.kind) {
    case 'split':
      return <SplitStep demo={demo} />;
    case 'verify': {
      const share = flow.shares[phase.index];
      if (!share) return null;
      return (
        <div className="space-y-4">
          <ThreeDsStep
            key={`${flow.attempt}-${phase.index}`}
            share={share}
            index={phase.index}
            count={flow.shares.length}
            mode={demo.mode}
            onVerify={demo.verifyCode}
            onCancel={demo.cancel}
          />
          <ProgressList phase={phase} shares={flow.shares} />
        </div>
      );
    }
    case 'processing':
    case 'creating':
      return <ProgressList phase={phase} shares={flow.shares} />;
    case 'card':
      return flow.card ? <BcardView card={flow.card} onContinue={demo.showMerchant} /> : null;
    default:
      return null;
  }
}
