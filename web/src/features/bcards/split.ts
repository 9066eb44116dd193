/*
 * The Create bcard dialog's amount field. The split itself (fee, total, shares, rules) is the shared split
 * configurator's (web/src/components/split-configurator).
 */

export { centsToDecimal, formatCents, formatMoney } from '../../lib/money';

export const DEFAULT_BCARD_AMOUNT = '100';

/** The amount field as typed (a number input, so "100", "99.5", "1e2"...) in whole cents; null if not a number. */
export function parseAmountInput(input: string): number | null {
  if (!input.trim()) return null;
  const n = Number(input);
  if (!Number.isFinite(n)) return null;
  return Math.round(n * 100);
}
