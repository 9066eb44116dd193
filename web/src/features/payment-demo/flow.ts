import { DEMO_CARD } from '../../lib/card-display';
import type { Bcard } from './api';

/*
 * The payment demo's flow as data (spec §2 "Payment demo", §4): the steps, the bcard step's progress and the
 * scenario rules. Pure: the hook (hooks/use-payment-flow.ts) runs the timers and the requests and dispatches what
 * happened; every event carries the run it belongs to, so a timer or an answer from a cancelled run changes nothing.
 */

/** Spec §9: each simulated split 1.5 s apart, the card about 1 s after the last, retry options 2 s after a failure. */
export const SPLIT_STEP_MS = 1500;
export const CARD_STEP_MS = 1000;
export const RETRY_DELAY_MS = 2000;
/** How long the finished progress (100 %, every share's outcome) stays before the merchant step. */
export const RESULT_SHOWN_MS = 800;
/** How often the signed-in run asks how far its collection has got (as the Create bcard dialog does). */
export const PROGRESS_POLL_MS = 400;

/**
 * A real bcard request that gets no answer may still have gone through: it is resent, same body and same
 * Idempotency-Key, this many times on its own, waiting RESEND_BACKOFF_MS[i] before resend i (a replay answers the
 * first outcome, so this cannot collect twice). Then the error panel's Retry Payment resends it again.
 */
export const AUTO_RESENDS = 2;
export const RESEND_BACKOFF_MS: readonly number[] = [1000, 2000];

export const DEFAULT_MERCHANT = 'Demo Store';
export const DEFAULT_AMOUNT = '150';

export type Step = 'checkout' | 'split' | 'bcard' | 'merchant' | 'complete';
export const STEPS: readonly Step[] = ['checkout', 'split', 'bcard', 'merchant', 'complete'];

export type Scenario = 'success' | 'failure';

/**
 * How a run pays. 'real': a signed-in consumer (demo mode off) in the success scenario: the money engine collects
 * the split and issues a real bcard. 'simulated': everyone else, and the failure scenario for everyone (the lead's
 * decision: a failure is never provoked with real money, so nothing can be left held or captured).
 */
export type RunKind = 'real' | 'simulated';

export function runKindFor(input: { signedIn: boolean; demoMode: boolean; scenario: Scenario }): RunKind {
  return input.signedIn && !input.demoMode && input.scenario === 'success' ? 'real' : 'simulated';
}

/** Which share the failure scenario fails: the second one (spec §4), or the only one when there is just one. */
export function failingShareIndex(shareCount: number): number {
  return shareCount >= 2 ? 1 : 0;
}

export const otherScenario = (s: Scenario): Scenario => (s === 'success' ? 'failure' : 'success');

/**
 * A share's state as the list shows it. held/captured: the money is with bpay. declined: this source refused.
 * released: it was held, then let go because another share failed (all or nothing). skipped: never charged.
 * unconfirmed: the request got no answer, so whether it was collected is not known.
 */
export type ShareStatus = 'pending' | 'processing' | 'held' | 'captured' | 'declined' | 'released' | 'skipped' | 'unconfirmed';

export type ShareReason =
  | { kind: 'insufficient'; requiredCents: number | null; availableCents: number | null }
  | { kind: 'message'; text: string }
  | { kind: 'simulatedInsufficient' };

export interface ShareInput {
  sourceId: string;
  name: string;
  last4: string;
  brand: string;
  cents: number;
}

export interface ProgressShare extends ShareInput {
  status: ShareStatus;
  reason: ShareReason | null;
}

export type CardStatus = 'pending' | 'processing' | 'issued' | 'failed' | 'unconfirmed';

export interface InsufficientLine {
  name: string;
  requiredCents: number | null;
  availableCents: number | null;
}

/** Why the bcard step stopped; the page turns it into the spec's texts. */
export type Failure =
  | { kind: 'simulated'; sourceName: string; last4: string }
  | { kind: 'insufficient'; message: string; totalRequiredCents: number | null; totalAvailableCents: number | null; sources: InsufficientLine[] }
  | { kind: 'declined'; message: string }
  | { kind: 'invalidSplits'; message: string }
  | { kind: 'other'; message: string }
  /** No answer (or a server error) after every resend: the bcard may exist. `message`: the server's, if it said one. */
  | { kind: 'unconfirmed'; message: string | null };

