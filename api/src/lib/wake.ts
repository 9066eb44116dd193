/*
 * An in-process wake-up channel: writers call `wake()` after recording something live listeners poll for (an
 * event broadcast, a notice); each open stream subscribed with `on` looks at once instead of at its next poll. Only
 * a hint: the poll of the table is the truth, so writes by other processes still arrive, a poll later.
 */
export interface WakeChannel {
  /** Calls `fn` on every wake-up; returns the unsubscribe. */
  on(fn: () => void): () => void;
  wake(): void;
  /** How many listeners wait (tests check that closed streams leave none behind). */
  count(): number;
}

export function wakeChannel(): WakeChannel {
  const wakers = new Set<() => void>();
  return {
    on(fn) {
      // A wrapper per subscription: the same function subscribed twice is two listeners, each removed once.
      const entry = () => fn();
      wakers.add(entry);
      return () => void wakers.delete(entry);
    },
    wake() {
      for (const w of wakers) w();
    },
    count: () => wakers.size,
  };
}
