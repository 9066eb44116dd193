/*
 * What the CLI prints. People get aligned tables and key/value blocks; scripts get `--json`, the API's own JSON
 * (lists as arrays) and nothing else on stdout. Progress goes to stderr, and only when stderr is a terminal.
 */

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (spinners) — false in pipes, CI and tests. */
  errIsTTY: boolean;
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  errIsTTY: Boolean(process.stderr.isTTY),
};

/** Exit codes, the same for every command. */
export const EXIT = { ok: 0, api: 1, usage: 2 } as const;

/** Wrong usage found by the CLI itself (bad flag value, missing key): printed, exit 2. */
export class UsageError extends Error {}

/** A failure that is not the API's answer (a forwarder that cannot start, a file it cannot write): exit 1. */
export class CliError extends Error {}

const SYMBOLS: Record<string, string> = { usd: '$', eur: '€', gbp: '£' };

/**
 * An integer field of an API object. The generated types widen the API's integers to `number | string` (how the
 * server's integer schema comes out in OpenAPI); on the wire they are JSON numbers.
 */
export type Int = number | string;

/** Integer minor units to `$12.34 USD` (negative amounts as `-$12.34 USD`). Never goes through a float. */
export function formatMoney(amount: Int, currency = 'usd'): string {
  const cents = Number(amount);
  if (!Number.isFinite(cents)) return `${amount} ${currency.toUpperCase()}`;
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = (abs % 100).toString().padStart(2, '0');
  const symbol = SYMBOLS[currency.toLowerCase()] ?? '';
  return `${sign}${symbol}${whole}.${frac} ${currency.toUpperCase()}`;
}

/** Unix seconds (the merchant API) or an ISO string (the admin API) as `2026-01-15 12:00:00 UTC`. */
export function formatTime(value: Int | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const seconds = typeof value === 'number' || /^\d+$/.test(value);
  const d = seconds ? new Date(Number(value) * 1000) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  align?: 'left' | 'right';
}

const cell = (v: string | number | boolean | null | undefined): string => (v === null || v === undefined || v === '' ? '—' : String(v));

/** Display width: counts code points, so `—` and `€` take one column. */
const width = (s: string) => [...s].length;

/**
 * Rows as aligned columns under an upper-case header, two spaces apart; trailing spaces trimmed. Newlines and
 * tabs inside a cell become spaces so one row stays one line.
 */
export function formatTable<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): string {
  const header = columns.map((c) => c.header.toUpperCase());
  const body = rows.map((r) => columns.map((c) => cell(c.value(r)).replace(/[\r\n\t]+/g, ' ')));
  const widths = columns.map((_, i) => Math.max(width(header[i]!), ...body.map((line) => width(line[i]!))));
  const render = (line: string[]) =>
    line
      .map((text, i) => {
        const pad = ' '.repeat(widths[i]! - width(text));
        return columns[i]!.align === 'right' ? pad + text : text + pad;
      })
      .join('  ')
      .trimEnd();
  return [render(header), ...body.map(render)].join('\n') + '\n';
}

export type Detail = readonly [string, string | number | boolean | null | undefined];

/** One object as `Key   value` lines, keys aligned. */
export function formatDetails(pairs: readonly Detail[]): string {
  const w = Math.max(0, ...pairs.map(([k]) => width(k)));
  return pairs.map(([k, v]) => `${k}${' '.repeat(w - width(k))}  ${cell(v)}`.trimEnd()).join('\n') + '\n';
}

export const printJson = (io: Io, value: unknown) => io.out(`${JSON.stringify(value, null, 2)}\n`);

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Runs `work` with a spinner and `label` on stderr while it waits — only when stderr is a terminal and the output
 * is not JSON, so pipes, logs and scripts never see control characters.
 */
export async function withSpinner<T>(io: Io, label: string, enabled: boolean, work: () => Promise<T>): Promise<T> {
  if (!enabled || !io.errIsTTY) return work();
  let i = 0;
  const draw = () => io.err(`\r${FRAMES[i++ % FRAMES.length]} ${label}`);
  // Quick answers show nothing: start drawing after 120 ms.
  let timer: ReturnType<typeof setInterval> | null = null;
  const start = setTimeout(() => {
    draw();
    timer = setInterval(draw, 80);
  }, 120);
  try {
    return await work();
  } finally {
    clearTimeout(start);
    if (timer) {
      clearInterval(timer);
      io.err('\r\x1b[2K');
    }
  }
}

/** Parses `k=v` pairs (repeatable `--metadata`); a pair without `=` or with an empty key is a usage error. */
export function parsePairs(pairs: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} takes key=value (got "${p}").`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}

/** A whole number within bounds, or a usage error naming the flag. */
export function parseIntFlag(value: string, flag: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got "${value}").`);
  const n = Number(value.trim());
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got "${value}").`);
  return n;
}

/** Amounts are integer cents on the command line, as in the API (`--amount 2000` is $20.00). */
export const parseCents = (value: string, flag: string) => parseIntFlag(value, flag, 1, MAX_PAYMENT_CENTS);

/** A payment's amount, as the server takes it (payment intents and test bcards): 50 cents to $999,999.99. */
export const MIN_PAYMENT_CENTS = 50;
export const MAX_PAYMENT_CENTS = 99_999_999;

/** A payment amount in cents, checked here as the server checks it, so a bad one fails before any request. */
export function parsePaymentAmount(value: string, flag: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < MIN_PAYMENT_CENTS || n > MAX_PAYMENT_CENTS) {
    throw new UsageError(
      `${flag} must be a whole number of cents from ${MIN_PAYMENT_CENTS} to ${MAX_PAYMENT_CENTS} ($0.50 to $999,999.99) (got "${value}").`,
    );
  }
  return n;
}
