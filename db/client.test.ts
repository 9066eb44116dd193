import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import type { Client, Transaction } from '@libsql/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import Database from 'libsql';
import { BUSY_TIMEOUT_MS, execRetryingBusy, migrateDb, openDb, STATEMENT_CACHE_SIZE, type DbHandle } from './client';
import { groupCommitTests } from './group-commit.shared';

/*
 * Every connection the pool hands out must run WAL, synchronous=FULL, a busy timeout and foreign keys. The pool
 * opens connections lazily (a second one while a transaction holds the first), so the checks cover the
 * connections used inside, after and beside a transaction, not only the first one.
 */

type Executor = Pick<Client | Transaction, 'execute'>;

async function pragma(on: Executor, name: string): Promise<unknown> {
  const rs = await on.execute(`PRAGMA ${name}`);
  const row = rs.rows[0];
  if (!row) throw new Error(`PRAGMA ${name} returned no row`);
  return row[0];
}

async function expectConnectionPragmas(on: Executor): Promise<void> {
  expect(String(await pragma(on, 'journal_mode')).toLowerCase()).toBe('wal');
  expect(Number(await pragma(on, 'synchronous'))).toBe(2); // FULL
  expect(Number(await pragma(on, 'busy_timeout'))).toBe(BUSY_TIMEOUT_MS);
  expect(BUSY_TIMEOUT_MS).toBe(5000);
  expect(Number(await pragma(on, 'foreign_keys'))).toBe(1);
}

let dir: string;
let handle: DbHandle;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-db-'));
  handle = openDb({ url: `file:${join(dir, 'x.db')}` });
  await migrateDb(handle.db);
});

afterEach(() => {
  handle.close();
  rmSync(dir, { recursive: true, force: true });
});

const insertUser = (on: Executor, id: string) =>
  on.execute({
    sql: `INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at)
          VALUES (?, ?, ?, 'x', 0, 0)`,
    args: [id, `${id}@example.com`, `${id}@example.com`],
  });

const countUsers = async (on: Executor, id: string) =>
  Number((await on.execute({ sql: 'SELECT count(*) FROM users WHERE id = ?', args: [id] })).rows[0]?.[0]);

describe('connection pragmas', () => {
  test('a fresh handle', async () => {
    await expectConnectionPragmas(handle.client);
  });

  test('a handle that was never migrated (the pragmas do not come from the migrator)', async () => {
    const other = openDb({ url: `file:${join(dir, 'bare.db')}` });
    try {
      await expectConnectionPragmas(other.client);
    } finally {
      other.close();
    }
  });

  test('inside a write transaction', async () => {
    const tx = await handle.client.transaction('write');
    try {
      await expectConnectionPragmas(tx);
    } finally {
      await tx.rollback();
    }
  });

  test('on the connection used after a transaction commits', async () => {
    const tx = await handle.client.transaction('write');
    await insertUser(tx, 'usr_committed');
    await tx.commit();
    expect(await countUsers(handle.client, 'usr_committed')).toBe(1);
    await expectConnectionPragmas(handle.client);
    // And through drizzle's own transaction helper.
    await handle.db.transaction(async (t) => {
      await t.run('SELECT 1');
    });
    await expectConnectionPragmas(handle.client);
  });

  test('on a second connection opened while a transaction holds the first', async () => {
    const tx = await handle.client.transaction('write');
    try {
      await insertUser(tx, 'usr_uncommitted');
      // Another connection cannot see the uncommitted row: proof that this really is a different connection.
      expect(await countUsers(handle.client, 'usr_uncommitted')).toBe(0);
      expect(await countUsers(tx, 'usr_uncommitted')).toBe(1);
      const [fk, sync, busy, journal] = await Promise.all([
        pragma(handle.client, 'foreign_keys'),
        pragma(handle.client, 'synchronous'),
        pragma(handle.client, 'busy_timeout'),
        pragma(handle.client, 'journal_mode'),
      ]);
      expect(Number(fk)).toBe(1);
      expect(Number(sync)).toBe(2);
      expect(Number(busy)).toBe(BUSY_TIMEOUT_MS);
      expect(String(journal).toLowerCase()).toBe('wal');
    } finally {
      await tx.rollback();
    }
    expect(await countUsers(handle.client, 'usr_uncommitted')).toBe(0);
  });

  test('on several connections opened beside several read transactions', async () => {
    const txs = [await handle.client.transaction('read'), await handle.client.transaction('read')];
    try {
      for (const tx of txs) await expectConnectionPragmas(tx);
      await expectConnectionPragmas(handle.client);
    } finally {
      for (const tx of txs) await tx.rollback();
    }
  });
});

