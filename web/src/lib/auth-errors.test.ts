import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { translate, type Lang } from '../i18n';
import { ApiError, retryAfterSeconds } from './api';
import { authErrorText, weakPasswordText } from './auth-errors';

const apiError = (status: number, error: Record<string, unknown>) => new ApiError(status, `${status}: ...`, { error });
const tr = (lang: Lang) => (key: Parameters<typeof translate>[1], vars?: Parameters<typeof translate>[2]) => translate(lang, key, vars);

describe('password and sign-in failures in both languages', () => {
  const weak = apiError(400, {
    code: 'weak_password',
    param: 'password',
    message: 'This password is too easy to guess. ...',
    details: { reason: 'topTen', suggestions: ['anotherWord'] },
  });

  test('weak_password says why and what would be better', () => {
    expect(weakPasswordText(tr('en'), weak)).toBe(
      'This password is too easy to guess. This is one of the most used passwords. A few unrelated words (three or four) make a password that is long, easy to remember and hard to guess.',
    );
    const ar = weakPasswordText(tr('ar'), weak)!;
    expect(ar).toContain('هذه من أكثر كلمات المرور استخدامًا.');
    expect(ar).not.toMatch(/[A-Za-z]{4,}/);
  });

  test('an unknown or missing reason falls back to a general one', () => {
    const odd = apiError(400, { code: 'weak_password', message: 'x', details: { reason: 'somethingNew' } });
    expect(weakPasswordText(tr('en'), odd)).toContain('It would be guessed too quickly.');
    expect(weakPasswordText(tr('en'), apiError(400, { code: 'weak_password', message: 'x' }))).toContain('too quickly');
  });

  test('limits and re-authentication codes are translated; other errors keep the server message', () => {
    expect(authErrorText(tr('ar'), apiError(429, { code: 'account_sign_in_limited', message: 'Too many' }))).toContain('أجهزة جديدة');
    expect(authErrorText(tr('en'), apiError(400, { code: 'invalid_current_password', message: 'x' }))).toBe(
      'Your current password is not correct.',
    );
    expect(authErrorText(tr('en'), apiError(401, { code: 'invalid_credentials', message: 'Invalid email or password.' }))).toBe(
      'Invalid email or password.',
    );
  });
});

test('the web app never imports the password-strength dictionaries (they are server-only, about 1 MB)', () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|tsx|js)$/.test(name)) files.push(p);
    }
  };
  walk(join(import.meta.dir, '..'));
  walk(join(import.meta.dir, '../../widget'));
  expect(files.length).toBeGreaterThan(20);
  const offenders = files.filter((f) => /from ['"]@zxcvbn-ts\//.test(readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
  const pkg = JSON.parse(readFileSync(join(import.meta.dir, '../../package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  expect(Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith('@zxcvbn-ts/'))).toEqual([]);
});

describe('a lockout says how long to wait (Retry-After)', () => {
  const limited = (code: string, seconds: number | null) =>
    new ApiError(429, '429: ...', { error: { code, message: 'Too many' } }, seconds);

  test('the wait in words, rounded up, in both languages', () => {
    expect(authErrorText(tr('en'), limited('rate_limited', 840))).toBe(
      'Too many failed sign-in attempts from this network, to any account. Try again in 14 minutes.',
    );
    // The lockout of one account from one network says so, in both languages.
    expect(authErrorText(tr('en'), limited('account_network_limited', 120))).toBe(
      'Too many failed sign-ins to this account from this network. Try again in 2 minutes, or sign in from another network.',
    );
    expect(authErrorText(tr('ar'), limited('account_network_limited', 120))).toBe(
      'محاولات تسجيل دخول فاشلة كثيرة إلى هذا الحساب من هذه الشبكة. حاول مجددًا بعد دقيقتين، أو سجّل الدخول من شبكة أخرى.',
    );
    expect(authErrorText(tr('en'), limited('account_network_limited', null))).toContain('to this account from this network');
    expect(authErrorText(tr('en'), limited('rate_limited', 61))).toContain('Try again in 2 minutes.');
    expect(authErrorText(tr('en'), limited('verification_rate_limited', 1))).toBe('Too many wrong codes or passwords. Try again in 1 second.');
    expect(authErrorText(tr('en'), limited('registration_rate_limited', 3600))).toContain('Try again in 60 minutes.');
    expect(authErrorText(tr('en'), limited('account_sign_in_limited', 7200))).toContain('otherwise try again in 2 hours.');
    expect(authErrorText(tr('ar'), limited('rate_limited', 300))).toContain('بعد 5 دقائق');
    expect(authErrorText(tr('ar'), limited('rate_limited', 120))).toContain('بعد دقيقتين');
  });

  test('without Retry-After the general text stays', () => {
    expect(authErrorText(tr('en'), limited('rate_limited', null))).toBe(
      'Too many failed sign-in attempts from this network, to any account. Please wait a few minutes and try again.',
    );
  });

  test('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Sun, 01 Mar 2026 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds(null, now)).toBeNull();
    expect(retryAfterSeconds('soon', now)).toBeNull();
  });
});
