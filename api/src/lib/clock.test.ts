import { describe, expect, test } from 'bun:test';
import { CATCH_UP_SLOWDOWN, steadyClock, systemClock, TestClock } from './clock';

/* bpay's clock never runs backwards (issue 27): it follows the system clock forward, and counts on through a step back. */

const HOUR = 3600_000;

/** A system clock and a monotonic counter under the test's hand. */
function machine(start = Date.UTC(2026, 5, 1, 12)) {
  const m = {
    wall: start,
    mono: 1_000,
    /** Real time passes. */
    pass(ms: number) {
      m.wall += ms;
      m.mono += ms;
    },
    /** The system clock is set (NTP step, an operator); no real time passes. */
    set(ms: number) {
      m.wall += ms;
    },
  };
  return m;
}

describe('steadyClock', () => {
  test('follows the system clock while nobody sets it', () => {
    const m = machine();
    const clock = steadyClock({ wallMs: () => m.wall, monoMs: () => m.mono });
    expect(clock.now().getTime()).toBe(m.wall);
    m.pass(12_345);
    expect(clock.now().getTime()).toBe(m.wall);
  });

  test('a step back of an hour: bpay goes on from where it was, 1.5 % slow, until the system clock meets it; told once', () => {
    const m = machine();
    const told: number[] = [];
    const clock = steadyClock({ wallMs: () => m.wall, monoMs: () => m.mono }, (ms) => told.push(ms));
    const before = clock.now().getTime();
    m.set(-HOUR);
    expect(clock.now().getTime()).toBe(before);
    expect(clock.system!().getTime()).toBe(before - HOUR);
    m.pass(10 * 60_000);
    // Never still, never back: ten real minutes are 9 min 51 s of bpay's time.
    expect(clock.now().getTime()).toBe(before + 10 * 60_000 * (1 - CATCH_UP_SLOWDOWN));
    expect(told).toEqual([HOUR]);
    // The gap closes by 1.5 % of the time that passes: an hour in 66⅔ hours.
    m.pass(HOUR / CATCH_UP_SLOWDOWN - 10 * 60_000 - 60_000);
    expect(clock.now().getTime()).toBeGreaterThan(m.wall);
    m.pass(2 * 60_000);
    expect(clock.now().getTime()).toBe(m.wall);
    expect(clock.system!().getTime()).toBe(m.wall);
    // Met: the system clock again, and a later step back is told again.
    m.set(-5000);
    clock.now();
    expect(told).toEqual([HOUR, 5000]);
  });

  test('a step forward is taken at once, and a step back after it does not undo it', () => {
    const m = machine();
    const clock = steadyClock({ wallMs: () => m.wall, monoMs: () => m.mono });
    const before = clock.now().getTime();
    m.set(HOUR);
    expect(clock.now().getTime()).toBe(before + HOUR);
    m.set(-HOUR);
    m.pass(1000);
    // The step is taken to have come at this reading: the second before it counts in full, the next one slowed.
    expect(clock.now().getTime()).toBe(before + HOUR + 1000);
    m.pass(1000);
    expect(clock.now().getTime()).toBe(before + HOUR + 1000 + 1000 * (1 - CATCH_UP_SLOWDOWN));
  });

  test('never earlier than a reading before it, whatever the system clock does', () => {
    const m = machine();
    const clock = steadyClock({ wallMs: () => m.wall, monoMs: () => m.mono });
    let last = clock.now().getTime();
    const steps = [-HOUR, 5, HOUR, -2 * HOUR, 30_000, -1, 2 * HOUR, -HOUR];
    for (const s of steps) {
      m.set(s);
      m.pass(250);
      const t = clock.now().getTime();
      // At least 250 ms on, less the slowdown and the sub-millisecond a Date drops.
      expect(t).toBeGreaterThanOrEqual(last + Math.floor(250 * (1 - CATCH_UP_SLOWDOWN)) - 1);
      last = t;
    }
  });

  test('the system clock of bpay reads the real clocks', () => {
    const a = systemClock.now().getTime();
    expect(Math.abs(a - Date.now())).toBeLessThan(5000);
    expect(systemClock.now().getTime()).toBeGreaterThanOrEqual(a);
  });
});

describe('TestClock', () => {
  test('advance is time passing; stepSystemClock sets the system clock, which bpay does not follow back', () => {
    const c = new TestClock(Date.UTC(2026, 0, 1));
    c.advance(1000);
    expect(c.now().toISOString()).toBe('2026-01-01T00:00:01.000Z');
    c.stepSystemClock(-HOUR);
    expect(c.system().toISOString()).toBe('2025-12-31T23:00:01.000Z');
    expect(c.now().toISOString()).toBe('2026-01-01T00:00:01.000Z');
    c.advance(1000);
    expect(c.now().toISOString()).toBe('2026-01-01T00:00:01.985Z');
    c.stepSystemClock(2 * HOUR);
    expect(c.now().toISOString()).toBe('2026-01-01T01:00:02.000Z');
    expect(c.system().toISOString()).toBe('2026-01-01T01:00:02.000Z');
  });
});
