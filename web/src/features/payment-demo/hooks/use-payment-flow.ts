import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { checkoutPaySplits, type SplitEvaluation } from '../../../components/split-configurator';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { errorDetailsOf } from '../../../lib/api-error-details';
import { isolateFor } from '../../../lib/card-display';
import { centsToDecimal, formatCents, parseCents } from '../../../lib/money';
import {
  cancelDemoBcardRequest,
  collectionProgressRequest,
  createDemoPaymentIntentRequest,
  payDemoPaymentIntentRequest,
  processPaymentRequest,
  useRefreshMoney,
} from '../api';
import {
  AUTO_RESENDS,
  demoCardDetails,
  demoTransactionId,
  flowReducer,
  initialFlowState,
  maskedCardDetails,
  PROGRESS_POLL_MS,
  RESEND_BACKOFF_MS,
  RESULT_SHOWN_MS,
  RETRY_DELAY_MS,
  runKindFor,
  simulationTimeline,
  type CardDetails,
  type Failure,
  type Scenario,
  type ShareInput,
} from '../flow';
import { isFinalAnswer, loadPendingAttempt, nextAttempt, savePendingAttempt, sessionStore, type Attempt } from '../idempotency';
import { cancelNoticeFrom, realFailureFrom, type ServerError } from '../server-outcome';

/** What was ordered: kept for 'Retry Payment', which replays the same split. */
interface Order {
  merchant: string;
  evaluation: SplitEvaluation;
}

function serverErrorOf(e: ApiError): ServerError {
  return { status: e.status, code: e.code, message: e.serverMessage ?? e.message, details: errorDetailsOf(e) };
}

/** A final answer settles a request (its key is done with); no answer, a 5xx or "still running" leave it open. */
const isFinal = (e: unknown): e is ApiError => e instanceof ApiError && isFinalAnswer(e.status, e.code);

/**
 * Runs the payment demo (spec §4): the reducer holds the state, this hook the side effects. A sample run plays the
 * spec's timeline with timers; a signed-in run (demo mode off, success scenario) is a test payment to bpay's demo
 * merchant TechStore's sandbox (POST /api/demo/checkout-intent, then the checkout widget's pay with the split), as
 * the checkout demos do: the typed merchant is only its label and no card of the consumer's is charged. Every timer
 * and answer is tied to its run, so cancelling or leaving the page drops it. A request without an answer is resent
 * with the same body and key (never a second intent or payment).
 */
