import { useRef } from 'react';
import { ApiError } from './api';

/*
 * Idempotency-Keys for the dashboard's writes that move money or send things (a refund, a resend, a roll). One key
 * per submit; a retry of that same submit (the same body after no final answer: a network failure, a 5xx, or the
 * key still in use) sends the same key again, so the server does it once however often the button is pressed.
 */

export interface Attempt {
  key: string;
  /** The request body as sent (JSON), to tell a retry of this submit from a different one. */
  body: string;
  answered: boolean;
}

/** The attempt for sending `body`: the previous one's key while it is unanswered and for the same body; else a new key. */
export function nextAttempt(previous: Attempt | null, body: string, newKey: () => string): Attempt {
  const key = previous && !previous.answered && previous.body === body ? previous.key : newKey();
  return { key, body, answered: false };
}

/**
 * Whether an answer settles the request, so the next submit takes a new key. No answer does not; nor does a 5xx (the
 * server frees the key so the same request can be sent again) or 409 idempotency_key_in_use (the first one is still
 * running). Success and every other refusal are final.
 */
export function isFinalAnswer(error: unknown): boolean {
  if (error === undefined) return true;
  if (!(error instanceof ApiError)) return false;
  if (error.status >= 500) return false;
  return error.code !== 'idempotency_key_in_use';
}

/** Per component: `begin(body)` before sending, `settle(attempt, error?)` when it ends; `reset()` for a fresh dialog. */
export function useIdempotencyKeys() {
  const last = useRef<Attempt | null>(null);
  const api = useRef({
    begin(body: unknown): Attempt {
      const attempt = nextAttempt(last.current, JSON.stringify(body ?? {}), () => crypto.randomUUID());
      last.current = attempt;
      return attempt;
    },
    settle(attempt: Attempt, error?: unknown): void {
      if (isFinalAnswer(error)) attempt.answered = true;
    },
    reset(): void {
      last.current = null;
    },
  });
  return api.current;
}
