import type { ResultSet } from '@libsql/client';
import { isAssertionFailure, UnitStepError, type UnitRunner, type UnitStep } from './unit';

/*
 * Units of work sent to a libSQL server (sqld, Turso) in one round trip each time (issue 30 §2, docs/SCALING.md).
 * Every unit queued while a request is out goes in the next request, as ONE Hrana batch on a new stream:
 *
 *   BEGIN IMMEDIATE
 *   per unit:  SAVEPOINT [the previous unit ended cleanly] · its steps, each [the one before ran] · after a guarded
 *              step, the guard [it ran]: SELECT that fails unless changes() is the number expected ·
 *              RELEASE [the last step ran] · ROLLBACK TO [SAVEPOINT ran, the last step did not] · RELEASE [that ran]
 *   COMMIT [the last unit ended cleanly] · ROLLBACK [COMMIT did not run]
 *
 * The server runs the whole batch before it answers, so the write lock is held for the server's own work, never across
 * the network (sqld's 5 s transaction timeout cannot meet it). Hrana 2's conditions see whether a step erred, not how
 * many rows it changed, so a guard is a statement that errs. A failed step or guard rolls its unit back alone and the
 * others go on; an error that ends the transaction (a full disk, an I/O error) leaves the unit's savepoint gone, so its
 * ROLLBACK TO fails, every later unit and the COMMIT are skipped, and nothing runs in autocommit. Answers are only
 * given after the request returns: a unit resolves if its RELEASE ran and the COMMIT did.
 *
 * Values are encoded as @libsql/client encodes them for Hrana over HTTP (numbers as floats, which SQLite stores as
 * integers in INTEGER columns when exact; booleans and bigints as integers), and rows decoded as it decodes them, so a
 * unit's statements store and answer exactly what the same statements through the client would.
 */

/** At most this many units, and about this many statements, per request (sqld's limit per request is not documented). */
export const MAX_UNITS_PER_REQUEST = 128;
export const MAX_STEPS_PER_REQUEST = 2000;
/** A request that has not answered by then fails every unit in it (a retry with the same Idempotency-Key is safe). */
export const REQUEST_TIMEOUT_MS = 30_000;

type ProtoValue = { type: 'null' } | { type: 'integer'; value: string } | { type: 'float'; value: number } | { type: 'text'; value: string } | { type: 'blob'; base64: string };
type ProtoCond = { type: 'ok' | 'error'; step: number } | { type: 'not'; cond: ProtoCond } | { type: 'and' | 'or'; conds: ProtoCond[] };
interface ProtoStep {
  condition?: ProtoCond;
  stmt: { sql: string; args: ProtoValue[]; want_rows: boolean };
}
interface ProtoError {
  message: string;
  code?: string;
}
interface ProtoStmtResult {
  cols: Array<{ name?: string | null; decltype?: string | null }>;
  rows: ProtoValue[][];
  affected_row_count: number;
  last_insert_rowid?: string | null;
}
interface ProtoBatchResult {
  step_results: Array<ProtoStmtResult | null>;
  step_errors: Array<ProtoError | null>;
}

export function encodeValue(v: unknown): ProtoValue {
  if (v === null) return { type: 'null' };
  // As both of @libsql/client's drivers: an undefined argument is a mistake, not NULL.
  if (v === undefined) throw new TypeError('Unsupported type of value: undefined');
  if (typeof v === 'string') return { type: 'text', value: v };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    return { type: 'float', value: v };
  }
  if (typeof v === 'bigint') {
    if (v < -9223372036854775808n || v > 9223372036854775807n) throw new RangeError('This bigint value is too large to be represented as a 64-bit integer and passed as argument');
    return { type: 'integer', value: String(v) };
  }
  if (typeof v === 'boolean') return { type: 'integer', value: v ? '1' : '0' };
  if (v instanceof ArrayBuffer) return { type: 'blob', base64: Buffer.from(v).toString('base64') };
  if (v instanceof Uint8Array) return { type: 'blob', base64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (v instanceof Date) return { type: 'float', value: v.valueOf() };
  if (typeof v === 'object') return { type: 'text', value: String(v) };
  throw new TypeError('Unsupported type of value');
}

export function decodeValue(v: ProtoValue): unknown {
  switch (v.type) {
    case 'null':
      return null;
    case 'integer': {
      const n = Number(v.value);
      if (!Number.isSafeInteger(n)) throw new RangeError('Received integer which is too large to be safely represented as a JavaScript number');
      return n;
    }
    case 'float':
    case 'text':
      return v.value;
    case 'blob': {
      const b = Buffer.from(v.base64, 'base64');
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    }
  }
}

