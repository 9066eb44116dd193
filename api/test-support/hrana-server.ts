/**
 * A stand-in for a libSQL server (sqld, Turso) in tests: Hrana over HTTP on a local libSQL file.
 *
 * Why: issue 14 asks that group commit work unchanged against a `libsql:` URL, and neither sqld nor Turso's binary is
 * on this machine (not on npm, not in Debian). @libsql/client 0.18.0 maps `libsql:`/`https:`/`http:` URLs to its HTTP
 * client, which speaks Hrana protocol version 2 in JSON only: hrana-client's `openHttp` defaults to version 2, so it
 * never probes for v3 and posts every pipeline to `/v2/pipeline` (read node_modules/@libsql/hrana-client/lib-esm/http).
 * This server answers exactly that, the way sqld's libsql-server/src/hrana does, and nothing more:
 *
 * - A request without a baton opens a stream: its own SQLite connection, opened on first use. Each answer carries a
 *   fresh baton for the next request of the stream (the old one stops working), or none once the stream is closed.
 *   A stream left idle for STREAM_EXPIRY_MS is closed, its open transaction rolled back, as sqld does.
 * - Stream requests: `execute`, `batch` (steps with `ok`/`error`/`not`/`and`/`or` conditions), `sequence`,
 *   `store_sql`/`close_sql`, `close`. Version-3 features (`get_autocommit`, the `is_autocommit` condition, cursors) and
 *   `describe` are refused with a 400, as sqld refuses what a version does not have: the client never sends them here.
 * - Values in Hrana's JSON encoding: integers as decimal strings, floats as numbers, blobs base64. A float argument is
 *   bound as REAL (an INTEGER column's affinity stores 5.0 as 5), as sqld binds it; @libsql/client sends every JS number
 *   as a float.
 * - A statement's error answers `{ message: "SQLite error: …", code: "SQLITE_CONSTRAINT" }` (the primary code), as sqld's.
 * - Connections keep libSQL's defaults (foreign keys on: libSQL is built with SQLITE_DEFAULT_FOREIGN_KEYS=1, sqld too)
 *   plus WAL and synchronous=FULL. A statement that meets another stream's write lock waits for it without blocking the
 *   server (busy_timeout 0, retried on a timer for up to BUSY_WAIT_MS), as sqld's connections wait on their own threads.
 *   Unlike sqld, a statement that waits in vain ends its stream (see runStmt).
 * - A write transaction held longer than `txnTimeoutMs` (default TXN_TIMEOUT_MS, sqld's TXN_TIMEOUT of 5 s in
 *   libsql-server) is taken back when another stream waits for the lock, as sqld's busy handler steals it: the holder's
 *   transaction is rolled back, the lock freed for the waiter, and the holder's next request that runs statements
 *   answers every statement with sqld's error (`TRANSACTION_TIMEOUT`, "Transaction timed-out"); later requests on the
 *   stream run normally, in autocommit. A holder nobody waits for keeps its transaction, as in sqld.
 *
 * It counts what arrives (`stats`): round trips, those made while a stream held the write lock, and how long the lock
 * was held, so a test can say what a unit of work costs. `latencyMs` (settable while running) is a network's round
 * trip, waited once per request before its answer. One wait, not half each way: timers fire on whole milliseconds
 * (two waits of 0.5 ms cost about 2.3 ms in all, one of 1 ms about 1.1 ms), and the lock is held across the whole
 * round trip either way.
 */
import Database from 'libsql';

export const STREAM_EXPIRY_MS = 10_000;
export const BUSY_WAIT_MS = 5_000;
/** sqld's TXN_TIMEOUT (libsql-server: `pub const TXN_TIMEOUT: Duration = Duration::from_secs(5)`). */
export const TXN_TIMEOUT_MS = 5_000;
/** What sqld answers for each statement of the next request of a stream whose transaction it took back. */
export const TXN_TIMEOUT_ERROR = { message: 'Transaction timed-out', code: 'TRANSACTION_TIMEOUT' } as const;