export interface Generation {
  runId: number;
  kind: RunKind;
  amountCents: number;
  feeCents: number;
  totalCents: number;
  shares: ProgressShare[];
  card: CardStatus;
  /** Steps reached so far (one per share, one for the card); it never goes back, so a failure leaves the bar where it stopped. */
  reached: number;
  failure: Failure | null;
  /** 'Retry Payment' and 'Cancel & Reconfigure' show RETRY_DELAY_MS after a failure. */
  retryAvailable: boolean;
  /** The real bcard, once the server issued it. */
  bcardId: string | null;
  /** Set while an unanswered request is being resent: request `attempt` of `of`. */
  resend: { attempt: number; of: number } | null;
}

/**
 * What the merchant step shows and fills in. `display`:
 *  - full: the real bcard's revealed number, expiry and CVV (checkout-details);
 *  - masked: the real bcard as its create answer showed it ("•••• •••• •••• 4821", no CVV), when its details could
 *    not be read; 'Complete Purchase' still spends it by id;
 *  - demo: the spec's fallback card (§4: 4242…, 12/28, 123), not a real card: the sample flow, or a real run whose
 *    bcard request never got an answer and the user gave up (then `unconfirmed`).
 */
export interface CardDetails {
  /** The real bcard's id; null when there is none (sample flow, or a creation that never answered). */
  bcardId: string | null;
  display: 'full' | 'masked' | 'demo';
  /** The bcard request never got an answer: a bcard may exist, unused, refunded when its session ends. */
  unconfirmed: boolean;
  /** The full number's digits, or the masked number. */
  number: string;
  expiryMonth: number;
  expiryYear: number;
  /** Null when the details could not be read. */
  cvv: string | null;
  cardholderName: string | null;
  balanceCents: number;
  status: string;
}

export function demoCardDetails(balanceCents: number, opts: { unconfirmed?: boolean } = {}): CardDetails {
  return {
    bcardId: null,
    display: 'demo',
    unconfirmed: opts.unconfirmed ?? false,
    number: DEMO_CARD.number,
    expiryMonth: DEMO_CARD.expiryMonth,
    expiryYear: DEMO_CARD.expiryYear,
    cvv: DEMO_CARD.cvv,
    cardholderName: null,
    balanceCents,
    status: 'active',
  };
}

/** What the create answer (a Bcard) tells of the card; its number is masked ("•••• •••• •••• 4821"). */
type IssuedBcard = Pick<Bcard, 'id' | 'cardNumber' | 'expiryMonth' | 'expiryYear' | 'cardholderName' | 'status'>;

/** The issued bcard as its create answer shows it: what the page can say when checkout-details fails. */
export function maskedCardDetails(bcard: IssuedBcard, balanceCents: number): CardDetails {
  return {
    bcardId: bcard.id,
    display: 'masked',
    unconfirmed: false,
    number: bcard.cardNumber,
    expiryMonth: Number(bcard.expiryMonth),
    expiryYear: Number(bcard.expiryYear),
    cvv: null,
    cardholderName: bcard.cardholderName,
    balanceCents,
    status: bcard.status,
  };
}

/** What the checkout says after a run ended without paying. */
export type Notice =
  /** The bcard was canceled from the merchant step; `refunded`: every share is back, else the refund is under way. */
  | { kind: 'canceled'; refundedCents: number; refunded: boolean }
  /** The user gave up on a bcard request that never got an answer. */
  | { kind: 'unconfirmed' };

export interface Completion {
  amountCents: number;
  feeCents: number;
  totalCents: number;
  merchant: string;
  transactionId: string;
  /** A sample run: the id is made up here and says so. */
  isDemo: boolean;
}

/** A visibly made-up id for the sample flow: "demo_txn_" and 12 characters. */
export function demoTransactionId(random: () => number = Math.random): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 12; i++) s += alphabet[Math.floor(random() * alphabet.length)] ?? 'x';
  return `demo_txn_${s}`;
}

