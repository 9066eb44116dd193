import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  allocateCents,
  centsToDecimal,
  clampPercentage,
  feeCents,
  formatCents,
  fundingSourcesBody,
  parseAmountInput,
  parseCents,
  planSplit,
  type SplitSource,
} from './split';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe('money helpers', () => {
  test('parses and prints decimal strings exactly', () => {
    expect(parseCents('100.00')).toBe(10000);
    expect(parseCents('61.7')).toBe(6170);
    expect(parseCents('0.07')).toBe(7);
    expect(parseCents('10000.00')).toBe(1_000_000);
    expect(parseCents('1.234')).toBeNull();
    expect(parseCents('-1.00')).toBeNull();
    expect(parseCents(null)).toBeNull();
    expect(centsToDecimal(6174)).toBe('61.74');
    expect(centsToDecimal(5)).toBe('0.05');
    expect(centsToDecimal(0)).toBe('0.00');
    expect(formatCents(1_000_000)).toBe('$10,000.00');
  });

  test('the amount input becomes whole cents', () => {
    expect(parseAmountInput('100')).toBe(10000);
    expect(parseAmountInput('0.1')).toBe(10);
    expect(parseAmountInput('19.99')).toBe(1999);
    expect(parseAmountInput('0')).toBe(0);
    expect(parseAmountInput('-5')).toBe(-500);
    expect(parseAmountInput('')).toBeNull();
    expect(parseAmountInput('abc')).toBeNull();
  });

  test('percentages are clamped to 0–100', () => {
    expect(clampPercentage(120)).toBe(100);
    expect(clampPercentage(-3)).toBe(0);
    expect(clampPercentage(33.3)).toBe(33.3);
    expect(clampPercentage(Number.NaN)).toBe(0);
  });

  test('the fee is 2.9 % rounded half away from zero', () => {
    expect(feeCents(10000, 2.9)).toBe(290);
    expect(feeCents(3333, 2.9)).toBe(97); // 96.657
    expect(feeCents(50, 2.9)).toBe(1); // 1.45
    expect(feeCents(10000, 0)).toBe(0);
    expect(feeCents(10000, 1.9)).toBe(190);
  });
});

describe('allocateCents (largest remainder)', () => {
  test('60/40 of $102.90', () => {
    expect(allocateCents(10290, [6000, 4000])).toEqual([6174, 4116]);
  });

  test('thirds: the leftover cent goes to the largest remainder, ties to the first', () => {
    expect(allocateCents(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocateCents(10290, [3333, 3333, 3334])).toEqual([3430, 3429, 3431]);
    expect(allocateCents(200, [1, 1, 1])).toEqual([67, 67, 66]);
  });

  test('zero weights get nothing; no weight at all gives zeros', () => {
    expect(allocateCents(1000, [0, 10000])).toEqual([0, 1000]);
    expect(allocateCents(1000, [0, 0])).toEqual([0, 0]);
    expect(allocateCents(0, [5000, 5000])).toEqual([0, 0]);
  });

  test('property: shares sum to the total and each is within a cent of its exact part', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 8 }),
        (total, weights) => {
          fc.pre(sum(weights) > 0);
          const shares = allocateCents(total, weights);
          expect(sum(shares)).toBe(total);
          const w = sum(weights);
          shares.forEach((s, i) => {
            const exact = (total * (weights[i] ?? 0)) / w;
            expect(s).toBeGreaterThanOrEqual(Math.floor(exact));
            expect(s).toBeLessThanOrEqual(Math.ceil(exact));
          });
        },
      ),
    );
  });
});

describe('planSplit', () => {
  const sources = (pcts: number[], balance: string | null = '10000.00'): SplitSource[] =>
    pcts.map((p, i) => ({ id: `fs_${i}`, name: `Card ${i}`, balance, percentage: p }));

  test('$100 split 60/40 with the 2.9 % fee', () => {
    const plan = planSplit(10000, 2.9, sources([60, 40]));
    expect(plan.feeCents).toBe(290);
    expect(plan.totalCents).toBe(10290);
    expect(plan.totalOk).toBe(true);
    expect(plan.shares.map((s) => s.requiredCents)).toEqual([6174, 4116]);
    expect(plan.insufficient).toEqual([]);
    expect(fundingSourcesBody(plan)).toEqual([
      { fundingSourceId: 'fs_0', percentage: 60, amount: '61.74' },
      { fundingSourceId: 'fs_1', percentage: 40, amount: '41.16' },
    ]);
  });

  test('splits must add up to 100 within 0.01', () => {
    expect(planSplit(10000, 2.9, sources([60, 30])).totalOk).toBe(false);
    expect(planSplit(10000, 2.9, sources([33.33, 33.33, 33.33])).totalOk).toBe(true);
    expect(planSplit(10000, 2.9, sources([33.3, 33.3, 33.3])).totalOk).toBe(false);
    expect(planSplit(10000, 2.9, sources([33.3, 33.3, 33.4])).totalOk).toBe(true);
    expect(planSplit(10000, 2.9, sources([])).totalOk).toBe(false);
  });

  test('shares always add up to the total charged', () => {
    const plan = planSplit(3333, 2.9, sources([33.3, 33.3, 33.4]));
    expect(sum(plan.shares.map((s) => s.requiredCents))).toBe(plan.totalCents);
  });

  test('a source that cannot cover its share is reported with both amounts', () => {
    const plan = planSplit(1_500_000, 2.9, sources([60, 40]));
    // $15,000 + $435 fee = $15,435; 60 % = $9,261, 40 % = $6,174: each card has $10,000.
    expect(plan.insufficient).toEqual([]);
    const big = planSplit(2_000_000, 2.9, sources([60, 40]));
    expect(big.insufficient.map((s) => [s.name, s.requiredCents, s.availableCents])).toEqual([
      ['Card 0', 1_234_800, 1_000_000],
    ]);
  });

  test('an unknown balance is not checked', () => {
    expect(planSplit(99_999_900, 2.9, sources([100], null)).insufficient).toEqual([]);
  });

  test('sources at 0 % are left out of the request', () => {
    const plan = planSplit(10000, 2.9, sources([100, 0]));
    expect(fundingSourcesBody(plan)).toEqual([{ fundingSourceId: 'fs_0', percentage: 100, amount: '102.90' }]);
  });
});
