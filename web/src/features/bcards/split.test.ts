import { describe, expect, test } from 'bun:test';
import { centsToDecimal, checkAmountInput, formatCents, formatMoney } from './split';

describe('the amount field and money display', () => {
  test('a valid amount becomes whole cents, exactly', () => {
    expect(checkAmountInput('100')).toEqual({ ok: true, cents: 10000 });
    expect(checkAmountInput('1')).toEqual({ ok: true, cents: 100 });
    expect(checkAmountInput('19.99')).toEqual({ ok: true, cents: 1999 });
    expect(checkAmountInput('19.9')).toEqual({ ok: true, cents: 1990 });
    expect(checkAmountInput(' 25. ')).toEqual({ ok: true, cents: 2500 });
    expect(checkAmountInput('1000000')).toEqual({ ok: true, cents: 100_000_000 });
  });

  test('below $1.00 is refused (0.5, 0.99), as the server refuses it', () => {
    expect(checkAmountInput('0.5')).toEqual({ ok: false, reason: 'minimum' });
    expect(checkAmountInput('.99')).toEqual({ ok: false, reason: 'minimum' });
  });

  test('more than 2 decimals is an error, never rounded', () => {
    expect(checkAmountInput('12.345')).toEqual({ ok: false, reason: 'decimals' });
    expect(checkAmountInput('1.000')).toEqual({ ok: false, reason: 'decimals' });
  });

  test('nothing, zero, negative, not a plain number, or too large', () => {
    for (const v of ['', '  ', '.', '0', '0.00', '-5', 'abc', '1e2', '1,000']) {
      expect(checkAmountInput(v)).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(checkAmountInput('1000000.01')).toEqual({ ok: false, reason: 'maximum' });
    expect(checkAmountInput('99999999999')).toEqual({ ok: false, reason: 'maximum' });
  });

  test('decimal strings print exactly', () => {
    expect(centsToDecimal(6174)).toBe('61.74');
    expect(centsToDecimal(5)).toBe('0.05');
    expect(formatCents(1_000_000)).toBe('$10,000.00');
    expect(formatMoney('61.7')).toBe('$61.70');
    expect(formatMoney('n/a')).toBe('n/a');
  });
});
