import { expect, test } from 'bun:test';
import { groupChange, groupIsOn, type NoticePreference } from './api';
import { noticeTime } from './format';
import { reconnectDelay } from './hooks/use-notice-stream';

const prefs: NoticePreference[] = [
  { kind: 'bcard_spent', group: 'bcards', email: true, locked: false },
  { kind: 'bcard_declined', group: 'bcards', email: false, locked: false },
  { kind: 'merchant_refund', group: 'refunds', email: true, locked: false },
  { kind: 'password_changed', group: 'security', email: true, locked: true },
];

test('a group switch is on only when every kind of it is mailed, and sets every unlocked kind of it', () => {
  expect(groupIsOn(prefs, 'bcards')).toBe(false);
  expect(groupIsOn(prefs, 'refunds')).toBe(true);
  expect(groupIsOn(prefs, 'plans')).toBe(false);
  expect(groupChange(prefs, 'bcards', true)).toEqual({ bcard_spent: true, bcard_declined: true });
  // Security kinds are never sent (the server refuses them off).
  expect(groupChange(prefs, 'security', false)).toEqual({});
});

test('times: relative within a week, in the reader\'s language with Latin digits', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  expect(noticeTime('2026-03-10T11:58:00Z', 'en', now)).toBe('2 minutes ago');
  expect(noticeTime('2026-03-10T11:59:50Z', 'en', now)).toBe('now');
  expect(noticeTime('2026-03-09T12:00:00Z', 'en', now)).toBe('yesterday');
  expect(noticeTime('2026-03-10T09:00:00Z', 'ar', now)).toMatch(/3/);
  expect(noticeTime('2026-01-01T12:00:00Z', 'en', now)).toContain('2026');
});

test('the stream reconnects after a growing wait, at most a minute', () => {
  expect([0, 1, 2, 3, 10].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 60_000]);
});
