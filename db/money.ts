/**
 * Money inside bpay is an integer number of minor units (cents) with its currency beside it.
 * Conversions to decimal strings happen only at the edges (the SPA contract uses "100.00").
 */
export type Cents = number & { readonly __brand: 'Cents' };
export type Currency = 'usd';

export function cents(n: number): Cents {
  if (!Number.isSafeInteger(n)) throw new RangeError(`cents must be a safe integer, got ${n}`);
  return n as Cents;
}

/** 1234 -> "12.34"; -5 -> "-0.05". */
export function formatDecimal(amount: Cents): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Parses "12.34", "12.3", "12" or a number with at most 2 decimals into cents, exactly; null if it is not one. */
export function parseDecimal(input: string | number): Cents | null {
  const s = typeof input === 'number' ? String(input) : input.trim();
  const m = /^(-?)(\d{1,13})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  const whole = Number(m[2]);
  const frac = Number((m[3] ?? '').padEnd(2, '0'));
  const value = whole * 100 + frac;
  return cents(m[1] === '-' && value !== 0 ? -value : value);
}

/** Applies a rate in basis points, rounding half away from zero to the cent (symmetric for refunds). */
export function applyBps(amount: Cents, bps: number): Cents {
  const sign = amount < 0 ? -1 : 1;
  const magnitude = Math.floor((Math.abs(amount) * bps + 5000) / 10000);
  return cents(magnitude === 0 ? 0 : sign * magnitude);
}
