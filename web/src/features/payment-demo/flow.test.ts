import { describe, expect, test } from 'bun:test';
import { DEFAULT_FEE_PERCENTAGE } from '../../components/split-configurator';
import { formatExpiry, groupCardNumber } from '../../lib/card-display';
import {
  AUTO_RESENDS,
  CARD_STEP_MS,
  DEFAULT_AMOUNT,
  DEFAULT_MERCHANT,
  demoCardDetails,
  demoTransactionId,
  failingShareIndex,
  flowReducer,
  initialFlowState,
  maskedCardDetails,
  RESEND_BACKOFF_MS,
  progressOf,
  RESULT_SHOWN_MS,
  RETRY_DELAY_MS,
  runKindFor,
  simulationTimeline,
  SPLIT_STEP_MS,
  type FlowAction,
  type FlowState,
  type ShareInput,
} from './flow';

const shares: ShareInput[] = [
  { sourceId: 'a', name: 'Chase', last4: '4242', brand: 'visa', cents: 9261 },
  { sourceId: 'b', name: 'Amex', last4: '0005', brand: 'amex', cents: 6174 },
];
const TOTAL = 15435;

function run(actions: FlowAction[], from: FlowState = initialFlowState): FlowState {
  return actions.reduce(flowReducer, from);
}

let nextRun = 1;
const start = (kind: 'real' | 'simulated', scenario: 'success' | 'failure' = 'success', list = shares): FlowAction => ({
  type: 'start',
  runId: nextRun++,
  kind,
  scenario,
  amountCents: 15000,
  feeCents: 435,
  totalCents: TOTAL,
  shares: list,
});

describe('the spec numbers (§2, §4, §9), pinned: changing a constant fails here', () => {
  test.each([
    ['each simulated split, ms', SPLIT_STEP_MS, 1500],
    ['card creation after the last split, ms', CARD_STEP_MS, 1000],
    ['retry options after a failure, ms', RETRY_DELAY_MS, 2000],
    ['default amount, dollars', DEFAULT_AMOUNT, '150'],
    ['default merchant', DEFAULT_MERCHANT, 'Demo Store'],
    ['default fee, percent', DEFAULT_FEE_PERCENTAGE, 2.9],
  ] as const)('%s', (_name, actual, spec) => {
    expect(actual).toBe(spec);
  });

  test('no answer: two automatic resends, a short wait before each (and never more waits than resends)', () => {
    expect(AUTO_RESENDS).toBe(2);
    expect(RESEND_BACKOFF_MS).toEqual([1000, 2000]);
  });
});

describe('steps', () => {
  test('checkout -> split -> bcard -> merchant -> complete, and back to checkout', () => {
    let s = run([{ type: 'toSplit' }]);
    expect(s.step).toBe('split');
    s = run([{ type: 'toCheckout' }], s);
    expect(s.step).toBe('checkout');
    s = run([{ type: 'toSplit' }, start('simulated')], s);
    expect(s.step).toBe('bcard');
    const runId = s.generation!.runId;
    s = run([{ type: 'simCollected', runId, index: 0 }, { type: 'simCollected', runId, index: 1 }, { type: 'simCardIssued', runId }], s);
    s = run([{ type: 'cardReady', runId, card: demoCardDetails(15000) }], s);
    expect(s.step).toBe('merchant');
    s = run([{ type: 'paid', completion: { amountCents: 15000, feeCents: 435, totalCents: TOTAL, merchant: 'Demo Store', transactionId: 'x', isDemo: true } }], s);
    expect(s.step).toBe('complete');
    expect(s.completion?.transactionId).toBe('x');
    s = run([{ type: 'toCheckout' }], s);
    expect(s).toMatchObject({ step: 'checkout', generation: null, card: null, completion: null });
  });

  test('a run can only start from the split (or again from the bcard step, to retry)', () => {
    expect(run([start('simulated')]).step).toBe('checkout');
  });

  test('events of an earlier run change nothing', () => {
    let s = run([{ type: 'toSplit' }, start('simulated')]);
    const old = s.generation!.runId;
    s = run([start('simulated', 'success')], s);
    const before = s.generation;
    s = run([{ type: 'simCollected', runId: old, index: 0 }, { type: 'cardReady', runId: old, card: demoCardDetails(1) }], s);
    expect(s.generation).toBe(before!);
    expect(s.step).toBe('bcard');
  });

  test('events after cancelling change nothing', () => {
    let s = run([{ type: 'toSplit' }, start('real')]);
    const runId = s.generation!.runId;
    s = run([{ type: 'toCheckout' }, { type: 'realIssued', runId, bcardId: 'bc_1', statuses: [] }, { type: 'cardReady', runId, card: demoCardDetails(1) }], s);
    expect(s.step).toBe('checkout');
    expect(s.generation).toBeNull();
  });

  test("'Try Failure/Success Scenario' flips the scenario and returns to the checkout", () => {
    const s = run([{ type: 'tryOtherScenario' }]);
    expect(s).toMatchObject({ step: 'checkout', scenario: 'failure' });
    expect(run([{ type: 'tryOtherScenario' }], s).scenario).toBe('success');
  });
});

