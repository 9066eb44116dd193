import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { remainderBack, remainderFee, spentFee } from './remainder';

/* What a partly spent bcard gives back: the remainder with the fee's pro-rata part of it (issue 25, item 6). */

describe('remainderBack', () => {
  test('$100.00 + $2.90 at 50/30/20, $33.34 spent: $66.66 and floor(2.90 × 66.66 / 100) = $1.93 back, an odd split', () => {
    const back = remainderBack({ amountCents: 10_000, feeCents: 290 }, 6666, [5145, 3087, 2058]);
    // 6859 over 5145/3087/2058: 3429.5, 2057.7, 1371.8 -> 3429, 2057, 1371 and the two spare cents to .8 and .7.
    expect(back).toEqual({ remainderCents: 6666, feeCents: 193, totalCents: 6859, parts: [3429, 2058, 1372] });
    expect(spentFee({ amountCents: 10_000, feeCents: 290 }, 6666)).toBe(97);
  });

  test('nothing left: nothing back and the whole fee stays with the purchase; all left: the whole fee back', () => {
    expect(remainderBack({ amountCents: 4000, feeCents: 116 }, 0, [4116])).toEqual({ remainderCents: 0, feeCents: 0, totalCents: 0, parts: [0] });
    expect(spentFee({ amountCents: 4000, feeCents: 116 }, 0)).toBe(116);
    expect(remainderFee(116, 4000, 4000)).toBe(116);
    expect(remainderFee(0, 4000, 1000)).toBe(0);
  });

  test('a cent of fee is never created: floor, as a partial merchant refund rounds it', () => {
    // 1.90 × 0.01 / 100 = 0.00019 -> 0; 1.90 × 99.99 / 100 = 1.89981 -> 1.89.
    expect(remainderFee(190, 10_000, 1)).toBe(0);
    expect(remainderFee(190, 10_000, 9999)).toBe(189);
  });

  test('property: parts sum to remainder + fee part, no share gets more than it paid, fee part + spent fee = fee', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 100_000_000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 1000 }),
        (amount, feeBps, weights, permille) => {
          const fee = Math.floor((amount * feeBps + 5000) / 10_000);
          // The shares as a split pays them: amount + fee by largest remainder over the weights.
          const shares = remainderBack({ amountCents: amount + fee, feeCents: 0 }, amount + fee, weights).parts;
          fc.pre(shares.every((s) => s > 0));
          const remainder = Math.floor((amount * permille) / 1000);
          const back = remainderBack({ amountCents: amount, feeCents: fee }, remainder, shares);
          expect(back.parts.reduce((a, b) => a + b, 0)).toBe(back.totalCents);
          expect(back.totalCents).toBe(remainder + back.feeCents);
          expect(back.feeCents).toBe(remainder === amount ? fee : Math.floor((fee * remainder) / amount));
          back.parts.forEach((p, i) => expect(p).toBeLessThanOrEqual(shares[i]!));
          expect(back.feeCents + spentFee({ amountCents: amount, feeCents: fee }, remainder)).toBe(fee);
        },
      ),
      { numRuns: 300 },
    );
  });
});
