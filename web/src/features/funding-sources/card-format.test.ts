import { describe, expect, test } from 'bun:test';
import {
  CARD_NUMBER_MAX_LENGTH,
  cvvLength,
  detectBrand,
  formatCardNumber,
  formatCvv,
  formatExpiry,
  isExpired,
  luhnValid,
  parseExpiry,
  parsePercentage,
  toCreateBody,
  validateCardForm,
  type CardForm,
  type DetectedBrand,
} from './card-format';

describe('detectBrand', () => {
  test.each<[string, DetectedBrand]>([
    ['4242424242424242', 'visa'],
    ['4', 'visa'],
    ['5555 5555 5555 4444', 'mastercard'],
    ['340000000000009', 'amex'],
    ['371449635398431', 'amex'],
    ['35', 'unknown'],
    ['3', 'unknown'],
    ['6011111111111117', 'unknown'],
    ['', 'unknown'],
  ])('%p is %p', (input, brand) => {
    expect(detectBrand(input)).toBe(brand);
  });
});

describe('formatCardNumber', () => {
  test('groups digits in fours and drops everything else', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4242-4242 42a')).toBe('4242 4242 42');
    expect(formatCardNumber('')).toBe('');
    expect(formatCardNumber('42424')).toBe('4242 4');
  });

  test('never exceeds 19 characters', () => {
    const out = formatCardNumber('1234567890123456789012');
    expect(out).toBe('1234 5678 9012 3456');
    expect(out.length).toBe(CARD_NUMBER_MAX_LENGTH);
  });

  test('re-formatting is stable', () => {
    const once = formatCardNumber('4000002760003184');
    expect(formatCardNumber(once)).toBe(once);
  });
});

describe('expiry', () => {
  test('formats as MM/YY, at most 5 characters', () => {
    expect(formatExpiry('1')).toBe('1');
    expect(formatExpiry('12')).toBe('12');
    expect(formatExpiry('123')).toBe('12/3');
    expect(formatExpiry('12/34')).toBe('12/34');
    expect(formatExpiry('1234567')).toBe('12/34');
    expect(formatExpiry('ab')).toBe('');
  });

  test('deleting the slash does not trap the cursor', () => {
    // Backspace over "12/" gives "12": the slash is not re-added until a year digit is typed.
    expect(formatExpiry('12')).toBe('12');
  });

  test('parses into the month and a 20-prefixed year', () => {
    expect(parseExpiry('03/29')).toEqual({ month: '03', year: '2029' });
    expect(parseExpiry('12/30')).toEqual({ month: '12', year: '2030' });
    expect(parseExpiry('13/29')).toBeNull();
    expect(parseExpiry('00/29')).toBeNull();
    expect(parseExpiry('3/29')).toBeNull();
    expect(parseExpiry('0329')).toBeNull();
  });

  test('a card is valid through its expiry month', () => {
    const now = new Date(2026, 4, 31);
    expect(isExpired({ month: '05', year: '2026' }, now)).toBe(false);
    expect(isExpired({ month: '04', year: '2026' }, now)).toBe(true);
    expect(isExpired({ month: '12', year: '2025' }, now)).toBe(true);
    expect(isExpired({ month: '01', year: '2027' }, now)).toBe(false);
  });
});

test('luhn', () => {
  expect(luhnValid('4242424242424242')).toBe(true);
  expect(luhnValid('4000002760003184')).toBe(true);
  expect(luhnValid('378282246310005')).toBe(true);
  expect(luhnValid('4242424242424241')).toBe(false);
  expect(luhnValid('')).toBe(false);
});

describe('cvv', () => {
  test('3 digits, 4 for amex', () => {
    expect(cvvLength('visa')).toBe(3);
    expect(cvvLength('unknown')).toBe(3);
    expect(cvvLength('amex')).toBe(4);
    expect(formatCvv('12a345', 'visa')).toBe('123');
    expect(formatCvv('12a345', 'amex')).toBe('1234');
  });
});

describe('percentage', () => {
  test.each([
    ['50', 50],
    ['0', 0],
    ['100', 100],
    ['33.5', 33.5],
    [' 20 ', 20],
    ['100.1', null],
    ['-1', null],
    ['', null],
    ['abc', null],
  ])('%p -> %p', (input, out) => {
    expect(parsePercentage(input)).toBe(out);
  });
});

describe('validateCardForm', () => {
  const now = new Date(2026, 0, 15);
  const good: CardForm = {
    cardNumber: '4242 4242 4242 4242',
    expiry: '12/30',
    cvv: '123',
    name: 'Ada Lovelace',
    splitPercentage: '50',
  };

  test('a complete form has no errors', () => {
    expect(validateCardForm(good, now)).toEqual({});
  });

  test('each field reports its own problem', () => {
    expect(
      validateCardForm({ cardNumber: '4242', expiry: '13/30', cvv: '12', name: '  ', splitPercentage: '' }, now),
    ).toEqual({
      cardNumber: 'cardNumberInvalid',
      expiry: 'expiryInvalid',
      cvv: 'cvvInvalid',
      name: 'nameRequired',
      splitPercentage: 'splitRequired',
    });
    expect(validateCardForm({ ...good, cardNumber: '4242 4242 4242 4241' }, now)).toEqual({
      cardNumber: 'cardNumberInvalid',
    });
    expect(validateCardForm({ ...good, expiry: '12/25', splitPercentage: '101' }, now)).toEqual({
      expiry: 'expiryPast',
      splitPercentage: 'splitRange',
    });
  });

  test('amex needs a 4-digit CVV', () => {
    const amex = { ...good, cardNumber: '3782 8224 6310 005' };
    expect(validateCardForm({ ...amex, cvv: '123' }, now)).toEqual({ cvv: 'cvvInvalid' });
    expect(validateCardForm({ ...amex, cvv: '1234' }, now)).toEqual({});
  });

  test('the request body has digits, MM, 20YY, last4 and the brand', () => {
    expect(toCreateBody({ ...good, cardNumber: '4000 0027 6000 3184', expiry: '03/29', name: ' Ada ' })).toEqual({
      cardNumber: '4000002760003184',
      expiryMonth: '03',
      expiryYear: '2029',
      cvv: '123',
      name: 'Ada',
      type: 'credit_card',
      last4: '3184',
      brand: 'visa',
      defaultSplitPercentage: 50,
    });
  });
});
