import type { Logger } from './logger';

/*
 * A background worker that drains a table of due work (webhook deliveries, outgoing mail): every `intervalMs` it runs
 * one batch, never two runs at once, and keeps going while batches come back full, so a backlog drains faster than a
 * batch a tick. Failures are logged and the next tick tries again. The timer never keeps the process alive.
 */

export interface PollWorker {
  stop(): void;
}

export function startPollWorker(opts: {
  /** Runs one batch of at most `limit` items; answers how many it claimed. */
  runBatch: (limit: number) => Promise<{ claimed: number }>;
  limit: number;
  intervalMs: number;
  log: Logger;
  /** Named in the log line when a run fails. */
  name: string;
}): PollWorker {
  let running = false;
  let stopped = false;
  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      for (let i = 0; i < 10 && !stopped; i++) {
        const run = await opts.runBatch(opts.limit);
        if (run.claimed < opts.limit) break;
      }
    } catch (error) {
      if (!stopped) opts.log.error(`${opts.name} run failed`, { error });
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
  };
}
