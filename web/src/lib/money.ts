/*
 * Money on the page: the API speaks decimal strings ("42.50"); sums happen in integer cents so totals never
 * pick up floating-point noise (CONVENTIONS: money). Shared by every feature that shows or adds amounts.
 */

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

/** "12.5" -> 1250, "-0.05" -> -5; null for anything that is not an amount with at most two decimals. */
export function parseCents(amount: string | null | undefined): number | null {
  if (amount == null) return null;
  const m = DECIMAL_RE.exec(amount.trim());
  if (!m) return null;
  const cents = Number(m[2] ?? '0') * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] && cents !== 0 ? -cents : cents;
}

/** 123456 -> "1234.56", the decimal string the API takes. */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** 123456 -> "$1,234.56". */
export function formatCents(cents: number): string {
  return usd.format(cents / 100);
}

/** A decimal string shown as dollars; unparseable values show as they are. */
export function formatMoney(amount: string): string {
  const cents = parseCents(amount);
  return cents === null ? amount : formatCents(cents);
}

/**
 * A fee rate as the API gives it (a fraction, 0.029) as a percent for display: "2.9", "3.0", "1.25". Fees are kept
 * in basis points, so two decimals are exact; rate × 100 carries float noise (2.9000000000000004), hence the rounding.
 */
export function feeRatePercent(rate: number): string {
  return (Math.round(rate * 10_000) / 100).toFixed(2).replace(/(\.\d)0$/, '$1');
}
