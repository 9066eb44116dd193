import { createClient, type Client, type InStatement, type ResultSet, type Transaction, type TransactionMode } from '@libsql/client';
import { ConnectionPool } from '@libsql/client/sqlite3';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RemoteUnitSender } from './hrana-batch';
import * as schema from './schema';
import { registerUnitRunner, runStepsIn } from './unit';

export * as schema from './schema';
export { UNLIMITED, FEATURE_KEYS, ENVIRONMENTS, PLATFORM_TYPES, PAYMENT_INTENT_STATUSES, REFUND_STATUSES, REFUND_REASONS, type RefundStatus, type RefundReason, type FeatureKey, type CollectionStatus, type BcardStatus, type ShareStatus, type PaymentIntentStatus, type EmailKind, EMAIL_KINDS, NOTICE_KINDS, type NoticeKind, type NoticeParams, USER_LANGUAGES, type UserLanguage, type Environment, type FundingSourceType, type CardFunding as CardFundingKind, type BankDebitStatus, BANK_SENTINEL_EXP_MONTH, BANK_SENTINEL_EXP_YEAR } from './schema';
export type Db = LibSQLDatabase<typeof schema>;
/** A database handle or an open transaction on it. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export const BUSY_TIMEOUT_MS = 5000;

/**
 * Every local connection runs with these. WAL lets readers work during a write; synchronous=FULL makes a
 * committed ledger posting survive a power cut; foreign keys are off by default in SQLite.
 */
export const CONNECTION_PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = FULL',
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  'PRAGMA foreign_keys = ON',
];

/*
 * Waiting for another process's write lock without stopping the event loop (issue 29 §5, opt-in:
 * BPAY_DB_ASYNC_LOCK_WAIT=1, read when a connection opens and when a handle opens). SQLite's busy handler sleeps
 * inside the driver call, so a process that shares the file with another stops whole while it waits. With the option
 * on, connections have busy_timeout 0 and the group-commit writer begins its batch (BEGIN IMMEDIATE) again on
 * SQLITE_BUSY after an asynchronous, growing pause, up to the same BUSY_TIMEOUT_MS: meanwhile the process goes on
 * parsing, authenticating, reading and answering, and its units queue into the batch. Nothing else meets the other
 * process's lock: inside the batch this process holds it, COMMIT in WAL needs no other lock (the automatic checkpoint
 * is passive and skips what it cannot take), and WAL readers do not wait for writers (only a connection opened while
 * another recovers the WAL after a crash meets SQLITE_BUSY at once, where it would have waited). A migration (one
 * atomic batch) waits the same way; a statement that must run alone (VACUUM, executeMultiple) is not retried.
 * docs/SCALING.md, "Issue 29: the second core", has the figures.
 */
export const asyncLockWait = (): boolean => process.env.BPAY_DB_ASYNC_LOCK_WAIT === '1';
const connectionPragmas = (): string =>
  (asyncLockWait() ? CONNECTION_PRAGMAS.map((p) => (p.startsWith('PRAGMA busy_timeout') ? 'PRAGMA busy_timeout = 0' : p)) : CONNECTION_PRAGMAS).join(';\n');

const isBusy = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/** Runs `attempt` again on SQLITE_BUSY after an asynchronous pause (1 ms doubling to 16), until `timeoutMs` has passed. */
export async function retryBusyAsync<T>(attempt: () => Promise<T>, timeoutMs: number = BUSY_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 1; ; wait = Math.min(wait * 2, 16)) {
    try {
      return await attempt();
    } catch (e) {
      if (!isBusy(e) || Date.now() >= deadline) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/*
 * @libsql/client keeps a pool of connections for a local file and opens new ones lazily (for instance when a
 * transaction holds the first one). It has no hook for per-connection set-up, so we wrap the one place where a
 * connection comes into being and apply the pragmas there, once per connection. A test
 * (db/client.test.ts) checks the pragmas on the connections used inside, after and beside transactions, so an
 * upgrade that moves this seam fails loudly instead of silently dropping foreign keys.
 */
/**
 * Runs set-up SQL on a new connection, trying again while the file is busy, up to BUSY_TIMEOUT_MS. SQLite answers
 * SQLITE_BUSY at once, without waiting for the busy timeout, when waiting could deadlock: two processes opening the
 * same new file both turn it to WAL (each holds a shared lock and wants the exclusive one). Seen once in CI when two
 * servers booted together on one file (api/src/two-processes.test.ts). The wait is synchronous, as the driver's own
 * busy wait is, and happens only when a connection is opened.
 */
export function execRetryingBusy(
  conn: { exec(sql: string): unknown },
  sql: string,
  timeoutMs: number = BUSY_TIMEOUT_MS,
  now: () => number = Date.now,
  sleep: (ms: number) => void = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
): void {
  const deadline = now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      conn.exec(sql);
      return;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || now() >= deadline) throw e;
      sleep(wait);
    }
  }
}

