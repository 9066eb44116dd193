import type { Logger } from './logger';

/*
 * A background worker that drains a table of due work (webhook deliveries, outgoing mail): every `intervalMs` it runs
 * one batch, never two runs at once, and keeps going while batches come back full, so a backlog drains faster than a
 * batch a tick. The timer never keeps the process alive.
 *
 * A run that fails is logged, and the worker backs off: the ticks of the next intervalMs × 2^failures (at most
 * MAX_BACKOFF_MS) are skipped, so a fault that lasts (a full disk refuses the claim's UPDATE, issue 27) costs a log
 * line a minute rather than one a tick, and no work spins. The first run that succeeds after failures says so and
 * ends the back-off.
 */

/** The longest a failing worker waits between runs. */
export const MAX_BACKOFF_MS = 60_000;

export interface PollWorker {
  stop(): void;
  /** One tick now, as the timer runs it (tests drive the worker with it). */
  tick(): Promise<void>;
}

export function startPollWorker(opts: {
  /** Runs one batch of at most `limit` items; answers how many it claimed. */
  runBatch: (limit: number) => Promise<{ claimed: number }>;
  limit: number;
  intervalMs: number;
  log: Logger;
  /** Named in the log line when a run fails. */
  name: string;
  /** Milliseconds now, for the back-off (Date.now unless a test gives its own). */
  now?: () => number;
}): PollWorker {
  const now = opts.now ?? Date.now;
  let running = false;
  let stopped = false;
  let failures = 0;
  let resumeAt = 0;
  const tick = async () => {
    if (running || stopped || now() < resumeAt) return;
    running = true;
    try {
      for (let i = 0; i < 10 && !stopped; i++) {
        const run = await opts.runBatch(opts.limit);
        if (run.claimed < opts.limit) break;
      }
      if (failures > 0) opts.log.info(`${opts.name} runs again`, { failedRuns: failures });
      failures = 0;
    } catch (error) {
      failures++;
      const waitMs = Math.min(opts.intervalMs * 2 ** failures, MAX_BACKOFF_MS);
      resumeAt = now() + waitMs;
      if (!stopped) opts.log.error(`${opts.name} run failed; backing off`, { error, failedRuns: failures, nextRunInMs: waitMs });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), opts.intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    tick,
  };
}
