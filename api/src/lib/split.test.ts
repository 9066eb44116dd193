import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { allocate, percentagesSumTo100, percentToBps } from './split';

/* Largest-remainder allocation: the rule every split of money into shares relies on. */

const totals = fc.oneof(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 1000 }));
const weightLists = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 2 ** 40 })), { minLength: 1, maxLength: 20 })
  .filter((ws) => ws.some((w) => w > 0));

describe('allocate', () => {
  test('shares sum exactly to the total and each is within a cent of its exact proportion', () => {
    fc.assert(
      fc.property(totals, weightLists, (total, weights) => {
        const shares = allocate(total, weights);
        expect(shares).toHaveLength(weights.length);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        const sum = BigInt(weights.reduce((a, b) => a + b, 0));
        for (const [i, share] of shares.entries()) {
          expect(Number.isSafeInteger(share)).toBe(true);
          // share is floor(exact) or floor(exact) + 1, compared exactly in integers: exact = total * w / sum.
          const floor = (BigInt(total) * BigInt(weights[i]!)) / sum;
          const extra = BigInt(share) - floor;
          expect(extra === 0n || extra === 1n).toBe(true);
          // A zero weight never receives anything.
          if (weights[i] === 0) expect(share).toBe(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('the cents left over go to the largest remainders, ties to the earlier position', () => {
    fc.assert(
      fc.property(totals, weightLists, (total, weights) => {
        const shares = allocate(total, weights);
        const sum = BigInt(weights.reduce((a, b) => a + b, 0));
        const rem = weights.map((w) => (BigInt(total) * BigInt(w)) % sum);
        const bumped = shares.map((s, i) => BigInt(s) > (BigInt(total) * BigInt(weights[i]!)) / sum);
        // Whoever got an extra cent ranks before whoever did not, by (remainder desc, position asc).
        for (let i = 0; i < weights.length; i++) {
          for (let j = 0; j < weights.length; j++) {
            if (bumped[i] && !bumped[j]) {
              const before = rem[i]! > rem[j]! || (rem[i] === rem[j] && i < j);
              expect(before).toBe(true);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  test('worked examples', () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocate(2, [1, 1, 1])).toEqual([1, 1, 0]);
    expect(allocate(10290, [5000, 3000, 2000])).toEqual([5145, 3087, 2058]);
    // 6667 over 5145/3087/2058: exact 3333.5, 2000.1, 1333.4 -> the .5 gets the spare cent.
    expect(allocate(6667, [5145, 3087, 2058])).toEqual([3334, 2000, 1333]);
    expect(allocate(0, [3, 7])).toEqual([0, 0]);
    // Exact parts 333333333333.33 and 666666666666.67: the larger remainder (.67) takes the spare cent.
    expect(allocate(1e12, [1, 0, 2])).toEqual([333_333_333_333, 0, 666_666_666_667]);
    // Exact even where total * weight is far beyond 2^53: 499999999999.77 and 500000000000.23 (floating point
    // would see two equal halves and give the spare cent by position alone).
    expect(allocate(1e12, [2 ** 40, 2 ** 40 + 1])).toEqual([500_000_000_000, 500_000_000_000]);
    expect(allocate(1e12 - 1, [2 ** 40 + 1, 2 ** 40])).toEqual([500_000_000_000, 499_999_999_999]);
  });

  test('refuses what it cannot allocate', () => {
    expect(() => allocate(-1, [1])).toThrow(RangeError);
    expect(() => allocate(1.5, [1])).toThrow(RangeError);
    expect(() => allocate(100, [])).toThrow(RangeError);
    expect(() => allocate(100, [0, 0])).toThrow(RangeError);
    expect(() => allocate(100, [1, -1, 2])).toThrow(RangeError);
    expect(() => allocate(100, [0.5, 1])).toThrow(RangeError);
  });
});

describe('percentToBps', () => {
  test('every percentage with at most 2 decimals maps to its exact basis points', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (bps) => {
        expect(percentToBps(bps / 100)).toBe(bps);
      }),
      { numRuns: 2000 },
    );
  });

  test('rounds to 0.01 % and refuses what is outside 0-100', () => {
    expect(percentToBps(12.5)).toBe(1250);
    expect(percentToBps(33.333)).toBe(3333);
    expect(percentToBps(0)).toBe(0);
    expect(percentToBps(100)).toBe(10000);
    expect(percentToBps(-0.01)).toBeNull();
    expect(percentToBps(100.01)).toBeNull();
    expect(percentToBps(Number.NaN)).toBeNull();
    expect(percentToBps(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('percentagesSumTo100', () => {
  test('any split of 10000 basis points, written as percentages, adds up to 100', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 20 }), (weights) => {
        const percentages = allocate(10_000, weights).map((bps) => bps / 100);
        expect(percentagesSumTo100(percentages)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  test('100 within 0.01, and no further', () => {
    expect(percentagesSumTo100([33.33, 33.33, 33.33])).toBe(true); // 99.99
    expect(percentagesSumTo100([50, 50.01])).toBe(true); // 100.01
    expect(percentagesSumTo100([33.33, 33.33, 33.32])).toBe(false); // 99.98
    expect(percentagesSumTo100([50, 50.02])).toBe(false); // 100.02
    expect(percentagesSumTo100([60, 60])).toBe(false);
    expect(percentagesSumTo100([100])).toBe(true);
    expect(percentagesSumTo100([])).toBe(false);
  });

  test('off by more than 0.01 is refused, whatever the parts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 2, max: 5_000 }),
        fc.boolean(),
        (parts, offBps, over) => {
          // Scale the parts to sum to 10000 +/- offBps basis points, then read them as percentages.
          const target = 10_000 + (over ? offBps : -offBps);
          const weights = parts.some((p) => p > 0) ? parts : parts.map(() => 1);
          const percentages = allocate(target, weights).map((bps) => bps / 100);
          expect(percentagesSumTo100(percentages)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
