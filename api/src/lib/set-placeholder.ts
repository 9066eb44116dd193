import { sql } from 'drizzle-orm';

/**
 * A placeholder for a column's value in an UPDATE's `set` built once (db/prepared.ts). Drizzle's types take no
 * placeholder there, but at run time it wraps it as it wraps any value, in a Param with the column's encoder (a
 * Date is stored as the column's milliseconds), filled when the query runs: the same as a placeholder in an insert.
 */
export const setPlaceholder = <T>(name: string): T => sql.placeholder(name) as unknown as T;
