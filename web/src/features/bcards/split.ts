/*
 * The Create bcard dialog's amount field. The split itself (fee, total, shares, rules) is the shared split
 * configurator's (web/src/components/split-configurator).
 */

import type { SplitSourceOption } from '../../components/split-configurator/split-rules';
import type { FundingOption } from './api';

export { centsToDecimal, formatCents, formatMoney } from '../../lib/money';

/**
 * The sources a bcard can be funded from, as the split configurator takes them: active ones, and a bank account only
 * once its micro-deposits are verified (one still waiting, or that failed them, cannot fund a bcard). The Create
 * bcard dialog's and the browser extension's popup's.
 */
export function bcardSplitOptions(sources: readonly FundingOption[]): SplitSourceOption[] {
  return sources
    .filter((s) => s.isActive && (!s.bankAccount || s.bankAccount.verificationStatus === 'verified'))
    .map((s) => ({
      id: s.id,
      name: s.name,
      last4: s.last4,
      brand: s.type === 'bank_account' ? 'bank' : s.brand,
      available: s.balance,
      defaultPercentage: s.defaultSplitPercentage,
    }));
}

export const DEFAULT_BCARD_AMOUNT = '100';
/** The smallest bcard, $1.00 (spec §5: amount input min 1); the server refuses less (MIN_BCARD_CENTS). */
export const MIN_BCARD_CENTS = 100;
/** The largest, $1,000,000.00 (the server's MAX_AMOUNT_CENTS). */
export const MAX_BCARD_CENTS = 100_000_000;

export type AmountCheck =
  | { ok: true; cents: number }
  | { ok: false; reason: 'invalid' | 'decimals' | 'minimum' | 'maximum' };

const DECIMAL = /^(\d*)(?:\.(\d*))?$/;

/**
 * The amount field as typed, checked as the server checks it: a plain decimal above $0 ('invalid' otherwise), with at
 * most 2 decimals (12.345 is an error, never rounded), from $1.00 to $1,000,000.00.
 */
export function checkAmountInput(input: string): AmountCheck {
  const m = DECIMAL.exec(input.trim());
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return { ok: false, reason: 'invalid' };
  const whole = m[1] ?? '';
  const frac = m[2] ?? '';
  // Beyond the cent: refused even when the extra digits are zeros the person typed on purpose ("1.000").
  if (frac.length > 2) return { ok: false, reason: 'decimals' };
  if (whole.length > 9) return { ok: false, reason: 'maximum' };
  const cents = Number(whole || '0') * 100 + Number(frac.padEnd(2, '0'));
  if (cents <= 0) return { ok: false, reason: 'invalid' };
  if (cents < MIN_BCARD_CENTS) return { ok: false, reason: 'minimum' };
  if (cents > MAX_BCARD_CENTS) return { ok: false, reason: 'maximum' };
  return { ok: true, cents };
}
