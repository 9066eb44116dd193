import { expect, test } from 'bun:test';
import { niceTicks } from './chart-scale';

test('nice ticks cover the maximum with round steps', () => {
  expect(niceTicks(0)).toEqual([0, 1]);
  expect(niceTicks(10)).toEqual([0, 2.5, 5, 7.5, 10]);
  expect(niceTicks(93)).toEqual([0, 25, 50, 75, 100]);
  const t = niceTicks(1234.5);
  expect(t[0]).toBe(0);
  expect(t[t.length - 1]!).toBeGreaterThanOrEqual(1234.5);
});