type Db = InstanceType<typeof Database>;
type ProtoValue =
  | { type: 'null' }
  | { type: 'integer'; value: string }
  | { type: 'float'; value: number }
  | { type: 'text'; value: string }
  | { type: 'blob'; base64: string };
interface ProtoStmt {
  sql?: string;
  sql_id?: number;
  args?: ProtoValue[];
  named_args?: Array<{ name: string; value: ProtoValue }>;
  want_rows?: boolean;
}
type ProtoCond =
  | { type: 'ok' | 'error'; step: number }
  | { type: 'not'; cond: ProtoCond }
  | { type: 'and' | 'or'; conds: ProtoCond[] }
  | { type: 'is_autocommit' };
type StreamRequest =
  | { type: 'close' }
  | { type: 'execute'; stmt: ProtoStmt }
  | { type: 'batch'; batch: { steps: Array<{ condition?: ProtoCond; stmt: ProtoStmt }> } }
  | { type: 'sequence'; sql?: string; sql_id?: number }
  | { type: 'store_sql'; sql_id: number; sql: string }
  | { type: 'close_sql'; sql_id: number }
  | { type: 'describe' | 'get_autocommit' };
interface StmtResult {
  cols: Array<{ name: string; decltype: string | null }>;
  rows: ProtoValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
}
interface ProtoError {
  message: string;
  code: string;
}

/** What the server has been sent since it started (or since resetStats). */
export interface HranaStats {
  /** HTTP requests to the pipeline endpoint: each is one round trip of the client. */
  roundTrips: number;
  /** Statements executed: batch steps that ran, executes, and sequences (one each). */
  statements: number;
  /**
   * Round trips made while their stream held the write lock: it held it when the request arrived, or took it during
   * the request (a round trip that opens and closes a write transaction counts once). From the statement that takes
   * the lock (BEGIN IMMEDIATE/EXCLUSIVE, or a deferred transaction's first write) to its COMMIT/ROLLBACK, both included.
   */
  lockedRoundTrips: number;
  /** Write transactions ended (committed, rolled back, or taken back), and the ms their streams held the lock in all. */
  writeTransactions: number;
  lockHeldMs: number;
  /** Write transactions taken back after txnTimeoutMs (see the file's comment). */
  timedOut: number;
  /** Each round trip's stream requests, in order: `batch(BEGIN,SAVEPOINT)`, `execute(COMMIT)`, `close`, `store_sql`. */
  log: string[][];
}

export interface HranaServer {
  /** `http://127.0.0.1:<port>`: what openDb takes (a `libsql://` URL reaches the same client over https). */
  url: string;
  stats: HranaStats;
  resetStats(): void;
  /** The round trip's latency in ms; a bench may change it between loads. */
  latencyMs: number;
  /**
   * Crash tests: a request that carries a COMMIT waits, before the server runs it or after it ran and before its answer
   * goes, until releaseStalled() (a process killed meanwhile never hears what happened). `stalled` counts those waiting.
   */
  stallCommits: 'before' | 'after' | null;
  readonly stalled: number;
  releaseStalled(): void;
  /** Stops listening and closes every stream's connection (rolling back what is open). */
  stop(): void;
}

/** A malformed or unsupported request: sqld answers these with a 400 and a text body, not a stream result. */
class ProtocolError extends Error {}

