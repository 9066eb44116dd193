import type { InStatement, InValue, ResultSet } from '@libsql/client';
import { fillPlaceholders, getTableColumns, is, SQL, type Table } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { LibSQLSession, LibSQLTransaction } from 'drizzle-orm/libsql/session';
import type { Db, DbOrTx } from './client';

/*
 * A unit of work as data (issue 30 §2). A closure unit (`db.transaction(async (tx) => …)`) reads, decides and writes
 * statement by statement: over a network every statement is a round trip while the database's one write lock is held.
 * A unit written here is a list of statements decided before it is sent, whose guards say when it must not take effect:
 * "this statement changed exactly n rows" (an `UPDATE … WHERE available >= ?` that found the money, a claim that found
 * the row still its own). Against a libSQL server the writer sends every unit queued meanwhile in ONE request (one
 * Hrana batch: BEGIN, per unit SAVEPOINT, its steps, RELEASE or ROLLBACK TO, COMMIT), so the lock is held while the
 * server runs them and never across the network (db/hrana-batch.ts). On the embedded file the same steps run as a
 * closure unit of the group-commit writer, the guards checked from each statement's row count.
 *
 * Steps are recorded by running bpay's ordinary queries (prepared() ones, or drizzle's builders with `.run()`/
 * `.all()`) on `unit.tx`, a drizzle transaction whose driver records instead of running: the same SQL text and values
 * a closure unit would send, in the order they are called. A recorded statement answers at once with a result that
 * cannot be read (rows, rowsAffected throw): code that decides on a result inside the unit is a mistake this makes loud.
 * After commit(), `result(i)` has each statement's real answer.
 *
 * What a unit cannot do: read what it wrote to decide what to write next. Such reads go before the unit, outside the
 * lock, and the guards re-check inside it whatever the decision rested on.
 */

/** A recorded statement and, if it is a guard, the rows it must have changed and the error its unit fails with. */
export interface UnitStep {
  sql: string;
  args: unknown[];
  expect?: { changes: number; error: () => Error };
  /** An assertion (unit.assert): the step errs when its condition is false, and the unit fails with this error. */
  assert?: () => Error;
}

/** What an assertion step's failure says (json() of text that is not JSON, built at run time: never folded ahead). */
export const isAssertionFailure = (e: unknown): boolean => /malformed JSON/i.test(String((e as Error | null)?.message ?? e));

/** Runs a unit's steps in one transaction (the writer's own): each step's result, or the unit's error. */
export type UnitRunner = (steps: UnitStep[]) => Promise<ResultSet[]>;

/** A step of a unit failed (not a guard): its index and the database's error, whose code and message it keeps. */
export class UnitStepError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly step: number,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.code = (cause as { code?: string } | null)?.code;
  }
}

/** Whether a unit's step `step` failed on a UNIQUE constraint (an insert whose row exists: a claim lost, a replay). */
export const isUniqueViolationAt = (e: unknown, step: number): boolean =>
  e instanceof UnitStepError && e.step === step && /UNIQUE constraint failed/i.test(e.message);

const notYet = (): never => {
  throw new Error('a statement recorded into a unit has no result until the unit has committed (read it with unit.result(i))');
};
/** What a recorded statement answers at once: nothing that can be read. */
const UNREAD = Object.freeze(
  Object.defineProperties({} as ResultSet, {
    rows: { get: notYet },
    rowsAffected: { get: notYet },
    columns: { get: notYet },
    columnTypes: { get: notYet },
    lastInsertRowid: { get: notYet },
  }),
);

const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release|pragma|vacuum|attach|detach)\b/i;

/** `unit.tx.query.…`: drizzle's relational queries read at once, on the client; inside a unit that is a mistake. */
const NO_RELATIONAL_QUERIES = new Proxy(
  {},
  {
    get: () => {
      throw new Error('a unit of work records writes: read before it, on the database handle, not with unit.tx.query');
    },
  },
);

/** One recording session and transaction per drizzle handle, of which each unit takes a view with its own driver. */
const bases = new WeakMap<object, { session: object; tx: object; dialect: WriteUnit['dialect'] }>();
function recordingBase(db: Db) {
  let base = bases.get(db);
  if (!base) {
    const session = (db as unknown as { session: { client: unknown; dialect: unknown; schema: unknown; options: object } }).session;
    const s = new LibSQLSession(session.client as never, session.dialect as never, session.schema as never, session.options as never, undefined);
    const tx = new LibSQLTransaction('async', session.dialect as never, s, session.schema as never);
    base = { session: s, tx, dialect: session.dialect as WriteUnit['dialect'] };
    bases.set(db, base);
  }
  return base;
}

const runners = new WeakMap<object, UnitRunner>();

/** The libSQL client under a drizzle handle or transaction: units are found by it (any drizzle handle on it works). */
const clientOf = (db: DbOrTx): object | undefined => (db as unknown as { session?: { client?: object } }).session?.client;

/** Called by openDb: units on this handle's client run through its writer. */
export function registerUnitRunner(db: Db, runner: UnitRunner): void {
  runners.set(clientOf(db)!, runner);
}

type Stmt = { sql: string; args?: unknown[] | Record<string, unknown> } | string;