/** A statement's answer as @libsql/client's ResultSet: rows are arrays whose columns are also named properties. */
function resultSet(r: ProtoStmtResult): ResultSet {
  const columns = r.cols.map((c) => c.name ?? '');
  const rows = r.rows.map((values) => {
    const row = {} as Record<string | number, unknown>;
    Object.defineProperty(row, 'length', { value: values.length });
    values.forEach((pv, i) => {
      const value = decodeValue(pv);
      Object.defineProperty(row, i, { value });
      const name = columns[i];
      if (name !== undefined && !Object.hasOwn(row, name)) Object.defineProperty(row, name, { value, enumerable: true, configurable: true, writable: true });
    });
    return row;
  });
  const set = {
    columns,
    columnTypes: r.cols.map((c) => c.decltype ?? ''),
    rows,
    rowsAffected: r.affected_row_count,
    lastInsertRowid: r.last_insert_rowid == null ? undefined : BigInt(r.last_insert_rowid),
    toJSON: () => ({ columns, rows: rows.map((row) => Array.prototype.slice.call(row)), rowsAffected: r.affected_row_count }),
  };
  return set as unknown as ResultSet;
}

const dbError = (e: ProtoError): Error => Object.assign(new Error(e.message), { code: e.code ?? 'SQLITE_ERROR' });

/** The HTTP address of a libSQL URL's pipeline endpoint (libsql: is https unless ?tls=0, as @libsql/client reads it). */
export function pipelineUrl(url: string): string {
  const u = new URL(url);
  const tls = u.searchParams.get('tls');
  if (u.protocol === 'libsql:') u.protocol = tls === '0' ? 'http:' : 'https:';
  else if (u.protocol === 'ws:') u.protocol = 'http:';
  else if (u.protocol === 'wss:') u.protocol = 'https:';
  u.search = '';
  u.pathname = `${u.pathname.replace(/\/$/, '')}/v2/pipeline`;
  return u.toString();
}

interface Pending {
  steps: UnitStep[];
  /** Each step's arguments, encoded when the unit was queued (a bad value fails its own unit, not the request). */
  args: ProtoValue[][];
  resolve(results: ResultSet[]): void;
  reject(error: unknown): void;
}

/** What the sender has done: counted into the handle's WriteStats. */
export interface SenderStats {
  commits: number;
  units: number;
  statements: number;
}

/** A guard: errs (malformed JSON, built from changes() so SQLite cannot evaluate it ahead) unless changes() = ?. */
export const GUARD_SQL = "SELECT CASE WHEN changes() = ? THEN 1 ELSE json('bpay guard failed: ' || changes()) END";

export class RemoteUnitSender {
  private pending: Pending[] = [];
  private draining = false;
  private readonly endpoint: string;

  constructor(
    target: { url: string; authToken?: string },
    /** Runs `fn` holding this process's write lock, with no closure batch open (the writer's exclusive()). */
    private readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly stats: SenderStats,
    private readonly authToken = target.authToken ?? new URL(target.url).searchParams.get('authToken') ?? undefined,
  ) {
    // A token in the URL's query (?authToken=…) counts as @libsql/client counts it; the query never goes on the wire.
    this.endpoint = pipelineUrl(target.url);
  }

