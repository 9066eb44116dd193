import { is, Param, Placeholder } from 'drizzle-orm';
import type { DbOrTx } from './client';

/*
 * SQL built once (issue 29 §3). Drizzle builds a query's SQL text on every call (its builders, mergeQueries,
 * escapeName: about a fifth of the server's CPU under intent load). A query written here is built once per database
 * handle, with `sql.placeholder(name)` where its values go, and afterwards each call only fills the placeholders: the
 * SQL text is a constant and the values a list, the shape a batch sent over a network needs (issue 30).
 *
 * Drizzle binds a prepared query to the handle it was built on: built on `db` it runs on the pool, built on a
 * transaction it runs on that transaction. Building per transaction would build every time, so the query is built
 * once per drizzle database (keyed by its session's options, which its transactions share: the same client, logger
 * and cache; two drizzle handles on one client, as the query-plan test's logging one, get a build each) and each
 * call gets a view of it bound to the caller's transaction, or to none: `prepared(build)(tx)` runs inside `tx`, sees its uncommitted writes and is
 * rolled back with it (db/prepared.test.ts). Nothing is held on a connection here: the driver's statement cache
 * (client.ts, reusePreparedStatements) prepares the constant text once per connection, again after a reconnect or a
 * schema change, so a query built here survives both.
 *
 * Every value must be a placeholder: anything else is fixed at build time, for every later call. That includes a
 * column's $defaultFn (an id, a timestamp): an insert built here names every such column with a placeholder.
 *
 * A null given for a column's placeholder is bound as null, as drizzle binds a null it is given in a query built per
 * call. Drizzle's own placeholder filling would encode it (a boolean column's null becoming false, a timestamp's
 * throwing), so the built query's parameters are wrapped once to let null through.
 */
interface BoundSession {
  /** One object per drizzle() handle, passed on to the sessions of its transactions (drizzle-orm/libsql). */
  options: object;
  tx?: unknown;
}

export function prepared<Q extends object>(build: (db: DbOrTx) => Q): (db: DbOrTx) => Q {
  const built = new WeakMap<object, Q>();
  return (db) => {
    const session = (db as unknown as { session: BoundSession }).session;
    let query = built.get(session.options);
    if (query === undefined) {
      query = build(db);
      letNullThrough(query);
      // Kept for every later caller: not bound to the transaction (or unit of work) it happened to be built on.
      (query as { tx?: unknown }).tx = undefined;
      built.set(session.options, query);
    }
    // Drizzle's prepared query runs on its `tx` when it has one, else on its client (drizzle-orm/libsql/session.js).
    if ((query as { tx?: unknown }).tx === session.tx) return query;
    return Object.create(query, { tx: { value: session.tx } }) as Q;
  };
}

interface Encoder {
  mapToDriverValue(value: unknown): unknown;
}

function letNullThrough(query: object): void {
  const built = (query as { query?: { params?: unknown[] } }).query;
  if (!built?.params) return;
  built.params = built.params.map((p) => {
    if (!is(p, Param) || !is(p.value, Placeholder)) return p;
    const encoder = p.encoder as Encoder;
    return new Param(p.value, { mapToDriverValue: (v: unknown) => (v === null ? null : encoder.mapToDriverValue(v)) });
  });
}

/**
 * A query whose SQL depends on a count: an IN list of n values, an insert of n rows, a CASE over n rows. Built once
 * per count actually used (lazily, each as prepared() builds it), so a multi-row statement is still one constant text
 * per row count; `build` names its placeholders per position (`slots('id', n)`, filled with `slotValues`).
 */
export function preparedPerCount<Q extends object>(build: (db: DbOrTx, n: number) => Q): (db: DbOrTx, n: number) => Q {
  const perCount = new Map<number, (db: DbOrTx) => Q>();
  return (db, n) => {
    let query = perCount.get(n);
    if (query === undefined) perCount.set(n, (query = prepared((d) => build(d, n))));
    return query(db);
  };
}

/** `n` placeholders named `<name>0`, `<name>1`, …: one per row or list position of a query built per count. */
export function slots(name: string, n: number): Placeholder<string>[] {
  return Array.from({ length: n }, (_, i) => new Placeholder(`${name}${i}`));
}

/** The values for slots(name, values.length), as the placeholder object a prepared query takes. */
export function slotValues(name: string, values: readonly unknown[], into: Record<string, unknown> = {}): Record<string, unknown> {
  for (let i = 0; i < values.length; i++) into[`${name}${i}`] = values[i];
  return into;
}
