import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { addressKey } from '../../lib/address-key';
import { hitThrottle, recordThrottle, releaseThrottle, throttleWait, type ThrottleHit, type ThrottleRule } from '../../lib/throttle';

/*
 * Card testing: a bot adds stolen or generated card numbers one after another (deleting each to stay under its
 * plan's limit) to learn which ones the processor accepts. Every card sent to the processor is an attempt; attempts
 * are counted per account and per address, a decline counts double, and repeated declines lock adding cards.
 * A person adds a handful of cards once, mistyping one now and then: far below all of this.
 */

export interface CardAttemptLimits {
  /** Attempt weight one account may use per hour (an attempt is 1, a declined one 2 in all). */
  perAccountPerHour: number;
  /** Attempt weight one address (an IPv6 /64) may use per hour, all its accounts together. */
  perAddressPerHour: number;
  /** This many declines for one account within an hour lock adding cards to it ... */
  declinesBeforeLock: number;
  /** ... for this long. */
  lockMs: number;
}

export const CARD_ATTEMPT_WINDOW_MS = 60 * 60_000;
/** Every plan allows a few sources (premium's "unlimited" is still a person's wallet): 10 is several retries each. */
export const CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR = 10;
/** A household or office behind one address; the browser tests (one address) use about 15. */
export const CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR = 50;
/** A declined attempt counts this much in all: 1 when it is made, the rest once the processor declines. */
export const DECLINE_WEIGHT = 2;
/** Five declines within an hour lock adding cards to the account for a day. */
export const DECLINES_BEFORE_LOCK = 5;
export const CARD_LOCK_MS = 24 * 60 * 60_000;

export const DEFAULT_CARD_ATTEMPT_LIMITS: CardAttemptLimits = {
  perAccountPerHour: CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR,
  perAddressPerHour: CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR,
  declinesBeforeLock: DECLINES_BEFORE_LOCK,
  lockMs: CARD_LOCK_MS,
};

/** The longest window of these rules: pruneThrottle must keep at least this much, or it would lift the locks. */
export const cardThrottleLongestWindowMs = (l: CardAttemptLimits) => Math.max(CARD_ATTEMPT_WINDOW_MS, l.lockMs);

function rules(l: CardAttemptLimits) {
  return {
    account: { scope: 'card_attempt:account', limit: l.perAccountPerHour, windowMs: CARD_ATTEMPT_WINDOW_MS },
    address: { scope: 'card_attempt:address', limit: l.perAddressPerHour, windowMs: CARD_ATTEMPT_WINDOW_MS },
    declines: { scope: 'card_decline:account', limit: l.declinesBeforeLock, windowMs: CARD_ATTEMPT_WINDOW_MS },
    // One event is a lock: "one more" does not fit while it is inside the window.
    lock: { scope: 'card_lock:account', limit: 1, windowMs: l.lockMs },
  } satisfies Record<string, ThrottleRule>;
}

const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

/** Refuses while repeated declines have adding cards locked. Fails with: card_adding_locked (429). */
export async function assertCardAddingUnlocked(deps: AppDeps, userId: string): Promise<void> {
  const l = deps.cardAttemptLimits;
  const wait = await throttleWait(deps.db, deps.clock, [{ rule: rules(l).lock, key: userId }]);
  if (wait === null) return;
  const until = new Date(deps.clock.now().getTime() + wait * 1000);
  throw new AppError(
    'card_adding_locked',
    `Adding cards is locked until ${utc(until)} because ${l.declinesBeforeLock} cards were declined on this account ` +
      'within an hour (a protection against testing stolen card numbers). Check the card details with your bank, ' +
      'then try again after that time.',
    undefined,
    retryAfter(wait),
  );
}

export interface CardAttempt {
  hits: ThrottleHit[];
  ids: number[];
}

/**
 * Counts one attempt for the account and the address before the card goes to the processor, or refuses it. The
 * count and the check are one write transaction (hitThrottle), so a parallel burst gets exactly the allowance.
 * With the request-rate limits off (BPAY_RATE_LIMITS=off) nothing is counted; a decline still counts towards the
 * lock (recordCardDecline). Fails with: card_attempts_exceeded (429).
 */
export async function countCardAttempt(deps: AppDeps, userId: string, address: string): Promise<CardAttempt> {
  if (!deps.rateLimits) return { hits: [], ids: [] };
  const l = deps.cardAttemptLimits;
  const r = rules(l);
  const hits: ThrottleHit[] = [
    { rule: r.account, key: userId },
    { rule: r.address, key: addressKey(address) },
  ];
  const outcome = await hitThrottle(deps.db, deps.clock, hits);
  if (!outcome.allowed) {
    const minutes = Math.ceil(outcome.retryAfterSeconds / 60);
    throw new AppError(
      'card_attempts_exceeded',
      `Too many cards were tried in the last hour: at most ${l.perAccountPerHour} attempts per account and ` +
        `${l.perAddressPerHour} per address, a declined card counting as ${DECLINE_WEIGHT}. Try again in ` +
        `${minutes} minute${minutes === 1 ? '' : 's'}.`,
      undefined,
      retryAfter(outcome.retryAfterSeconds),
    );
  }
  return { hits, ids: outcome.ids };
}

/** The processor never answered: the attempt tested nothing and does not count. */
export async function releaseCardAttempt(deps: AppDeps, attempt: CardAttempt): Promise<void> {
  await releaseThrottle(deps.db, attempt.ids);
}

/**
 * The processor declined the attempt: it counts DECLINE_WEIGHT in all, and the account's declines within the hour
 * may now lock adding cards. Parallel declines each record before reading, so the last of them sees them all (two
 * may both lock: the same lock, twice).
 */
export async function recordCardDecline(deps: AppDeps, userId: string, attempt: CardAttempt): Promise<void> {
  const r = rules(deps.cardAttemptLimits);
  const decline: ThrottleHit = { rule: r.declines, key: userId };
  await recordThrottle(deps.db, deps.clock, [...attempt.hits.map((h) => ({ ...h, weight: DECLINE_WEIGHT - 1 })), decline]);
  // throttleWait is non-null when one more would not fit, i.e. when declinesBeforeLock have been reached.
  if ((await throttleWait(deps.db, deps.clock, [decline])) !== null) {
    await recordThrottle(deps.db, deps.clock, [{ rule: r.lock, key: userId }]);
    deps.log.warn('adding cards locked after repeated declines', { userId, lockMs: deps.cardAttemptLimits.lockMs });
  }
}
