/*
 * Proration (issue 26), the arithmetic alone. A plan's price covers its whole billing period; a part of the period is
 * worth price × part / period, measured in milliseconds of the current period (calendar months differ: 28 to 31
 * days, so a day of February is worth more than a day of March). Each line is rounded to whole cents on its own,
 * half up, and the charge is the difference of the two rounded lines, so the receipt's lines add up to its total
 * exactly.
 */

/** price × part / whole in whole cents, rounded half up; exact (BigInt), whatever the sizes. */
export function prorate(priceCents: number, partMs: number, wholeMs: number): number {
  if (!(wholeMs > 0)) throw new Error(`a period must last: ${wholeMs} ms`);
  const part = Math.min(Math.max(partMs, 0), wholeMs);
  const num = 2n * BigInt(priceCents) * BigInt(part) + BigInt(wholeMs);
  return Number(num / (2n * BigInt(wholeMs)));
}

export interface ProrationQuote {
  /** The unused part of the old plan, credited. */
  creditCents: number;
  /** The new plan's price for the rest of the period. */
  listPriceCents: number;
  /** What is charged now: listPriceCents − creditCents (may be 0 or less only when the rest rounds to nothing). */
  amountCents: number;
  remainingMs: number;
  periodMs: number;
}

/** The prorated change from `oldPrice` to `newPrice` at `at`, within the period [start, end). */
export function prorationQuote(oldPriceCents: number, newPriceCents: number, period: { start: Date; end: Date }, at: Date): ProrationQuote {
  const periodMs = period.end.getTime() - period.start.getTime();
  const remainingMs = Math.min(Math.max(period.end.getTime() - at.getTime(), 0), periodMs);
  const creditCents = prorate(oldPriceCents, remainingMs, periodMs);
  const listPriceCents = prorate(newPriceCents, remainingMs, periodMs);
  return { creditCents, listPriceCents, amountCents: listPriceCents - creditCents, remainingMs, periodMs };
}