export interface FlowState {
  step: Step;
  scenario: Scenario;
  generation: Generation | null;
  /** Null once paid: the completion step does not need the revealed number and CVV, so they are not kept. */
  card: CardDetails | null;
  completion: Completion | null;
  notice: Notice | null;
}

export const initialFlowState: FlowState = {
  step: 'checkout',
  scenario: 'success',
  generation: null,
  card: null,
  completion: null,
  notice: null,
};

export type FlowAction =
  | { type: 'toSplit' }
  | { type: 'toCheckout' }
  | { type: 'setScenario'; scenario: Scenario }
  /** `runId` is new for every start (the hook counts), so events of an earlier run are recognised. */
  | { type: 'start'; runId: number; kind: RunKind; scenario: Scenario; amountCents: number; feeCents: number; totalCents: number; shares: ShareInput[] }
  /** Simulation: share `index` is collected; the next one starts. */
  | { type: 'simCollected'; runId: number; index: number }
  /** Simulation: share `index` fails for want of funds; the ones before it are released. */
  | { type: 'simFailed'; runId: number; index: number }
  /** Simulation: the card is created. */
  | { type: 'simCardIssued'; runId: number }
  /** Real: the server answered the bcard; each share as it reports it. */
  | { type: 'realIssued'; runId: number; bcardId: string; statuses: { fundingSourceId: string; status: string }[] }
  /**
   * Real (TechStore's sandbox payment): what the server has recorded of the test bcard collected for the split (GET
   * /api/virtual-cards/collection-progress), its share i standing for the consumer's share i.
   */
  | { type: 'realProgress'; runId: number; stage: string; statuses: string[] }
  /** Real: the server refused; each share's outcome as the error details tell it. */
  | { type: 'realFailed'; runId: number; failure: Failure; outcomes: Map<string, { status: ShareStatus; reason: ShareReason | null }> }
  /** Real: no answer; request `attempt` of `of` goes out after a short wait, same body and key. */
  | { type: 'resending'; runId: number; attempt: number; of: number }
  /** Real: still no answer after every resend: the bcard may or may not exist. */
  | { type: 'realUnconfirmed'; runId: number; message: string | null }
  | { type: 'retryAvailable'; runId: number }
  | { type: 'cardReady'; runId: number; card: CardDetails }
  /** 'Cancel & Reconfigure' after an unconfirmed request: the spec's fallback card, said to be one. */
  | { type: 'giveUp'; runId: number }
  /** The merchant step's real bcard was canceled and refunded. */
  | { type: 'canceled'; notice: Notice }
  | { type: 'paid'; completion: Completion }
  /** 'Try Failure/Success Scenario': the other scenario, from the checkout. */
  | { type: 'tryOtherScenario' };

function updateRun(state: FlowState, runId: number, f: (g: Generation) => Generation): FlowState {
  const g = state.generation;
  if (state.step !== 'bcard' || !g || g.runId !== runId) return state;
  return { ...state, generation: f(g) };
}

const KNOWN_SHARE_STATUSES: readonly ShareStatus[] = ['pending', 'processing', 'held', 'captured', 'declined', 'released', 'skipped'];

/** The server's share status word as the list's; refunded/voided are money that went back. */
export function shareStatusFromServer(status: string): ShareStatus {
  if (status === 'voided' || status === 'refunded') return 'released';
  return (KNOWN_SHARE_STATUSES as readonly string[]).includes(status) ? (status as ShareStatus) : 'pending';
}

