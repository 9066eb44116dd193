import { describe, expect, test } from 'bun:test';
import type { ShareInput } from './flow';
import { cancelNoticeFrom, realFailureFrom } from './server-outcome';

const shares: ShareInput[] = [
  { sourceId: 'fs_a', name: 'Chase', last4: '4242', brand: 'visa', cents: 9261 },
  { sourceId: 'fs_b', name: 'Amex', last4: '0005', brand: 'amex', cents: 6174 },
  { sourceId: 'fs_c', name: 'Citi', last4: '1111', brand: 'visa', cents: 0 },
];
const statuses = (m: Map<string, { status: string }>) => shares.map((s) => m.get(s.sourceId)?.status);

describe('reading a refused POST /api/virtual-cards', () => {
  test('402 insufficient_funds: the short source is declined with needs/has, earlier ones released, later ones never charged', () => {
    const { failure, outcomes } = realFailureFrom(
      {
        status: 402,
        code: 'insufficient_funds',
        message: 'Insufficient funds: Amex (•••• 0005) needs $61.74, has $10.00. Need $154.35 in total.',
        details: {
          totalRequired: '154.35',
          totalAvailable: '110.00',
          insufficientSources: [{ fundingSourceId: 'fs_b', name: 'Amex (•••• 0005)', requiredAmount: '61.74', availableBalance: '10.00' }],
        },
      },
      shares,
    );
    expect(failure).toEqual({
      kind: 'insufficient',
      message: 'Insufficient funds: Amex (•••• 0005) needs $61.74, has $10.00. Need $154.35 in total.',
      totalRequiredCents: 15435,
      totalAvailableCents: 11000,
      sources: [{ name: 'Amex (•••• 0005)', requiredCents: 6174, availableCents: 1000 }],
    });
    expect(statuses(outcomes)).toEqual(['released', 'declined', 'skipped']);
    expect(outcomes.get('fs_b')?.reason).toEqual({ kind: 'insufficient', requiredCents: 6174, availableCents: 1000 });
  });

  test('a source is matched by its labelled name when the id is missing; an unknown balance stays null', () => {
    const { outcomes, failure } = realFailureFrom(
      {
        status: 402,
        code: undefined,
        message: 'Insufficient funds: Chase (•••• 4242) needs $92.61',
        details: { insufficientSources: [{ name: 'Chase (•••• 4242)', requiredAmount: '92.61', availableBalance: null }] },
      },
      shares,
    );
    expect(statuses(outcomes)).toEqual(['declined', 'skipped', 'skipped']);
    expect(failure.kind === 'insufficient' && failure.sources[0]).toEqual({ name: 'Chase (•••• 4242)', requiredCents: 9261, availableCents: null });
  });

  test('card_declined: each decline with its reason', () => {
    const { failure, outcomes } = realFailureFrom(
      {
        status: 402,
        code: 'card_declined',
        message: 'A funding source was declined: Amex (•••• 0005): Your card was declined.',
        details: { declines: [{ fundingSourceId: 'fs_b', name: 'Amex', last4: '0005', code: 'card_declined', message: 'Your card was declined.' }] },
      },
      shares,
    );
    expect(failure.kind).toBe('declined');
    expect(statuses(outcomes)).toEqual(['released', 'declined', 'skipped']);
    expect(outcomes.get('fs_b')?.reason).toEqual({ kind: 'message', text: 'Your card was declined.' });
  });

  test('400 invalid_splits and anything else: no share charged', () => {
    const invalid = realFailureFrom({ status: 400, code: 'invalid_splits', message: 'Funding splits must add up to 100%', details: undefined }, shares);
    expect(invalid.failure).toEqual({ kind: 'invalidSplits', message: 'Funding splits must add up to 100%' });
    expect(statuses(invalid.outcomes)).toEqual(['skipped', 'skipped', 'skipped']);
    const other = realFailureFrom({ status: 503, code: 'vendor_unavailable', message: 'The payment processor is unavailable.', details: null }, shares);
    expect(other.failure.kind).toBe('other');
    expect(statuses(other.outcomes)).toEqual(['skipped', 'skipped', 'skipped']);
  });
});

describe("the cancel answer (the bcard, canceled) as the checkout's notice", () => {
  test('every share refunded: the whole total charged, fee included, is back', () => {
    expect(cancelNoticeFrom({ totalCharged: '154.35', fundingSources: [{ status: 'refunded' }, { status: 'refunded' }] }, 1)).toEqual({
      kind: 'canceled',
      refundedCents: 15435,
      refunded: true,
    });
  });

  test('a share the processor has not refunded yet: the refund is under way, not done', () => {
    expect(cancelNoticeFrom({ totalCharged: '154.35', fundingSources: [{ status: 'refunded' }, { status: 'captured' }] }, 1).refunded).toBe(false);
    expect(cancelNoticeFrom({ totalCharged: '154.35', fundingSources: [] }, 1).refunded).toBe(false);
  });

  test('an unreadable total falls back to what the run collected', () => {
    expect(cancelNoticeFrom({ totalCharged: 'n/a', fundingSources: [{ status: 'refunded' }] }, 15435).refundedCents).toBe(15435);
  });
});