describe('progress: N+1 equal steps, collected and remaining', () => {
  test('the simulation collects one share per step, then the card makes it 100 %', () => {
    let s = run([{ type: 'toSplit' }, start('simulated')]);
    const runId = s.generation!.runId;
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['processing', 'pending']);
    expect(progressOf(s.generation!)).toEqual({ stepsDone: 0, stepsTotal: 3, percent: 0, collectedCents: 0, remainingCents: TOTAL });
    s = run([{ type: 'simCollected', runId, index: 0 }], s);
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['captured', 'processing']);
    expect(progressOf(s.generation!)).toEqual({ stepsDone: 1, stepsTotal: 3, percent: 33, collectedCents: 9261, remainingCents: 6174 });
    s = run([{ type: 'simCollected', runId, index: 1 }], s);
    expect(s.generation!.card).toBe('processing');
    expect(progressOf(s.generation!)).toMatchObject({ stepsDone: 2, percent: 67, collectedCents: TOTAL, remainingCents: 0 });
    s = run([{ type: 'simCardIssued', runId }], s);
    expect(progressOf(s.generation!)).toMatchObject({ stepsDone: 3, percent: 100 });
  });

  test('four shares: five equal steps of 20 %', () => {
    const four = ['a', 'b', 'c', 'd'].map((id) => ({ sourceId: id, name: id, last4: '0000', brand: 'visa', cents: 100 }));
    let s = run([{ type: 'toSplit' }, { ...start('simulated', 'success', four), totalCents: 400 } as FlowAction]);
    const runId = s.generation!.runId;
    const percents: number[] = [];
    for (let i = 0; i < 4; i++) {
      s = run([{ type: 'simCollected', runId, index: i }], s);
      percents.push(progressOf(s.generation!).percent);
    }
    s = run([{ type: 'simCardIssued', runId }], s);
    percents.push(progressOf(s.generation!).percent);
    expect(percents).toEqual([20, 40, 60, 80, 100]);
  });

  test('a real run shows every share pending, then what the server reports', () => {
    let s = run([{ type: 'toSplit' }, start('real')]);
    const runId = s.generation!.runId;
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['pending', 'pending']);
    s = run(
      [
        {
          type: 'realIssued',
          runId,
          bcardId: 'bc_1',
          statuses: [
            { fundingSourceId: 'b', status: 'captured' },
            { fundingSourceId: 'a', status: 'captured' },
          ],
        },
      ],
      s,
    );
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['captured', 'captured']);
    expect(s.generation!.bcardId).toBe('bc_1');
    expect(progressOf(s.generation!)).toMatchObject({ percent: 100, collectedCents: TOTAL, remainingCents: 0 });
  });
});

