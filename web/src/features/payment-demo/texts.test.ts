import { describe, expect, test } from 'bun:test';
import { translate, type MessageKey, type Vars } from '../../i18n';
import { ltrIsolate } from '../../lib/card-display';
import { formatCents } from '../../lib/money';
import { flowReducer, initialFlowState, type FlowAction, type FlowState, type ShareInput } from './flow';
import { liveText, noticeText, type Formatters } from './texts';

const en: Formatters = { t: (k: MessageKey, v?: Vars) => translate('en', k, v), money: formatCents, iso: (s) => s };
const ar: Formatters = { t: (k: MessageKey, v?: Vars) => translate('ar', k, v), money: (c) => ltrIsolate(formatCents(c)), iso: ltrIsolate };

const shares: ShareInput[] = [
  { sourceId: 'a', name: 'Chase', last4: '4242', brand: 'visa', cents: 9261 },
  { sourceId: 'b', name: 'Amex', last4: '0005', brand: 'amex', cents: 6174 },
];
const run = (actions: FlowAction[], from: FlowState = initialFlowState) => actions.reduce(flowReducer, from);
const started = (kind: 'real' | 'simulated', scenario: 'success' | 'failure' = 'success') =>
  run([{ type: 'toSplit' }, { type: 'start', runId: 1, kind, scenario, amountCents: 15000, feeCents: 435, totalCents: 15435, shares }]);
const live = (state: FlowState, f: Formatters = en, extra: Partial<{ purchasing: boolean; canceling: boolean }> = {}) =>
  liveText({ state, sources: 'ready', purchasing: false, canceling: false, ...extra }, f);

describe('what the live region says', () => {
  test('the progress of each step, with what is collected and what remains', () => {
    const s = run([{ type: 'simCollected', runId: 1, index: 0 }], started('simulated'));
    expect(live(s)).toBe('1 of 3 steps done. Collected $92.61, remaining $61.74.');
    // In Arabic the amounts stay left-to-right pieces.
    expect(live(s, ar)).toContain(ltrIsolate('$92.61'));
  });

  test('the failure, then that the retry options are there', () => {
    let s = run([{ type: 'simCollected', runId: 1, index: 0 }, { type: 'simFailed', runId: 1, index: 1 }], started('simulated', 'failure'));
    expect(live(s)).toBe('Failed to process payment splits. Insufficient funds in Amex (•••• 0005). Simulated: nothing is charged.');
    s = run([{ type: 'retryAvailable', runId: 1 }], s);
    expect(live(s)).toEndWith('Retry Payment and Cancel & Reconfigure are available.');
  });

  test('a resend after no answer, then the unconfirmed outcome', () => {
    let s = run([{ type: 'resending', runId: 1, attempt: 2, of: 3 }], started('real'));
    expect(live(s)).toBe('No answer from bpay yet. Sending the same request again (2 of 3)…');
    s = run([{ type: 'realUnconfirmed', runId: 1, message: null }], s);
    expect(live(s)).toStartWith('Failed to create virtual card. bpay did not answer, so your bcard could not be confirmed');
  });

  test("the split's own sources: loading, failed, none; nothing once they are there", () => {
    const s = run([{ type: 'toSplit' }]);
    expect(liveText({ state: s, sources: 'loading', purchasing: false, canceling: false }, en)).toBe('Loading your funding sources…');
    expect(liveText({ state: s, sources: 'failed', purchasing: false, canceling: false }, en)).toBe('Your funding sources could not be loaded.');
    expect(liveText({ state: s, sources: 'none', purchasing: false, canceling: false }, en)).toContain('no active funding sources');
    expect(live(s)).toBe('');
  });

  test('the merchant step while paying or canceling; the checkout with what happened to the last bcard', () => {
    const atMerchant = run(
      [
        { type: 'realIssued', runId: 1, bcardId: 'bc_1', statuses: [] },
        { type: 'cardReady', runId: 1, card: { bcardId: 'bc_1', display: 'full', unconfirmed: false, number: '4000009', expiryMonth: 1, expiryYear: 30, cvv: '917', cardholderName: null, balanceCents: 15000, status: 'active' } },
      ],
      started('real'),
    );
    expect(live(atMerchant)).toBe('');
    expect(live(atMerchant, en, { purchasing: true })).toBe('Processing…');
    expect(live(atMerchant, en, { canceling: true })).toBe('Canceling your bcard…');
    const back = run([{ type: 'canceled', notice: { kind: 'canceled', refundedCents: 15435, refunded: true } }], atMerchant);
    expect(live(back)).toBe('Your bcard was canceled: $154.35 was refunded to your funding sources.');
  });
});

test('the notices say what is known and nothing more', () => {
  expect(noticeText({ kind: 'canceled', refundedCents: 15435, refunded: false }, en)).toBe(
    'Your bcard was canceled: $154.35 is being refunded to your funding sources.',
  );
  const unconfirmed = noticeText({ kind: 'unconfirmed' }, en);
  expect(unconfirmed).toContain('could not be confirmed');
  expect(unconfirmed).toContain('refunded automatically when its session ends');
});
