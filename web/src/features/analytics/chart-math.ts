/** A round axis maximum at or above `max` (1, 2, 2.5 or 5 times a power of ten), and the ticks from 0 up to it. */
export function axisTicks(max: number, count = 4): number[] {
  if (!Number.isFinite(max) || max <= 0) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let i = 0; i * step < max + step / 2 && i <= count + 1; i++) ticks.push(Math.round(i * step * 1e6) / 1e6);
  if ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(Math.round(ticks.length * step * 1e6) / 1e6);
  return ticks;
}

/**
 * Each part's share of the whole in whole percent, summing to exactly 100 (largest remainder), so a stacked bar
 * is always full and its table adds up; all zeros for an empty whole.
 */
export function percentShares(parts: number[]): number[] {
  const total = parts.reduce((a, b) => a + b, 0);
  if (total <= 0) return parts.map(() => 0);
  const exact = parts.map((p) => (p * 100) / total);
  const out = exact.map(Math.floor);
  let left = 100 - out.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i]! += 1;
    left--;
  }
  return out;
}

/** x of a horizontal bar starting at the reading start: the left edge, or the right one in a right-to-left page. */
export function barX(start: number, width: number, plotLeft: number, plotWidth: number, rtl: boolean): number {
  return rtl ? plotLeft + plotWidth - start - width : plotLeft + start;
}
