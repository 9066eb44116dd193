import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { translate, type Lang } from '../i18n';
import { ApiError } from './api';
import { authErrorText, weakPasswordText } from './auth-errors';

const apiError = (status: number, error: Record<string, unknown>) => new ApiError(status, `${status}: ...`, { error });
const tr = (lang: Lang) => (key: Parameters<typeof translate>[1]) => translate(lang, key);

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
