/*
 * The checkout demos' flow as data (spec §4, "Addon and extension flows"), shared by the Merchant Demo and the
 * Customer Demo: checkout -> split -> for each share a 3-D Secure code, then 0.5 s + 1.5 s of processing -> creating
 * the bcard -> the card -> (2 s) the merchant's form, filled -> complete.
 *
 * The reducer is pure: timers and requests live in the hook, which dispatches `tick`, `cardIssued`, `payFailed`
 * and `completed`. Actions that do not belong to the current phase are ignored, so a late timer or a double click
 * can never skip a step.
 */

/** The order both demos sell (spec §9: $145.77, tax $0.00, free shipping). */
export const DEMO_ORDER = {
  merchant: 'TechStore',
  item: 'Premium Laptop Stand',
  amountCents: 14_577,
  taxCents: 0,
  shippingCents: 0,
} as const;

/** Spec §4 and §9, in milliseconds. */
export const DELAYS = {
  /** After a code is accepted, before the source is processed. */
  verifying: 500,
  /** One source's processing, before the next source's code. */
  charging: 1500,
  /** "Creating your bcard..." (simulated runs; a real run lasts as long as its request). */
  creating: 2000,
  /** The card stays on screen this long before the merchant's form is filled. */
  cardToMerchant: 2000,
} as const;

// ---- The one-time code (spec §5: digits only, max 6; 'Verify & Continue' only with exactly 6) -----------------

export const CODE_LENGTH = 6;

/** What the code field keeps of what was typed or pasted: its digits, at most six. */
export function sanitizeCode(input: string): string {
  return input.replace(/\D/g, '').slice(0, CODE_LENGTH);
}

/** 'Verify & Continue' is enabled only for exactly six digits. */
export function codeReady(code: string): boolean {
  return code.length === CODE_LENGTH && /^\d+$/.test(code);
}

// ---- Phases --------------------------------------------------------------------------------------------------

/** One share of the split being paid, frozen when the split is submitted. */
export interface FlowShare {
  sourceId: string;
  name: string;
  last4: string;
  brand: string;
  cents: number;
}

export type ProcessingStage = 'verifying' | 'charging';

export type Phase =
  | { kind: 'checkout' }
  | { kind: 'split' }
  | { kind: 'verify'; index: number }
  | { kind: 'processing'; index: number; stage: ProcessingStage }
  | { kind: 'creating' }
  | { kind: 'card' }
  | { kind: 'merchant' }
  | { kind: 'complete' };

export type PhaseKind = Phase['kind'];

/** The card that pays the merchant: a sandbox bcard's real (masked) details, or the demo card. */
export interface FlowCard {
  kind: 'sandbox' | 'demo';
  /** As shown: masked for a sandbox bcard ("•••• •••• •••• 1234"), grouped for the demo card. */
  number: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  /** null: not available to the page (a real bcard's CVV is never sent here). */
  cvv: string | null;
  cardholderName: string;
  /** What the card was loaded with, fee included. */
  totalCents: number;
}

/** What the completion page shows. */
export interface FlowReceipt {
  kind: 'sandbox' | 'demo';
  /** The payment intent id (sandbox) or a demo order number. */
  reference: string;
  amountCents: number;
  status: string;
}

export interface FlowState {
  phase: Phase;
  shares: FlowShare[];
  card: FlowCard | null;
  receipt: FlowReceipt | null;
  /** Counts submitted splits; a request started for one attempt is recognised by it. */
  attempt: number;
}

export type FlowAction =
  | { type: 'start' }
  | { type: 'back' }
  | { type: 'submitSplit'; shares: FlowShare[] }
  | { type: 'codeVerified' }
  | { type: 'tick' }
  | { type: 'cardIssued'; card: FlowCard }
  | { type: 'payFailed' }
  | { type: 'showMerchant' }
  | { type: 'completed'; receipt: FlowReceipt }
  | { type: 'cancel' }
  | { type: 'restart' };

export const initialFlow: FlowState = { phase: { kind: 'checkout' }, shares: [], card: null, receipt: null, attempt: 0 };

/** The phases that happen inside bpay (in the page for the Merchant Demo, in the overlay for the Customer Demo). */
export function isBpayPhase(phase: Phase): boolean {
  return ['split', 'verify', 'processing', 'creating', 'card'].includes(phase.kind);
}

/** A flow can be abandoned (back to the merchant's checkout) until the bcard is being created. */
export function isCancellable(phase: Phase): boolean {
  return phase.kind === 'split' || phase.kind === 'verify' || phase.kind === 'processing';
}