  readonly run: UnitRunner = (steps) =>
    new Promise<ResultSet[]>((resolve, reject) => {
      let args: ProtoValue[][];
      try {
        args = steps.map((s) => s.args.map(encodeValue));
      } catch (error) {
        return reject(error);
      }
      this.pending.push({ steps, args, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        void this.drain();
      }
    });

  /**
   * Sends what is queued, one request at a time, until nothing is: what queued while the lock was awaited or a request
   * was out goes in the next request. The units are taken once the lock is held, so those committed together join.
   */
  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        let taken: Pending[] = [];
        try {
          await this.exclusive(() => {
            taken = this.take();
            return this.send(taken);
          });
        } catch (error) {
          // The lock was not had in time (nothing was sent): what is queued fails, as a closure unit would.
          for (const u of taken.length > 0 ? taken : this.pending.splice(0)) u.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private take(): Pending[] {
    const taken: Pending[] = [];
    let steps = 0;
    while (this.pending.length > 0 && taken.length < MAX_UNITS_PER_REQUEST) {
      const next = this.pending[0]!;
      if (taken.length > 0 && steps + next.steps.length > MAX_STEPS_PER_REQUEST) break;
      taken.push(this.pending.shift()!);
      steps += next.steps.length;
    }
    return taken;
  }

  private async send(units: Pending[]): Promise<void> {
    const steps: ProtoStep[] = [];
    const ok = (step: number): ProtoCond => ({ type: 'ok', step });
    const add = (sql: string, args: ProtoValue[] = [], condition?: ProtoCond): number => {
      steps.push({ stmt: { sql, args, want_rows: true }, ...(condition ? { condition } : {}) });
      return steps.length - 1;
    };
    const begin = add('BEGIN IMMEDIATE');
    let clean: ProtoCond = ok(begin);
    const layout = units.map((u) => {
      const savepoint = add('SAVEPOINT bpay_unit', [], clean);
      let prev = savepoint;
      /** Per unit step: its batch index, and its guard's. */
      const at: Array<{ step: number; guard: number | null }> = [];
      for (const [i, s] of u.steps.entries()) {
        const step = add(s.sql, u.args[i], ok(prev));
        prev = step;
        let guard: number | null = null;
        if (s.expect) prev = guard = add(GUARD_SQL, [encodeValue(s.expect.changes)], ok(step));
        at.push({ step, guard });
      }
      const release = add('RELEASE bpay_unit', [], ok(prev));
      const undo = add('ROLLBACK TO bpay_unit', [], { type: 'and', conds: [ok(savepoint), { type: 'not', cond: ok(prev) }] });
      const undone = add('RELEASE bpay_unit', [], ok(undo));
      clean = { type: 'or', conds: [ok(release), ok(undone)] };
      return { savepoint, at, release, undo, undone };
    });
    const commit = add('COMMIT', [], clean);
    add('ROLLBACK', [], { type: 'not', cond: ok(commit) });

    let result: ProtoBatchResult;
    try {
      result = await this.post(steps);
    } catch (error) {
      // No answer: the batch may or may not have committed. Every unit fails; their keys make a retry safe.
      for (const u of units) u.reject(error);
      return;
    }
    const errorAt = (i: number): ProtoError | null => result.step_errors[i] ?? null;
    const ran = (i: number): boolean => result.step_results[i] != null;
    const committed = ran(commit);
    /** Why the batch as a whole did not commit: the first error outside any unit's own steps. */
    const batchError = (): Error => {
      const first = [begin, ...layout.flatMap((l) => [l.savepoint, l.release, l.undo, l.undone]), commit]
        .map(errorAt)
        .find((e) => e !== null);
      return first ? dbError(first) : new Error('the batch did not commit');
    };
    let okUnits = 0;
    this.stats.statements += units.reduce((a, u) => a + u.steps.length, 0);
    units.forEach((u, n) => {
      const l = layout[n]!;
      if (committed && ran(l.release)) {
        okUnits++;
        // Committed whatever happens next: an answer that cannot be decoded fails this unit's caller alone.
        try {
          u.resolve(l.at.map(({ step }) => resultSet(result.step_results[step]!)));
        } catch (error) {
          u.reject(Object.assign(new Error('the unit committed, but its answer could not be read'), { cause: error }));
        }
        return;
      }
      for (let i = 0; i < l.at.length; i++) {
        const { step, guard } = l.at[i]!;
        const stepError = errorAt(step);
        if (stepError) return u.reject(u.steps[i]!.assert && isAssertionFailure(stepError.message) ? u.steps[i]!.assert!() : new UnitStepError(i, dbError(stepError)));
        if (guard !== null && errorAt(guard)) return u.reject(u.steps[i]!.expect!.error());
      }
      u.reject(batchError());
    });
    if (committed && okUnits > 0) {
      this.stats.commits++;
      this.stats.units += okUnits;
    }
  }

  private async post(steps: ProtoStep[]): Promise<ProtoBatchResult> {
    const res = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.authToken ? { authorization: `Bearer ${this.authToken}` } : {}) },
      body: JSON.stringify({ baton: null, requests: [{ type: 'batch', batch: { steps } }, { type: 'close' }] }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    if (!res.ok) throw Object.assign(new Error(`libSQL server answered HTTP ${res.status}: ${text.slice(0, 300)}`), { code: 'SERVER_ERROR' });
    const body = JSON.parse(text) as { results: Array<{ type: 'ok'; response: { type: string; result: ProtoBatchResult } } | { type: 'error'; error: ProtoError }> };
    const first = body.results[0];
    if (!first) throw new Error('libSQL server answered no result');
    if (first.type === 'error') throw dbError(first.error);
    return first.response.result;
  }
}
