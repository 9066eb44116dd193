/*
 * One Idempotency-Key per money-moving submission. It is reused only to resend the very same body after an attempt
 * that got no final answer (a network failure, a server error, or the server still running the first one), which is
 * exactly when the first attempt may have gone through; a final answer, or a different body, means a new key.
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

/**
 * Whether an answer settles the request, so the next submission may take a new key. No answer (`status` null) does
 * not; nor does a 5xx (the server frees the key so the same request can be resent and take over) or a 409
 * idempotency_key_in_use (the first request is still running). Any other answer, success or refusal, is final.
 */
export function isFinalAnswer(status: number | null, code?: string): boolean {
  if (status === null || status >= 500) return false;
  return code !== 'idempotency_key_in_use';
}

/** Where an unanswered bcard request waits for its resend, so a reload and a new run with the same split reuse its key. */
export const PENDING_BCARD_KEY = 'bpay-payment-demo-pending-bcard';

type KeyValueStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The unanswered attempt kept in `store` (sessionStorage: this tab only), or null. Storage can throw: then none. */
export function loadPendingAttempt(store: KeyValueStore | null): Attempt | null {
  try {
    const raw = store?.getItem(PENDING_BCARD_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as unknown;
    if (typeof v !== 'object' || v === null) return null;
    const { key, body } = v as Record<string, unknown>;
    return typeof key === 'string' && typeof body === 'string' ? { key, body, answered: false } : null;
  } catch {
    return null;
  }
}

/** Keeps an unanswered attempt; forgets it once answered. It holds ids and amounts, never card data. */
export function savePendingAttempt(store: KeyValueStore | null, attempt: Attempt): void {
  try {
    if (attempt.answered) store?.removeItem(PENDING_BCARD_KEY);
    else store?.setItem(PENDING_BCARD_KEY, JSON.stringify({ key: attempt.key, body: attempt.body }));
  } catch {
    /* the resend then works within this page only */
  }
}

export function sessionStore(): KeyValueStore | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
