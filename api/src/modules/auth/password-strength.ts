import { ZxcvbnFactory, type ZxcvbnResult } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import * as zxcvbnEn from '@zxcvbn-ts/language-en';
import { AppError } from '../../errors';

/*
 * Password strength, on the server only (the dictionaries are about 1 MB: the web app never bundles them; it shows
 * the reason this check answers). zxcvbn estimates how many guesses a cracker needs, knowing the common and
 * breached passwords, English words and names, keyboard walks, repeats, sequences, dates and l33t substitutions.
 *
 * A password must need at least 10^6 guesses: the line zxcvbn draws for "protection from throttled online attacks",
 * which is what sign-in throttling gives. Six random characters just reach it, so the spec's minimum of 6
 * characters still means something, while every common password and its usual disguises (Passw0rd, secret123,
 * Summer2024, the account's own name or e-mail with digits) fall below it.
 */
export const MIN_PASSWORD_GUESSES = 1e6;
/** Characters looked at: enough for any real password, and it bounds the matcher's work on a 256-character one. */
const CHECKED_LENGTH = 100;

/** zxcvbn's warning keys (the reason), as the API reports them in error.details.reason. */
export type WeakPasswordReason = keyof typeof zxcvbnEn.translations.warnings | 'guessable';

let factory: ZxcvbnFactory | null = null;
/** Built on first use: loading the dictionaries takes a moment that only registration and password changes pay. */
function zxcvbn(): ZxcvbnFactory {
  factory ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary, ...zxcvbnEn.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
    // Keys instead of sentences: the reason travels as a stable key; the English text is added below.
    translations: identityTranslations(),
    maxLength: CHECKED_LENGTH,
  });
  return factory;
}

function identityTranslations(): typeof zxcvbnEn.translations {
  const keys = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.keys(o).map((k) => [k, k])) as T;
  const en = zxcvbnEn.translations;
  return { warnings: keys(en.warnings), suggestions: keys(en.suggestions), timeEstimation: en.timeEstimation };
}

export interface StrengthVerdict {
  ok: boolean;
  reason: WeakPasswordReason;
  suggestions: Array<keyof typeof zxcvbnEn.translations.suggestions>;
  guesses: number;
}

/** Rates a password; `userInputs` (e-mail, names) count as known words, so a password made of them is weak. */
export function ratePassword(password: string, userInputs: Array<string | null | undefined> = []): StrengthVerdict {
  // Each input whole, its parts (an e-mail's local part, the words of a name) and the parts run together.
  const inputs = userInputs.flatMap((s) => {
    if (!s) return [];
    const local = s.includes('@') ? s.slice(0, s.lastIndexOf('@')) : s;
    const parts = local.split(/[.\s_+-]+/).filter((p) => p.length >= 3);
    return [s, local, parts.join(''), ...parts];
  });
  const names = userInputs.filter((s): s is string => !!s && !s.includes('@'));
  if (names.length > 1) inputs.push(names.join(''), names.join(' '));
  const result: ZxcvbnResult = zxcvbn().check(password, inputs);
  const reason = (result.feedback.warning ?? 'guessable') as WeakPasswordReason;
  const suggestions = result.feedback.suggestions as StrengthVerdict['suggestions'];
  return { ok: result.guesses >= MIN_PASSWORD_GUESSES, reason, suggestions, guesses: result.guesses };
}

const BETTER = 'A few unrelated words (for example three or four) make a password that is long, easy to remember and hard to guess.';

/** The English text of a verdict: why the password is refused and what would be better. */
export function weakPasswordMessage(v: StrengthVerdict): string {
  const why =
    v.reason === 'guessable' ? 'It would be guessed too quickly.' : zxcvbnEn.translations.warnings[v.reason];
  const tips = v.suggestions.filter((s) => s !== 'noNeed').map((s) => zxcvbnEn.translations.suggestions[s]);
  return ['This password is too easy to guess.', why, ...tips, BETTER].join(' ');
}

/**
 * Refuses a password that is too easy to guess. Fails with: weak_password (param `param`), whose details carry the
 * reason (a zxcvbn warning key, or `guessable`) and suggestion keys, so a client can say it in its own language.
 */
export function assertStrongPassword(password: string, userInputs: Array<string | null | undefined>, param = 'password'): void {
  const v = ratePassword(password, userInputs);
  if (v.ok) return;
  throw new AppError('weak_password', weakPasswordMessage(v), param, undefined, {
    details: { reason: v.reason, suggestions: v.suggestions },
  });
}
