import { afterEach, beforeEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { inArray } from 'drizzle-orm';
import { openDb, prepared, preparedPerCount, schema, slots, slotValues, type DbHandle, type DbOrTx } from './client';

/*
 * prepared() (db/prepared.ts): a query built once per client, run on whichever handle the caller gives, `db` or a
 * transaction, and still right after a reconnect and a schema change.
 */

const things = sqliteTable('things', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  n: integer('n').notNull(),
  flag: integer('flag', { mode: 'boolean' }),
  at: integer('at', { mode: 'timestamp_ms' }),
});

const THINGS_SQL = 'CREATE TABLE things (id TEXT PRIMARY KEY, name TEXT NOT NULL, n INTEGER NOT NULL, flag INTEGER, at INTEGER)';

let dir: string;
let handle: DbHandle;
let builds = 0;

const thingById = prepared((db: DbOrTx) => {
  builds++;
  return db.select().from(things).where(eq(things.id, sql.placeholder('id'))).limit(1).prepare();
});
const insertThing = prepared((db: DbOrTx) =>
  db.insert(things).values({ id: sql.placeholder('id'), name: sql.placeholder('name'), n: sql.placeholder('n') }).prepare(),
);
const insertFlagged = prepared((db: DbOrTx) =>
  db
    .insert(things)
    .values({ id: sql.placeholder('id'), name: 'f', n: 0, flag: sql.placeholder('flag'), at: sql.placeholder('at') })
    .returning({ flag: things.flag, at: things.at })
    .prepare(),
);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-prepared-'));
  handle = openDb({ url: `file:${join(dir, 'x.db')}` });
  await handle.client.execute(THINGS_SQL);
});

afterEach(() => {
  handle.close();
  rmSync(dir, { recursive: true, force: true });
});

test('built once, then run on the transaction it is given: it sees that transaction\'s own write, and is rolled back with it', async () => {
  const { db } = handle;
  builds = 0;
  expect(await thingById(db).get({ id: 'a' })).toBeUndefined();
  const failure = new Error('undo');
  const seenInside = await db
    .transaction(async (tx) => {
      await insertThing(tx).run({ id: 'a', name: 'inside', n: 1 });
      // The same query, built on db above, now runs on tx: the uncommitted row is visible to it.
      const row = await thingById(tx).get({ id: 'a' });
      // Outside the transaction (another connection) it is not there yet.
      expect(await thingById(db).get({ id: 'a' })).toBeUndefined();
      throw Object.assign(failure, { row });
    })
    .catch((e: Error & { row?: unknown }) => e.row);
  expect(seenInside).toEqual({ id: 'a', name: 'inside', n: 1, flag: null, at: null });
  // Rolled back with the transaction.
  expect(await thingById(db).get({ id: 'a' })).toBeUndefined();
  await db.transaction(async (tx) => {
    await insertThing(tx).run({ id: 'b', name: 'kept', n: 2 });
    // In a savepoint inside it, too (runIdempotentAtomic runs its handler so).
    await tx.transaction(async (inner) => expect(await thingById(inner).get({ id: 'b' })).toEqual({ id: 'b', name: 'kept', n: 2, flag: null, at: null }));
  });
  expect(await thingById(db).get({ id: 'b' })).toEqual({ id: 'b', name: 'kept', n: 2, flag: null, at: null });
  expect(builds).toBe(1);
});

test('a query first built inside a transaction runs outside it afterwards, on the pool', async () => {
  const q = prepared((db: DbOrTx) => db.select({ n: things.n }).from(things).where(eq(things.id, sql.placeholder('id'))).prepare());
  await handle.db.transaction(async (tx) => {
    await insertThing(tx).run({ id: 'c', name: 'c', n: 3 });
    expect(await q(tx).all({ id: 'c' })).toEqual([{ n: 3 }]);
  });
  // The transaction is over; a view bound to no transaction reads through the client.
  expect(await q(handle.db).all({ id: 'c' })).toEqual([{ n: 3 }]);
});

test('each database handle gets its own build: a query is never run on another file', async () => {
  const other = openDb({ url: `file:${join(dir, 'y.db')}` });
  try {
    await other.client.execute(THINGS_SQL);
    await insertThing(handle.db).run({ id: 'd', name: 'here', n: 4 });
    await insertThing(other.db).run({ id: 'd', name: 'there', n: 5 });
    expect((await thingById(handle.db).get({ id: 'd' }))?.name).toBe('here');
    expect((await thingById(other.db).get({ id: 'd' }))?.name).toBe('there');
  } finally {
    other.close();
  }
});

test('survives a reconnect: the client reopens its connections and the same query runs on the new ones', async () => {
  await insertThing(handle.db).run({ id: 'e', name: 'before', n: 6 });
  expect((await thingById(handle.db).get({ id: 'e' }))?.name).toBe('before');
  await handle.client.reconnect();
  expect((await thingById(handle.db).get({ id: 'e' }))?.name).toBe('before');
  await insertThing(handle.db).run({ id: 'f', name: 'after', n: 7 });
  await handle.db.transaction(async (tx) => expect((await thingById(tx).get({ id: 'f' }))?.n).toBe(7));
});

