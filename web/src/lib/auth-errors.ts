import { defineMessages, type MessageKey, type Vars } from '../i18n';
import * as passwords from '../i18n/messages/passwords';
import { ApiError, messageOf } from './api';

// The texts this module names travel with it (its callers are in the auth and dashboard chunks).
defineMessages(passwords);

type Translate = (key: MessageKey, vars?: Vars) => string;

/*
 * Sign-in, registration and account-security failures in the reader's language. The API says why a password is weak
 * with a stable reason key (error.details.reason of weak_password, from the server's strength check: the web app
 * never bundles the dictionaries); the other codes here have fixed texts.
 */

const REASONS = [
  'straightRow',
  'keyPattern',
  'simpleRepeat',
  'extendedRepeat',
  'sequences',
  'recentYears',
  'dates',
  'topTen',
  'topHundred',
  'common',
  'similarToCommon',
  'wordByItself',
  'namesByThemselves',
  'commonNames',
  'userInputs',
  'pwned',
  'guessable',
] as const;
type Reason = (typeof REASONS)[number];
const isReason = (r: unknown): r is Reason => typeof r === 'string' && (REASONS as readonly string[]).includes(r);

const CODE_TEXT: Partial<Record<string, MessageKey>> = {
  rate_limited: 'auth.error.rateLimited',
  account_network_limited: 'auth.error.accountNetworkLimited',
  account_sign_in_limited: 'auth.error.accountLimited',
  registration_rate_limited: 'auth.error.registrationLimited',
  verification_rate_limited: 'auth.error.verificationLimited',
  current_password_required: 'settings.currentPasswordRequired',
  invalid_current_password: 'settings.currentPasswordWrong',
};

/** Why the password was refused and what would be better, or undefined when the error is not weak_password. */
export function weakPasswordText(t: Translate, error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.code !== 'weak_password') return undefined;
  const details = (error.body as { error?: { details?: { reason?: unknown } } } | null)?.error?.details;
  const reason: Reason = isReason(details?.reason) ? details.reason : 'guessable';
  return [t('auth.weakPassword.title'), t(`auth.weakPassword.reason.${reason}`), t('auth.weakPassword.better')].join(' ');
}

/** The same limits when the answer said how long to wait (Retry-After): the text names the wait. */
const CODE_TEXT_WAIT: Partial<Record<string, MessageKey>> = {
  rate_limited: 'auth.error.rateLimitedFor',
  account_network_limited: 'auth.error.accountNetworkLimitedFor',
  account_sign_in_limited: 'auth.error.accountLimitedFor',
  registration_rate_limited: 'auth.error.registrationLimitedFor',
  verification_rate_limited: 'auth.error.verificationLimitedFor',
};

/** Arabic counts have four forms here (1, 2, 3–10, 11 and more); English uses the last for 3 and more. */
const countForm = (n: number) => (n === 1 ? 'one' : n === 2 ? 'two' : n <= 10 ? 'few' : 'many');

/**
 * A wait in words, rounded up so the person never tries too early: seconds under a minute, minutes under two hours,
 * hours beyond.
 */
export function waitText(t: Translate, seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return t(`auth.wait.second.${countForm(s)}`, { n: s });
  const m = Math.ceil(s / 60);
  if (m < 120) return t(`auth.wait.minute.${countForm(m)}`, { n: m });
  const h = Math.ceil(s / 3600);
  return t(`auth.wait.hour.${countForm(h)}`, { n: h });
}

/** The text to show for an auth failure: translated for the codes above, otherwise the server's message. */
export function authErrorText(t: Translate, error: unknown): string | undefined {
  const weak = weakPasswordText(t, error);
  if (weak) return weak;
  if (error instanceof ApiError && error.code && error.retryAfterSeconds !== null) {
    const withWait = CODE_TEXT_WAIT[error.code];
    if (withWait) return t(withWait, { wait: waitText(t, error.retryAfterSeconds) });
  }
  const key = error instanceof ApiError && error.code ? CODE_TEXT[error.code] : undefined;
  return key ? t(key) : messageOf(error);
}
