import { allocateCents, FULL_BPS, initialSplit, type SplitSourceOption, type SplitValue } from '../../../src/components/split-configurator/split-rules';
/** The sources a bcard can be funded from, as the configurator takes them: the web's one rule. */
export { bcardSplitOptions as splitOptions } from '../../../src/features/bcards/split';

/*
 * The popup's split presets, built with the web's split rules (web/src/components/split-configurator/split-rules.ts):
 * a preset is only a starting SplitValue; the configurator then applies exactly the web app's rules to it.
 */

/** "Your default split": each source's saved default percentage (they may not add up to 100: the rules say so). */
export function defaultPreset(options: readonly SplitSourceOption[]): SplitValue {
  return initialSplit(options, { useSourceDefaults: true });
}

/** Percent string of basis points: 3334 -> "33.34", 5000 -> "50". */
function bpsText(bps: number): string {
  return String(bps / 100);
}

/** "Even split": 100 % shared by largest remainder in basis points, so the row percentages sum to exactly 100. */
export function evenPreset(options: readonly SplitSourceOption[]): SplitValue {
  const shares = allocateCents(FULL_BPS, options.map(() => 1));
  const base = initialSplit(options, { cleared: true });
  return { ...base, rows: base.rows.map((r, i) => ({ ...r, percentage: bpsText(shares[i] ?? 0) })) };
}

/** "One card": all of it from one source (the other rows stay, at 0 %, to adjust). */
export function oneCardPreset(options: readonly SplitSourceOption[], sourceId: string): SplitValue {
  const base = initialSplit(options, { cleared: true });
  return { ...base, rows: base.rows.map((r) => ({ ...r, percentage: r.sourceId === sourceId ? '100' : '0' })) };
}

/** Whether the sources' saved defaults make a valid split (sum to 100 %): then it is where the popup starts. */
export function defaultsAddUp(options: readonly SplitSourceOption[]): boolean {
  const bps = options.reduce((a, s) => a + Math.round((s.defaultPercentage ?? 0) * 100), 0);
  return options.length > 0 && bps === FULL_BPS;
}