describe("the signed-in run follows the server's progress (issue 28 §3)", () => {
  const progress = (runId: number, stage: string, statuses: string[]): FlowAction => ({ type: 'realProgress', runId, stage, statuses });

  test('share i takes the status of the test share i as it advances: being held, held, then captured; the bar never goes back', () => {
    let s = run([{ type: 'toSplit' }, start('real')]);
    const runId = s.generation!.runId;
    s = run([progress(runId, 'not_started', [])], s);
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['pending', 'pending']);
    s = run([progress(runId, 'holding', ['held', 'pending'])], s);
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['held', 'processing']);
    expect(progressOf(s.generation!)).toMatchObject({ stepsDone: 1, stepsTotal: 3 });
    s = run([progress(runId, 'capturing', ['held', 'held'])], s);
    expect(progressOf(s.generation!).stepsDone).toBe(2);
    expect(s.generation!.card).toBe('pending');
    s = run([progress(runId, 'completed', ['captured', 'captured'])], s);
    expect(s.generation!.shares.map((x) => x.status)).toEqual(['captured', 'captured']);
    expect(s.generation!.card).toBe('processing');
    // A late poll of an earlier moment moves no share back on the bar.
    s = run([progress(runId, 'holding', ['pending', 'pending'])], s);
    expect(progressOf(s.generation!).stepsDone).toBe(2);
  });

  test('ignored: another run, another number of shares, a failed stage, or once the answer came', () => {
    let s = run([{ type: 'toSplit' }, start('real')]);
    const runId = s.generation!.runId;
    const before = s.generation;
    expect(run([progress(runId + 100, 'completed', ['captured', 'captured'])], s).generation).toBe(before);
    expect(run([progress(runId, 'completed', ['captured'])], s).generation).toBe(before);
    expect(run([progress(runId, 'failed', ['voided', 'declined'])], s).generation).toBe(before);
    s = run([{ type: 'realIssued', runId, bcardId: 'bc_1', statuses: [] }], s);
    const issued = s.generation;
    expect(run([progress(runId, 'holding', ['held', 'pending'])], s).generation).toBe(issued);
  });
});

describe('the failure scenario', () => {
  test('fails the second share, releases the first, stops the bar, then offers retry', () => {
    let s = run([{ type: 'toSplit' }, start('simulated', 'failure')]);
    const runId = s.generation!.runId;
    s = run([{ type: 'simCollected', runId, index: 0 }, { type: 'simFailed', runId, index: 1 }], s);
    const g = s.generation!;
    expect(g.shares.map((x) => x.status)).toEqual(['released', 'declined']);
    expect(g.failure).toEqual({ kind: 'simulated', sourceName: 'Amex', last4: '0005' });
    expect(g.retryAvailable).toBe(false);
    // The bar stays where it stopped; nothing is collected any more (all or nothing).
    expect(progressOf(g)).toEqual({ stepsDone: 1, stepsTotal: 3, percent: 33, collectedCents: 0, remainingCents: TOTAL });
    // Late success events cannot undo the failure.
    s = run([{ type: 'simCardIssued', runId }, { type: 'retryAvailable', runId }], s);
    expect(s.generation!.card).toBe('failed');
    expect(s.generation!.retryAvailable).toBe(true);
  });

  test('Retry restarts in the success scenario', () => {
    let s = run([{ type: 'toSplit' }, start('simulated', 'failure')]);
    s = run([start('real', 'success')], s);
    expect(s).toMatchObject({ step: 'bcard', scenario: 'success' });
    expect(s.generation!.failure).toBeNull();
    expect(s.generation!.kind).toBe('real');
  });

  test('the second share fails; with a single share, that one', () => {
    expect(failingShareIndex(1)).toBe(0);
    expect(failingShareIndex(2)).toBe(1);
    expect(failingShareIndex(4)).toBe(1);
  });

  test('the failure scenario is a simulation for everyone; success is real only for a signed-in consumer outside demo mode', () => {
    expect(runKindFor({ signedIn: true, demoMode: false, scenario: 'success' })).toBe('real');
    expect(runKindFor({ signedIn: true, demoMode: false, scenario: 'failure' })).toBe('simulated');
    expect(runKindFor({ signedIn: true, demoMode: true, scenario: 'success' })).toBe('simulated');
    expect(runKindFor({ signedIn: false, demoMode: false, scenario: 'success' })).toBe('simulated');
    expect(runKindFor({ signedIn: false, demoMode: true, scenario: 'failure' })).toBe('simulated');
  });
});

