import { afterEach, beforeEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { openDb, retryBusyAsync } from './client';

/*
 * BPAY_DB_ASYNC_LOCK_WAIT=1 (issue 29 §5, docs/SCALING.md): a process sharing the file waits for another's write lock
 * asynchronously. The other writer here is a connection of its own (libsql's Database, outside this handle's
 * in-process write lock), as another process would be; it lets go from a timer, which can only fire if the waiting
 * write leaves the event loop running. With SQLite's busy handler (the default) the loop stops inside BEGIN IMMEDIATE,
 * the timer never fires and the write fails SQLITE_BUSY after the busy timeout.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-async-lock-'));
  process.env.BPAY_DB_ASYNC_LOCK_WAIT = '1';
});
afterEach(() => {
  delete process.env.BPAY_DB_ASYNC_LOCK_WAIT;
  rmSync(dir, { recursive: true, force: true });
});

const values = async (h: ReturnType<typeof openDb>) => (await h.client.execute('SELECT v FROM t ORDER BY v')).rows.map((r) => Number(r.v));

test('a write waiting for another writer lets timers run meanwhile, then commits; the connection that met SQLITE_BUSY is not left on an old snapshot', async () => {
  const file = join(dir, 'a.db');
  const handle = openDb({ url: `file:${file}` });
  const other = new Database(file, { timeout: 0 });
  try {
    await handle.client.execute('CREATE TABLE t (v INTEGER)');
    expect(Number((await handle.client.execute('PRAGMA busy_timeout')).rows[0]![0])).toBe(0);
    other.exec('BEGIN IMMEDIATE');
    other.exec('INSERT INTO t VALUES (1)');
    let ticks = 0;
    const timer = setInterval(() => {
      if (++ticks === 20) other.exec('COMMIT');
    }, 1);
    await handle.client.execute('INSERT INTO t VALUES (2)');
    const ticksBeforeItCommitted = ticks;
    clearInterval(timer);
    expect(ticksBeforeItCommitted).toBeGreaterThanOrEqual(20);
    expect(await values(handle)).toEqual([1, 2]);
    // A failed prepared BEGIN would keep its read snapshot: the pool's connection would then miss this row and never
    // take the write lock again.
    other.exec('INSERT INTO t VALUES (3)');
    expect(await values(handle)).toEqual([1, 2, 3]);
    await handle.client.execute('INSERT INTO t VALUES (4)');
    expect(await values(handle)).toEqual([1, 2, 3, 4]);
  } finally {
    other.close();
    handle.close();
  }
});

test('a transaction (a group-commit unit) waits the same way, and units queued meanwhile commit', async () => {
  const file = join(dir, 'b.db');
  const handle = openDb({ url: `file:${file}` });
  const other = new Database(file, { timeout: 0 });
  try {
    await handle.client.execute('CREATE TABLE t (v INTEGER)');
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    const timer = setInterval(() => {
      if (++ticks === 10) other.exec('COMMIT');
    }, 1);
    const unit = (async () => {
      const tx = await handle.client.transaction('write');
      await tx.execute('INSERT INTO t VALUES (10)');
      await tx.commit();
    })();
    await Promise.all([unit, ...[11, 12, 13].map((v) => handle.client.execute({ sql: 'INSERT INTO t VALUES (?)', args: [v] }))]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThanOrEqual(10);
    expect(await values(handle)).toEqual([10, 11, 12, 13]);
  } finally {
    other.close();
    handle.close();
  }
});

test('the wait gives up with SQLITE_BUSY at its deadline; any other error is thrown at once', async () => {
  const busy = () => Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
  let tries = 0;
  const gaveUp = await retryBusyAsync(async () => {
    tries++;
    throw busy();
  }, 30).catch((e: unknown) => e);
  expect((gaveUp as { code?: string }).code).toBe('SQLITE_BUSY');
  expect(tries).toBeGreaterThan(1);
  tries = 0;
  const other = await retryBusyAsync(async () => {
    tries++;
    throw Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT' });
  }).catch((e: unknown) => e);
  expect((other as { code?: string }).code).toBe('SQLITE_CONSTRAINT');
  expect(tries).toBe(1);
});

test('off by default: connections keep the busy timeout', async () => {
  delete process.env.BPAY_DB_ASYNC_LOCK_WAIT;
  const handle = openDb({ url: `file:${join(dir, 'c.db')}` });
  try {
    expect(Number((await handle.client.execute('PRAGMA busy_timeout')).rows[0]![0])).toBe(5000);
  } finally {
    handle.close();
  }
});
