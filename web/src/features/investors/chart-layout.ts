/*
 * Geometry of the revenue projection chart, free of React so the scaling can be tested alone.
 * Invariants: every bar stands on the baseline; bar heights are proportional to their values; the tallest bar
 * reaches at most the top of the plot (the axis ends at a "nice" round number at or above the largest value).
 */

export interface Box {
  width: number;
  height: number;
  /** Room kept around the plot for tick labels (left), value labels (top) and category labels (bottom). */
  padding: { top: number; right: number; bottom: number; left: number };
}

export interface BarGeometry {
  value: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Horizontal centre, for the labels above and below the bar. */
  centerX: number;
}

export interface TickGeometry {
  value: number;
  y: number;
}

export interface ChartLayout {
  axisMax: number;
  /** y of the baseline (value 0). */
  baseline: number;
  plotLeft: number;
  plotRight: number;
  bars: BarGeometry[];
  ticks: TickGeometry[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is at least `value` (8.5M -> 10M). */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const fraction = value / magnitude;
  // A little tolerance so 2.5 * 10^n computed in floats does not jump to 5.
  const steps = [1, 2, 2.5, 5, 10];
  const step = steps.find((s) => fraction <= s * (1 + 1e-12)) ?? 10;
  return step * magnitude;
}

/**
 * Lays out one bar per value, left to right in the order given, in a `box` measured in SVG user units.
 * `tickCount` intervals divide the axis (4 gives 0, ¼, ½, ¾ and the full axis). Negative values draw as 0.
 */
export function layoutBars(values: readonly number[], box: Box, tickCount = 4, barRatio = 0.56): ChartLayout {
  const { padding } = box;
  const plotLeft = padding.left;
  const plotRight = box.width - padding.right;
  const plotTop = padding.top;
  const baseline = box.height - padding.bottom;
  const plotWidth = Math.max(0, plotRight - plotLeft);
  const plotHeight = Math.max(0, baseline - plotTop);

  const axisMax = niceCeiling(Math.max(0, ...values));
  const slot = values.length > 0 ? plotWidth / values.length : 0;
  const barWidth = slot * barRatio;

  const bars = values.map((raw, i) => {
    const value = Math.max(0, raw);
    const height = (value / axisMax) * plotHeight;
    const x = plotLeft + i * slot + (slot - barWidth) / 2;
    return {
      value: raw,
      x: round2(x),
      y: round2(baseline - height),
      width: round2(barWidth),
      height: round2(height),
      centerX: round2(x + barWidth / 2),
    };
  });

  const ticks = Array.from({ length: tickCount + 1 }, (_, i) => {
    const value = (axisMax * i) / tickCount;
    return { value, y: round2(baseline - (value / axisMax) * plotHeight) };
  });

  return { axisMax, baseline, plotLeft, plotRight, bars, ticks };
}
