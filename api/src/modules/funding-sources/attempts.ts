import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { addressKey } from '../../lib/address-key';
import {
  hitThrottle,
  recordThrottle,
  releaseThrottle,
  throttleUsed,
  throttleWait,
  type ThrottleHit,
  type ThrottleOutcome,
  type ThrottleRule,
} from '../../lib/throttle';

/*
 * Card testing: a bot adds stolen or generated card numbers one after another (deleting each to stay under its
 * plan's limit) to learn which ones the processor accepts. Every card sent to the processor is an attempt; attempts
 * are counted per account and per address, a decline counts double, and repeated declines lock adding cards.
 * A person adds a handful of cards once, mistyping one now and then: far below all of this.
 *
 * Cards sent at once: whether a card is declined is known only after the processor has seen it, and by then the
 * others have been let through. So an attempt is counted at its worst case, a decline (DECLINE_WEIGHT and one decline
 * towards the lock), and gives back what it did not use once the processor answers; an attempt refused only because
 * others are still with the processor waits for their answers before it is decided. A burst thus gets exactly what
 * the same cards sent one after another would: good cards the whole allowance, declined ones DECLINES_BEFORE_LOCK
 * and then the lock.
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
/** A declined attempt counts this much in all: 1 for being made, the rest for the decline. */
export const DECLINE_WEIGHT = 2;
/** Five declines within an hour lock adding cards to the account for a day. */
export const DECLINES_BEFORE_LOCK = 5;
export const CARD_LOCK_MS = 24 * 60 * 60_000;
/**
 * How long an attempt refused while others are with the processor waits for their answers, at most; then it is refused
 * as if they were all declined. A processor answers well within this. An attempt whose process died before the answer
 * stays "with the processor" for the hour: it counts as declined, and refusals on its account or address meet this wait.
 */
export const CARD_ANSWER_WAIT_MS = 10_000;
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 50;

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
    // The account's declines, with one reserved for each of its attempts still with the processor: what a burst may try.
    declines: { scope: 'card_decline:account', limit: l.declinesBeforeLock, windowMs: CARD_ATTEMPT_WINDOW_MS },
    // The declines the processor gave, only: what the lock counts (a reserved one may yet be accepted).
    answeredDeclines: { scope: 'card_declined:account', limit: l.declinesBeforeLock, windowMs: CARD_ATTEMPT_WINDOW_MS },
    // One event is a lock: "one more" does not fit while it is inside the window.
    lock: { scope: 'card_lock:account', limit: 1, windowMs: l.lockMs },
    // One event per attempt still with the processor, by account and by address: a record, never a limit.
    awayAccount: { scope: 'card_away:account', limit: Number.POSITIVE_INFINITY, windowMs: CARD_ATTEMPT_WINDOW_MS },
    awayAddress: { scope: 'card_away:address', limit: Number.POSITIVE_INFINITY, windowMs: CARD_ATTEMPT_WINDOW_MS },
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

/**
 * What counting an attempt writes, in one transaction with the check, and what becomes of it (throttle_events ids):
 *
 *                                                        accepted   declined   never answered
 *   made:       1 for the account and for the address   kept       kept       released
 *   ifDeclined: DECLINE_WEIGHT - 1 for both, a decline   released   kept       released
 *   away:       the attempt is with the processor        released   released   released
 *
 * A decline is also recorded as answered (rules().answeredDeclines), which is what the lock counts. Nothing was counted
 * when every group is empty (the request-rate limits are off).
 */
export interface CardAttempt {
  made: number[];
  ifDeclined: number[];
  away: number[];
}

const NOTHING_COUNTED: CardAttempt = { made: [], ifDeclined: [], away: [] };

/** A hit that counts under the rule's scope without being checked itself (another hit of the attempt checks it). */
const unchecked = (rule: ThrottleRule): ThrottleRule => ({ ...rule, limit: Number.POSITIVE_INFINITY });

function attemptHits(r: ReturnType<typeof rules>, userId: string, address: string) {
  return {
    // Checked for 1, as one after another: an attempt needs room for itself; a decline's rest lands on the next one.
    made: [
      { rule: r.account, key: userId },
      { rule: r.address, key: address },
    ],
    // The decline is checked: a burst must not send more declines than one after another would before the lock.
    // (That assumes the lock outlasts the hour, as it does: 24 h.)
    ifDeclined: [
      { rule: unchecked(r.account), key: userId, weight: DECLINE_WEIGHT - 1 },
      { rule: unchecked(r.address), key: address, weight: DECLINE_WEIGHT - 1 },
      { rule: r.declines, key: userId },
    ],
    away: [
      { rule: r.awayAccount, key: userId },
      { rule: r.awayAddress, key: address },
    ],
  } satisfies Record<keyof CardAttempt, ThrottleHit[]>;
}

/** The same record of an attempt being away, checked under a limit of 1: refused while another of that key's is. */
const noneAway = (away: ThrottleHit): ThrottleHit => ({ ...away, rule: { ...away.rule, limit: 1 } });

type Refused = Extract<ThrottleOutcome, { allowed: false }>;

/**
 * Counts one attempt for the account and the address before the card goes to the processor, or refuses it. Each try
 * is one write transaction (hitThrottle) over the worst case of every attempt still with the processor, so a
 * parallel burst gets exactly the allowance (see the top of this file). With the request-rate limits off
 * (BPAY_RATE_LIMITS=off) nothing is counted; a decline still counts towards the lock (recordCardDecline).
 * Fails with: card_attempts_exceeded (429), card_adding_locked (429, when the hour's declines set off the lock).
 */
