import { expect, test } from 'bun:test';
import { isFinalAnswer, loadPendingAttempt, nextAttempt, PENDING_BCARD_KEY, savePendingAttempt } from './idempotency';

let n = 0;
const fresh = () => `key-${++n}`;

test('a resend of the same body after no answer keeps the key; an answer or another body gets a new one', () => {
  const first = nextAttempt(null, '{"a":1}', fresh);
  const resend = nextAttempt(first, '{"a":1}', fresh);
  expect(resend.key).toBe(first.key);
  const other = nextAttempt(resend, '{"a":2}', fresh);
  expect(other.key).not.toBe(first.key);
  const answered = { ...other, answered: true };
  expect(nextAttempt(answered, '{"a":2}', fresh).key).not.toBe(other.key);
});

test('only a final answer settles a request: no answer, a 5xx and "still running" keep the key', () => {
  expect(isFinalAnswer(null)).toBe(false);
  expect(isFinalAnswer(500, 'internal_error')).toBe(false);
  expect(isFinalAnswer(503)).toBe(false);
  expect(isFinalAnswer(409, 'idempotency_key_in_use')).toBe(false);
  expect(isFinalAnswer(201)).toBe(true);
  expect(isFinalAnswer(402, 'insufficient_funds')).toBe(true);
  expect(isFinalAnswer(409, 'bcard_not_active')).toBe(true);
  expect(isFinalAnswer(400, 'invalid_splits')).toBe(true);
});

function memoryStore() {
  const m = new Map<string, string>();
  return {
    m,
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

test('an unanswered bcard request survives a reload: the same body after it reuses the key; an answer forgets it', () => {
  const store = memoryStore();
  const first = nextAttempt(null, '{"balance":"150.00"}', fresh);
  savePendingAttempt(store, first);
  // The reload: nothing in memory, the stored attempt is found.
  const restored = loadPendingAttempt(store);
  expect(restored).toEqual({ key: first.key, body: first.body, answered: false });
  expect(nextAttempt(restored, '{"balance":"150.00"}', fresh).key).toBe(first.key);
  expect(nextAttempt(restored, '{"balance":"99.00"}', fresh).key).not.toBe(first.key);
  savePendingAttempt(store, { ...first, answered: true });
  expect(loadPendingAttempt(store)).toBeNull();
  expect(store.m.size).toBe(0);
});

test('a broken or unavailable store means no stored attempt, never an error', () => {
  const store = memoryStore();
  store.setItem(PENDING_BCARD_KEY, '{not json');
  expect(loadPendingAttempt(store)).toBeNull();
  store.setItem(PENDING_BCARD_KEY, JSON.stringify({ key: 1, body: 'x' }));
  expect(loadPendingAttempt(store)).toBeNull();
  expect(loadPendingAttempt(null)).toBeNull();
  const throwing = {
    getItem: () => {
      throw new Error('denied');
    },
    setItem: () => {
      throw new Error('denied');
    },
    removeItem: () => {
      throw new Error('denied');
    },
  };
  expect(loadPendingAttempt(throwing)).toBeNull();
  expect(() => savePendingAttempt(throwing, { key: 'k', body: 'b', answered: false })).not.toThrow();
});
