import { describe, expect, test } from 'bun:test';
import {
  formatAmount,
  fractionToPercent,
  fundingRateHealthy,
  isUnlimited,
  parseLimit,
  parseRiskScore,
  feePercentToBps,
  bpsToFraction,
  parsePriceCents,
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
    expect(fractionToPercent('0.029')).toBe('2.9');
    expect(fractionToPercent(0.019)).toBe('1.9');
    expect(fractionToPercent(0.1234)).toBe('12.34');
  });
  test('fee: a percent from 0 to 100 with at most 2 decimals, read exactly as the basis points the server stores', () => {
    expect(feePercentToBps('2.9')).toBe(290);
    expect(feePercentToBps(' 2.90 ')).toBe(290);
    expect(feePercentToBps('0')).toBe(0);
    expect(feePercentToBps('0.01')).toBe(1);
    expect(feePercentToBps('12.34')).toBe(1234);
    expect(feePercentToBps('100')).toBe(10_000);
    expect(feePercentToBps('100.00')).toBe(10_000);
    // Finer than a basis point, negative, above 100 % or not a number: refused, never rounded.
    for (const bad of ['1.925', '0.001', '-1', '100.01', '101', 'abc', '', '2.', '.5', '1e2', '2,9']) {
      expect(feePercentToBps(bad)).toBeNull();
    }
    // What the form sends is what the server stores: the fraction's basis points round-trip exactly.
    for (const bps of [0, 1, 29, 290, 1234, 9999, 10_000]) {
      expect(Math.round(bpsToFraction(bps) * 10_000)).toBe(bps);
      expect(feePercentToBps(fractionToPercent(bpsToFraction(bps)))).toBe(bps);
    }
  });
  test('price: dollars from 0 to 1,000,000 with at most 2 decimals, as cents', () => {
    expect(parsePriceCents('9.99')).toBe(999);
    expect(parsePriceCents('0')).toBe(0);
    expect(parsePriceCents('19.9')).toBe(1990);
    expect(parsePriceCents('1000000')).toBe(100_000_000);
    for (const bad of ['1.005', '-1', '1000000.01', 'abc', '', '1e3']) expect(parsePriceCents(bad)).toBeNull();
  });
  test('limits: empty and 0 are unlimited, integers only', () => {
    expect(parseLimit('')).toBe(0);
    expect(parseLimit('5')).toBe(5);
    expect(parseLimit('1.5')).toBeNull();
    expect(parseLimit('1000000000')).toBe(1_000_000_000);
    expect(parseLimit('1000000001')).toBeNull();
    expect(parseLimit('-1')).toBeNull();
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
