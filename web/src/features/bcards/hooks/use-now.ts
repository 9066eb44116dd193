import { useEffect, useState } from 'react';

/** setTimeout cannot wait longer than this. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The current time, refreshed every `intervalMs` (for countdowns) and also exactly at `wakeAt` (epoch ms) when given:
 * a card's session ends on time on screen, not up to an interval later.
 */
export function useNow(intervalMs = 15_000, wakeAt?: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  useEffect(() => {
    if (wakeAt === undefined || !Number.isFinite(wakeAt)) return;
    const wait = wakeAt - Date.now();
    if (wait > MAX_TIMER_MS) return;
    const id = setTimeout(() => setNow(new Date()), Math.max(0, wait));
    return () => clearTimeout(id);
  }, [wakeAt]);
  return now;
}
