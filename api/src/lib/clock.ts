/** Time comes in as a dependency so tests can move it. */
export interface Clock {
  /** bpay's time: what it records, and what every deadline, lease and expiry is measured on. Never runs backwards. */
  now(): Date;
  /**
   * The system clock as it is, for agreeing with another party's clock (TOTP codes, the timestamps of signatures
   * made or checked with others). The same as now() unless the system clock was set back (steadyClock).
   */
  system?(): Date;
  /**
   * Never read a time before `ms` from now on (steadyClock): the latest time an earlier process recorded, read at
   * start, so a restart after the system clock was set back carries on from there. Absent on clocks that cannot.
   */
  holdAtLeast?(ms: number): void;
}

/** The time to agree with other parties on: the system clock as it is (Clock.system), or bpay's own. */
export const systemNow = (clock: Clock): Date => clock.system?.() ?? clock.now();

/** What a steady clock reads: the system's wall clock, and a monotonic counter that only moves forward. */
export interface TimeSources {
  /** Milliseconds since the epoch, as the system clock says (it can be set back or forward at any time). */
  wallMs(): number;
  /** Milliseconds from some fixed point, never set (performance.now()). */
  monoMs(): number;
}

/**
 * How much slower than real time bpay's clock runs while it is ahead of a system clock that was set back: 1.5 %, so
 * a duration measured meanwhile is at most 1.5 % longer in real time (27 s on a bcard's 30 minutes, within the 30 s
 * of the money sweep), and the system clock is met again after about 67 times the step (an hour back: 2.8 days).
 */
export const CATCH_UP_SLOWDOWN = 0.015;

/** A step back smaller than this (the system clock slewed by NTP, a rounding) is not worth a log line. */
const STEP_BACK_WORTH_TELLING_MS = 1000;

/**
 * A clock that never runs backwards and never stands still (issue 27, a clock that jumps). It follows the system
 * clock, and a step forward at once; when the system clock is set back, it goes on from where it was, CATCH_UP_SLOWDOWN
 * slower than real time, until the system clock meets it. So a step back cannot make an expired bcard, session or
 * link alive again, a lease that has run out look held, or any deadline an hour further away; a step forward only
 * ends things early. Across a restart it starts again from the system clock, or from the mark the last process left (holdAtLeast, read at boot from clock_marks) when that is later. `system()` reads the system clock as it
 * is. `onStepBack` hears of each step back of a second or more (how far bpay is ahead, in milliseconds).
 */
export function steadyClock(
  sources: TimeSources = { wallMs: () => Date.now(), monoMs: () => performance.now() },
  onStepBack?: (ms: number) => void,
): Clock {
  let lastMs = sources.wallMs();
  let lastWall = lastMs;
  let lastMono = sources.monoMs();
  // Whether the system clock is still behind after a step back that was told: one line per step, not one per read.
  let behind = false;
  return {
    now() {
      const wall = sources.wallMs();
      const mono = sources.monoMs();
      // Where bpay's time is by the real time passed since the last reading: slowed only if bpay was ahead of the
      // system clock then (a step since is taken to have happened now). Below the system clock unless that was set
      // back, so following the system clock is the rule and this only counts while bpay is ahead.
      const rate = lastMs > lastWall ? 1 - CATCH_UP_SLOWDOWN : 1;
      const counted = lastMs + (mono - lastMono) * rate;
      const t = Math.max(wall, counted);
      if (wall < counted - STEP_BACK_WORTH_TELLING_MS) {
        if (!behind) onStepBack?.(Math.round(counted - wall));
        behind = true;
      } else if (wall >= counted) behind = false;
      lastMs = t;
      lastWall = wall;
      lastMono = mono;
      return new Date(t);
    },
    system: () => new Date(sources.wallMs()),
    holdAtLeast(ms: number) {
      // As if bpay had read `ms` just now: ahead of the system clock, it runs slow until the two meet.
      if (ms <= lastMs) return;
      if (ms - sources.wallMs() > STEP_BACK_WORTH_TELLING_MS && !behind) onStepBack?.(Math.round(ms - sources.wallMs()));
      behind = ms - sources.wallMs() > STEP_BACK_WORTH_TELLING_MS;
      lastMs = ms;
      lastWall = sources.wallMs();
      lastMono = sources.monoMs();
    },
  };
}

export const systemClock: Clock = steadyClock();

/**
 * The clock of the tests: a system clock and a monotonic counter both under the test's hand, read through
 * steadyClock as bpay reads the real ones. `advance` is time passing (both move; a negative one rewinds the whole
 * world, which only a test can do); `stepSystemClock` is the system clock being set (NTP, an operator) while no time
 * passes: what bpay must survive.
 */
export class TestClock implements Clock {
  private wall: number;
  private mono = 0;
  private readonly steady: Clock;
  constructor(t = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.wall = t;
    this.steady = steadyClock({ wallMs: () => this.wall, monoMs: () => this.mono });
  }
  now(): Date {
    return this.steady.now();
  }
  system(): Date {
    return new Date(this.wall);
  }
  holdAtLeast(ms: number): void {
    this.steady.holdAtLeast!(ms);
  }
  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }
  /** The system clock is set by `ms` (back when negative); bpay's time keeps its course (steadyClock). */
  stepSystemClock(ms: number): void {
    this.wall += ms;
  }
}
