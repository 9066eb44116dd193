import { afterEach, beforeEach, expect, test } from 'bun:test';
import Database from 'libsql';
import { join } from 'node:path';
import { isDatabaseBusy } from './errors';
import { call, makeTestApp, memoryLogger, type TestContext } from '../test-support/app';

/*
 * Hostile audit of issue 29 §5 (BPAY_REUSE_PORT=1, two processes on one file): another process holds the write lock
 * past the wait's deadline (it hangs inside a transaction). That is contention, not a bug of bpay's: the request is
 * answered 503 database_busy in the error shape, with Retry-After, never an opaque 500, nothing of it is written,
 * and once the other process lets go the same request succeeds.
 */

let ctx: TestContext;
const log = memoryLogger();
beforeEach(async () => {
  process.env.BPAY_DB_ASYNC_LOCK_WAIT = '1';
  ctx = await makeTestApp({ log });
});
afterEach(() => {
  ctx.close();
  delete process.env.BPAY_DB_ASYNC_LOCK_WAIT;
});

const register = () =>
  call(ctx, '/api/auth/register', {
    method: 'POST',
    body: { email: 'busy.file@example.com', password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });

test('a write that never gets the other process\'s write lock: 503 database_busy with Retry-After, nothing written; after it lets go, the write succeeds', async () => {
  const other = new Database(join(ctx.dir, 'test.db'), { timeout: 0 });
  try {
    other.exec('BEGIN IMMEDIATE');
    const res = await register();
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('database_busy');
    expect(res.body.error.type).toBe('api_error');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.text).not.toMatch(/SQLITE|locked/i);
    other.exec('ROLLBACK');
    expect((await ctx.handle.client.execute("SELECT count(*) AS n FROM users WHERE email = 'busy.file@example.com'")).rows[0]!.n).toBe(0);
    expect((await register()).status).toBe(201);
  } finally {
    other.close();
  }
}, 20_000);

test('isDatabaseBusy: SQLite\'s busy codes (also wrapped, also extended) and the in-process write lock\'s timeout; nothing else', () => {
  expect(isDatabaseBusy(Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' }))).toBe(true);
  expect(isDatabaseBusy({ cause: Object.assign(new Error('x'), { code: 'SQLITE_BUSY_RECOVERY' }) })).toBe(true);
  expect(isDatabaseBusy(Object.assign(new Error('x'), { rawCode: 517 }))).toBe(true);
  expect(isDatabaseBusy(Object.assign(new Error('x'), { code: 'BPAY_WRITE_LOCK_TIMEOUT' }))).toBe(true);
  expect(isDatabaseBusy(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT', rawCode: 2067 }))).toBe(false);
  expect(isDatabaseBusy(new Error('boom'))).toBe(false);
});

test('the in-process queue drains after a give-up: a write queued behind the one that gave up waits afresh and commits once the other process lets go', async () => {
  const other = new Database(join(ctx.dir, 'test.db'), { timeout: 0 });
  try {
    other.exec('BEGIN IMMEDIATE');
    const first = register();
    // Queued behind the first in this process's write lock; the other process lets go while it waits (the timer can
    // fire only because the wait leaves the event loop running).
    const second = call(ctx, '/api/auth/register', {
      method: 'POST',
      body: { email: 'queued.behind@example.com', password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
    });
    const firstRes = await first;
    setTimeout(() => other.exec('ROLLBACK'), 500);
    expect(firstRes.status).toBe(503);
    expect((await second).status).toBe(201);
    expect((await register()).status).toBe(201);
  } finally {
    other.close();
  }
}, 20_000);