test('survives a migration that rebuilds the table with its columns in another order', async () => {
  await insertThing(handle.db).run({ id: 'g', name: 'gee', n: 8 });
  expect(await thingById(handle.db).get({ id: 'g' })).toEqual({ id: 'g', name: 'gee', n: 8, flag: null, at: null });
  // What drizzle-kit writes for a table it cannot ALTER: a new table, the rows copied, the old one dropped.
  await handle.client.migrate([
    'CREATE TABLE things_new (at INTEGER, n INTEGER NOT NULL, extra TEXT, flag INTEGER, name TEXT NOT NULL, id TEXT PRIMARY KEY)',
    "INSERT INTO things_new (at, n, extra, flag, name, id) SELECT at, n, 'x', flag, name, id FROM things",
    'DROP TABLE things',
    'ALTER TABLE things_new RENAME TO things',
  ]);
  // The same query (named columns, prepared afresh by the driver) maps each value to its column.
  expect(await thingById(handle.db).get({ id: 'g' })).toEqual({ id: 'g', name: 'gee', n: 8, flag: null, at: null });
  await insertThing(handle.db).run({ id: 'h', name: 'aitch', n: 9 });
  await handle.db.transaction(async (tx) => expect(await thingById(tx).get({ id: 'h' })).toEqual({ id: 'h', name: 'aitch', n: 9, flag: null, at: null }));
});

test('two drizzle handles on one client get a build each: each runs with its own logger', async () => {
  const { drizzle } = await import('drizzle-orm/libsql');
  const logged: string[] = [];
  const logging = drizzle(handle.client, { schema, logger: { logQuery: (q) => void logged.push(q) } });
  await insertThing(handle.db).run({ id: 'i', name: 'eye', n: 10 });
  expect((await thingById(handle.db).get({ id: 'i' }))?.n).toBe(10);
  expect(logged).toEqual([]);
  expect((await thingById(logging).get({ id: 'i' }))?.n).toBe(10);
  await logging.transaction(async (tx) => void (await thingById(tx).get({ id: 'i' })));
  expect(logged.filter((q) => q.includes('"things"'))).toHaveLength(2);
});

test('a null is bound as null, a value through its column\'s encoding, as drizzle does per call', async () => {
  const at = new Date(1_700_000_000_123);
  expect(await insertFlagged(handle.db).get({ id: 'j', flag: null, at: null })).toEqual({ flag: null, at: null });
  expect(await insertFlagged(handle.db).get({ id: 'k', flag: false, at })).toEqual({ flag: false, at });
  expect(await insertFlagged(handle.db).get({ id: 'l', flag: true, at })).toEqual({ flag: true, at });
  const stored = await handle.client.execute("SELECT id, flag, at FROM things WHERE id IN ('j', 'k', 'l') ORDER BY id");
  expect(stored.rows.map((r) => [r.id, r.flag, r.at])).toEqual([['j', null, null], ['k', 0, at.getTime()], ['l', 1, at.getTime()]]);
});

test('per count: a multi-row insert and an IN list are built once for each row count used, and run inside the transaction given', async () => {
  const { db } = handle;
  const built: number[] = [];
  const insertMany = preparedPerCount((d: DbOrTx, n: number) => {
    built.push(n);
    const ids = slots('id', n);
    const ns = slots('n', n);
    return d.insert(things).values(ids.map((id, i) => ({ id, name: sql.placeholder('name'), n: ns[i]!, at: sql.placeholder('at') }))).prepare();
  });
  const namesOf = preparedPerCount((d: DbOrTx, n: number) =>
    d.select({ id: things.id, n: things.n, at: things.at }).from(things).where(inArray(things.id, slots('id', n))).orderBy(things.id).prepare(),
  );
  const at = new Date(1_700_000_000_000);
  const failure = new Error('undo');
  await db
    .transaction(async (tx) => {
      await insertMany(tx, 2).run(slotValues('n', [1, 2], slotValues('id', ['a', 'b'], { name: 'x', at })));
      expect(await namesOf(tx, 2).all(slotValues('id', ['a', 'b']))).toEqual([{ id: 'a', n: 1, at }, { id: 'b', n: 2, at }]);
      throw failure;
    })
    .catch((e) => expect(e).toBe(failure));
  expect(await namesOf(db, 2).all(slotValues('id', ['a', 'b']))).toEqual([]);
  await insertMany(db, 3).run(slotValues('n', [3, 4, 5], slotValues('id', ['c', 'd', 'e'], { name: 'y', at })));
  await insertMany(db, 2).run(slotValues('n', [6, 7], slotValues('id', ['f', 'g'], { name: 'z', at: null })));
  expect(await namesOf(db, 3).all(slotValues('id', ['c', 'e', 'g']))).toEqual([{ id: 'c', n: 3, at }, { id: 'e', n: 5, at }, { id: 'g', n: 7, at: null }]);
  expect(await namesOf(db, 1).all(slotValues('id', ['d']))).toEqual([{ id: 'd', n: 4, at }]);
  expect(built).toEqual([2, 3]);
});
