/*
 * How card numbers, expiries and left-to-right values are shown, in every feature (bcards, demos, merchants,
 * the split configurator). One copy, so a fix lands everywhere.
 */

/** "4242424242424242" -> "4242 4242 4242 4242" (a revealed number, read in groups). */
export function groupCardNumber(number: string): string {
  return (number.replace(/\D/g, '').match(/.{1,4}/g) ?? []).join(' ');
}

/** The bcard's cardholder (spec §5): first and last name; else the e-mail's local part; else 'bpay User'. */
export function cardholderNameFor(
  user: { firstName: string | null; lastName: string | null; email: string } | null,
  fallback = 'bpay User',
): string {
  if (!user) return fallback;
  const full = [user.firstName, user.lastName]
    .map((p) => p?.trim() ?? '')
    .filter(Boolean)
    .join(' ');
  if (full) return full;
  const local = user.email.split('@')[0]?.trim() ?? '';
  return local || fallback;
}

/** (12, 2028) or (12, 28) -> "12/28". */
export function formatExpiry(month: number, year: number): string {
  return `${String(month).padStart(2, '0')}/${String(year % 100).padStart(2, '0')}`;
}

/**
 * Keeps an amount such as "$1,234.56", "•••• 4242" or "12/28" in one left-to-right piece inside a translated
 * sentence (Unicode isolates), so that in Arabic the currency sign and digits are not reordered by the text around.
 */
export function ltrIsolate(text: string): string {
  return `\u2066${text}\u2069`;
}

/** Isolation is needed only inside right-to-left text; English sentences stay free of invisible marks. */
export function isolateFor(dir: 'ltr' | 'rtl'): (text: string) => string {
  return dir === 'rtl' ? ltrIsolate : (text) => text;
}

/**
 * The demo card of the merchant-admin spec (§4): shown by the demos when no real card can be shown, always marked
 * "not a real card". 4242 4242 4242 4242 is Stripe's public test number.
 */
export const DEMO_CARD = { number: '4242424242424242', expiryMonth: 12, expiryYear: 2028, cvv: '123' } as const;
