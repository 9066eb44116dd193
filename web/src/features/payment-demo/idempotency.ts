/*
 * One Idempotency-Key per money-moving submission. It is reused only to resend the very same body after an attempt
 * that got no answer (a network failure), which is exactly when the first attempt may have gone through; any answer,
 * or a different body, means a new key.
 */
export interface Attempt {
  key: string;
  body: string;
  answered: boolean;
}

export function nextAttempt(previous: Attempt | null, body: string, newKey: () => string): Attempt {
  const key = previous && !previous.answered && previous.body === body ? previous.key : newKey();
  return { key, body, answered: false };
}