describe('the simulation timeline (spec §4, §9)', () => {
  test('success: 1.5 s per split, the card about 1 s later, then the merchant step', () => {
    expect(simulationTimeline(2, 'success')).toEqual([
      { at: SPLIT_STEP_MS, type: 'collected', index: 0 },
      { at: 2 * SPLIT_STEP_MS, type: 'collected', index: 1 },
      { at: 2 * SPLIT_STEP_MS + CARD_STEP_MS, type: 'cardIssued' },
      { at: 2 * SPLIT_STEP_MS + CARD_STEP_MS + RESULT_SHOWN_MS, type: 'toMerchant' },
    ]);
  });

  test('failure: the second split fails at its mark, retry options 2 s later, no card', () => {
    expect(simulationTimeline(3, 'failure')).toEqual([
      { at: SPLIT_STEP_MS, type: 'collected', index: 0 },
      { at: 2 * SPLIT_STEP_MS, type: 'failed', index: 1 },
      { at: 2 * SPLIT_STEP_MS + RETRY_DELAY_MS, type: 'retryAvailable' },
    ]);
  });
});

describe('the fallback card and demo ids', () => {
  test('is 4242 4242 4242 4242, 12/28, CVV 123, flagged as a demo card, with no bcard id', () => {
    const card = demoCardDetails(15000);
    expect(card).toMatchObject({ display: 'demo', unconfirmed: false, bcardId: null, cvv: '123', balanceCents: 15000 });
    expect(groupCardNumber(card.number)).toBe('4242 4242 4242 4242');
    expect(formatExpiry(card.expiryMonth, card.expiryYear)).toBe('12/28');
  });

  test("a real bcard whose details could not be read keeps its id and shows the create answer's masked number, no CVV", () => {
    const card = maskedCardDetails(
      { id: 'bc_9', cardNumber: '•••• •••• •••• 4821', expiryMonth: 3, expiryYear: 2030, cardholderName: 'Ada Lovelace', status: 'active' },
      15000,
    );
    expect(card).toEqual({
      bcardId: 'bc_9',
      display: 'masked',
      unconfirmed: false,
      number: '•••• •••• •••• 4821',
      expiryMonth: 3,
      expiryYear: 2030,
      cvv: null,
      cardholderName: 'Ada Lovelace',
      balanceCents: 15000,
      status: 'active',
    });
  });

  test('a demo transaction id says it is one', () => {
    expect(demoTransactionId(() => 0)).toBe('demo_txn_aaaaaaaaaaaa');
    expect(demoTransactionId()).toMatch(/^demo_txn_[a-z0-9]{12}$/);
  });
});

