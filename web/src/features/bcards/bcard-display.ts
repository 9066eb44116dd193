/*
 * Small pure rules behind the bcard tiles and the Create dialog: the expiry countdown and the cardholder name.
 */

export type Countdown =
  | { kind: 'expired' }
  | { kind: 'lessThanMinute' }
  | { kind: 'minutes'; minutes: number }
  | { kind: 'hours'; hours: number; minutes: number }
  | { kind: 'days'; days: number };

const MINUTE_MS = 60_000;

/** Time left until `expiresAt` in whole minutes (rounded down: a card issued for 30 minutes reads "29 min" at once). */
export function expiryCountdown(expiresAt: string, now: Date): Countdown {
  const left = Date.parse(expiresAt) - now.getTime();
  if (!Number.isFinite(left) || left <= 0) return { kind: 'expired' };
  if (left < MINUTE_MS) return { kind: 'lessThanMinute' };
  const totalMinutes = Math.floor(left / MINUTE_MS);
  if (totalMinutes < 60) return { kind: 'minutes', minutes: totalMinutes };
  if (totalMinutes < 24 * 60) return { kind: 'hours', hours: Math.floor(totalMinutes / 60), minutes: totalMinutes % 60 };
  return { kind: 'days', days: Math.floor(totalMinutes / (24 * 60)) };
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

/** "4242424242424242" -> "4242 4242 4242 4242" (the revealed number, read in groups). */
export function groupCardNumber(number: string): string {
  return (number.replace(/\D/g, '').match(/.{1,4}/g) ?? []).join(' ');
}

/**
 * Keeps an amount such as "$1,234.56" in one left-to-right piece inside a translated sentence (Unicode isolates),
 * so that in Arabic the currency sign and digits are not reordered by the surrounding right-to-left text.
 */
export function ltrIsolate(text: string): string {
  return `\u2066${text}\u2069`;
}

/** Isolation is needed only inside right-to-left text; English sentences stay free of invisible marks. */
export function isolateFor(dir: 'ltr' | 'rtl'): (text: string) => string {
  return dir === 'rtl' ? ltrIsolate : (text) => text;
}
