import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { allocateCents, feeCents, planCheckout, splitsBody } from './split';

describe('checkout split', () => {
  test('60/40 of a $100 intent with the 2.9% fee: the shares the money test expects', () => {
    const plan = planCheckout(10_000, 2.9, [
      { id: 'a', name: 'A', balance: '10000.00', percentage: 60 },
      { id: 'b', name: 'B', balance: '10000.00', percentage: 40 },
    ]);
    expect(plan.feeCents).toBe(290);
    expect(plan.totalCents).toBe(10_290);
    expect(plan.shares.map((s) => s.requiredCents)).toEqual([6174, 4116]);
    expect(plan.totalOk).toBe(true);
    expect(plan.insufficient).toEqual([]);
    expect(splitsBody(plan)).toEqual([
      { fundingSourceId: 'a', percentage: 60 },
      { fundingSourceId: 'b', percentage: 40 },
    ]);
  });

  test('a total other than 100 and a short source are reported; zero shares are not sent', () => {
    const plan = planCheckout(10_000, 2.9, [
      { id: 'a', name: 'A', balance: '5.00', percentage: 90 },
      { id: 'b', name: 'B', balance: null, percentage: 0 },
    ]);
    expect(plan.totalOk).toBe(false);
    expect(plan.percentageTotal).toBe(90);
    expect(plan.insufficient.map((s) => s.id)).toEqual(['a']);
    expect(splitsBody(plan)).toEqual([{ fundingSourceId: 'a', percentage: 90 }]);
  });

  test('fees round half up to the cent', () => {
    expect(feeCents(4999, 2.9)).toBe(145);
    expect(feeCents(0, 2.9)).toBe(0);
  });

  test('shares always add up to the total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 6 }), (total, weights) => {
        const shares = allocateCents(total, weights);
        const sum = shares.reduce((a, b) => a + b, 0);
        expect(sum).toBe(weights.some((w) => w > 0) && total > 0 ? total : 0);
        expect(shares.every((s) => s >= 0)).toBe(true);
      }),
    );
  });
});
