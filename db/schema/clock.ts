import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/*
 * The latest time bpay has read from its clock, written by the money sweep (every 30 s) and read at start (issue 27,
 * a clock that jumps). A process started after the system clock was set back begins from this mark instead of the
 * earlier system time, so no bcard, lease or link it meets lives longer by the step. One row per writer is not
 * needed: every process writes the greatest time it has seen, never a smaller one.
 */
export const clockMarks = sqliteTable('clock_marks', {
  /** Always 'bpay'. */
  id: text('id').primaryKey(),
  atMs: integer('at_ms').notNull(),
});