const prepared = new WeakSet<object>();
type AcquireSync = (this: ConnectionPool, forTransaction?: boolean) => ReturnType<ConnectionPool['acquireSync']>;
const proto = ConnectionPool.prototype as unknown as { acquireSync: AcquireSync; __bpayPatched?: boolean };
if (!proto.__bpayPatched) {
  const original = proto.acquireSync;
  proto.acquireSync = function acquireSync(forTransaction?: boolean) {
    const conn = original.call(this, forTransaction);
    if (!prepared.has(conn)) {
      // exec() steps each statement to completion; run() on a row-returning PRAGMA would leave it in progress.
      execRetryingBusy(conn, connectionPragmas());
      reusePreparedStatements(conn as unknown as PreparingConnection);
      prepared.add(conn);
    }
    return conn;
  };
  proto.__bpayPatched = true;
}

/*
 * Prepared statements, reused (issue 14). The driver prepares every statement afresh and asks for its columns
 * twice; a CPU profile of the bcard path put a quarter of the server's time there. Each connection keeps its most
 * recent STATEMENT_CACHE_SIZE statements by SQL text (Drizzle writes the same text for the same query; values are
 * bound parameters), with what does not change between runs remembered: whether it returns rows, and its columns.
 * Reuse is safe here because the driver runs a statement to completion synchronously (all() or run()), so one
 * statement is never in use twice at once; a statement that throws is dropped. SQLite prepares a statement again
 * when the schema changes under it, but its remembered columns would be stale: every statement cached before this
 * process changes the schema (a migration, any CREATE, ALTER or DROP) is prepared afresh. A schema change made by
 * another process can only change what `SELECT *` returns, which bpay's code never runs (Drizzle names columns).
 */
export const STATEMENT_CACHE_SIZE = 256;

let schemaEpoch = 0;
/** DDL, after any leading comments. */
const changesSchema = (sql: string) => /^\s*(?:(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)\s*)*(create|alter|drop)\b/i.test(sql);

interface DriverStatement {
  safeIntegers(toggle?: boolean): DriverStatement;
  raw(raw?: boolean): DriverStatement;
  columns(): Array<{ name: string; type?: string | null }>;
  all(...args: unknown[]): unknown[];
  run(...args: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}
interface PreparingConnection {
  prepare(sql: string): DriverStatement;
  exec(sql: string): unknown;
}

/*
 * With asyncLockWait, a BEGIN runs through exec(), which finalizes its statement even when it fails. A prepared
 * BEGIN IMMEDIATE that fails with SQLITE_BUSY is not reset: it keeps the read snapshot it took until it runs again
 * or is collected, so the connection, back in the pool, would read stale data and never take the write lock again
 * (SQLITE_BUSY at every try, as the bench showed before this).
 */
function execStatement(conn: PreparingConnection, sql: string): DriverStatement {
  const self: DriverStatement = {
    safeIntegers: () => self,
    raw: () => {
      throw new TypeError('The statement does not return data');
    },
    columns: () => [],
    all: () => {
      conn.exec(sql);
      return [];
    },
    run: () => {
      conn.exec(sql);
      return { changes: 0, lastInsertRowid: 0 };
    },
  };
  return self;
}

function reusePreparedStatements(conn: PreparingConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, { stmt: DriverStatement; epoch: number }>();
  const beginByExec = asyncLockWait();
  conn.prepare = (sql: string) => {
    if (beginByExec && /^\s*begin\b/i.test(sql)) return execStatement(conn, sql);
    const hit = cache.get(sql);
    if (hit && hit.epoch === schemaEpoch) {
      // Most recently used last: eviction takes the least recently used.
      cache.delete(sql);
      cache.set(sql, hit);
      return hit.stmt;
    }
    if (changesSchema(sql)) {
      schemaEpoch++;
      return prepare(sql);
    }
    const stmt = reusableStatement(prepare(sql), () => cache.delete(sql));
    cache.delete(sql);
    cache.set(sql, { stmt, epoch: schemaEpoch });
    if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return stmt;
  };
}

function reusableStatement(stmt: DriverStatement, drop: () => void): DriverStatement {
  let safe: boolean | undefined;
  let rawError: unknown;
  let rawSet = false;
  let columns: ReturnType<DriverStatement['columns']> | undefined;
  const guard = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      drop();
      throw error;
    }
  };
  const self: DriverStatement = {
    safeIntegers(toggle = true) {
      if (safe !== toggle) stmt.safeIntegers((safe = toggle));
      return self;
    },
    raw(raw = true) {
      // raw() throws for a statement that returns no rows; the driver relies on that to tell the two apart.
      if (!rawSet) {
        try {
          stmt.raw(raw);
        } catch (error) {
          rawError = error;
        }
        rawSet = true;
      }
      if (rawError !== undefined) throw rawError;
      return self;
    },
    columns: () => (columns ??= stmt.columns()),
    all: (...args) => guard(() => stmt.all(...args)),
    run: (...args) => guard(() => stmt.run(...args)),
  };
  return self;
}

