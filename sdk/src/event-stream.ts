/*
 * The live events feed (GET /api/v1/events/stream, text/event-stream). The server sends only events recorded
 * after it accepted the connection, so `opened()` tells the caller when it is safe to cause one. The SDK does
 * not reconnect: when the connection breaks, iteration throws BpayConnectionError and the caller decides (the CLI
 * loops). A clean end from the server ends the iteration; close() or the caller's signal ends it quietly.
 */
import { BpayAPIError, BpayConnectionError, BpayError, errorFromResponse, errorObjectOf } from './errors';
import { parseSse } from './sse';
import type { BpayEvent } from './types';

export interface OpenStream {
  response: Response;
  body: ReadableStream<Uint8Array>;
}

export class BpayEventStream implements AsyncIterable<BpayEvent> {
  private readonly controller = new AbortController();
  private connection: Promise<OpenStream> | null = null;
  private iterated = false;

  constructor(
    /** Connects; throws the typed BpayError of a refused stream. */
    private readonly open: (signal: AbortSignal) => Promise<OpenStream>,
    signal?: AbortSignal,
  ) {
    if (signal?.aborted) this.controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => this.controller.abort(signal.reason), { once: true });
  }

  /** Connects (once) and resolves when the server has accepted the stream; rejects with a typed BpayError. */
  async opened(): Promise<void> {
    await this.connect();
  }

  /** Ends the stream (and any iteration of it, quietly). */
  close(): void {
    this.controller.abort();
  }

  get closed(): boolean {
    return this.controller.signal.aborted;
  }

  private connect(): Promise<OpenStream> {
    this.connection ??= this.open(this.controller.signal);
    return this.connection;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<BpayEvent> {
    if (this.iterated) throw new BpayConnectionError('An event stream can be iterated once; call events.stream() again');
    this.iterated = true;
    let res: OpenStream;
    try {
      res = await this.connect();
    } catch (e) {
      if (this.controller.signal.aborted) return;
      throw e;
    }
    try {
      for await (const msg of parseSse(res.body)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(msg.data);
        } catch {
          throw new BpayAPIError({ message: `The event stream sent a message that is not JSON (event ${msg.event})`, type: 'api_error', raw: msg.data });
        }
        // The stream's own answer was 200; the server says which status a request with this key now gets (401, 403).
        if (errorObjectOf(parsed)) throw errorFromResponse(statusOf(parsed) ?? res.response.status, res.response.headers, parsed);
        yield parsed as BpayEvent;
      }
    } catch (e) {
      if (this.controller.signal.aborted) return;
      if (e instanceof BpayError) throw e;
      throw new BpayConnectionError(`The event stream broke: ${e instanceof Error ? e.message : String(e)}`, e);
    } finally {
      this.controller.abort();
    }
  }
}

/** The HTTP status an `event: error` message carries beside its error (`{"error":{…},"status":401}`), if any. */
function statusOf(message: unknown): number | undefined {
  const status = (message as { status?: unknown }).status;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}
