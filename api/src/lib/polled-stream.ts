/*
 * A text/event-stream fed by polling a table (issue 25 shares it between the merchants' events stream and the
 * consumers' notices stream): it polls every `pollMs` (so rows written by other processes arrive), and at once when
 * this process wakes it (twice: right away and WAKE_RETRY_MS later, since a write wakes streams inside a transaction
 * that commits a moment after); a `: ping` comment goes out every `pingMs`; an optional periodic check runs every
 * `check.everyMs`. Everything stops when the client goes away (the request's abort signal, or the body being
 * canceled) or the source ends it: no timer or listener outlives the stream.
 */

const WAKE_RETRY_MS = 25;

/** What a source may do with its stream. */
export interface StreamIo {
  send(text: string): void;
  /** Ends the stream (idempotent). */
  end(): void;
  readonly closed: boolean;
}

export interface PolledStreamOptions {
  /** The request's: the stream ends when the client goes away. */
  signal: AbortSignal;
  pollMs: number;
  pingMs: number;
  /** Subscribes to this process's wake-ups (lib/wake.ts); returns the unsubscribe. */
  subscribe(wake: () => void): () => void;
  /**
   * Reads what is new since the source's own cursor and sends it. Returns true when it read a full batch (more may be
   * waiting: it is called again at once). Never called twice at the same time.
   */
  poll(io: StreamIo): Promise<boolean>;
  /** Runs every `everyMs` while the stream is open (e.g. whether its credential still authenticates). */
  check?: { everyMs: number; run(io: StreamIo): Promise<void> | void };
  /** A poll that threw (logged; the next poll tries again). */
  onPollError(error: unknown): void;
  /** Called once when the stream ends, whoever ends it (the client, the source, a failed send). */
  onClose?: () => void;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // A stream of someone's own events or notices: never stored (no-store also implies what no-cache said).
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;

export function polledStream(opts: PolledStreamOptions): Response {
  const encoder = new TextEncoder();
  let closed = false;
  let polling = false;
  let pollAgain = false;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  const wakeTimers = new Set<ReturnType<typeof setTimeout>>();
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  let checkTimer: ReturnType<typeof setInterval> | undefined;
  let unsubscribe: () => void = () => undefined;
  let close: () => void = () => undefined;

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const io: StreamIo = {
        send(text) {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            close();
          }
        },
        end: () => close(),
        get closed() {
          return closed;
        },
      };
      close = () => {
        if (closed) return;
        closed = true;
        clearTimeout(pollTimer);
        clearInterval(pingTimer);
        clearInterval(checkTimer);
        for (const t of wakeTimers) clearTimeout(t);
        wakeTimers.clear();
        unsubscribe();
        opts.signal.removeEventListener('abort', close);
        try {
          controller.close();
        } catch {
          // Already closed or errored by the reader.
        }
        opts.onClose?.();
      };
      const poll = async (): Promise<void> => {
        if (closed) return;
        if (polling) {
          pollAgain = true;
          return;
        }
        polling = true;
        try {
          do {
            pollAgain = false;
            if (await opts.poll(io)) pollAgain = true;
          } while (pollAgain && !closed);
        } catch (error) {
          opts.onPollError(error);
        } finally {
          polling = false;
        }
      };
      const schedule = () => {
        pollTimer = setTimeout(() => {
          void poll().then(() => {
            if (!closed) schedule();
          });
        }, opts.pollMs);
      };
      const wakeAfter = (ms: number) => {
        const t = setTimeout(() => {
          wakeTimers.delete(t);
          void poll();
        }, ms);
        wakeTimers.add(t);
      };
      unsubscribe = opts.subscribe(() => {
        if (closed) return;
        wakeAfter(0);
        wakeAfter(WAKE_RETRY_MS);
      });
      pingTimer = setInterval(() => io.send(': ping\n\n'), opts.pingMs);
      const check = opts.check;
      if (check) checkTimer = setInterval(() => void check.run(io), check.everyMs);
      if (opts.signal.aborted) {
        close();
        return;
      }
      opts.signal.addEventListener('abort', close, { once: true });
      // A comment first, so clients (and proxies) see the stream open at once.
      io.send(': connected\n\n');
      schedule();
    },
    cancel() {
      close();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