export async function countCardAttempt(deps: AppDeps, userId: string, address: string): Promise<CardAttempt> {
  if (!deps.rateLimits) return NOTHING_COUNTED;
  const r = rules(deps.cardAttemptLimits);
  const groups = attemptHits(r, userId, addressKey(address));
  const counted = [...groups.made, ...groups.ifDeclined];
  const gates = groups.away.map(noneAway);
  const attempt = (ids: number[]): CardAttempt => ({
    made: ids.slice(0, groups.made.length),
    ifDeclined: ids.slice(groups.made.length, counted.length),
    away: ids.slice(counted.length),
  });
  for (let waitedMs = 0; ; ) {
    const worst = await hitThrottle(deps.db, deps.clock, [...counted, ...groups.away]);
    if (worst.allowed) return attempt(worst.ids);
    const othersAway = await stillAway(deps, groups.away);
    if (othersAway > 0) {
      if (waitedMs >= CARD_ANSWER_WAIT_MS) throw await refusal(deps, userId, worst);
      waitedMs += await untilOneIsAnswered(deps, groups.away, othersAway, CARD_ANSWER_WAIT_MS - waitedMs);
      continue;
    }
    // None away, as far as a read can tell. Asked again with "and none away" in one transaction: refused with none
    // away, it is refused whatever the others turn out to be, exactly as one after another.
    const settled = await hitThrottle(deps.db, deps.clock, [...counted, ...gates]);
    if (settled.allowed) return attempt(settled.ids);
    if (!gates.some((g) => g.rule.scope in settled.blocked)) throw await refusal(deps, userId, settled);
  }
}

/** How many of these keys' attempts are with the processor now. */
async function stillAway(deps: AppDeps, away: ThrottleHit[]): Promise<number> {
  let n = 0;
  for (const h of away) n += await throttleUsed(deps.db, deps.clock, h);
  return n;
}

/** Waits until one of the `before` attempts away is answered (or none is left), at most `budgetMs`; the time waited. */
async function untilOneIsAnswered(deps: AppDeps, away: ThrottleHit[], before: number, budgetMs: number): Promise<number> {
  let waitedMs = 0;
  for (let pause = FIRST_PAUSE_MS; waitedMs < budgetMs; pause = Math.min(2 * pause, LONGEST_PAUSE_MS)) {
    await Bun.sleep(pause);
    waitedMs += pause;
    const now = await stillAway(deps, away);
    if (now === 0 || now < before) break;
  }
  return waitedMs;
}

async function refusal(deps: AppDeps, userId: string, refused: Refused): Promise<AppError> {
  const l = deps.cardAttemptLimits;
  // The hour's declines are used up: the last of them has locked adding cards, which is the answer to give.
  if (rules(l).declines.scope in refused.blocked) await assertCardAddingUnlocked(deps, userId);
  const minutes = Math.ceil(refused.retryAfterSeconds / 60);
  return new AppError(
    'card_attempts_exceeded',
    `Too many cards were tried in the last hour: at most ${l.perAccountPerHour} attempts per account and ` +
      `${l.perAddressPerHour} per address, a declined card counting as ${DECLINE_WEIGHT}. Try again in ` +
      `${minutes} minute${minutes === 1 ? '' : 's'}.`,
    undefined,
    retryAfter(refused.retryAfterSeconds),
  );
}

/** The processor took the card (or asked for 3-D Secure first): the attempt counts 1; its reserved decline goes. */
export async function recordCardAccepted(deps: AppDeps, attempt: CardAttempt): Promise<void> {
  await releaseThrottle(deps.db, [...attempt.ifDeclined, ...attempt.away]);
}

/** The processor never answered: the attempt tested nothing and does not count. */
export async function releaseCardAttempt(deps: AppDeps, attempt: CardAttempt): Promise<void> {
  await releaseThrottle(deps.db, [...attempt.made, ...attempt.ifDeclined, ...attempt.away]);
}

/**
 * The processor declined the attempt: it keeps its worst case, DECLINE_WEIGHT and a decline, and the account's
 * answered declines within the hour may now lock adding cards (with the limits off, nothing was counted up front, but
 * the decline still counts towards the lock). Each decline is recorded before the count is read, so the last of
 * parallel declines sees them all (two may both lock: the same lock, twice).
 */
export async function recordCardDecline(deps: AppDeps, userId: string, attempt: CardAttempt): Promise<void> {
  const l = deps.cardAttemptLimits;
  const r = rules(l);
  const answered: ThrottleHit = { rule: r.answeredDeclines, key: userId };
  await recordThrottle(deps.db, deps.clock, [answered]);
  // throttleWait is non-null when one more would not fit, i.e. when declinesBeforeLock have been reached.
  if ((await throttleWait(deps.db, deps.clock, [answered])) !== null) {
    await recordThrottle(deps.db, deps.clock, [{ rule: r.lock, key: userId }]);
    deps.log.warn('adding cards locked after repeated declines', { userId, lockMs: l.lockMs });
  }
  // Only now: an attempt waiting for this answer then finds the lock too.
  await releaseThrottle(deps.db, attempt.away);
}