/*
 * Writes are serialised inside the process. The local driver runs each statement synchronously, so a statement
 * that waits for SQLite's write lock blocks the event loop; if another connection of this same process holds
 * that lock in an interactive transaction (between two awaits), it can never commit, and the waiter fails with
 * SQLITE_BUSY after the busy timeout. One async lock per database file, taken by every write statement, batch
 * and write transaction (until it is done), makes such waits impossible. Reads never take it: WAL readers do not
 * block. Other processes still meet the busy timeout as usual.
 * Never call `db` (rather than `tx`) for a write inside a transaction: it would wait for itself.
 */
export const WRITE_LOCK_TIMEOUT_MS = 30_000;

class WriteLock {
  private queue: Array<{ grant: () => void; owner: object | null }> = [];
  private held = false;

  /** Who queued first behind the holder (the group-commit writer of a handle), if anyone waits. */
  get nextOwner(): object | null | undefined {
    return this.queue[0]?.owner;
  }

  acquire(owner: object | null = null): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let granted = false;
      const grant = () => {
        granted = true;
        clearTimeout(timer);
        this.held = true;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          const next = this.queue.shift();
          if (next) next.grant();
          else this.held = false;
        });
      };
      const timer = setTimeout(() => {
        if (granted) return;
        this.queue = this.queue.filter((w) => w.grant !== grant);
        reject(Object.assign(new Error(`database write lock not acquired within ${WRITE_LOCK_TIMEOUT_MS} ms`), { code: 'BPAY_WRITE_LOCK_TIMEOUT' }));
      }, WRITE_LOCK_TIMEOUT_MS);
      if (!this.held) grant();
      else this.queue.push({ grant, owner });
    });
  }
}

/*
 * Group commit (issue 14, docs/DECISIONS.md "Group commit"). Every write (a transaction, a statement, a batch) is a
 * unit of work. Units run one at a time under the write lock, each inside its own SAVEPOINT of one shared SQLite
 * transaction, the batch: a unit that fails rolls back to its savepoint alone, and its caller gets its error. When a
 * unit ends and no other unit is waiting, or the batch holds MAX_UNITS units or has been open MAX_BATCH_MS, the batch
 * commits: one COMMIT, one fsync for all of them. Only then does any unit of the batch learn that it committed: a
 * transaction's commit() (and so drizzle's db.transaction) and a statement's promise resolve after the COMMIT, and
 * reject if it fails; nothing is acknowledged before it is durable. A unit that fails or rolls back also answers only
 * after its batch commits, so that what its caller reads next includes the writes it met (as if each unit had
 * committed alone before the next began). No unit ever waits for company: a lone unit
 * commits at once, so the batching costs a lone request nothing.
 *
 * Reads outside a transaction run on other connections and see committed state only, never a batch in progress.
 * Statements that cannot run inside a transaction (VACUUM, PRAGMA, ATTACH, explicit BEGIN/COMMIT) first commit the
 * open batch, then run on their own under the lock, like migrations.
 */
export const MAX_UNITS = 128;
export const MAX_BATCH_MS = 20;

