import { expect, test } from 'bun:test';
import { axisTicks, barX, percentShares } from './chart-math';

test('axisTicks: round steps up to at least the maximum', () => {
  expect(axisTicks(0)).toEqual([0, 1]);
  expect(axisTicks(170)).toEqual([0, 50, 100, 150, 200]);
  expect(axisTicks(9.5)).toEqual([0, 2.5, 5, 7.5, 10]);
  for (const max of [1, 3, 17, 99.99, 1234.5, 1e6]) expect(axisTicks(max).at(-1)!).toBeGreaterThanOrEqual(max);
});

test('percentShares: whole percents that always sum to 100', () => {
  expect(percentShares([1, 1, 1])).toEqual([34, 33, 33]);
  expect(percentShares([10045, 8200, 6150])).toEqual([41, 34, 25]);
  expect(percentShares([0, 0])).toEqual([0, 0]);
  expect(percentShares([5, 0])).toEqual([100, 0]);
  for (const parts of [[3, 3, 3, 3, 3, 3, 3], [1, 2, 3, 4, 5, 6], [999, 1]]) expect(percentShares(parts).reduce((a, b) => a + b, 0)).toBe(100);
});

test('barX: bars start at the left, or at the right in a right-to-left page', () => {
  expect(barX(0, 30, 10, 100, false)).toBe(10);
  expect(barX(0, 30, 10, 100, true)).toBe(80);
  expect(barX(20, 30, 10, 100, true)).toBe(60);
});