interface Stream {
  conn: Db | null;
  /** Set when a statement gave up waiting for the lock: its connection was closed, so the stream's state is gone. */
  failed?: unknown;
  sqls: Map<number, string>;
  lastUsed: number;
  /** When the stream took the write lock (performance.now()); undefined while it holds none. */
  lockedSince?: number;
  /** Its write transaction was taken back: the next request's statements answer TXN_TIMEOUT_ERROR. */
  timedOut?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The statement's first word, for the log (the whole text would bury the shape of a round trip). */
const verb = (sql: string) => (sql.trim().split(/\s+/)[0] ?? '').toUpperCase();
/** Statements that take SQLite's write lock (a deferred BEGIN takes it at the first write). */
const takesWriteLock = (sql: string) =>
  /^\s*(begin\s+(immediate|exclusive)|insert|update|delete|replace|create|drop|alter)\b/i.test(sql);

function fromProto(v: ProtoValue): unknown {
  switch (v.type) {
    case 'null':
      return null;
    case 'integer':
      return BigInt(v.value);
    case 'float':
    case 'text':
      return v.value;
    case 'blob':
      return Buffer.from(v.base64, 'base64');
    default:
      throw new ProtocolError(`unknown value type ${JSON.stringify((v as { type: unknown }).type)}`);
  }
}

function toProto(v: unknown): ProtoValue {
  if (v === null || v === undefined) return { type: 'null' };
  if (typeof v === 'bigint') return { type: 'integer', value: v.toString() };
  if (typeof v === 'number') return { type: 'float', value: v };
  if (typeof v === 'string') return { type: 'text', value: v };
  if (v instanceof Uint8Array) return { type: 'blob', base64: Buffer.from(v).toString('base64') };
  if (v instanceof ArrayBuffer) return { type: 'blob', base64: Buffer.from(v).toString('base64') };
  throw new Error(`cannot encode a ${typeof v}`);
}

/** A statement's arguments as the driver binds them: a list, or one object of named values. */
function bindings(stmt: ProtoStmt): unknown[] {
  const named = stmt.named_args ?? [];
  const positional = (stmt.args ?? []).map(fromProto);
  if (!named.length) return positional;
  if (positional.length) {
    throw Object.assign(new Error('positional and named arguments together'), { code: 'ARGS_BOTH_POSITIONAL_AND_NAMED' });
  }
  // The driver binds a name without its prefix (:id, @id and $id all bind `id`).
  return [Object.fromEntries(named.map((a) => [a.name.replace(/^[:@$]/, ''), fromProto(a.value)]))];
}

/** sqld reports SQLite's primary result code (SQLITE_CONSTRAINT for SQLITE_CONSTRAINT_PRIMARYKEY). */
function toProtoError(error: unknown): ProtoError {
  if ((error as { hrana?: unknown }).hrana) return { message: (error as Error).message, code: String((error as { code?: unknown }).code) };
  const code = String((error as { code?: unknown }).code ?? 'SQLITE_UNKNOWN');
  const primary = code.startsWith('SQLITE_') ? code.split('_').slice(0, 2).join('_') : code;
  return { message: `SQLite error: ${(error as Error).message}`, code: primary };
}

/**
 * Runs `fn` (one statement), trying again on a timer while another connection holds the write lock, instead of
 * blocking the server. The retries re-run the same prepared statement: SQLite leaves a statement that met SQLITE_BUSY
 * in progress until it is reset, and a fresh one prepared beside it would meet "SQL statements in progress".
 * `onBusy` runs before each retry (the server takes back a write transaction held past its timeout there).
 */
async function waitingOnLocks<T>(fn: () => T, onBusy: () => void): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    try {
      return fn();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      onBusy();
      await sleep(2);
    }
  }
}

export interface HranaServerOptions {
  /** The libSQL file the server serves. */
  path: string;
  /** A network round trip's latency in ms (loopback answers in well under a millisecond), waited before each answer. Default 0. */
  latencyMs?: number;
  /** How long a write transaction may hold the lock before a waiting stream takes it back. Default TXN_TIMEOUT_MS. */
  txnTimeoutMs?: number;
}

