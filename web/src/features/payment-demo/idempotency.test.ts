import { expect, test } from 'bun:test';
import { nextAttempt } from './idempotency';

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
