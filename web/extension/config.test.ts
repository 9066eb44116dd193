import { expect, test } from 'bun:test';
import { bridgeMatches, checkOrigin, originPattern } from './src/lib/config';
import { resolveLanguage, tx, ar, en } from './src/lib/messages';

test('the options page accepts an http(s) site address and answers its origin', () => {
  expect(checkOrigin('https://bpay.example.com')).toEqual({ ok: true, origin: 'https://bpay.example.com' });
  expect(checkOrigin(' https://bpay.example.com/ ')).toEqual({ ok: true, origin: 'https://bpay.example.com' });
  expect(checkOrigin('http://localhost:3100')).toEqual({ ok: true, origin: 'http://localhost:3100' });
  expect(checkOrigin('HTTPS://BPAY.Example.com:443')).toEqual({ ok: true, origin: 'https://bpay.example.com' });
});

test('the options page refuses what is not a site address', () => {
  expect(checkOrigin('bpay.example.com')).toEqual({ ok: false, reason: 'invalid' });
  expect(checkOrigin('')).toEqual({ ok: false, reason: 'invalid' });
  expect(checkOrigin('javascript:alert(1)')).toEqual({ ok: false, reason: 'scheme' });
  expect(checkOrigin('ftp://bpay.example.com')).toEqual({ ok: false, reason: 'scheme' });
  expect(checkOrigin('chrome-extension://abc/')).toEqual({ ok: false, reason: 'scheme' });
  expect(checkOrigin('https://user:pw@bpay.example.com')).toEqual({ ok: false, reason: 'invalid' });
  expect(checkOrigin('https://bpay.example.com/app')).toEqual({ ok: false, reason: 'path' });
  expect(checkOrigin('https://bpay.example.com/?x=1')).toEqual({ ok: false, reason: 'path' });
});

test('patterns for an origin', () => {
  expect(originPattern('http://localhost:3100')).toBe('http://localhost:3100/*');
  expect(bridgeMatches('https://bpay.example.com')).toEqual(['https://bpay.example.com/extension/connect*']);
});

test('the extension language: the choice, else Arabic for an Arabic browser', () => {
  expect(resolveLanguage('ar', 'en-US')).toBe('ar');
  expect(resolveLanguage('en', 'ar-SA')).toBe('en');
  expect(resolveLanguage('auto', 'ar-EG')).toBe('ar');
  expect(resolveLanguage(undefined, 'AR')).toBe('ar');
  expect(resolveLanguage(undefined, 'fr-FR')).toBe('en');
  expect(resolveLanguage('xx', undefined)).toBe('en');
});

test('the catalogue: the same keys in both languages, the same placeholders', () => {
  expect(Object.keys(ar).sort()).toEqual(Object.keys(en).sort());
  const vars = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
  for (const key of Object.keys(en) as (keyof typeof en)[]) expect(vars(ar[key])).toEqual(vars(en[key]));
  expect(tx('en', 'ext.banner.text', { amount: '$12.50' })).toBe('Split $12.50 with bpay');
  expect(tx('ar', 'ext.popup.disconnected')).toBe('فُصل هذا المتصفح عن bpay. اربطه مرة أخرى.');
  expect(tx('en', 'ext.popup.disconnected')).toBe('This browser was disconnected from bpay. Connect it again.');
});
