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

export { cardholderNameFor, groupCardNumber, isolateFor, ltrIsolate } from '../../lib/card-display';
