/*
 * A server-sent events parser following the WHATWG "event stream interpretation": lines end with CRLF, LF or CR
 * (also when a CRLF is split across chunks, and UTF-8 split across chunks is decoded correctly); `:` starts a
 * comment (bpay's `: ping` keep-alives); `data` lines of one message are joined with "\n"; a blank line dispatches;
 * a message without data is not dispatched; one space after the colon is dropped.
 */

export interface SseMessage {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  /** The `id:` field of this message, when it had one. */
  id: string | undefined;
  /** The `retry:` field (ms), when it had one. */
  retry: number | undefined;
}

/** Splits decoded text into lines, carrying partial lines (and a trailing CR) across chunks. */
export class LineSplitter {
  private buffer = '';
  private lastWasCR = false;

  push(text: string): string[] {
    const lines: string[] = [];
    let start = 0;
    let i = 0;
    if (this.lastWasCR && text.startsWith('\n')) {
      start = i = 1; // the LF of a CRLF split across chunks
    }
    this.lastWasCR = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      lines.push(this.buffer + text.slice(start, i));
      this.buffer = '';
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.lastWasCR = true;
        }
      }
      start = i + 1;
    }
    this.buffer += text.slice(start);
    return lines;
  }
}

/** Builds messages from lines. */
export class SseDecoder {
  private data: string[] = [];
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;

  /** Feeds one line; answers a message when the line was the blank line that ends one. */
  line(line: string): SseMessage | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.id = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }

  private dispatch(): SseMessage | null {
    const msg: SseMessage | null =
      this.data.length === 0 ? null : { event: this.event || 'message', data: this.data.join('\n'), id: this.id, retry: this.retry };
    this.data = [];
    this.event = '';
    this.id = undefined;
    this.retry = undefined;
    return msg;
  }
}

/** The messages of an event stream's body, as they arrive. An unfinished last message (no blank line) is dropped. */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const text = new TextDecoder();
  const lines = new LineSplitter();
  const decoder = new SseDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const line of lines.push(text.decode(value, { stream: true }))) {
        const msg = decoder.line(line);
        if (msg) yield msg;
      }
    }
  } finally {
    // Stops the download when the consumer leaves early (break, return, throw).
    await reader.cancel().catch(() => {});
  }
}
