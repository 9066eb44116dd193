import { describe, expect, test } from 'bun:test';
import { cardholderNameFor, displayStatus, expiryCountdown, groupCardNumber, isolateFor, ltrIsolate, nextExpiry } from './bcard-display';

describe('expiryCountdown', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();

  test.each([
    [30 * 60_000, { kind: 'minutes', minutes: 30 }],
    [30 * 60_000 - 1, { kind: 'minutes', minutes: 29 }],
    [29 * 60_000, { kind: 'minutes', minutes: 29 }],
    [60_000, { kind: 'minutes', minutes: 1 }],
    [59_000, { kind: 'lessThanMinute' }],
    [0, { kind: 'expired' }],
    [-5_000, { kind: 'expired' }],
    [90 * 60_000, { kind: 'hours', hours: 1, minutes: 30 }],
    [3 * 24 * 60 * 60_000, { kind: 'days', days: 3 }],
  ])('%p ms left', (ms, expected) => {
    expect(expiryCountdown(at(ms), now)).toEqual(expected as ReturnType<typeof expiryCountdown>);
  });

  test('an unreadable date counts as expired', () => {
    expect(expiryCountdown('nope', now)).toEqual({ kind: 'expired' });
  });
});

describe('cardholderNameFor', () => {
  test('first and last name, else the e-mail local part, else the fallback', () => {
    expect(cardholderNameFor({ firstName: 'Ada', lastName: 'Lovelace', email: 'a@x.io' })).toBe('Ada Lovelace');
    expect(cardholderNameFor({ firstName: ' Ada ', lastName: null, email: 'a@x.io' })).toBe('Ada');
    expect(cardholderNameFor({ firstName: null, lastName: '', email: 'grace.h@x.io' })).toBe('grace.h');
    expect(cardholderNameFor({ firstName: null, lastName: null, email: '@x.io' })).toBe('bpay User');
    expect(cardholderNameFor(null)).toBe('bpay User');
  });
});

test('groupCardNumber', () => {
  expect(groupCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
  expect(groupCardNumber('4242 4242')).toBe('4242 4242');
});

test('ltrIsolate wraps text in left-to-right isolate marks', () => {
  expect(ltrIsolate('$1.00')).toBe('\u2066$1.00\u2069');
});

test('isolateFor: only right-to-left text gets the marks', () => {
  expect(isolateFor('ltr')('$1.00')).toBe('$1.00');
  expect(isolateFor('rtl')('$1.00')).toBe(ltrIsolate('$1.00'));
});

describe('displayStatus and nextExpiry', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();

  test('an active card is expired on screen from the moment its session ends', () => {
    expect(displayStatus({ status: 'active', expiresAt: at(1) }, now)).toBe('active');
    expect(displayStatus({ status: 'active', expiresAt: at(0) }, now)).toBe('expired');
    expect(displayStatus({ status: 'active', expiresAt: at(-60_000) }, now)).toBe('expired');
    expect(displayStatus({ status: 'used', expiresAt: at(60_000) }, now)).toBe('used');
    expect(displayStatus({ status: 'canceled', expiresAt: at(-1) }, now)).toBe('canceled');
  });

  test('the next change is the soonest active card still running', () => {
    const cards = [
      { status: 'active', expiresAt: at(-5) },
      { status: 'active', expiresAt: at(90_000) },
      { status: 'used', expiresAt: at(10) },
      { status: 'active', expiresAt: at(30_000) },
    ];
    expect(nextExpiry(cards, now)).toBe(now.getTime() + 30_000);
    expect(nextExpiry([{ status: 'expired', expiresAt: at(10) }], now)).toBeUndefined();
  });
});
