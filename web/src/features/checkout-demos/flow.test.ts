import { describe, expect, test } from 'bun:test';
import { DEFAULT_FEE_PERCENTAGE } from '../../components/split-configurator';
import { en } from '../../i18n/messages/demos';
import {
  CODE_LENGTH,
  codeReady,
  DELAYS,
  DEMO_ORDER,
  demoOrderNumber,
  flowReducer,
  focusStepOf,
  focusTargetOf,
  initialFlow,
  isBpayPhase,
  progressPercent,
  sanitizeCode,
  shareProgress,
  stepOf,
  tickDelay,
  type FlowAction,
  type FlowCard,
  type FlowShare,
  type FlowState,
} from './flow';

const shares: FlowShare[] = [
  { sourceId: 'a', name: 'Visa', last4: '4242', brand: 'visa', cents: 9000 },
  { sourceId: 'b', name: 'Bank', last4: '6789', brand: 'bank', cents: 6000 },
];
const card: FlowCard = {
  kind: 'demo',
  number: '4242 4242 4242 4242',
  last4: '4242',
  expiryMonth: 12,
  expiryYear: 2028,
  cvv: '123',
  cardholderName: 'Demo Customer',
  totalCents: 15_000,
};

const run = (actions: FlowAction[], from: FlowState = initialFlow) => actions.reduce(flowReducer, from);

describe('one-time code', () => {
  test('keeps digits only, at most six', () => {
    expect(sanitizeCode('12ab3')).toBe('123');
    expect(sanitizeCode('abc')).toBe('');
    expect(sanitizeCode('1234567890')).toBe('123456');
    expect(sanitizeCode(' 12 34-56 ')).toBe('123456');
    expect(sanitizeCode('١٢٣')).toBe('');
  });

  test("'Verify & Continue' only at exactly six digits", () => {
    expect(codeReady('')).toBe(false);
    expect(codeReady('12345')).toBe(false);
    expect(codeReady('123456')).toBe(true);
    expect(codeReady('1234567')).toBe(false);
    expect(codeReady('12345a')).toBe(false);
    expect(codeReady(sanitizeCode('12345a6'))).toBe(true);
  });
});

describe('step badges', () => {
  test('2/5 at the checkout, 3/5 inside bpay, 4/5 on the merchant form, 5/5 when complete', () => {
    expect(stepOf({ kind: 'checkout' })).toBe(2);
    for (const p of [
      { kind: 'split' },
      { kind: 'verify', index: 1 },
      { kind: 'processing', index: 0, stage: 'charging' },
      { kind: 'creating' },
      { kind: 'card' },
    ] as const) {
      expect(stepOf(p)).toBe(3);
      expect(isBpayPhase(p)).toBe(true);
    }
    expect(stepOf({ kind: 'merchant' })).toBe(4);
    expect(stepOf({ kind: 'complete' })).toBe(5);
    expect(isBpayPhase({ kind: 'merchant' })).toBe(false);
  });
});

