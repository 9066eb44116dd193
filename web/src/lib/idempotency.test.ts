import { describe, expect, test } from 'bun:test';
import { ApiError } from './api';
import { isFinalAnswer, nextAttempt } from './idempotency';

describe('one Idempotency-Key per submit, kept across its retries', () => {
  let n = 0;
  const newKey = () => `k${++n}`;

  test('the first submit takes a new key', () => {
    expect(nextAttempt(null, '{"a":1}', newKey)).toEqual({ key: 'k1', body: '{"a":1}', answered: false });
  });

  test('a retry of an unanswered submit with the same body keeps its key', () => {
    const first = nextAttempt(null, '{"a":1}', newKey);
    expect(nextAttempt(first, '{"a":1}', newKey).key).toBe(first.key);
  });

  test('a different body, or an answered submit, takes a new key', () => {
    const first = nextAttempt(null, '{"a":1}', newKey);
    expect(nextAttempt(first, '{"a":2}', newKey).key).not.toBe(first.key);
    expect(nextAttempt({ ...first, answered: true }, '{"a":1}', newKey).key).not.toBe(first.key);
  });

  test('which answers are final', () => {
    expect(isFinalAnswer(undefined)).toBe(true);
    expect(isFinalAnswer(new ApiError(400, '400: x', { error: { code: 'validation_error' } }))).toBe(true);
    expect(isFinalAnswer(new ApiError(409, '409: x', { error: { code: 'idempotency_key_in_use' } }))).toBe(false);
    expect(isFinalAnswer(new ApiError(503, '503: x', null))).toBe(false);
    expect(isFinalAnswer(new TypeError('Failed to fetch'))).toBe(false);
  });
});