export function flowReducer(state: FlowState, action: FlowAction): FlowState {
  switch (action.type) {
    case 'toSplit':
      return state.step === 'checkout' ? { ...state, step: 'split' } : state;
    case 'toCheckout': {
      // Leaving the fallback card of an unconfirmed request: the checkout keeps saying what may have happened.
      const notice: Notice | null = state.step === 'merchant' && state.card?.unconfirmed ? { kind: 'unconfirmed' } : null;
      return { ...state, step: 'checkout', generation: null, card: null, completion: null, notice };
    }
    case 'setScenario':
      return { ...state, scenario: action.scenario };
    case 'tryOtherScenario':
      return { ...state, step: 'checkout', scenario: otherScenario(state.scenario), generation: null, card: null, completion: null, notice: null };
    case 'canceled':
      return state.step === 'merchant'
        ? { ...state, step: 'checkout', generation: null, card: null, completion: null, notice: action.notice }
        : state;
    case 'start': {
      if (state.step !== 'split' && state.step !== 'bcard') return state;
      const runId = action.runId;
      const shares: ProgressShare[] = action.shares.map((s, i) => ({
        ...s,
        // A real run shows every share pending while the server works; the simulation collects one at a time.
        status: action.kind === 'simulated' && i === 0 ? 'processing' : 'pending',
        reason: null,
      }));
      return {
        ...state,
        step: 'bcard',
        scenario: action.scenario,
        card: null,
        completion: null,
        notice: null,
        generation: {
          runId,
          kind: action.kind,
          amountCents: action.amountCents,
          feeCents: action.feeCents,
          totalCents: action.totalCents,
          shares,
          card: shares.length === 0 && action.kind === 'simulated' ? 'processing' : 'pending',
          reached: 0,
          failure: null,
          retryAvailable: false,
          bcardId: null,
          resend: null,
        },
      };
    }
    case 'simCollected':
      return updateRun(state, action.runId, (g) => {
        if (g.failure) return g;
        const shares = g.shares.map((s, i): ProgressShare => {
          if (i === action.index) return { ...s, status: 'captured' };
          if (i === action.index + 1) return { ...s, status: 'processing' };
          return s;
        });
        const last = action.index === g.shares.length - 1;
        return { ...g, shares, reached: Math.max(g.reached, action.index + 1), card: last ? 'processing' : g.card };
      });
    case 'simFailed':
      return updateRun(state, action.runId, (g) => {
        const failing = g.shares[action.index];
        if (!failing || g.failure) return g;
        const shares = g.shares.map((s, i): ProgressShare => {
          if (i === action.index) return { ...s, status: 'declined', reason: { kind: 'simulatedInsufficient' } };
          if (i < action.index) return { ...s, status: 'released' };
          return { ...s, status: 'skipped' };
        });
        return { ...g, shares, card: 'failed', failure: { kind: 'simulated', sourceName: failing.name, last4: failing.last4 } };
      });
    case 'simCardIssued':
      return updateRun(state, action.runId, (g) =>
        g.failure ? g : { ...g, card: 'issued', reached: g.shares.length + 1 },
      );
    case 'realIssued':
      return updateRun(state, action.runId, (g) => {
        const byId = new Map(action.statuses.map((s) => [s.fundingSourceId, s.status]));
        const shares = g.shares.map((s): ProgressShare => {
          const status = byId.get(s.sourceId);
          return { ...s, status: status ? shareStatusFromServer(status) : s.status };
        });
        return { ...g, shares, card: 'issued', reached: g.shares.length + 1, bcardId: action.bcardId, resend: null };
      });
    case 'realProgress':
      return updateRun(state, action.runId, (g) => {
        // The answer (issued or refused) says the last word; a list of another length stands for other shares.
        if (g.failure || g.bcardId || action.statuses.length !== g.shares.length) return g;
        if (action.stage !== 'holding' && action.stage !== 'capturing' && action.stage !== 'completed') return g;
        const shares = g.shares.map((s, i): ProgressShare => {
          const status = shareStatusFromServer(action.statuses[i] ?? 'pending');
          // Holding: a share the processor has not answered for yet is being held right now.
          return { ...s, status: status === 'pending' && action.stage === 'holding' ? 'processing' : status };
        });
        const done = shares.filter((s) => s.status === 'held' || s.status === 'captured').length;
        return { ...g, shares, reached: Math.max(g.reached, done), card: action.stage === 'completed' ? 'processing' : g.card };
      });
    case 'realFailed':
      return updateRun(state, action.runId, (g) => {
        const shares = g.shares.map((s): ProgressShare => {
          const o = action.outcomes.get(s.sourceId);
          return o ? { ...s, status: o.status, reason: o.reason } : { ...s, status: 'skipped' };
        });
        // The shares before the first declined one were held (the server holds in order), then released.
        const firstDeclined = shares.findIndex((s) => s.status === 'declined');
        return {
          ...g,
          shares,
          card: 'failed',
          failure: action.failure,
          reached: Math.max(g.reached, firstDeclined < 0 ? 0 : firstDeclined),
          resend: null,
        };
      });
    case 'resending':
      return updateRun(state, action.runId, (g) => (g.failure || g.bcardId ? g : { ...g, resend: { attempt: action.attempt, of: action.of } }));
    case 'realUnconfirmed':
      return updateRun(state, action.runId, (g) =>
        g.failure || g.bcardId
          ? g
          : {
              ...g,
              shares: g.shares.map((s): ProgressShare => ({ ...s, status: 'unconfirmed', reason: null })),
              card: 'unconfirmed',
              failure: { kind: 'unconfirmed', message: action.message },
              resend: null,
            },
      );
    case 'giveUp': {
      const g = state.generation;
      if (state.step !== 'bcard' || !g || g.runId !== action.runId || g.failure?.kind !== 'unconfirmed') return state;
      return { ...state, step: 'merchant', card: demoCardDetails(g.amountCents, { unconfirmed: true }) };
    }
    case 'retryAvailable':
      return updateRun(state, action.runId, (g) => (g.failure ? { ...g, retryAvailable: true } : g));
    case 'cardReady': {
      const g = state.generation;
      if (state.step !== 'bcard' || !g || g.runId !== action.runId) return state;
      return { ...state, step: 'merchant', card: action.card };
    }
    case 'paid':
      return state.step === 'merchant' ? { ...state, step: 'complete', completion: action.completion, card: null } : state;
  }
}

