import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import {
  checkoutPaySplits,
  DEFAULT_FEE_PERCENTAGE,
  initialSplit,
  sampleSplitOptions,
  type SplitEvaluation,
  type SplitSourceOption,
  type SplitValue,
} from '../../../components/split-configurator';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { insufficientDetailsOf, type InsufficientDetails } from '../../../lib/api-error-details';
import { cardholderNameFor, DEMO_CARD, groupCardNumber, isolateFor } from '../../../lib/card-display';
import { formatCents, formatMoney, parseCents } from '../../../lib/money';
import { useAuth } from '../../auth/auth-context';
import { useDemoMode } from '../../demo-mode/demo-mode';
import {
  createDemoIntentRequest,
  demoBenefitsQuery,
  demoSourcesQuery,
  payDemoIntentRequest,
  readIntentRequest,
  type DemoFundingSource,
  type DemoIntent,
  type PaidBcard,
  type PayBody,
} from '../api';
import {
  DELAYS,
  DEMO_ORDER,
  demoOrderNumber,
  flowReducer,
  initialFlow,
  tickDelay,
  type FlowCard,
  type FlowState,
} from '../flow';

/** Why the last payment attempt failed, shown above the split it returned to (as the checkout popup shows it). */
export type PayProblem =
  | { kind: 'insufficient'; message: string; details: InsufficientDetails | null }
  | { kind: 'failed'; message: string };

/**
 * 'sandbox': a signed-in consumer with demo mode off pays a real sandbox intent of TechStore through the checkout
 * endpoint the widget uses (nothing charged). 'sample': signed out or demo mode on, sample sources and the spec's
 * timings, a demo card.
 */
export type RunMode = 'sandbox' | 'sample';

export interface CheckoutDemo {
  mode: RunMode;
  /** The session is still loading: which mode applies is not known yet. */
  modeLoading: boolean;
  signedIn: boolean;
  flow: FlowState;
  amountCents: number;
  feePercentage: number;
  sources: SplitSourceOption[];
  sourcesLoading: boolean;
  sourcesError: string | null;
  retrySources(): void;
  splitValue: SplitValue;
  setSplitValue(next: SplitValue): void;
  payProblem: PayProblem | null;
  startPending: boolean;
  completePending: boolean;
  completeProblem: string | null;
  tryBpay(): void;
  back(): void;
  cancel(): void;
  submitSplit(evaluation: SplitEvaluation): void;
  verifyCode(): void;
  showMerchant(): void;
  completePayment(): void;
  restart(): void;
}

const toOption = (s: DemoFundingSource): SplitSourceOption => ({
  id: s.id,
  name: s.name,
  last4: s.last4,
  brand: s.brand,
  available: s.balance,
  defaultPercentage: s.defaultSplitPercentage,
});

/**
 * The sandbox bcard's real details as the API gives them (masked number, no CVV), held by the signed-in consumer.
 * The server issues a sandbox intent's test bcard in the merchant's name (TechStore); in the story the demos tell,
 * the consumer's extension fills the store's form, so the cardholder is the consumer, named as their own bcards
 * are (cardholderNameFor).
 */
function sandboxCard(b: PaidBcard, cardholderName: string): FlowCard {
  return {
    kind: 'sandbox',
    number: b.cardNumber,
    last4: b.last4,
    expiryMonth: b.expiryMonth,
    expiryYear: b.expiryYear,
    cvv: null,
    cardholderName,
    totalCents: parseCents(b.totalCharged) ?? 0,
  };
}

function demoCard(cardholderName: string, totalCents: number): FlowCard {
  return {
    kind: 'demo',
    number: groupCardNumber(DEMO_CARD.number),
    last4: DEMO_CARD.number.slice(-4),
    expiryMonth: DEMO_CARD.expiryMonth,
    expiryYear: DEMO_CARD.expiryYear,
    cvv: DEMO_CARD.cvv,
    cardholderName,
    totalCents,
  };
}