describe('a new connection on a busy file', () => {
  test('its set-up is tried again once the other connection lets go (SQLITE_BUSY is answered at once on a deadlock)', () => {
    const file = join(dir, 'busy.db');
    const other = new Database(file);
    const conn = new Database(file, { timeout: 0 });
    try {
      other.exec('BEGIN EXCLUSIVE');
      const waits: number[] = [];
      execRetryingBusy(conn, 'PRAGMA journal_mode = WAL', 1000, Date.now, (ms) => {
        waits.push(ms);
        if (waits.length === 2) other.exec('COMMIT');
      });
      expect(waits).toEqual([5, 10]);
      expect((conn.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    } finally {
      conn.close();
      other.close();
    }
  });

  test('another error is thrown at once, and SQLITE_BUSY past the timeout is thrown', () => {
    const file = join(dir, 'busy2.db');
    const other = new Database(file);
    const conn = new Database(file, { timeout: 0 });
    try {
      const waits: number[] = [];
      expect(() => execRetryingBusy(conn, 'PRAGMA nonsense(', 1000, Date.now, (ms) => waits.push(ms))).toThrow();
      expect(waits).toEqual([]);
      other.exec('BEGIN EXCLUSIVE');
      let t = 0;
      let thrown: unknown;
      try {
        execRetryingBusy(conn, 'PRAGMA journal_mode = WAL', 100, () => t, (ms) => {
          waits.push(ms);
          t += ms;
        });
      } catch (e) {
        thrown = e;
      }
      expect((thrown as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(waits).toEqual([5, 10, 20, 40, 80]);
      other.exec('COMMIT');
    } finally {
      conn.close();
      other.close();
    }
  });
});

describe('foreign keys', () => {
  test('a session row for an unknown user is refused', async () => {
    const insertSession = (on: Executor, userId: string) =>
      on.execute({
        sql: 'INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, 0, 1)',
        args: [`sess_${userId}`, userId],
      });
    await expect(insertSession(handle.client, 'usr_nobody')).rejects.toThrow(/FOREIGN KEY/i);
    // Also inside a transaction, on the transaction's connection.
    const tx = await handle.client.transaction('write');
    try {
      await expect(insertSession(tx, 'usr_nobody_either')).rejects.toThrow(/FOREIGN KEY/i);
    } finally {
      await tx.rollback();
    }
    // On a second connection, opened while a (read) transaction holds the first; a write transaction would
    // make this insert wait for its lock instead.
    const holder = await handle.client.transaction('read');
    await holder.execute('SELECT count(*) FROM users');
    try {
      await expect(insertSession(handle.client, 'usr_beside_tx')).rejects.toThrow(/FOREIGN KEY/i);
    } finally {
      await holder.rollback();
    }
    // On another handle to the same file that never ran the migrator (which switches foreign keys back on itself).
    const other = openDb({ url: `file:${join(dir, 'x.db')}` });
    try {
      await expect(insertSession(other.client, 'usr_other_handle')).rejects.toThrow(/FOREIGN KEY/i);
    } finally {
      other.close();
    }
    // A known user is accepted, so the refusal above was the foreign key and not some other error.
    await insertUser(handle.client, 'usr_known');
    await insertSession(handle.client, 'usr_known');
    const n = await handle.client.execute('SELECT count(*) FROM sessions');
    expect(Number(n.rows[0]?.[0])).toBe(1);
  });

  test('deleting a user cascades to its sessions', async () => {
    await insertUser(handle.client, 'usr_gone');
    await handle.client.execute(
      "INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ('s1', 'usr_gone', 0, 1)",
    );
    await handle.client.execute("DELETE FROM users WHERE id = 'usr_gone'");
    const n = await handle.client.execute('SELECT count(*) FROM sessions');
    expect(Number(n.rows[0]?.[0])).toBe(0);
  });
});

describe('in-process write lock', () => {
  test('a write made while another connection holds a write transaction across a timer waits, then succeeds', async () => {
    await migrateDb(handle.db);
    const now = Date.now();
    const user = (id: string) =>
      handle.client.execute({
        sql: `INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at)
              VALUES (?, ?, ?, 'x', ?, ?)`,
        args: [id, `${id}@example.com`, `${id}@example.com`, now, now],
      });
    const order: string[] = [];
    const inTransaction = (async () => {
      const tx = await handle.client.transaction('write');
      await tx.execute({
        sql: `INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at)
              VALUES ('usr_tx', 'tx@example.com', 'tx@example.com', 'x', ?, ?)`,
        args: [now, now],
      });
      // A real macrotask while the write lock is held (what a slow step inside a transaction would do).
      await new Promise((r) => setTimeout(r, 100));
      order.push('commit');
      await tx.commit();
    })();
    // Let the transaction start first.
    await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    const outside = user('usr_outside').then(() => order.push('outside'));
    await Promise.all([inTransaction, outside]);
    // Without the lock the outside write would block the event loop for the busy timeout and fail SQLITE_BUSY.
    expect(order).toEqual(['commit', 'outside']);
    expect(Date.now() - started).toBeLessThan(BUSY_TIMEOUT_MS);
    const rows = (await handle.client.execute('SELECT id FROM users ORDER BY id')).rows.map((r) => r.id);
    expect(rows).toEqual(['usr_outside', 'usr_tx']);
  });

  test('reads are not held up by an open write transaction', async () => {
    await migrateDb(handle.db);
    const tx = await handle.client.transaction('write');
    const rows = await Promise.race([
      handle.client.execute('SELECT count(*) AS n FROM users'),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 1000)),
    ]);
    expect(rows).not.toBe('timeout');
    await tx.rollback();
  });
});

describe('group commit', () => {
  groupCommitTests({ handle: () => handle, observer: () => openDb({ url: `file:${join(dir, 'x.db')}` }) });

  test('a statement SQLite will not run in a transaction (VACUUM) runs alone, after the open batch commits', async () => {
    await Promise.all([insertUser(handle.client, 'usr_v1'), handle.client.execute('VACUUM'), insertUser(handle.client, 'usr_v2')]);
    expect(await countUsers(handle.client, 'usr_v1')).toBe(1);
    expect(await countUsers(handle.client, 'usr_v2')).toBe(1);
  });
});

describe('prepared statements, reused', () => {
  /** How often SQLite is asked to prepare each SQL text, on handles opened while counting. */
  function countPrepares() {
    const proto = Database.prototype as unknown as { prepare(sql: string): unknown };
    const original = proto.prepare;
    const counts = new Map<string, number>();
    proto.prepare = function (this: unknown, sql: string) {
      counts.set(sql, (counts.get(sql) ?? 0) + 1);
      return original.call(this, sql);
    };
    return { counts, restore: () => void (proto.prepare = original) };
  }

  test('a statement run many times is prepared once per connection, and answers each run with its own values', async () => {
    const spy = countPrepares();
    const h = openDb({ url: `file:${join(dir, 'x.db')}` });
    try {
      for (let i = 0; i < 20; i++) await insertUser(h.client, `usr_p${i}`);
      for (let i = 0; i < 20; i++) expect(await countUsers(h.client, `usr_p${i}`)).toBe(1);
      expect(await countUsers(h.client, 'usr_nobody')).toBe(0);
      const select = [...spy.counts.keys()].find((k) => k.startsWith('SELECT count(*) FROM users'))!;
      expect(spy.counts.get(select)).toBeLessThanOrEqual(2);
    } finally {
      spy.restore();
      h.close();
    }
  });

  test('a schema change made here is seen at once, columns included, by a statement prepared before it', async () => {
    await insertUser(handle.client, 'usr_s1');
    const first = await handle.client.execute({ sql: 'SELECT * FROM users WHERE id = ?', args: ['usr_s1'] });
    expect(first.columns).not.toContain('nickname');
    await handle.client.execute('ALTER TABLE users ADD COLUMN nickname TEXT');
    const after = await handle.client.execute({ sql: 'SELECT * FROM users WHERE id = ?', args: ['usr_s1'] });
    expect(after.columns).toContain('nickname');
    expect(after.rows[0]?.nickname).toBeNull();
    expect(after.columns.length).toBe(first.columns.length + 1);
  });

  test('a schema change behind a leading comment is seen too', async () => {
    const sql = 'SELECT * FROM users LIMIT 1';
    const before = await handle.client.execute(sql);
    await handle.client.execute('/* a note */ -- and another\n ALTER TABLE users ADD COLUMN nickname2 TEXT');
    const after = await handle.client.execute(sql);
    expect(after.columns).toContain('nickname2');
    expect(after.columns.length).toBe(before.columns.length + 1);
  });

  test('a statement that fails is dropped, and the same text runs again correctly', async () => {
    await insertUser(handle.client, 'usr_f1');
    await expect(insertUser(handle.client, 'usr_f1')).rejects.toThrow();
    await insertUser(handle.client, 'usr_f2');
    expect(await countUsers(handle.client, 'usr_f2')).toBe(1);
  });

  test('more distinct statements than the cache holds: each still answers right, old ones included', async () => {
    const n = STATEMENT_CACHE_SIZE + 20;
    for (let i = 0; i < n; i++) {
      const rs = await handle.client.execute({ sql: `SELECT ? + ${i} AS v`, args: [1] });
      expect(Number(rs.rows[0]?.v)).toBe(1 + i);
    }
    const again = await handle.client.execute({ sql: 'SELECT ? + 0 AS v', args: [41] });
    expect(Number(again.rows[0]?.v)).toBe(41);
  });
});
