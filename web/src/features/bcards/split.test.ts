import { describe, expect, test } from 'bun:test';
import { centsToDecimal, formatCents, formatMoney, parseAmountInput } from './split';

describe('the amount field and money display', () => {
  test('the amount input becomes whole cents', () => {
    expect(parseAmountInput('100')).toBe(10000);
    expect(parseAmountInput('0.1')).toBe(10);
    expect(parseAmountInput('19.99')).toBe(1999);
    expect(parseAmountInput('0')).toBe(0);
    expect(parseAmountInput('-5')).toBe(-500);
    expect(parseAmountInput('')).toBeNull();
    expect(parseAmountInput('abc')).toBeNull();
  });

  test('decimal strings print exactly', () => {
    expect(centsToDecimal(6174)).toBe('61.74');
    expect(centsToDecimal(5)).toBe('0.05');
    expect(formatCents(1_000_000)).toBe('$10,000.00');
    expect(formatMoney('61.7')).toBe('$61.70');
    expect(formatMoney('n/a')).toBe('n/a');
  });
});
