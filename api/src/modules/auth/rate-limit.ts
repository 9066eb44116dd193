import { lt } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import { AppError } from '../../errors';
import type { Clock } from '../../lib/clock';
import {
  clearThrottle,
  hitThrottle,
  hitThrottleWithCap,
  recordThrottle,
  releaseThrottle,
  throttleUsed,
  type ThrottleHit,
  type ThrottleRule,
} from '../../lib/throttle';

/*
 * Sign-in, two-factor, re-authentication and registration limits (throttle_events). A lockout must not be a denial
 * of service: no limit here stops the owner who has the password (and the code, when two-factor is on) for long.
 *
 * - Per address (an IPv4 address or IPv6 /64, all accounts together): 10 failed sign-ins in 15 minutes, then 429.
 *   Stops one source spraying passwords over many accounts.
 * - Per account and address: 5 failures free, then growing delays between tries (1, 2, 4 … minutes, at most 60),
 *   forgotten after a day or at a success from that address. Slows a guesser aiming at one account.
 * - Per account, from everywhere: past 100 failures in a day, addresses the account has not signed in from within
 *   30 days do not get in by the password alone. With a two-factor code, any failure of theirs gets the same 429;
 *   without one, right or wrong, the same 401 sign_in_link_sent, a right password mailing a one-time link
 *   (sign-in-link.ts): a distributed guesser learns nothing, while the owner, on a known device, with the code or
 *   with the link, gets in.
 * - Wrong two-factor codes per account (sign-in, confirm, disable) and wrong current passwords per account (changing
 *   e-mail, password or turning two-factor off): 5 free, then the same growing delays.
 * - Registrations per address: 5 an hour by default (AppDeps.registrationLimit).
 *
 * Every attempt is counted before the slow check, atomically (hitThrottle), so parallel guesses cannot outrun a
 * limit; an attempt that turns out not to be a failure is released.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const GROWING = { baseMs: MINUTE, maxMs: HOUR };

export const SIGN_IN_PER_ADDRESS: ThrottleRule = { scope: 'sign_in:address', limit: 10, windowMs: 15 * MINUTE };
export const SIGN_IN_PER_ACCOUNT_ADDRESS: ThrottleRule = {
  scope: 'sign_in:account_address',
  limit: 5,
  windowMs: DAY,
  backoff: GROWING,
};
export const SIGN_IN_PER_ACCOUNT: ThrottleRule = { scope: 'sign_in:account', limit: 100, windowMs: DAY };
/** Not a limit: a record of where an account signed in (one event per account and address, kept 30 days). */
export const KNOWN_SIGN_IN_ADDRESS: ThrottleRule = { scope: 'sign_in:known_address', limit: 1, windowMs: 30 * DAY };
export const TWO_FACTOR_FAILURES: ThrottleRule = { scope: 'two_factor:account', limit: 5, windowMs: DAY, backoff: GROWING };
export const REAUTH_FAILURES: ThrottleRule = { scope: 'reauth:account', limit: 5, windowMs: DAY, backoff: GROWING };

/**
 * Not a limit: past an account's cap, a sign-in with a two-factor code whose password (or account) was wrong is
 * recorded here, one write shaped as the code's counted check that a right password goes on to (see login), so the
 * time of the same 429 does not tell a right password from a wrong one.
 */
export const STRICT_SIGN_IN_CHECK: ThrottleRule = { scope: 'sign_in:strict_check', limit: Number.MAX_SAFE_INTEGER, windowMs: DAY };

/** Past the cap, a failed sign-in with a code that never reached the code's check: the same write as that check. */
export async function recordStrictSignInFailure(db: Db, clock: Clock, address: string): Promise<void> {
  await hitThrottle(db, clock, [{ rule: STRICT_SIGN_IN_CHECK, key: address }]);
}

/** Events pruneThrottle must keep longer than its general retention. */
export const AUTH_THROTTLE_KEEP_LONGER: ThrottleRule[] = [KNOWN_SIGN_IN_ADDRESS];

export interface RegistrationLimit {
  /** Accounts one address (an IPv6 /64) may create per hour. */
  perAddressPerHour: number;
}
export const REGISTRATIONS_PER_ADDRESS_PER_HOUR = 5;
export const DEFAULT_REGISTRATION_LIMIT: RegistrationLimit = { perAddressPerHour: REGISTRATIONS_PER_ADDRESS_PER_HOUR };
const registrationRule = (l: RegistrationLimit): ThrottleRule => ({
  scope: 'registration:address',
  limit: l.perAddressPerHour,
  windowMs: HOUR,
});

