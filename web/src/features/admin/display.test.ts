import { describe, expect, test } from 'bun:test';
import {
  formatAmount,
  fractionToPercent,
  fundingRateHealthy,
  isUnlimited,
  parseLimit,
  parseRiskScore,
  percentToFraction,
  riskBand,
  splitFeatures,
} from './display';

describe('admin display rules', () => {
  test('risk bands: <=30 low, 31-70 medium, >70 high', () => {
    expect([0, 30, 31, 70, 71, 100].map(riskBand)).toEqual(['low', 'low', 'medium', 'medium', 'high', 'high']);
  });
  test('risk score input: empty, integers 0-100 only', () => {
    expect(parseRiskScore('')).toEqual({ ok: true, value: undefined });
    expect(parseRiskScore('20')).toEqual({ ok: true, value: 20 });
    expect(parseRiskScore('100')).toEqual({ ok: true, value: 100 });
    expect(parseRiskScore('101')).toEqual({ ok: false });
    expect(parseRiskScore('2.5')).toEqual({ ok: false });
    expect(parseRiskScore('-1')).toEqual({ ok: false });
  });
  test('funding success rate is flagged at 95 or below', () => {
    expect(fundingRateHealthy(95)).toBe(false);
    expect(fundingRateHealthy(95.1)).toBe(true);
  });
  test('fee percent <-> fraction without float noise', () => {
    expect(percentToFraction('2.9')).toBe('0.029');
    expect(percentToFraction('1.925')).toBe('0.01925');
    expect(percentToFraction('abc')).toBeNull();
    expect(percentToFraction('101')).toBeNull();
    expect(fractionToPercent('0.029')).toBe('2.9');
    expect(fractionToPercent(0.019)).toBe('1.9');
  });
  test('limits: empty and 0 are unlimited, integers only', () => {
    expect(parseLimit('')).toBe(0);
    expect(parseLimit('5')).toBe(5);
    expect(parseLimit('1.5')).toBeNull();
    expect(isUnlimited(0)).toBe(true);
    expect(isUnlimited(-1)).toBe(true);
    expect(isUnlimited(null)).toBe(true);
    expect(isUnlimited(3)).toBe(false);
  });
  test('tier cards show 3 features and +N more', () => {
    expect(splitFeatures(['a', 'b', 'c', 'd', 'e'])).toEqual({ visible: ['a', 'b', 'c'], more: 2 });
    expect(splitFeatures(['a'])).toEqual({ visible: ['a'], more: 0 });
  });
  test('amounts from strings or numbers', () => {
    expect(formatAmount('1234.5')).toBe('$1,234.50');
    expect(formatAmount(12)).toBe('$12.00');
    expect(formatAmount(null)).toBe('$0.00');
  });
});
