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
