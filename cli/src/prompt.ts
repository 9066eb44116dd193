import { UsageError } from './output';

/*
 * Asking for values the user did not pass as flags. On a terminal the answer is typed (secrets without echo); when
 * stdin is a pipe, each prompt takes the next line of it, so `printf '%s\n' "$KEY" | bpay login` works and a
 * script can answer several prompts in order. Prompts go to stderr, never into stdout.
 */

interface Reader {
  line(): Promise<string | null>;
}

let piped: Reader | null = null;

/** Lines of a piped stdin, read as they arrive (the writer need not close it before the first answer is used). */
function pipedReader(): Reader {
  let buffer = '';
  let ended = false;
  let waiting: (() => void) | null = null;
  const decoder = new TextDecoder();
  process.stdin.on('data', (chunk: Buffer | string) => {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    waiting?.();
  });
  process.stdin.on('end', () => {
    ended = true;
    waiting?.();
  });
  return {
    async line() {
      for (;;) {
        const nl = buffer.indexOf('\n');
        if (nl >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (!buffer && !ended) process.stdin.pause();
          return line;
        }
        if (ended) {
          if (!buffer) return null;
          const rest = buffer;
          buffer = '';
          return rest;
        }
        process.stdin.resume();
        await new Promise<void>((resolve) => (waiting = resolve));
        waiting = null;
      }
    },
  };
}

/** One line typed on the terminal, echoed as typed or not at all. Ctrl-C aborts (exit 130), Ctrl-D ends the line. */
function ttyLine(secret: boolean): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (result: string | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (result === null) reject(new UsageError('Canceled.'));
      else resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(value);
        if (ch === '\u0003') return done(null);
        if (ch === '\u007f' || ch === '\b') {
          if (value.length > 0) {
            value = value.slice(0, -1);
            if (!secret) process.stderr.write('\b \b');
          }
          continue;
        }
        if (ch < ' ') continue;
        value += ch;
        if (!secret) process.stderr.write(ch);
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** Asks for one value; an empty answer or a closed stdin is a usage error naming what was missing. */
export async function ask(label: string, opts: { secret?: boolean; what?: string } = {}): Promise<string> {
  const what = opts.what ?? label.replace(/:\s*$/, '');
  let answer: string | null;
  if (process.stdin.isTTY) {
    process.stderr.write(label);
    answer = await ttyLine(opts.secret ?? false);
  } else {
    piped ??= pipedReader();
    answer = await piped.line();
  }
  const value = answer?.trim() ?? '';
  if (!value) throw new UsageError(`No ${what.toLowerCase()} given.`);
  return value;
}