/** The one flow both demo pages run (flow.ts holds its rules; this hook adds the timers and the requests). */
export function useCheckoutDemo(): CheckoutDemo {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const qc = useQueryClient();
  const { user, isLoading: authLoading } = useAuth();
  const { isDemoMode } = useDemoMode();
  const mode: RunMode = user && !isDemoMode ? 'sandbox' : 'sample';
  const live = mode === 'sandbox';

  const [flow, dispatch] = useReducer(flowReducer, initialFlow);
  const sourcesQ = useQuery({ ...demoSourcesQuery(), enabled: live });
  const benefitsQ = useQuery({ ...demoBenefitsQuery(), enabled: live });
  const sources = useMemo(
    () => (live ? (sourcesQ.data ?? []).filter((s) => s.isActive).map(toOption) : sampleSplitOptions()),
    [live, sourcesQ.data],
  );
  const feePercentage = live ? (benefitsQ.data?.benefits.feePercentage ?? DEFAULT_FEE_PERCENTAGE) : DEFAULT_FEE_PERCENTAGE;

  const [typedSplit, setTypedSplit] = useState<SplitValue | null>(null);
  const splitValue = useMemo(() => typedSplit ?? initialSplit(sources, { useSourceDefaults: live }), [typedSplit, sources, live]);
  const [submitted, setSubmitted] = useState<SplitEvaluation | null>(null);
  const [intent, setIntent] = useState<DemoIntent | null>(null);
  const [payProblem, setPayProblem] = useState<PayProblem | null>(null);
  const [completeProblem, setCompleteProblem] = useState<string | null>(null);
  /*
   * One Idempotency-Key per pay body; reused only to resend the very same body after an attempt that got no answer
   * (a network failure), which is exactly when the first attempt may have gone through.
   */
  const payAttempt = useRef<{ key: string; body: string; answered: boolean } | null>(null);
  const payStartedFor = useRef(0);

  const restart = useCallback(() => {
    dispatch({ type: 'restart' });
    setTypedSplit(null);
    setSubmitted(null);
    setIntent(null);
    setPayProblem(null);
    setCompleteProblem(null);
    payAttempt.current = null;
  }, []);

  // Signing in or out, or switching demo mode, starts over in the other mode.
  useEffect(() => restart(), [mode, restart]);

  // The timed steps: 0.5 s + 1.5 s per source, 2 s of the card before the merchant's form.
  useEffect(() => {
    const ms = tickDelay(flow.phase);
    if (ms === null) return;
    const timer = setTimeout(() => dispatch({ type: 'tick' }), ms);
    return () => clearTimeout(timer);
  }, [flow.phase]);

  const startIntent = useMutation({ mutationFn: () => createDemoIntentRequest(crypto.randomUUID()) });

  const pay = useMutation({
    mutationFn: async (evaluation: SplitEvaluation) => {
      // A fresh intent when the visit has none (the first failed to be created, or the last one cannot be paid).
      let pi = intent;
      if (!pi) {
        pi = await createDemoIntentRequest(crypto.randomUUID());
        setIntent(pi);
      }
      const body: PayBody = { client_secret: pi.clientSecret, amount: pi.amount, splits: checkoutPaySplits(evaluation) };
      const json = JSON.stringify({ id: pi.id, body });
      const previous = payAttempt.current;
      const key = previous && !previous.answered && previous.body === json ? previous.key : crypto.randomUUID();
      const current = { key, body: json, answered: false };
      payAttempt.current = current;
      try {
        const answer = await payDemoIntentRequest(pi.id, body, key);
        current.answered = true;
        return answer;
      } catch (e) {
        // An ApiError is an answer; a network failure is not, so the same body may be resent under the same key.
        if (e instanceof ApiError) current.answered = true;
        throw e;
      }
    },
    onSuccess: (answer) => dispatch({ type: 'cardIssued', card: sandboxCard(answer.bcard, cardholderNameFor(user)) }),
    onError: (error) => {
      const message = messageOf(error) ?? '';
      if (error instanceof ApiError && error.status === 409) setIntent(null);
      const details = insufficientDetailsOf(error);
      if ((error instanceof ApiError && error.code === 'insufficient_funds') || message.includes('Insufficient funds')) {
        setPayProblem({ kind: 'insufficient', message, details: details ?? null });
        toast({
          title: t('demos.pay.insufficient'),
          description: details
            ? t('demos.pay.insufficientBody', { need: iso(formatMoney(details.totalRequired)), have: iso(formatMoney(details.totalAvailable)) })
            : message,
          variant: 'destructive',
        });
      } else {
        setPayProblem({ kind: 'failed', message: message || t('demos.pay.failedFallback') });
        toast({ title: t('demos.pay.failed'), description: message || t('demos.pay.failedFallback'), variant: 'destructive' });
      }
      dispatch({ type: 'payFailed' });
    },
    onSettled: () => void qc.invalidateQueries({ queryKey: demoSourcesQuery().queryKey }),
  });

  // "Creating your bcard...": the real payment (sandbox), or the spec's 2 s (sample).
  const payMutate = pay.mutate;
  const demoHolder = t('demos.card.demoHolder');
  useEffect(() => {
    if (flow.phase.kind !== 'creating' || !submitted) return;
    if (!live) {
      const timer = setTimeout(() => dispatch({ type: 'cardIssued', card: demoCard(demoHolder, submitted.totalCents) }), DELAYS.creating);
      return () => clearTimeout(timer);
    }
    // Once per submitted split, whatever re-renders (or StrictMode's second effect run) happen meanwhile.
    if (payStartedFor.current === flow.attempt) return;
    payStartedFor.current = flow.attempt;
    payMutate(submitted);
  }, [flow.phase, flow.attempt, submitted, live, demoHolder, payMutate]);

  const confirm = useMutation({
    mutationFn: (pi: DemoIntent) => readIntentRequest(pi.id, pi.clientSecret),
    onSuccess: (pi) => {
      if (pi.status === 'succeeded') {
        dispatch({ type: 'completed', receipt: { kind: 'sandbox', reference: pi.id, amountCents: pi.amount, status: pi.status } });
      } else {
        setCompleteProblem(t('demos.merchant.notSucceeded', { status: pi.status }));
      }
    },
    onError: (error) => setCompleteProblem(messageOf(error) ?? t('demos.merchant.checkFailed')),
  });

  return {
    mode,
    modeLoading: authLoading,
    signedIn: !!user,
    flow,
    amountCents: live && intent ? intent.amount : DEMO_ORDER.amountCents,
    feePercentage,
    sources,
    sourcesLoading: live && (sourcesQ.isLoading || benefitsQ.isLoading),
    sourcesError: live && sourcesQ.isError ? (messageOf(sourcesQ.error) ?? '') : null,
    retrySources: () => void sourcesQ.refetch(),
    splitValue,
    setSplitValue: setTypedSplit,
    payProblem,
    startPending: startIntent.isPending,
    completePending: confirm.isPending,
    completeProblem,
    tryBpay() {
      if (flow.phase.kind !== 'checkout' || authLoading) return;
      if (!live || intent) {
        dispatch({ type: 'start' });
        return;
      }
      startIntent.mutate(undefined, {
        onSuccess: (pi) => {
          setIntent(pi);
          dispatch({ type: 'start' });
        },
        onError: (error) =>
          toast({ title: t('demos.start.failed'), description: messageOf(error) ?? t('demos.pay.failedFallback'), variant: 'destructive' }),
      });
    },
    back: () => dispatch({ type: 'back' }),
    cancel: () => dispatch({ type: 'cancel' }),
    submitSplit(evaluation) {
      if (pay.isPending) return;
      setPayProblem(null);
      setSubmitted(evaluation);
      dispatch({
        type: 'submitSplit',
        shares: evaluation.shares.map((s) => ({ sourceId: s.sourceId, name: s.name, last4: s.last4, brand: s.brand, cents: s.cents })),
      });
    },
    verifyCode: () => dispatch({ type: 'codeVerified' }),
    showMerchant: () => dispatch({ type: 'showMerchant' }),
    completePayment() {
      if (flow.phase.kind !== 'merchant' || confirm.isPending) return;
      setCompleteProblem(null);
      if (flow.card?.kind === 'sandbox' && intent) {
        confirm.mutate(intent);
        return;
      }
      dispatch({
        type: 'completed',
        receipt: { kind: 'demo', reference: demoOrderNumber(), amountCents: DEMO_ORDER.amountCents, status: 'succeeded' },
      });
    },
    restart,
  };
}

/** "$145.77" in the page's direction. */
export function useMoney() {
  const { dir } = useLanguage();
  const iso = isolateFor(dir);
  return (cents: number) => iso(formatCents(cents));
}
