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

/**
 * The status a tile shows: an active card whose session has ended is expired on screen at once (the server says the
 * same and no longer reveals or spends it; its sweep refunds it shortly after).
 */
export function displayStatus(bcard: { status: string; expiresAt: string }, now: Date): string {
  if (bcard.status !== 'active') return bcard.status;
  const end = Date.parse(bcard.expiresAt);
  return Number.isFinite(end) && end <= now.getTime() ? 'expired' : 'active';
}

/** The soonest end of an active card's session (epoch ms), when the tiles must change next; undefined when none. */
export function nextExpiry(bcards: ReadonlyArray<{ status: string; expiresAt: string }>, now: Date): number | undefined {
  return bcards
    .filter((b) => b.status === 'active')
    .map((b) => Date.parse(b.expiresAt))
    .filter((t) => Number.isFinite(t) && t > now.getTime())
    .sort((a, b) => a - b)[0];
}

export { cardholderNameFor, groupCardNumber, isolateFor, ltrIsolate } from '../../lib/card-display';
