import type { SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { DbOrTx } from './client';

/**
 * The first row of `table` matching `where`, or undefined: what `db.query.<table>.findFirst({ where })` answers,
 * without Drizzle's relational query builder, which costs about twice a plain select per call (measured on the
 * bcard path, issue 14: 165 µs against 75 µs, the statement itself 25 µs). For a lookup that needs relations,
 * chosen columns or an order, use findFirst or a select.
 */
export async function firstRow<T extends SQLiteTable>(db: DbOrTx, table: T, where: SQL | undefined): Promise<T['$inferSelect'] | undefined> {
  const rows = (await (db as unknown as SelectAll).select().from(table).where(where).limit(1)) as Array<T['$inferSelect']>;
  return rows[0];
}

/** Drizzle's select chain, typed loosely enough to take any table (its own types are per table). */
interface SelectAll {
  select(): { from(t: SQLiteTable): { where(w: SQL | undefined): { limit(n: number): Promise<unknown[]> } } };
}