export class WriteUnit {
  readonly steps: UnitStep[] = [];
  /** Record statements by running queries on this (never awaiting a result inside the unit). */
  readonly tx: DbOrTx;
  private results: ResultSet[] | null = null;
  private readonly record: (stmt: Stmt) => ResultSet;
  private readonly dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } };

  constructor(
    db: Db,
    private readonly runner: UnitRunner,
  ) {
    const record = (stmt: Stmt): ResultSet => {
      if (this.results) throw new Error('the unit has already been sent');
      const s = typeof stmt === 'string' ? { sql: stmt, args: [] } : stmt;
      if (s.args !== undefined && !Array.isArray(s.args)) throw new TypeError('a unit takes positional arguments only');
      // The writer owns the transaction: a step that ended it would leave the steps after it to run in autocommit.
      if (TRANSACTION_CONTROL.test(s.sql)) throw new Error(`${s.sql.trim().split(/\s+/)[0]} cannot be part of a unit`);
      this.steps.push({ sql: s.sql, args: (s.args as unknown[] | undefined) ?? [] });
      return UNREAD;
    };
    this.record = record;
    const recorder = {
      execute: (stmt: Stmt) => Promise.resolve(record(stmt)),
      batch: (stmts: Stmt[]) => Promise.resolve(stmts.map(record)),
    };
    const base = recordingBase(db);
    this.dialect = base.dialect;
    // Per unit only its driver differs: a view of one transaction built per handle (a drizzle transaction's constructor
    // builds a query builder for every table, which per unit cost a keyed request about a millisecond of CPU).
    const session = Object.create(base.session, { tx: { value: recorder } }) as object;
    this.tx = Object.create(base.tx, { session: { value: session }, query: { value: NO_RELATIONAL_QUERIES } }) as DbOrTx;
  }

  /**
   * Records a statement written with drizzle's `sql` tag or a builder (`db.insert(…).values(…)`, given unexecuted): the
   * way for statements that are not prepared() queries (those record by running on `tx`).
   */
  add(query: SQL | { toSQL(): { sql: string; params: unknown[] } }): void {
    const q = is(query, SQL) ? this.dialect.sqlToQuery(query) : (query as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    this.record({ sql: q.sql, args: q.params });
  }

  /**
   * Records an assertion: a condition (drizzle's `sql`, placeholders filled from `values`; build it once with
   * sqlOnce) that must hold when the unit runs, or the unit fails with `error()`. It reads, in the unit, what a decision
   * made before it rested on (a plan's monthly count, a source still active), so nothing can change between the two.
   */
  assert(condition: { sql: string; params: unknown[] }, values: Record<string, unknown>, error: () => Error): void {
    this.record({
      sql: `SELECT CASE WHEN (${condition.sql}) THEN 1 ELSE json('bpay assertion failed ' || random()) END`,
      args: fillPlaceholders(condition.params as Parameters<typeof fillPlaceholders>[0], values),
    });
    this.steps[this.steps.length - 1]!.assert = error;
  }

  /** How many statements are recorded: the index the next one gets. */
  get size(): number {
    return this.steps.length;
  }

  /** The unit fails with `error()` (and none of it takes effect) unless the statement recorded last changed exactly `changes` rows. */
  expectChanges(changes: number, error: () => Error): void {
    const last = this.steps[this.steps.length - 1];
    if (!last) throw new Error('a guard needs a statement before it');
    if (last.expect) throw new Error('a statement has one guard');
    last.expect = { changes, error };
  }

  /** Sends the unit; resolves once it has committed. Fails with a guard's error, or UnitStepError, or the batch's error. */
  async commit(): Promise<void> {
    if (this.results) throw new Error('the unit has already been sent');
    this.results = [];
    this.results = await this.runner(this.steps);
  }

  /** Statement `i`'s answer, after commit(). */
  result(i: number): ResultSet {
    const r = this.results?.[i];
    if (!r) throw new Error(`no result for step ${i}`);
    return r;
  }
}

/** A new unit on this handle's writer. */
export function writeUnit(db: DbOrTx): WriteUnit {
  const client = clientOf(db);
  const runner = client && runners.get(client);
  if (!runner || (db as unknown as { session: { tx?: unknown } }).session.tx) {
    throw new Error('writeUnit needs a database handle opened by openDb (a handle, not a transaction)');
  }
  return new WriteUnit(db as Db, runner);
}

/** The embedded runner: the steps in one closure unit of the group-commit writer, guards checked from row counts. */
export function runStepsIn(tx: { execute(stmt: InStatement): Promise<ResultSet> }) {
  return async (steps: UnitStep[]): Promise<ResultSet[]> => {
    const out: ResultSet[] = [];
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      let rs: ResultSet;
      try {
        rs = await tx.execute({ sql: step.sql, args: step.args as InValue[] });
      } catch (e) {
        if (step.assert && isAssertionFailure(e)) throw step.assert();
        throw new UnitStepError(i, e);
      }
      if (step.expect) {
        // The local driver reports 0 rows changed for a statement that returns rows (INSERT … RETURNING): ask SQLite.
        const changed = rs.columns.length > 0 ? Number((await tx.execute('SELECT changes()')).rows[0]?.[0]) : rs.rowsAffected;
        if (changed !== step.expect.changes) throw step.expect.error();
      }
      out.push(rs);
    }
    return out;
  };
}

const dialect = new SQLiteAsyncDialect();

/** A condition for unit.assert, its SQL text built once (on first use), its values bound per call by placeholder. */
export function sqlOnce(build: () => SQL): () => { sql: string; params: unknown[] } {
  let built: { sql: string; params: unknown[] } | undefined;
  return () => (built ??= dialect.sqlToQuery(build()));
}

/**
 * A row as an insert of `values` stores it: every column of the table, a column not given taking its literal default
 * (or null). For a unit of work as data, which builds the rows it writes instead of reading them back.
 */
export function rowAsInserted<T extends Table>(table: T, values: Partial<T['$inferSelect']>): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const given = (values as Record<string, unknown>)[key];
    const fallback = column.default === undefined || is(column.default, SQL) ? null : column.default;
    row[key] = given === undefined ? fallback : given;
  }
  return row as T['$inferSelect'];
}
