import type { InStatement } from '@libsql/client';

/** SQLITE_MAX_VARIABLE_NUMBER in this libSQL build: one statement binds at most this many values. */
export const MAX_VARIABLES = 32_766;

export type Value = string | number | null;

/** Rows of one table, to be written as few multi-row INSERT statements (each within SQLite's variable limit). */
export class TableRows {
  readonly rows: Value[][] = [];
  constructor(
    readonly table: string,
    readonly columns: readonly string[],
  ) {}
  add(...row: Value[]) {
    if (row.length !== this.columns.length) throw new Error(`${this.table}: ${row.length} values for ${this.columns.length} columns`);
    this.rows.push(row);
  }
  statements(): InStatement[] {
    const perStatement = Math.min(500, Math.floor(MAX_VARIABLES / this.columns.length));
    const tuple = `(${this.columns.map(() => '?').join(',')})`;
    const out: InStatement[] = [];
    for (let i = 0; i < this.rows.length; i += perStatement) {
      const part = this.rows.slice(i, i + perStatement);
      out.push({
        sql: `INSERT INTO ${this.table} (${this.columns.join(',')}) VALUES ${Array(part.length).fill(tuple).join(',')}`,
        args: part.flat(),
      });
    }
    return out;
  }
}