export interface Progress {
  stepsDone: number;
  stepsTotal: number;
  /** 0–100, whole percent. */
  percent: number;
  collectedCents: number;
  remainingCents: number;
}

/** Spec §4: N+1 equal steps (one per split plus the card). Collected counts the money bpay holds right now. */
export function progressOf(g: Generation): Progress {
  const stepsTotal = g.shares.length + 1;
  const stepsDone = Math.min(g.reached, stepsTotal);
  const collectedCents = g.shares
    .filter((s) => s.status === 'held' || s.status === 'captured')
    .reduce((a, s) => a + s.cents, 0);
  return {
    stepsDone,
    stepsTotal,
    percent: Math.round((stepsDone * 100) / stepsTotal),
    collectedCents,
    remainingCents: Math.max(0, g.totalCents - collectedCents),
  };
}

export type SimEvent =
  | { at: number; type: 'collected'; index: number }
  | { at: number; type: 'failed'; index: number }
  | { at: number; type: 'cardIssued' }
  | { at: number; type: 'retryAvailable' }
  | { at: number; type: 'toMerchant' };

/**
 * The simulation's timeline in ms from the start (spec §4, §9). Success: share i collected at 1.5 s × (i+1), the
 * card 1 s after the last, the merchant step once the finished bar has been seen. Failure: the failing share fails at its 1.5 s mark and the
 * retry options come 2 s later.
 */
export function simulationTimeline(shareCount: number, scenario: Scenario): SimEvent[] {
  const events: SimEvent[] = [];
  if (scenario === 'failure' && shareCount > 0) {
    const failing = failingShareIndex(shareCount);
    for (let i = 0; i < failing; i++) events.push({ at: SPLIT_STEP_MS * (i + 1), type: 'collected', index: i });
    const failAt = SPLIT_STEP_MS * (failing + 1);
    events.push({ at: failAt, type: 'failed', index: failing });
    events.push({ at: failAt + RETRY_DELAY_MS, type: 'retryAvailable' });
    return events;
  }
  for (let i = 0; i < shareCount; i++) events.push({ at: SPLIT_STEP_MS * (i + 1), type: 'collected', index: i });
  const cardAt = SPLIT_STEP_MS * shareCount + CARD_STEP_MS;
  events.push({ at: cardAt, type: 'cardIssued' });
  events.push({ at: cardAt + RESULT_SHOWN_MS, type: 'toMerchant' });
  return events;
}

/** The checkout's amount field (a number input: "150", "99.5", "1e2") in whole cents; 0 for anything unusable. */
export function amountInputToCents(input: string): number {
  if (!input.trim()) return 0;
  const n = Number(input);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.round(n * 100);
}

/** The largest purchase the server splits ($1,000,000.00). */
export const MAX_AMOUNT_CENTS = 100_000_000;
