import { describe, expect, test } from 'bun:test';
import { layoutBars, niceCeiling, type Box } from './chart-layout';
import { PROJECTIONS } from './claims';

const BOX: Box = { width: 360, height: 240, padding: { top: 28, right: 8, bottom: 32, left: 52 } };
const PLOT_HEIGHT = 240 - 28 - 32;
const BASELINE = 240 - 32;

describe('niceCeiling', () => {
  test.each([
    [8_500_000, 10_000_000],
    [2_500_000, 2_500_000],
    [2_400_000, 2_500_000],
    [1_000_000, 1_000_000],
    [1_200_000, 2_000_000],
    [4_100, 5_000],
    [0.3, 0.5],
  ])('%p rounds up to %p', (value, nice) => {
    expect(niceCeiling(value)).toBeCloseTo(nice, 6);
  });

  test('nothing to scale gives an axis of 1 instead of dividing by zero', () => {
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(Number.NaN)).toBe(1);
  });
});

describe('layoutBars with the projections', () => {
  const values = PROJECTIONS.map((p) => p.dollars);
  const layout = layoutBars(values, BOX);

  test('the axis ends at $10M, the round number above $8.5M, with ticks every $2.5M', () => {
    expect(layout.axisMax).toBe(10_000_000);
    expect(layout.ticks.map((t) => t.value)).toEqual([0, 2_500_000, 5_000_000, 7_500_000, 10_000_000]);
    expect(layout.ticks[0]?.y).toBe(BASELINE);
    expect(layout.ticks[4]?.y).toBe(28);
  });

  test('bar heights are proportional to the values: 5%, 25% and 85% of the plot', () => {
    expect(layout.bars.map((b) => b.height)).toEqual([0.05, 0.25, 0.85].map((f) => Math.round(f * PLOT_HEIGHT * 100) / 100));
    const [a, b, c] = layout.bars;
    expect((c?.height ?? 0) / (a?.height ?? 1)).toBeCloseTo(17, 1);
    expect((b?.height ?? 0) / (a?.height ?? 1)).toBeCloseTo(5, 1);
  });

  test('every bar stands on the baseline, inside the plot, in the order given, without overlapping', () => {
    for (const bar of layout.bars) {
      expect(bar.y + bar.height).toBeCloseTo(BASELINE, 1);
      expect(bar.y).toBeGreaterThanOrEqual(28);
      expect(bar.x).toBeGreaterThanOrEqual(52);
      expect(bar.x + bar.width).toBeLessThanOrEqual(360 - 8);
      expect(bar.centerX).toBeCloseTo(bar.x + bar.width / 2, 1);
    }
    for (let i = 1; i < layout.bars.length; i++) {
      const prev = layout.bars[i - 1];
      const cur = layout.bars[i];
      expect(cur && prev && cur.x > prev.x + prev.width).toBe(true);
    }
  });
});

describe('layoutBars edge cases', () => {
  test('the largest value reaches exactly the top when it is already round', () => {
    const layout = layoutBars([1, 2, 5], BOX);
    expect(layout.axisMax).toBe(5);
    expect(layout.bars[2]?.height).toBe(PLOT_HEIGHT);
  });

  test('negative values draw as empty bars and no bars is no error', () => {
    expect(layoutBars([-5, 10], BOX).bars[0]?.height).toBe(0);
    expect(layoutBars([], BOX).bars).toEqual([]);
  });
});