/** What the writer has done since the handle opened: tests count commits and statements per request with it. */
export interface WriteStats {
  /** SQLite transactions committed (each is one fsync of the WAL with synchronous=FULL). */
  commits: number;
  /** Units of work that committed (transactions, single writes, batches). */
  units: number;
  /** Statements executed, reads included, through the handle or its transactions. */
  statements: number;
}

interface Batch {
  tx: Transaction;
  units: number;
  openedAt: number;
  /** Settles when the batch's COMMIT does (or the batch is abandoned). */
  done: Promise<void>;
  settle(error?: unknown): void;
}

function isReadOnlySql(sql: string): boolean {
  return /^\s*select\b/i.test(sql) || /^\s*pragma\s+\w+\s*;?\s*$/i.test(sql);
}

/** Statements SQLite will not run inside a transaction, or that change the connection rather than the data. */
function needsOwnTransaction(sql: string): boolean {
  return /^\s*(vacuum|pragma|attach|detach|begin|commit|end|rollback|savepoint|release)\b/i.test(sql);
}

const sqlOf = (stmt: InStatement | string) => (typeof stmt === 'string' ? stmt : stmt.sql);

/**
 * `execute(sql, args)` as one statement object: a transaction over a libSQL server (the HTTP client) takes one
 * parameter and would drop the arguments, binding NULLs.
 */
function withArgs(stmt: InStatement | string, args: unknown): InStatement {
  if (typeof stmt !== 'string') return stmt;
  return args === undefined ? stmt : ({ sql: stmt, args } as InStatement);
}

class GroupCommitWriter {
  readonly stats: WriteStats = { commits: 0, units: 0, statements: 0 };
  private batch: Batch | null = null;
  /** The lock while this writer holds it: close() must hand it on, or other handles on the file wait forever. */
  private held = new Set<() => void>();

  constructor(
    private readonly lock: WriteLock,
    private readonly begin: () => Promise<Transaction>,
  ) {}

