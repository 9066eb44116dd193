/*
 * A full disk, in a test (issue 27): the database refuses to grow, and bpay's writes fail with SQLite's own
 * SQLITE_FULL ("database or disk is full").
 *
 * `PRAGMA max_page_count` is per connection, and @libsql/client keeps a pool of them (any of which may carry the
 * group-commit writer's next transaction), so fillDisk() sets the limit on every open connection at once (one
 * mid-transaction included: the pragma needs no lock, so a test can fill the disk from inside a processor call) and
 * on every connection borrowed while the disk is full; freeDisk() lifts it on each.
 *
 * The limit alone would let a write through that fits in free space left inside an existing page; on a real full
 * disk in WAL mode every write fails, because each commit has to grow the -wal file. So installFullDisk() also adds
 * triggers that, on a connection under the limit only, make every insert, update and delete on bpay's tables write a
 * blob larger than the room left: each such statement fails with SQLITE_FULL, as it would on a real full disk. On a
 * connection without the limit their WHEN is false and they cost a comparison.
 *
 * The simulated processor's tables (sim_*) stand for a processor elsewhere, whose disk is not ours: they are left out
 * of the triggers, and spare pages under the limit leave room for their rows, so a hold placed at the processor stays
 * placed while bpay cannot record it.
 */
import { ConnectionPool } from '@libsql/client/sqlite3';
import type { TestContext } from './app';

/** Pages left under the limit: room for the simulator's rows, never for a trigger's blob. */
const SPARE_PAGES = 64;
const FILLER_PAGES = SPARE_PAGES + 32;
const NO_LIMIT = 1_073_741_823;
/** Any limit below this is a full disk, for the triggers' WHEN. */
const FULL_BELOW = 1_000_000_000;
const TRIGGER_PREFIX = 'bpay_test_disk_full_';

interface Conn {
  open: boolean;
  exec(sql: string): unknown;
}

const state = { limit: null as number | null, readOnly: false, seen: new Set<Conn>() };

function setLimit(conn: Conn, limit: number): void {
  if (conn.open) conn.exec(`PRAGMA max_page_count = ${limit}`);
}

function setReadOnly(conn: Conn, on: boolean): void {
  if (conn.open) conn.exec(`PRAGMA query_only = ${on ? 1 : 0}`);
}

type AcquireSync = (this: ConnectionPool, forTransaction?: boolean) => Conn;
const proto = ConnectionPool.prototype as unknown as { acquireSync: AcquireSync; __bpayFullDisk?: boolean };
if (!proto.__bpayFullDisk) {
  const original = proto.acquireSync;
  proto.acquireSync = function acquireSync(forTransaction?: boolean) {
    const conn = original.call(this, forTransaction);
    state.seen.add(conn);
    if (state.limit !== null) setLimit(conn, state.limit);
    if (state.readOnly) setReadOnly(conn, true);
    return conn;
  };
  proto.__bpayFullDisk = true;
}

/**
 * Adds the triggers (and the table their blobs would go to) to `ctx`'s database. Call it once the scenario's world is
 * set up (a fork copies them with the file); the disk stays free until fillDisk().
 */
export async function installFullDisk(ctx: TestContext): Promise<void> {
  const c = ctx.handle.client;
  await c.execute('CREATE TABLE IF NOT EXISTS bpay_test_disk_filler (b BLOB NOT NULL)');
  const pageSize = Number((await c.execute('PRAGMA page_size')).rows[0]?.[0]);
  const tables = (
    await c.execute(
      // Not the FTS5 indexes (a virtual table takes no trigger) nor the tables named after them (their shadow tables
      // and the search documents, which only triggers on users and merchants write: those writes fail already).
      `SELECT name FROM sqlite_schema t WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sim_%'
          AND name NOT LIKE '__drizzle%' AND name != 'bpay_test_disk_filler' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
          AND NOT EXISTS (SELECT 1 FROM sqlite_schema v WHERE v.sql LIKE 'CREATE VIRTUAL TABLE%' AND t.name LIKE v.name || '!_%' ESCAPE '!')`,
    )
  ).rows.map((r) => String(r.name));
  const ddl = tables.flatMap((t) =>
    (['INSERT', 'UPDATE', 'DELETE'] as const).map(
      (op) =>
        `CREATE TRIGGER IF NOT EXISTS ${TRIGGER_PREFIX}${op.toLowerCase()}_${t} AFTER ${op} ON "${t}" ` +
        `WHEN (SELECT max_page_count FROM pragma_max_page_count()) < ${FULL_BELOW} ` +
        `BEGIN INSERT INTO bpay_test_disk_filler (b) VALUES (zeroblob(${FILLER_PAGES * pageSize})); END`,
    ),
  );
  await c.executeMultiple(ddl.join(';\n'));
}

/**
 * The disk under `ctx`'s database is full: from now on every write to bpay's tables fails with SQLITE_FULL. Needs no
 * write lock (a read and a pragma), so it may be called from inside a processor call in the middle of a saga.
 */
export async function fillDisk(ctx: TestContext): Promise<void> {
  const pages = Number((await ctx.handle.client.execute('PRAGMA page_count')).rows[0]?.[0]);
  if (!(pages > 0)) throw new Error('could not read the page count');
  state.limit = pages + SPARE_PAGES;
  for (const c of state.seen) setLimit(c, state.limit);
}

/**
 * The disk under the database went read-only (Linux remounts a filesystem read-only after I/O errors): every write,
 * the simulated processor's included, fails with SQLITE_READONLY ("attempt to write a readonly database").
 */
export function readOnlyDisk(): void {
  state.readOnly = true;
  for (const c of state.seen) setReadOnly(c, true);
}

/** Space returns (and the disk is writable again): the limit is lifted on every connection. */
export function freeDisk(): void {
  const wasReadOnly = state.readOnly;
  state.limit = null;
  state.readOnly = false;
  for (const c of [...state.seen]) {
    if (c.open) {
      setLimit(c, NO_LIMIT);
      if (wasReadOnly) setReadOnly(c, false);
    } else state.seen.delete(c);
  }
}

/** Whether the disk is full now. */
export const diskIsFull = () => state.limit !== null;