export function usePaymentFlow(who: { signedIn: boolean; demoMode: boolean }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const money = (cents: number) => iso(formatCents(cents));
  const refreshMoney = useRefreshMoney();
  const [state, dispatch] = useReducer(flowReducer, initialFlowState);
  const stateRef = useRef(state);
  stateRef.current = state;
  const whoRef = useRef(who);
  whoRef.current = who;

  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  const runCounter = useRef(0);
  /** The run on screen; 0 when none (checkout, split). */
  const currentRun = useRef(0);
  const order = useRef<Order | null>(null);
  const bcardAttempt = useRef<Attempt | null>(null);
  const payAttempt = useRef<Attempt | null>(null);
  const cancelAttempt = useRef<Attempt | null>(null);
  /** One request at a time from the merchant step: Complete Purchase or the bcard's cancel. */
  const busyRef = useRef(false);
  /** The signed-in run's test payment (TechStore's sandbox intent it paid), by run. */
  const sandboxPayment = useRef<{ runId: number; intentId: string } | null>(null);
  const [purchasing, setPurchasing] = useState(false);
  const [canceling, setCanceling] = useState(false);

  const clearTimers = useCallback(() => {
    for (const id of timers.current) clearTimeout(id);
    timers.current = [];
  }, []);
  useEffect(() => clearTimers, [clearTimers]);

  const later = (ms: number, f: () => void) => {
    timers.current.push(setTimeout(f, ms));
  };
  const isCurrent = (runId: number) => currentRun.current === runId;

  function toastInsufficient(f: Extract<Failure, { kind: 'insufficient' }>) {
    const lines = f.sources.map(
      (s) =>
        `• ${
          s.availableCents === null || s.requiredCents === null
            ? t('paymentDemo.error.sourceLineNoBalance', { name: s.name, needs: money(s.requiredCents ?? 0) })
            : t('paymentDemo.error.sourceLine', { name: s.name, needs: money(s.requiredCents), has: money(s.availableCents) })
        }`,
    );
    const head =
      f.totalRequiredCents !== null && f.totalAvailableCents !== null
        ? t('paymentDemo.toast.insufficientBody', { need: money(f.totalRequiredCents), have: money(f.totalAvailableCents) })
        : f.message;
    toast({ title: t('paymentDemo.toast.insufficient'), description: [head, ...lines].join('\n'), variant: 'destructive' });
  }

  function toastFailure(f: Failure) {
    switch (f.kind) {
      case 'simulated':
        toast({
          title: t('paymentDemo.toast.splitsFailed'),
          description: t('paymentDemo.toast.simulatedFailureBody', { source: iso(`${f.sourceName} (•••• ${f.last4})`) }),
          variant: 'destructive',
        });
        return;
      case 'insufficient':
        toastInsufficient(f);
        return;
      case 'invalidSplits':
        toast({ title: t('paymentDemo.toast.invalidSplits'), description: f.message, variant: 'destructive' });
        return;
      case 'declined':
      case 'other':
        toast({ title: t('paymentDemo.toast.failed'), description: f.message, variant: 'destructive' });
        return;
      case 'unconfirmed':
        toast({ title: t('paymentDemo.toast.cardFailed'), description: t('paymentDemo.toast.unconfirmedBody'), variant: 'destructive' });
    }
  }

  const wait = (ms: number) => new Promise<void>((resolve) => later(ms, resolve));

  /** The bcard request's attempt: the unanswered one of this tab (kept across a reload) if the body is the same. */
  function bcardAttemptFor(body: string): Attempt {
    const attempt = nextAttempt(bcardAttempt.current ?? loadPendingAttempt(sessionStore()), body, () => crypto.randomUUID());
    bcardAttempt.current = attempt;
    savePendingAttempt(sessionStore(), attempt);
    return attempt;
  }

  function settle(attempt: Attempt) {
    attempt.answered = true;
    savePendingAttempt(sessionStore(), attempt);
  }

  function runSimulation(runId: number, amountCents: number, shares: ShareInput[], scenario: Scenario) {
    for (const ev of simulationTimeline(shares.length, scenario)) {
      later(ev.at, () => {
        if (!isCurrent(runId)) return;
        switch (ev.type) {
          case 'collected':
            dispatch({ type: 'simCollected', runId, index: ev.index });
            return;
          case 'failed': {
            dispatch({ type: 'simFailed', runId, index: ev.index });
            const s = shares[ev.index];
            if (s) toastFailure({ kind: 'simulated', sourceName: s.name, last4: s.last4 });
            return;
          }
          case 'retryAvailable':
            dispatch({ type: 'retryAvailable', runId });
            return;
          case 'cardIssued':
            dispatch({ type: 'simCardIssued', runId });
            return;
          case 'toMerchant':
            dispatch({ type: 'cardReady', runId, card: demoCardDetails(amountCents) });
        }
      });
    }
  }

  /**
   * Sends a request with no answer resent under the same key (AUTO_RESENDS times after a short wait, then the user
   * decides); null when the run ended (a final refusal, no answer, or another run took over), after saying why.
   */
  async function withResends<T>(runId: number, attempt: Attempt, shares: ShareInput[], send: () => Promise<T>): Promise<T | null> {
    for (let sent = 1; ; sent++) {
      try {
        const answer = await send();
        settle(attempt);
        return answer;
      } catch (e) {
        if (isFinal(e)) {
          settle(attempt);
          if (!isCurrent(runId)) return null;
          const { failure, outcomes } = realFailureFrom(serverErrorOf(e), shares);
          dispatch({ type: 'realFailed', runId, failure, outcomes });
          toastFailure(failure);
          later(RETRY_DELAY_MS, () => {
            if (isCurrent(runId)) dispatch({ type: 'retryAvailable', runId });
          });
          return null;
        }
        if (!isCurrent(runId)) return null;
        if (sent > AUTO_RESENDS) {
          const failure: Failure = { kind: 'unconfirmed', message: e instanceof ApiError ? (e.serverMessage ?? null) : null };
          dispatch({ type: 'realUnconfirmed', runId, message: failure.message });
          toastFailure(failure);
          later(RETRY_DELAY_MS, () => {
            if (isCurrent(runId)) dispatch({ type: 'retryAvailable', runId });
          });
          return null;
        }
        dispatch({ type: 'resending', runId, attempt: sent + 1, of: AUTO_RESENDS + 1 });
        await wait(RESEND_BACKOFF_MS[sent - 1] ?? RESEND_BACKOFF_MS[RESEND_BACKOFF_MS.length - 1] ?? 1000);
        if (!isCurrent(runId)) return null;
      }
    }
  }

  /**
   * Follows the collection the pay request under `key` started, as the server records it, until stopped (the answer
   * came) or the run ends: one poll at a time, PROGRESS_POLL_MS apart. A poll without an answer is skipped; the next
   * one, or the pay answer, says.
   */
  function followProgress(runId: number, key: string): () => void {
    let on = true;
    const poll = async () => {
      if (!on || !isCurrent(runId)) return;
      try {
        const p = await collectionProgressRequest(key);
        if (on && isCurrent(runId)) dispatch({ type: 'realProgress', runId, stage: p.stage, statuses: p.shares.map((x) => x.status) });
      } catch {
        // Nothing to show from this poll.
      }
      if (on) later(PROGRESS_POLL_MS, () => void poll());
    };
    later(PROGRESS_POLL_MS, () => void poll());
    return () => {
      on = false;
    };
  }

  /**
   * The signed-in run (issue 25 item 7): never a charge of the merchant the user typed. It pays bpay's demo merchant
   * TechStore's sandbox, as the checkout demos do: a sandbox intent for the amount, labelled with the typed name, paid
   * through the checkout widget's endpoint with the split (checked against the consumer's own sources, then paid
   * with a sandbox test bcard collected from test sources standing for their shares: nothing is collected from
   * them). Meanwhile the page polls that collection's progress, share by share (issue 28 §3). Each request is
   * resent under its key without answer.
   */
  async function runReal(runId: number, o: Order, shares: ShareInput[]) {
    const ev = o.evaluation;
    const startBody = { amount: ev.amountCents, label: o.merchant };
    const started = bcardAttemptFor(JSON.stringify(startBody));
    const intent = await withResends(runId, started, shares, () => createDemoPaymentIntentRequest(startBody, started.key));
    if (!intent || !isCurrent(runId)) return;
    const payBody = { client_secret: intent.clientSecret, amount: intent.amount, splits: checkoutPaySplits(ev) };
    const attempt = nextAttempt(payAttempt.current, JSON.stringify({ id: intent.id, payBody }), () => crypto.randomUUID());
    payAttempt.current = attempt;
    const stopFollowing = followProgress(runId, attempt.key);
    const paid = await withResends(runId, attempt, shares, () => payDemoPaymentIntentRequest(intent.id, payBody, attempt.key));
    stopFollowing();
    if (!paid || !isCurrent(runId)) return;
    sandboxPayment.current = { runId, intentId: intent.id };
    // The test bcard's shares as collected, share i standing for the consumer's share i (none of theirs was charged:
    // each row says so). A test bcard without shares (a share under a cent) leaves every row "Not charged".
    const test = paid.bcard.fundingSources;
    dispatch({
      type: 'realIssued',
      runId,
      bcardId: paid.bcard.id,
      statuses: shares.map((s, i) => ({ fundingSourceId: s.sourceId, status: test.length === shares.length ? (test[i]?.status ?? 'skipped') : 'skipped' })),
    });
    // The test bcard as the pay answer shows it (masked). No bcard of the consumer's: nothing to cancel or spend.
    const card = { ...maskedCardDetails(paid.bcard, ev.amountCents), bcardId: null };
    later(RESULT_SHOWN_MS, () => {
      if (isCurrent(runId)) dispatch({ type: 'cardReady', runId, card });
    });
  }

  function startRun(o: Order, scenario: Scenario) {
    clearTimers();
    const runId = ++runCounter.current;
    currentRun.current = runId;
    const kind = runKindFor({ signedIn: whoRef.current.signedIn, demoMode: whoRef.current.demoMode, scenario });
    const ev = o.evaluation;
    const shares: ShareInput[] = ev.shares.map((s) => ({ sourceId: s.sourceId, name: s.name, last4: s.last4, brand: s.brand, cents: s.cents }));
    dispatch({ type: 'start', runId, kind, scenario, amountCents: ev.amountCents, feeCents: ev.feeCents, totalCents: ev.totalCents, shares });
    if (kind === 'simulated') runSimulation(runId, ev.amountCents, shares, scenario);
    else void runReal(runId, o, shares);
  }

  /** The split's pay button. A second click before the page re-renders finds the run already started. */
  function pay(merchant: string, evaluation: SplitEvaluation) {
    if (stateRef.current.step !== 'split' || currentRun.current !== 0) return;
    const o = { merchant, evaluation };
    order.current = o;
    startRun(o, stateRef.current.scenario);
  }

  /** 'Retry Payment': the success scenario, replayed with the same split (spec §4). */
  function retry() {
    const s = stateRef.current;
    if (s.step !== 'bcard' || !s.generation?.failure || !s.generation.retryAvailable || !order.current) return;
    startRun(order.current, 'success');
  }

  /**
   * 'Cancel & Reconfigure'. After a request that never got an answer, giving up shows the spec's fallback card (§4)
   * and says that a bcard made meanwhile is refunded when its session ends; otherwise back to the checkout.
   */
  function cancelAfterFailure() {
    const s = stateRef.current;
    const g = s.generation;
    if (s.step !== 'bcard' || !g?.failure) return;
    if (g.failure.kind === 'unconfirmed') {
      clearTimers();
      dispatch({ type: 'giveUp', runId: g.runId });
      return;
    }
    toCheckout();
  }

  /**
   * The merchant step's way back. A real bcard is canceled first, so its money goes back at once instead of when the
   * bcard expires; only the server's answer moves on (no answer: stay, and the same key is resent next time).
   */
  async function leaveMerchant() {
    const s = stateRef.current;
    const g = s.generation;
    if (s.step !== 'merchant' || !s.card || !g || busyRef.current) return;
    const bcardId = s.card.bcardId;
    // A sample run, or the signed-in run's test payment (made already; no money of the consumer's to give back).
    if (g.kind !== 'real' || !bcardId || sandboxPayment.current?.runId === g.runId) {
      toCheckout();
      return;
    }
    const attempt = nextAttempt(cancelAttempt.current, `cancel:${bcardId}`, () => crypto.randomUUID());
    cancelAttempt.current = attempt;
    busyRef.current = true;
    setCanceling(true);
    try {
      const bcard = await cancelDemoBcardRequest(bcardId, attempt.key);
      attempt.answered = true;
      const notice = cancelNoticeFrom(bcard, g.totalCents);
      clearTimers();
      currentRun.current = 0;
      dispatch({ type: 'canceled', notice });
      toast({
        title: t('paymentDemo.toast.canceled'),
        description: t(notice.refunded ? 'paymentDemo.notice.canceled' : 'paymentDemo.notice.canceledPending', { amount: money(notice.refundedCents) }),
      });
    } catch (e) {
      if (isFinal(e)) attempt.answered = true;
      if (isFinal(e) && e.code === 'bcard_not_active') {
        // Spent, expired or canceled already: nothing is left to give back from here.
        toast({ title: t('paymentDemo.toast.cancelFailed'), description: messageOf(e), variant: 'destructive' });
        toCheckout();
      } else {
        toast({
          title: t('paymentDemo.toast.cancelFailed'),
          description: isFinal(e) ? messageOf(e) : t('paymentDemo.toast.cancelNoAnswer'),
          variant: 'destructive',
        });
      }
    } finally {
      refreshMoney();
      busyRef.current = false;
      setCanceling(false);
    }
  }

  /** Back to the checkout (Make Another Payment, the split's Back, a run without a bcard to cancel): whatever runs is dropped. */
  function toCheckout() {
    clearTimers();
    currentRun.current = 0;
    dispatch({ type: 'toCheckout' });
  }

  function tryOtherScenario() {
    clearTimers();
    currentRun.current = 0;
    dispatch({ type: 'tryOtherScenario' });
  }

  function toastPaid(amountCents: number) {
    toast({ title: t('paymentDemo.toast.success'), description: t('paymentDemo.toast.successBody', { amount: money(amountCents) }) });
  }

  /** 'Complete Purchase': a real run spends its bcard at the merchant; a sample run completes with a demo id. */
  async function completePurchase() {
    const s = stateRef.current;
    const g = s.generation;
    const o = order.current;
    if (s.step !== 'merchant' || !s.card || !g || !o || busyRef.current) return;
    if (g.kind === 'simulated') {
      dispatch({
        type: 'paid',
        completion: { amountCents: g.amountCents, feeCents: g.feeCents, totalCents: g.totalCents, merchant: o.merchant, transactionId: demoTransactionId(), isDemo: true },
      });
      toastPaid(g.amountCents);
      return;
    }
    const test = sandboxPayment.current;
    if (test && test.runId === g.runId) {
      // TechStore's sandbox took the test payment when the split was checked: the purchase completes with its id.
      dispatch({
        type: 'paid',
        completion: { amountCents: g.amountCents, feeCents: g.feeCents, totalCents: g.totalCents, merchant: o.merchant, transactionId: test.intentId, isDemo: false },
      });
      toastPaid(g.amountCents);
      return;
    }
    if (!s.card.bcardId) {
      toast({ title: t('paymentDemo.toast.noBcard'), description: t('paymentDemo.toast.noBcardBody'), variant: 'destructive' });
      return;
    }
    const body = { amount: centsToDecimal(g.amountCents), merchant: o.merchant, virtualCardId: s.card.bcardId };
    const attempt = nextAttempt(payAttempt.current, JSON.stringify(body), () => crypto.randomUUID());
    payAttempt.current = attempt;
    busyRef.current = true;
    setPurchasing(true);
    try {
      const result = await processPaymentRequest(body, attempt.key);
      attempt.answered = true;
      dispatch({
        type: 'paid',
        completion: {
          amountCents: g.amountCents,
          feeCents: parseCents(result.totalFees) ?? g.feeCents,
          totalCents: parseCents(result.totalAmount) ?? g.totalCents,
          merchant: o.merchant,
          transactionId: result.transaction.id,
          isDemo: false,
        },
      });
      toastPaid(g.amountCents);
    } catch (e) {
      if (isFinal(e)) {
        attempt.answered = true;
        const err = serverErrorOf(e);
        const { failure } = realFailureFrom(err, []);
        toastFailure(failure.kind === 'invalidSplits' ? { kind: 'other', message: err.message } : failure);
      } else {
        // No final answer: the payment may have gone through; the next click resends it under the same key.
        toast({ title: t('paymentDemo.toast.failed'), description: t('paymentDemo.toast.payNoAnswer'), variant: 'destructive' });
      }
    } finally {
      refreshMoney();
      busyRef.current = false;
      setPurchasing(false);
    }
  }

  return {
    state,
    purchasing,
    canceling,
    toSplit: () => dispatch({ type: 'toSplit' }),
    setScenario: (scenario: Scenario) => dispatch({ type: 'setScenario', scenario }),
    pay,
    retry,
    cancelAfterFailure,
    leaveMerchant: () => void leaveMerchant(),
    toCheckout,
    tryOtherScenario,
    completePurchase,
  };
}