  private async openBatch(): Promise<Batch> {
    if (this.batch) return this.batch;
    const tx = await this.begin();
    let settle!: (error?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error?: unknown) => (error === undefined ? resolve() : reject(error));
    });
    // A batch nobody waits on (every unit rolled back) must not report an unhandled rejection.
    done.catch(() => undefined);
    this.batch = { tx, units: 0, openedAt: Date.now(), done, settle };
    return this.batch;
  }

  /** Commits the open batch (holding the lock), settling every unit in it. */
  private async commitBatch(): Promise<void> {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    try {
      await b.tx.commit();
      if (b.units > 0) this.stats.commits++;
      this.stats.units += b.units;
      b.settle();
    } catch (error) {
      b.settle(error);
      try {
        b.tx.close();
      } catch {
        /* already closed */
      }
    }
  }

  /** The batch failed beyond one unit (SQLite rolled it back, or a savepoint vanished): every unit in it fails. */
  private abandonBatch(error: unknown): void {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    b.settle(error);
    try {
      b.tx.close();
    } catch {
      /* already closed */
    }
  }

  /**
   * A unit ended (committed into the batch or rolled back out of it): let the next unit join the batch, or commit it
   * and hand the lock on afterwards.
   */
  private async endUnit(release: () => void, counted: boolean): Promise<void> {
    const b = this.batch;
    if (b && counted) b.units++;
    // Only a unit of this same writer can join: another handle on the file writes through its own connection, which
    // would wait for this batch's lock forever (the driver blocks), so the batch commits before it goes.
    const join = b !== null && this.lock.nextOwner === this && b.units < MAX_UNITS && Date.now() - b.openedAt < MAX_BATCH_MS;
    if (!join) await this.commitBatch();
    release();
  }

  private async acquire(): Promise<() => void> {
    const release = await this.lock.acquire(this);
    const tracked = () => {
      this.held.delete(tracked);
      release();
    };
    this.held.add(tracked);
    return tracked;
  }

  /**
   * The handle is closing (or its process "dies" in a test): the open batch is abandoned, which SQLite rolls back as
   * the connection closes, every unit in it fails, and the lock goes to whoever waits, as it would if the process ended.
   */
  close(): void {
    this.abandonBatch(new Error('the database handle was closed'));
    for (const release of [...this.held]) release();
  }

  /** Runs `fn` as one unit (a transaction it does not drive itself); resolves once the batch has committed. */
  async unit<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const tx = await this.transaction();
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      // Answers after the batch commits, like every unit (see transaction()).
      await tx.rollback();
      throw error;
    }
    await tx.commit();
    return result;
  }

  private async rollbackUnit(b: Batch, cause: unknown): Promise<void> {
    if (this.batch !== b) return;
    try {
      await b.tx.execute('ROLLBACK TO bpay_unit');
      await b.tx.execute('RELEASE bpay_unit');
    } catch {
      // SQLite already rolled the whole transaction back (some errors do): the batch is gone.
      this.abandonBatch(cause);
    }
  }

  /** An interactive transaction as a unit: the caller drives it and ends it with commit() or rollback(). */
  async transaction(): Promise<Transaction> {
    const release = await this.acquire();
    let b: Batch;
    try {
      b = await this.openBatch();
      await b.tx.execute('SAVEPOINT bpay_unit');
    } catch (error) {
      this.abandonBatch(error);
      release();
      throw error;
    }
    let ended = false;
    const stats = this.stats;
    const end = async (commit: boolean): Promise<void> => {
      if (ended) return;
      ended = true;
      if (!commit) {
        await this.rollbackUnit(b, new Error('rolled back'));
        const done = b.done;
        await this.endUnit(release, false);
        // A unit that failed or rolled back still answers after its batch commits: what made it fail may be an
        // earlier unit's write in the same batch, and its caller's next read (on another connection) must see it.
        await done.catch(() => undefined);
        return;
      }
      try {
        await b.tx.execute('RELEASE bpay_unit');
      } catch (error) {
        this.abandonBatch(error);
        release();
        throw error;
      }
      const done = b.done;
      await this.endUnit(release, true);
      await done;
    };
    const unit = {
      execute: (stmt: InStatement | string, args?: unknown) => {
        if (ended) throw new Error('the transaction has ended');
        stats.statements++;
        return b.tx.execute(withArgs(stmt, args));
      },
      batch: (stmts: Array<InStatement>) => {
        if (ended) throw new Error('the transaction has ended');
        stats.statements += stmts.length;
        return b.tx.batch(stmts);
      },
      executeMultiple: (sql: string) => {
        if (ended) throw new Error('the transaction has ended');
        return b.tx.executeMultiple(sql);
      },
      commit: () => end(true),
      rollback: () => end(false),
      close: () => {
        void end(false).catch(() => undefined);
      },
      get closed() {
        return ended;
      },
    };
    return unit as unknown as Transaction;
  }

  /** Runs `fn` alone, outside any batch (the open one is committed first). */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      await this.commitBatch();
      return await fn();
    } finally {
      release();
    }
  }
}

const writeLocks = new Map<string, WriteLock>();

function groupCommitWrites(client: Client, lock: WriteLock): GroupCommitWriter {
  const execute = client.execute.bind(client) as (...a: unknown[]) => Promise<ResultSet>;
  const batch = client.batch.bind(client);
  const migrate = client.migrate.bind(client);
  const executeMultiple = client.executeMultiple.bind(client);
  const transaction = client.transaction.bind(client);
  const async = asyncLockWait();
  const writer = new GroupCommitWriter(lock, async ? () => retryBusyAsync(() => transaction('write')) : () => transaction('write'));
  // Statements are counted here for reads and standalone ones, and by the unit's transaction for writes.
  client.execute = ((stmt: InStatement | string, args?: unknown) => {
    const sql = sqlOf(stmt);
    if (!isReadOnlySql(sql) && !needsOwnTransaction(sql)) {
      return writer.unit((tx) => tx.execute(withArgs(stmt, args)));
    }
    writer.stats.statements++;
    return isReadOnlySql(sql) ? execute(withArgs(stmt, args)) : writer.exclusive(() => execute(withArgs(stmt, args)));
  }) as Client['execute'];
  client.batch = ((stmts, mode) => {
    if (mode !== 'read') return writer.unit((tx) => tx.batch(stmts as InStatement[]));
    writer.stats.statements += stmts.length;
    return batch(stmts, mode);
  }) as Client['batch'];
  // Either may change the schema in ways the statement cache's check of each statement's text cannot see.
  // A migration is one atomic batch: on SQLITE_BUSY nothing of it was applied, so it may simply begin again.
  const migrateOnce = (stmts: InStatement[]) => migrate(stmts).finally(() => schemaEpoch++);
  client.migrate = ((stmts) =>
    writer.exclusive(() => (async ? retryBusyAsync(() => migrateOnce(stmts)) : migrateOnce(stmts)))) as Client['migrate'];
  client.executeMultiple = ((sql) =>
    writer.exclusive(() => executeMultiple(sql).finally(() => schemaEpoch++))) as Client['executeMultiple'];
  client.transaction = (async (mode?: TransactionMode) => {
    if (mode === 'read') return transaction(mode);
    return writer.transaction();
  }) as Client['transaction'];
  return writer;
}

