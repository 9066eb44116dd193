/*
 * Reading a server-sent event stream in a test: frames (id/event/data, or a comment) arrive in `frames` as the
 * response body is read in the background; `until` waits for a condition.
 */

export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** An open stream read in the background: frames arrive in `frames`; `until` waits for a condition. */
export class StreamReader {
  readonly frames: Frame[] = [];
  private buffer = '';
  private done = false;
  private readonly reading: Promise<void>;
  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    const reader = response.body!.getReader();
    this.reader = reader;
    const decoder = new TextDecoder();
    this.reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let i: number;
        while ((i = this.buffer.indexOf('\n\n')) !== -1) {
          const block = this.buffer.slice(0, i);
          this.buffer = this.buffer.slice(i + 2);
          const f: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else {
              const at = line.indexOf(': ');
              (f as Record<string, string>)[line.slice(0, at)] = line.slice(at + 2);
            }
          }
          this.frames.push(f);
        }
      }
      this.done = true;
    })();
  }
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  events(): Frame[] {
    return this.frames.filter((f) => f.id);
  }

  async until(check: () => boolean, ms = 2000): Promise<void> {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out; frames: ${JSON.stringify(this.frames)}`);
      await Bun.sleep(5);
    }
  }

  /** Waits a few poll intervals and checks nothing more arrived. */
  async quiet(ms = 120): Promise<void> {
    await Bun.sleep(ms);
  }

  get closed(): boolean {
    return this.done;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel();
    await this.reading;
  }

  async disconnect(): Promise<void> {
    this.abort.abort();
    await this.reading;
  }
}