const minutes = (seconds: number) => {
  const m = Math.ceil(seconds / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
};
const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

/**
 * The guesses at one account from one network ran out (the pair's growing delays): the message says exactly that, so
 * the owner knows another network, or waiting, gets them in, and that other accounts on this network are not affected.
 */
function accountNetworkLimited(seconds: number): AppError {
  return new AppError(
    'account_network_limited',
    `Too many failed sign-ins to this account from this network. Try again in ${minutes(seconds)}.`,
    undefined,
    retryAfter(seconds),
  );
}

/** Every account together from one network (a source spraying passwords). */
function rateLimited(seconds: number): AppError {
  return new AppError(
    'rate_limited',
    `Too many failed sign-in attempts from this network. Try again in ${minutes(seconds)}.`,
    undefined,
    retryAfter(seconds),
  );
}

export function accountSignInLimited(seconds: number): AppError {
  return new AppError('account_sign_in_limited', undefined, undefined, retryAfter(seconds));
}

/** An address (already an addressKey) and a normalized e-mail. */
export interface SignInKeys {
  account: string;
  address: string;
}
const pairKey = (k: SignInKeys) => `${k.account}|${k.address}`;
const knownKey = (userId: string, address: string) => `${userId}|${address}`;

export interface SignInAttempt {
  /** The events counting this attempt as a failure until it is released. */
  ids: number[];
  /** When the account's cap is full: seconds until it has room again (the attempt then does not count against it). */
  cappedFor: number | null;
}

/**
 * Counts one sign-in attempt as a failure, before the password is checked. Fails with (429 with Retry-After):
 * rate_limited when the address has no room, account_network_limited when only the account-and-address pair has none. A full account cap does not refuse
 * here: the caller decides (see login) and gets `cappedFor`.
 */
export async function countSignInAttempt(db: Db, clock: Clock, keys: SignInKeys): Promise<SignInAttempt> {
  const hits: ThrottleHit[] = [
    { rule: SIGN_IN_PER_ADDRESS, key: keys.address },
    { rule: SIGN_IN_PER_ACCOUNT_ADDRESS, key: pairKey(keys) },
    { rule: SIGN_IN_PER_ACCOUNT, key: keys.account },
  ];
  // When only the account's cap is full the attempt still counts (atomically) against its address and pair.
  const outcome = await hitThrottleWithCap(db, clock, hits, SIGN_IN_PER_ACCOUNT);
  if (!outcome.allowed) {
    // The network-wide limit, when full, is the one to name: another account would not get in either.
    if (outcome.blocked[SIGN_IN_PER_ADDRESS.scope] === undefined) throw accountNetworkLimited(outcome.retryAfterSeconds);
    throw rateLimited(outcome.retryAfterSeconds);
  }
  return { ids: outcome.ids, cappedFor: outcome.cappedFor };
}

/**
 * A success: the attempt was no failure, the pair's delays start over, and the address is remembered as one the
 * account signs in from. The address's and the account's other failures stay (one success does not excuse them).
 */
export async function signInSucceeded(db: Db, clock: Clock, keys: SignInKeys, userId: string, attempt: SignInAttempt) {
  await releaseThrottle(db, attempt.ids);
  await clearThrottle(db, SIGN_IN_PER_ACCOUNT_ADDRESS, pairKey(keys));
  await rememberSignInAddress(db, clock, userId, keys.address);
}

/** This account signed in (or registered) from this address: one record per pair, renewed each time. */
export async function rememberSignInAddress(db: Db, clock: Clock, userId: string, address: string): Promise<void> {
  const key = knownKey(userId, address);
  await clearThrottle(db, KNOWN_SIGN_IN_ADDRESS, key);
  await recordThrottle(db, clock, [{ rule: KNOWN_SIGN_IN_ADDRESS, key }]);
}

export async function isKnownSignInAddress(db: Db, clock: Clock, userId: string, address: string): Promise<boolean> {
  return (await throttleUsed(db, clock, { rule: KNOWN_SIGN_IN_ADDRESS, key: knownKey(userId, address) })) > 0;
}

export type VerificationKind = 'two_factor' | 'password';

/**
 * Counts a check of a two-factor code and/or the current password of a signed-in account, before it is made. The
 * ids come back in the order of `kinds`, to release the ones that turn out right. Fails with:
 * verification_rate_limited (429 with Retry-After).
 */
export async function countVerification(db: Db, clock: Clock, userId: string, kinds: VerificationKind[]): Promise<number[]> {
  const hits = kinds.map((k) => ({ rule: k === 'two_factor' ? TWO_FACTOR_FAILURES : REAUTH_FAILURES, key: userId }));
  const outcome = await hitThrottle(db, clock, hits);
  if (outcome.allowed) return outcome.ids;
  const s = outcome.retryAfterSeconds;
  throw new AppError(
    'verification_rate_limited',
    `Too many wrong codes or passwords for this account. Try again in ${minutes(s)}.`,
    undefined,
    retryAfter(s),
  );
}

/**
 * Counts one registration from this address (an addressKey). Fails with: registration_rate_limited (429 with
 * Retry-After) once the address has created `perAddressPerHour` accounts in the last hour. No limit (null, the
 * request-rate limits turned off for a load test) counts nothing.
 */
export async function countRegistration(db: Db, clock: Clock, limit: RegistrationLimit | null, address: string): Promise<number[]> {
  if (limit === null) return [];
  const outcome = await hitThrottle(db, clock, [{ rule: registrationRule(limit), key: address }]);
  if (outcome.allowed) return outcome.ids;
  const s = outcome.retryAfterSeconds;
  throw new AppError(
    'registration_rate_limited',
    `Too many accounts were created from this network: at most ${limit.perAddressPerHour} an hour. Try again in ${minutes(s)}.`,
    undefined,
    retryAfter(s),
  );
}

/** The old login_failures table is no longer written; its last rows age out here. */
export async function pruneFailures(db: Db, clock: Clock): Promise<void> {
  await db.delete(schema.loginFailures).where(lt(schema.loginFailures.at, new Date(clock.now().getTime() - 15 * MINUTE)));
}