/** A read-only handle's client: anything but a read is refused (a rejected promise) before it reaches the database. */
function refuseWrites(client: Client): void {
  const refused = (what: string) => Promise.reject(new Error(`a read-only database handle (BPAY_DATABASE_READ_URL) was asked to write: ${what.slice(0, 80)}`));
  const execute = client.execute.bind(client) as (...a: unknown[]) => Promise<ResultSet>;
  const batch = client.batch.bind(client);
  const transaction = client.transaction.bind(client);
  client.execute = ((stmt: InStatement | string, args?: unknown) =>
    isReadOnlySql(sqlOf(stmt)) ? execute(stmt, args) : refused(sqlOf(stmt))) as Client['execute'];
  client.batch = ((stmts, mode) => (mode === 'read' ? batch(stmts, mode) : refused('a write batch'))) as Client['batch'];
  client.transaction = ((mode?: TransactionMode) => (mode === 'read' ? transaction(mode) : refused('a write transaction'))) as Client['transaction'];
  client.migrate = (() => refused('a migration')) as Client['migrate'];
  client.executeMultiple = (() => refused('a script')) as Client['executeMultiple'];
}

export interface OpenDbOptions {
  url: string;
  authToken?: string;
  /**
   * A handle for reads that may lag (BPAY_DATABASE_READ_URL, issue 30 §3): every write through it is refused with an
   * error, so a view that wrote by mistake fails in tests instead of writing to a replica.
   */
  readOnly?: boolean;
}

export interface DbHandle {
  db: Db;
  client: Client;
  /** Commits, units and statements through this handle (group commit, issue 14). */
  stats: WriteStats;
  close(): void;
}

export function openDb(opts: OpenDbOptions): DbHandle {
  if (opts.url.startsWith('file:')) {
    const path = opts.url.slice('file:'.length).split('?')[0] ?? '';
    // The data folder is the server's alone (db/file-modes.ts); an existing one is tightened at start, not here.
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  }
  const client = createClient({ url: opts.url, authToken: opts.authToken, timeout: BUSY_TIMEOUT_MS });
  const lockKey = opts.url.startsWith('file:') ? resolve(opts.url.slice('file:'.length).split('?')[0] ?? '') : opts.url;
  let lock = writeLocks.get(lockKey);
  if (!lock) writeLocks.set(lockKey, (lock = new WriteLock()));
  const writer = groupCommitWrites(client, lock);
  if (opts.readOnly) refuseWrites(client);
  const db = drizzle(client, { schema });
  // Units of work as data (db/unit.ts): one request per group of them to a server, a closure unit on the file.
  const remote = !opts.url.startsWith('file:') && opts.url !== ':memory:';
  if (!opts.readOnly) registerUnitRunner(
    db,
    remote
      ? new RemoteUnitSender(opts, (fn) => writer.exclusive(fn), writer.stats).run
      : (steps) => writer.unit((tx) => runStepsIn(tx)(steps)),
  );
  return {
    db,
    client,
    stats: writer.stats,
    close: () => {
      writer.close();
      client.close();
    },
  };
}

export const MIGRATIONS_FOLDER = join(import.meta.dir, 'migrations');

/**
 * Applies every pending drizzle-kit migration. Safe to call at every start, also from several processes starting
 * together on one database: each migration is applied in one atomic batch with its record, so a process that loses
 * the race fails as a whole ("table already exists") and, trying again, finds it applied. A migration that really
 * fails still fails, after the last try.
 */
export async function migrateDb(db: Db, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

export { firstRow } from './first-row';
export { prepared, preparedPerCount, slots, slotValues } from './prepared';
export { writeUnit, isUniqueViolationAt, rowAsInserted, sqlOnce, UnitStepError, type WriteUnit } from './unit';