export function flowReducer(state: FlowState, action: FlowAction): FlowState {
  const { phase } = state;
  switch (action.type) {
    case 'start':
      return phase.kind === 'checkout' ? { ...state, phase: { kind: 'split' } } : state;
    case 'back':
      return phase.kind === 'split' ? { ...state, phase: { kind: 'checkout' } } : state;
    case 'cancel':
      return isCancellable(phase) ? { ...state, phase: { kind: 'checkout' }, shares: [] } : state;
    case 'submitSplit': {
      const shares = action.shares.filter((s) => s.cents > 0);
      if (phase.kind !== 'split' || shares.length === 0) return state;
      return { ...state, phase: { kind: 'verify', index: 0 }, shares, card: null, receipt: null, attempt: state.attempt + 1 };
    }
    case 'codeVerified':
      return phase.kind === 'verify' ? { ...state, phase: { kind: 'processing', index: phase.index, stage: 'verifying' } } : state;
    case 'tick':
      if (phase.kind === 'processing') {
        if (phase.stage === 'verifying') return { ...state, phase: { ...phase, stage: 'charging' } };
        const next = phase.index + 1;
        return { ...state, phase: next < state.shares.length ? { kind: 'verify', index: next } : { kind: 'creating' } };
      }
      if (phase.kind === 'card') return { ...state, phase: { kind: 'merchant' } };
      return state;
    case 'showMerchant':
      return phase.kind === 'card' ? { ...state, phase: { kind: 'merchant' } } : state;
    case 'cardIssued':
      return phase.kind === 'creating' ? { ...state, phase: { kind: 'card' }, card: action.card } : state;
    case 'payFailed':
      return phase.kind === 'creating' ? { ...state, phase: { kind: 'split' }, card: null } : state;
    case 'completed':
      return phase.kind === 'merchant' ? { ...state, phase: { kind: 'complete' }, receipt: action.receipt } : state;
    case 'restart':
      return initialFlow;
  }
}

/** How long the phase lasts before `tick` moves it on; null when it waits for the visitor or a request. */
export function tickDelay(phase: Phase): number | null {
  if (phase.kind === 'processing') return phase.stage === 'verifying' ? DELAYS.verifying : DELAYS.charging;
  if (phase.kind === 'card') return DELAYS.cardToMerchant;
  return null;
}

// ---- Step badges (spec §2: 2/5 to 5/5; the Customer Demo's merchant page is 4/5, completion 5/5) --------------

export const TOTAL_STEPS = 5;

/**
 * Step 1 (the cart) happened before the demo opens. 2: the merchant's checkout; 3: bpay (split, codes, the card);
 * 4: the merchant's form, filled with the card; 5: done.
 */
export function stepOf(phase: Phase): 2 | 3 | 4 | 5 {
  if (phase.kind === 'checkout') return 2;
  if (phase.kind === 'merchant') return 4;
  if (phase.kind === 'complete') return 5;
  return 3;
}

/** Each share's state on the progress list. */
export type ShareProgress = 'done' | 'verifying' | 'charging' | 'awaiting_code' | 'pending';

export function shareProgress(phase: Phase, index: number): ShareProgress {
  switch (phase.kind) {
    case 'verify':
      return index < phase.index ? 'done' : index === phase.index ? 'awaiting_code' : 'pending';
    case 'processing':
      return index < phase.index ? 'done' : index === phase.index ? phase.stage : 'pending';
    case 'creating':
    case 'card':
    case 'merchant':
    case 'complete':
      return 'done';
    default:
      return 'pending';
  }
}

/** Progress through the N codes plus card creation, 0–100 (N + 1 equal steps, as in the payment demo). */
export function progressPercent(phase: Phase, shareCount: number): number {
  const steps = shareCount + 1;
  let done = 0;
  if (phase.kind === 'verify') done = phase.index;
  else if (phase.kind === 'processing') done = phase.index + (phase.stage === 'charging' ? 0.5 : 0.25);
  else if (phase.kind === 'creating') done = shareCount + 0.5;
  else if (phase.kind === 'card' || phase.kind === 'merchant' || phase.kind === 'complete') done = steps;
  return Math.round((done / steps) * 100);
}

// ---- Focus (the button that moved the flow on has usually just unmounted, which would leave focus on <body>) ---

/**
 * Which step the keyboard focus belongs to: it moves when this changes, never within a step (processing's two
 * stages are one step, so focus moves once).
 */
export function focusStepOf(phase: Phase): string {
  if (phase.kind === 'verify' || phase.kind === 'processing') return `${phase.kind}-${phase.index}`;
  return phase.kind;
}

/**
 * What takes the focus on a new step: a 3-D Secure prompt's code field (the one thing to do there; it focuses
 * itself as it mounts), else the step's heading (tabIndex -1), so a screen reader announces where the visitor is.
 */
export function focusTargetOf(phase: Phase): 'code' | 'heading' {
  return phase.kind === 'verify' ? 'code' : 'heading';
}

// ---- Small display rules ---------------------------------------------------------------------------------------

/** A visibly made-up order number for the simulated completion ("DEMO-" and eight characters). */
export function demoOrderNumber(random: () => number = Math.random): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let s = '';
  for (let i = 0; i < 8; i++) s += alphabet[Math.floor(random() * alphabet.length)] ?? 'X';
  return `DEMO-${s}`;
}
