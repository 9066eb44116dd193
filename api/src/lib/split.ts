/**
 * Splits `total` cents into integer shares proportional to `weights` with the largest-remainder method: every
 * share is the floor of its exact part, and the cents left over go one each to the largest fractional parts
 * (ties to the earlier position). The shares always sum exactly to `total`.
 */
export function allocate(total: number, weights: number[]): number[] {
  if (!Number.isSafeInteger(total) || total < 0) throw new RangeError('total must be a non-negative integer');
  if (weights.length === 0) throw new RangeError('at least one weight is needed');
  if (weights.some((w) => !Number.isSafeInteger(w) || w < 0)) throw new RangeError('weights must be non-negative integers');
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) throw new RangeError('weights must not all be zero');
  // BigInt keeps total * weight exact whatever the sizes.
  const big = weights.map((w) => BigInt(total) * BigInt(w));
  const bigSum = BigInt(sum);
  const shares = big.map((x) => Number(x / bigSum));
  const remainders = big.map((x, i) => ({ i, r: x % bigSum }));
  let left = total - shares.reduce((a, b) => a + b, 0);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

/** A percentage as basis points of a percent, rounded to 0.01 % (12.5 -> 1250); null outside 0–100. */
export function percentToBps(p: number): number | null {
  if (!Number.isFinite(p) || p < 0 || p > 100) return null;
  return Math.round(p * 100);
}

/** Spec: the percentages of a split must add up to 100 within 0.01. */
export function percentagesSumTo100(percentages: number[]): boolean {
  const sum = percentages.reduce((a, b) => a + b, 0);
  return Math.abs(sum - 100) <= 0.01 + 1e-9;
}
