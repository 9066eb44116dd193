import { expect, test } from 'bun:test';
import { formatTokenDate } from './format';

test('dates in the reader\'s language, with Latin digits in Arabic', () => {
  const iso = '2026-03-05T12:00:00.000Z';
  expect(formatTokenDate(iso, 'en')).toBe('Mar 5, 2026');
  const ar = formatTokenDate(iso, 'ar');
  expect(ar).toContain('2026');
  expect(ar).toContain('مارس');
  expect(ar).not.toMatch(/[٠-٩]/);
});

test('an unreadable date is shown as it came', () => {
  expect(formatTokenDate('soon', 'en')).toBe('soon');
});