export function startHranaServer(opts: HranaServerOptions): HranaServer {
  const setup = new Database(opts.path);
  setup.exec('PRAGMA journal_mode = WAL');
  setup.close();

  const streams = new Map<string, Stream>();
  const stats: HranaStats = { roundTrips: 0, statements: 0, lockedRoundTrips: 0, writeTransactions: 0, lockHeldMs: 0, timedOut: 0, log: [] };
  const txnTimeoutMs = opts.txnTimeoutMs ?? TXN_TIMEOUT_MS;
  const control: { latencyMs: number; stallCommits: 'before' | 'after' | null } = { latencyMs: opts.latencyMs ?? 0, stallCommits: null };
  /** Requests stalled by stallCommits, waiting for releaseStalled(). */
  let stalled: Array<() => void> = [];
  const stall = () => new Promise<void>((resolve) => stalled.push(resolve));
  const hasCommit = (req: StreamRequest): boolean => {
    const isCommit = (stmt: ProtoStmt) => /^\s*(commit|end)\b/i.test(stmt.sql ?? '');
    if (req.type === 'execute') return isCommit(req.stmt);
    if (req.type === 'batch') return req.batch.steps.some((st) => isCommit(st.stmt));
    return false;
  };
  /** Every stream that may hold the lock (batons are replaced per request; the stream objects stay). */
  const live = new Set<Stream>();
  /** Stream → whether the current request saw it hold the write lock. */
  const lockedNow = new WeakSet<Stream>();

  /** After a statement (or a close): starts or ends the stream's write-lock span. */
  const noteLock = (s: Stream, tookLock: boolean) => {
    const inTx = s.conn?.inTransaction ?? false;
    if (s.lockedSince === undefined && inTx && tookLock) s.lockedSince = performance.now();
    if (s.lockedSince !== undefined) lockedNow.add(s);
    if (s.lockedSince !== undefined && !inTx) {
      stats.writeTransactions++;
      stats.lockHeldMs += performance.now() - s.lockedSince;
      s.lockedSince = undefined;
    }
  };
  /** sqld's busy handler: a waiter takes the lock back from a stream that has held it longer than txnTimeoutMs. */
  const takeBackExpired = () => {
    const now = performance.now();
    for (const s of live) {
      if (s.lockedSince === undefined || now - s.lockedSince <= txnTimeoutMs || !s.conn) continue;
      try {
        if (s.conn.inTransaction) s.conn.exec('ROLLBACK');
      } catch {
        // A connection that cannot roll back is closed instead (closing rolls back).
        closeStream(s);
      }
      s.timedOut = true;
      stats.timedOut++;
      noteLock(s, false);
    }
  };

  const connect = (): Db => {
    const conn = new Database(opts.path);
    conn.exec('PRAGMA synchronous = FULL; PRAGMA busy_timeout = 0');
    return conn;
  };
  const dbOf = (s: Stream): Db => {
    if (s.failed) throw s.failed;
    return (s.conn ??= connect());
  };
  const closeStream = (s: Stream) => {
    const conn = s.conn;
    live.delete(s);
    if (!conn) return;
    // An abandoned stream's transaction is rolled back, as sqld does. Explicitly: the driver's close() leaves the
    // connection open, write lock included, until its statements are garbage-collected.
    try {
      if (conn.inTransaction) conn.exec('ROLLBACK');
    } finally {
      s.conn = null;
      conn.close();
      noteLock(s, false);
    }
  };
  const sqlOf = (s: Stream, sql: string | undefined, sqlId: number | undefined): string => {
    if (sql !== undefined && sqlId !== undefined) throw new ProtocolError('both sql and sql_id given');
    if (sql !== undefined) return sql;
    const stored = sqlId === undefined ? undefined : s.sqls.get(sqlId);
    if (stored === undefined) throw new ProtocolError(`SQL text ${sqlId} not found`);
    return stored;
  };

  async function runStmt(s: Stream, stmt: ProtoStmt): Promise<StmtResult> {
    const sql = sqlOf(s, stmt.sql, stmt.sql_id);
    const args = bindings(stmt);
    stats.statements++;
    const db = dbOf(s);
    live.add(s);
    const prepared = db.prepare(sql).safeIntegers(true);
    const reader = prepared.reader;
    if (reader) prepared.raw(true);
    try {
      return await waitingOnLocks(() => {
        if (!reader) {
          const info = prepared.run(...args);
          return { cols: [], rows: [], affected_row_count: info.changes, last_insert_rowid: String(info.lastInsertRowid) };
        }
        const rows = (prepared.all(...args) as unknown[][]).map((row) => row.map(toProto));
        const cols = prepared.columns().map((c) => ({ name: c.name, decltype: c.type }));
        // A write that returns rows (… RETURNING) still reports what it changed.
        const [changes, rowid] = /\breturning\b/i.test(sql)
          ? (db.prepare('SELECT changes(), last_insert_rowid()').raw(true).get() as [number, number])
          : [0, null];
        return {
          cols,
          rows: stmt.want_rows === false ? [] : rows,
          affected_row_count: changes,
          last_insert_rowid: rowid === null ? null : String(rowid),
        };
      }, takeBackExpired);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'SQLITE_BUSY') {
        // The statement stays in progress and would fail every later one on this connection (the driver cannot reset
        // it): the connection goes, rolling back what it held, and the stream answers nothing more but its close.
        // sqld's stream would stay usable; every client path closes the stream after such an error anyway.
        closeStream(s);
        s.failed = error;
      }
      throw error;
    } finally {
      noteLock(s, takesWriteLock(sql));
    }
  }

  function holds(cond: ProtoCond, results: Array<StmtResult | null>, errors: Array<ProtoError | null>): boolean {
    switch (cond.type) {
      case 'ok':
        return results[cond.step] != null;
      case 'error':
        return errors[cond.step] != null;
      case 'not':
        return !holds(cond.cond, results, errors);
      case 'and':
        return cond.conds.every((c) => holds(c, results, errors));
      case 'or':
        return cond.conds.some((c) => holds(c, results, errors));
      default:
        throw new ProtocolError(`batch condition ${JSON.stringify(cond.type)} needs Hrana 3; this endpoint is version 2`);
    }
  }

  async function handle(s: Stream, req: StreamRequest, log: string[]): Promise<object> {
    if (s.timedOut && (req.type === 'execute' || req.type === 'batch' || req.type === 'sequence')) {
      // The transaction was taken back: this request's statements fail without running (sqld fails every step of the
      // next program), and the stream goes on in autocommit.
      s.timedOut = false;
      log.push(`${req.type}(TIMED OUT)`);
      if (req.type === 'batch') {
        const n = req.batch.steps.length;
        return { type: 'batch', result: { step_results: Array(n).fill(null), step_errors: Array(n).fill(TXN_TIMEOUT_ERROR) } };
      }
      throw Object.assign(new Error(TXN_TIMEOUT_ERROR.message), { code: TXN_TIMEOUT_ERROR.code, hrana: true });
    }
    switch (req.type) {
      case 'close':
        log.push('close');
        closeStream(s);
        return { type: 'close' };
      case 'execute':
        log.push(`execute(${verb(sqlOf(s, req.stmt.sql, req.stmt.sql_id))})`);
        return { type: 'execute', result: await runStmt(s, req.stmt) };
      case 'batch': {
        const steps = req.batch.steps;
        log.push(`batch(${steps.map((st) => verb(sqlOf(s, st.stmt.sql, st.stmt.sql_id))).join(',')})`);
        const results: Array<StmtResult | null> = [];
        const errors: Array<ProtoError | null> = [];
        // A step that fails does not stop the batch: later steps run or not by their conditions, as in sqld.
        for (const step of steps) {
          let result: StmtResult | null = null;
          let error: ProtoError | null = null;
          if (step.condition === undefined || holds(step.condition, results, errors)) {
            try {
              result = await runStmt(s, step.stmt);
            } catch (e) {
              if (e instanceof ProtocolError) throw e;
              error = toProtoError(e);
            }
          }
          results.push(result);
          errors.push(error);
        }
        return { type: 'batch', result: { step_results: results, step_errors: errors } };
      }
      case 'sequence': {
        const sql = sqlOf(s, req.sql, req.sql_id);
        log.push(`sequence(${verb(sql)}…)`);
        stats.statements++;
        // Not retried on a busy lock: a retry would run the statements before the busy one twice. bpay never sends one.
        live.add(s);
        try {
          dbOf(s).exec(sql);
        } finally {
          noteLock(s, takesWriteLock(sql));
        }
        return { type: 'sequence' };
      }
      case 'store_sql':
        log.push('store_sql');
        if (s.sqls.has(req.sql_id)) throw new ProtocolError(`SQL text ${req.sql_id} already stored`);
        s.sqls.set(req.sql_id, req.sql);
        return { type: 'store_sql' };
      case 'close_sql':
        log.push('close_sql');
        s.sqls.delete(req.sql_id);
        return { type: 'close_sql' };
      default:
        throw new ProtocolError(`stream request ${JSON.stringify(req.type)} is not served by this stand-in (Hrana 2)`);
    }
  }

  async function pipeline(body: { baton?: string | null; requests: StreamRequest[] }): Promise<Response> {
    let s: Stream | undefined;
    if (body.baton) {
      s = streams.get(body.baton);
      // A baton works once: the client must use the one the last answer gave it.
      streams.delete(body.baton);
      if (!s) {
        return Response.json({ message: 'The stream has expired or the baton is invalid', code: 'STREAM_EXPIRED' }, { status: 500 });
      }
    } else {
      s = { conn: null, sqls: new Map(), lastUsed: Date.now() };
    }
    const log: string[] = [];
    stats.roundTrips++;
    stats.log.push(log);
    if (s.lockedSince !== undefined) lockedNow.add(s);
    const results: object[] = [];
    let open = true;
    for (const req of body.requests) {
      try {
        results.push({ type: 'ok', response: await handle(s, req, log) });
        if (req.type === 'close') open = false;
      } catch (error) {
        if (error instanceof ProtocolError) {
          closeStream(s);
          return new Response(error.message, { status: 400, headers: { 'content-type': 'text/plain' } });
        }
        results.push({ type: 'error', error: toProtoError(error) });
      }
    }
    if (lockedNow.has(s)) stats.lockedRoundTrips++;
    lockedNow.delete(s);
    let baton: string | null = null;
    if (open) {
      baton = crypto.randomUUID();
      s.lastUsed = Date.now();
      streams.set(baton, s);
    }
    return Response.json({ baton, base_url: null, results });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === 'GET' && (path === '/' || path === '/v2')) return new Response('Hrana over HTTP, version 2 (stand-in)');
      if (req.method !== 'POST' || path !== '/v2/pipeline') return new Response('not found', { status: 404 });
      let body: { baton?: string | null; requests: StreamRequest[] };
      try {
        body = (await req.json()) as typeof body;
      } catch {
        return new Response('the request body is not JSON', { status: 400 });
      }
      const commits = control.stallCommits !== null && body.requests.some(hasCommit);
      if (commits && control.stallCommits === 'before') await stall();
      const answer = await pipeline(body);
      if (commits && control.stallCommits === 'after') await stall();
      if (control.latencyMs > 0) await sleep(control.latencyMs);
      return answer;
    },
  });

  const expiry = setInterval(() => {
    const now = Date.now();
    for (const [baton, s] of streams) {
      if (now - s.lastUsed > STREAM_EXPIRY_MS) {
        streams.delete(baton);
        closeStream(s);
      }
    }
  }, 1_000);
  expiry.unref();

  return {
    url: `http://127.0.0.1:${server.port}`,
    stats,
    resetStats() {
      stats.roundTrips = 0;
      stats.statements = 0;
      stats.lockedRoundTrips = 0;
      stats.writeTransactions = 0;
      stats.lockHeldMs = 0;
      stats.timedOut = 0;
      stats.log = [];
    },
    get latencyMs() {
      return control.latencyMs;
    },
    get stallCommits() {
      return control.stallCommits;
    },
    set stallCommits(when: 'before' | 'after' | null) {
      control.stallCommits = when;
    },
    get stalled() {
      return stalled.length;
    },
    releaseStalled() {
      const waiting = stalled;
      stalled = [];
      for (const go of waiting) go();
    },
    set latencyMs(ms: number) {
      control.latencyMs = ms;
    },
    stop() {
      clearInterval(expiry);
      void server.stop(true);
      for (const s of streams.values()) closeStream(s);
      streams.clear();
    },
  };
}