describe('a bcard request that gets no answer', () => {
  const realRun = () => {
    const s = run([{ type: 'toSplit' }, start('real')]);
    return { s, runId: s.generation!.runId };
  };

  test('resends are shown; after the last one every share and the card are unconfirmed, not failed or released', () => {
    let { s, runId } = realRun();
    s = run([{ type: 'resending', runId, attempt: 2, of: 3 }], s);
    expect(s.generation!.resend).toEqual({ attempt: 2, of: 3 });
    s = run([{ type: 'realUnconfirmed', runId, message: null }], s);
    const g = s.generation!;
    expect(g.shares.map((x) => x.status)).toEqual(['unconfirmed', 'unconfirmed']);
    expect(g.card).toBe('unconfirmed');
    expect(g.failure).toEqual({ kind: 'unconfirmed', message: null });
    expect(g.resend).toBeNull();
    expect(progressOf(g).collectedCents).toBe(0);
  });

  test('an answer after a resend wins: the issued bcard, no resend shown', () => {
    let { s, runId } = realRun();
    s = run([{ type: 'resending', runId, attempt: 2, of: 3 }, { type: 'realIssued', runId, bcardId: 'bc_1', statuses: [] }], s);
    expect(s.generation).toMatchObject({ card: 'issued', bcardId: 'bc_1', resend: null });
    // Late news of the lost answer cannot turn the issued bcard into an unconfirmed one.
    s = run([{ type: 'realUnconfirmed', runId, message: null }], s);
    expect(s.generation!.failure).toBeNull();
  });

  test('giving up shows the fallback card marked unconfirmed; leaving it, the checkout keeps saying so', () => {
    let { s, runId } = realRun();
    // Only after an unconfirmed request: a refusal's Cancel goes back to the checkout instead.
    expect(run([{ type: 'giveUp', runId }], s).step).toBe('bcard');
    s = run([{ type: 'realUnconfirmed', runId, message: null }, { type: 'retryAvailable', runId }, { type: 'giveUp', runId }], s);
    expect(s.step).toBe('merchant');
    expect(s.card).toMatchObject({ display: 'demo', unconfirmed: true, bcardId: null, balanceCents: 15000 });
    s = run([{ type: 'toCheckout' }], s);
    expect(s).toMatchObject({ step: 'checkout', card: null, notice: { kind: 'unconfirmed' } });
    // The next run starts without it.
    s = run([{ type: 'toSplit' }, start('real')], s);
    expect(s.notice).toBeNull();
  });

  test('a refusal after no answer is still a refusal (the resend got an answer)', () => {
    let { s, runId } = realRun();
    s = run([{ type: 'resending', runId, attempt: 2, of: 3 }, { type: 'realFailed', runId, failure: { kind: 'other', message: 'x' }, outcomes: new Map() }], s);
    expect(s.generation).toMatchObject({ card: 'failed', resend: null, failure: { kind: 'other' } });
  });
});

describe('leaving the merchant step', () => {
  const atMerchant = (): FlowState => {
    const s = run([{ type: 'toSplit' }, start('real')]);
    const runId = s.generation!.runId;
    return run([{ type: 'realIssued', runId, bcardId: 'bc_1', statuses: [] }, { type: 'cardReady', runId, card: { ...demoCardDetails(15000), display: 'full', bcardId: 'bc_1', cvv: '917' } }], s);
  };

  test('a canceled bcard: back at the checkout with what was refunded', () => {
    const s = run([{ type: 'canceled', notice: { kind: 'canceled', refundedCents: TOTAL, refunded: true } }], atMerchant());
    expect(s).toMatchObject({ step: 'checkout', card: null, generation: null, notice: { kind: 'canceled', refundedCents: TOTAL, refunded: true } });
    // Only from the merchant step.
    expect(run([{ type: 'canceled', notice: { kind: 'unconfirmed' } }]).step).toBe('checkout');
    expect(run([{ type: 'canceled', notice: { kind: 'unconfirmed' } }]).notice).toBeNull();
  });

  test('paid: the revealed number and CVV are not kept for the completion step', () => {
    const before = atMerchant();
    expect(before.card?.cvv).toBe('917');
    const s = run([{ type: 'paid', completion: { amountCents: 15000, feeCents: 435, totalCents: TOTAL, merchant: 'Demo Store', transactionId: 'tx_1', isDemo: false } }], before);
    expect(s.step).toBe('complete');
    expect(s.card).toBeNull();
    expect(JSON.stringify(s)).not.toContain('917');
  });

  test('back from a real card that was confirmed: no unconfirmed notice', () => {
    expect(run([{ type: 'toCheckout' }], atMerchant()).notice).toBeNull();
  });
});