describe('per-source progression', () => {
  test('each share: code, 0.5 s, 1.5 s, then the next; after the last, the bcard, the card and the merchant', () => {
    let s = run([{ type: 'start' }, { type: 'submitSplit', shares }]);
    expect(s.phase).toEqual({ kind: 'verify', index: 0 });
    expect(s.attempt).toBe(1);
    expect(tickDelay(s.phase)).toBeNull();
    // A timer firing while the code is awaited changes nothing.
    expect(flowReducer(s, { type: 'tick' })).toBe(s);

    s = flowReducer(s, { type: 'codeVerified' });
    expect(s.phase).toEqual({ kind: 'processing', index: 0, stage: 'verifying' });
    expect(tickDelay(s.phase)).toBe(DELAYS.verifying);
    s = flowReducer(s, { type: 'tick' });
    expect(s.phase).toEqual({ kind: 'processing', index: 0, stage: 'charging' });
    expect(tickDelay(s.phase)).toBe(DELAYS.charging);
    expect(shareProgress(s.phase, 0)).toBe('charging');
    expect(shareProgress(s.phase, 1)).toBe('pending');
    s = flowReducer(s, { type: 'tick' });
    expect(s.phase).toEqual({ kind: 'verify', index: 1 });
    expect(shareProgress(s.phase, 0)).toBe('done');
    expect(shareProgress(s.phase, 1)).toBe('awaiting_code');

    s = run([{ type: 'codeVerified' }, { type: 'tick' }, { type: 'tick' }], s);
    expect(s.phase).toEqual({ kind: 'creating' });
    // Creating waits for the card (a timer in the simulation, the request in a real run), not for a tick.
    expect(tickDelay(s.phase)).toBeNull();
    expect(flowReducer(s, { type: 'tick' })).toBe(s);

    s = flowReducer(s, { type: 'cardIssued', card });
    expect(s.phase).toEqual({ kind: 'card' });
    expect(s.card).toEqual(card);
    expect(tickDelay(s.phase)).toBe(DELAYS.cardToMerchant);
    s = flowReducer(s, { type: 'tick' });
    expect(s.phase).toEqual({ kind: 'merchant' });

    s = flowReducer(s, { type: 'completed', receipt: { kind: 'demo', reference: 'DEMO-X', amountCents: 14_577, status: 'succeeded' } });
    expect(s.phase).toEqual({ kind: 'complete' });
    expect(flowReducer(s, { type: 'restart' })).toEqual(initialFlow);
  });

  test('a code cannot be skipped: verifying twice or ticking early does nothing', () => {
    const s = run([{ type: 'start' }, { type: 'submitSplit', shares }, { type: 'codeVerified' }]);
    expect(flowReducer(s, { type: 'codeVerified' })).toBe(s);
    expect(flowReducer(s, { type: 'cardIssued', card })).toBe(s);
    expect(flowReducer(s, { type: 'completed', receipt: { kind: 'demo', reference: 'x', amountCents: 1, status: 'succeeded' } })).toBe(s);
  });

  test('zero shares are not verified; an empty split does not start', () => {
    const withZero = [...shares, { sourceId: 'c', name: 'Amex', last4: '0005', brand: 'amex', cents: 0 }];
    const s = run([{ type: 'start' }, { type: 'submitSplit', shares: withZero }]);
    expect(s.shares.map((x) => x.sourceId)).toEqual(['a', 'b']);
    const none = run([{ type: 'start' }, { type: 'submitSplit', shares: [] }]);
    expect(none.phase).toEqual({ kind: 'split' });
  });

  test('a failed payment returns to the split; a new submission is a new attempt', () => {
    let s = run([{ type: 'start' }, { type: 'submitSplit', shares: [shares[0]!] }, { type: 'codeVerified' }, { type: 'tick' }, { type: 'tick' }]);
    expect(s.phase).toEqual({ kind: 'creating' });
    s = flowReducer(s, { type: 'payFailed' });
    expect(s.phase).toEqual({ kind: 'split' });
    s = flowReducer(s, { type: 'submitSplit', shares });
    expect(s.attempt).toBe(2);
    expect(s.phase).toEqual({ kind: 'verify', index: 0 });
  });

  test('cancel goes back to the checkout until the bcard is being created, not after', () => {
    const verifying = run([{ type: 'start' }, { type: 'submitSplit', shares }]);
    expect(flowReducer(verifying, { type: 'cancel' }).phase).toEqual({ kind: 'checkout' });
    const creating = run([{ type: 'codeVerified' }, { type: 'tick' }, { type: 'tick' }, { type: 'codeVerified' }, { type: 'tick' }, { type: 'tick' }], verifying);
    expect(creating.phase).toEqual({ kind: 'creating' });
    expect(flowReducer(creating, { type: 'cancel' })).toBe(creating);
  });

  test('progress runs in N + 1 steps and reaches 100 with the card', () => {
    expect(progressPercent({ kind: 'verify', index: 0 }, 2)).toBe(0);
    expect(progressPercent({ kind: 'verify', index: 1 }, 2)).toBe(33);
    expect(progressPercent({ kind: 'creating' }, 2)).toBe(83);
    expect(progressPercent({ kind: 'card' }, 2)).toBe(100);
  });
});

/*
 * The spec's numbers, written out here rather than read from the constants, so that changing a constant fails a
 * test (spec §4 "Addon and extension flows", §2 "Addon-mode demo", §9).
 */
describe("the spec's constants", () => {
  test.each([
    ['0.5 s after a code is accepted', DELAYS.verifying, 500],
    ['then 1.5 s of processing per source', DELAYS.charging, 1500],
    ["'Creating your bcard...' for 2 s", DELAYS.creating, 2000],
    ['2 s from the card to the merchant form', DELAYS.cardToMerchant, 2000],
    ['the order is $145.77', DEMO_ORDER.amountCents, 14_577],
    ['tax $0.00', DEMO_ORDER.taxCents, 0],
    ['free shipping', DEMO_ORDER.shippingCents, 0],
    ['the Addon demo shows fee 2.9%', DEFAULT_FEE_PERCENTAGE, 2.9],
    ['the one-time code has 6 digits', CODE_LENGTH, 6],
    ['the store', DEMO_ORDER.merchant, 'TechStore'],
    ['the item', DEMO_ORDER.item, 'Premium Laptop Stand'],
    ['the item as the page shows it', en['demos.order.item'], 'Premium Laptop Stand'],
  ] as const)('%s', (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });

  test('the timers the flow runs are those numbers', () => {
    expect(tickDelay({ kind: 'processing', index: 0, stage: 'verifying' })).toBe(500);
    expect(tickDelay({ kind: 'processing', index: 0, stage: 'charging' })).toBe(1500);
    expect(tickDelay({ kind: 'card' })).toBe(2000);
  });
});

describe('focus on each new step', () => {
  const phases = [
    { kind: 'checkout' },
    { kind: 'split' },
    { kind: 'verify', index: 0 },
    { kind: 'processing', index: 0, stage: 'verifying' },
    { kind: 'verify', index: 1 },
    { kind: 'processing', index: 1, stage: 'verifying' },
    { kind: 'creating' },
    { kind: 'card' },
    { kind: 'merchant' },
    { kind: 'complete' },
  ] as const;

  test('every step of a run is a new step for the focus', () => {
    const steps = phases.map(focusStepOf);
    expect(new Set(steps).size).toBe(phases.length);
  });

  test("processing's two stages are one step: the focus moves once", () => {
    expect(focusStepOf({ kind: 'processing', index: 1, stage: 'charging' })).toBe(focusStepOf({ kind: 'processing', index: 1, stage: 'verifying' }));
  });

  test("a 3-D Secure prompt's code field takes the focus; every other step its heading", () => {
    for (const p of phases) expect(focusTargetOf(p)).toBe(p.kind === 'verify' ? 'code' : 'heading');
  });
});

test('display helpers', () => {
  expect(demoOrderNumber(() => 0)).toBe('DEMO-AAAAAAAA');
  expect(demoOrderNumber()).toMatch(/^DEMO-[A-Z2-9]{8}$/);
});
