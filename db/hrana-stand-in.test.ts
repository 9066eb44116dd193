import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHranaServer, TXN_TIMEOUT_MS, type HranaServer } from '../api/test-support/hrana-server';
import { migrateDb, openDb, type DbHandle } from './client';
import { countUsers, insert } from './group-commit.shared';

/*
 * Issue 30 §1: the Hrana 2 stand-in (api/test-support/hrana-server.ts) behaves as sqld where the remote bench needs it:
 * it takes back a write transaction held past its timeout when another stream waits (sqld's TXN_TIMEOUT), and it
 * counts round trips, those made inside the write lock, and how long the lock was held.
 */

const TIMEOUT = 300;
let dir: string;
let server: HranaServer;
let handle: DbHandle;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-stand-in-'));
  server = startHranaServer({ path: join(dir, 'server.db'), txnTimeoutMs: TIMEOUT });
  handle = openDb({ url: server.url });
  await migrateDb(handle.db);
});

afterEach(() => {
  handle.close();
  server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a write transaction held past the timeout', () => {
  test("sqld's default is its TXN_TIMEOUT, 5 s", () => {
    expect(TXN_TIMEOUT_MS).toBe(5_000);
  });

  test('is taken back when another stream waits: the lock is freed for it, the holder gets an error, nothing half-written stays', async () => {
    // Another spelling of the URL is another lock key: as a second process would, it shares no in-process lock.
    const elsewhere = openDb({ url: `${server.url}/` });
    try {
      const tx = await handle.client.transaction('write');
      await insert(tx, 'usr_held');
      await sleep(TIMEOUT + 100);
      // The waiter's BEGIN meets the held lock, finds its holder past the timeout, and takes the lock back.
      await insert(elsewhere.client, 'usr_waiter');
      expect(server.stats.timedOut).toBe(1);
      // bpay's caller: its next statement is refused with sqld's error (not a hang), and so is its commit.
      await expect(insert(tx, 'usr_held2')).rejects.toThrow(/timed-out|TRANSACTION_TIMEOUT/i);
      await tx.rollback().catch(() => undefined);
      expect(await countUsers(elsewhere.client, 'usr_waiter')).toBe(1);
      expect(await countUsers(elsewhere.client, 'usr_held')).toBe(0);
      expect(await countUsers(elsewhere.client, 'usr_held2')).toBe(0);
      // The handle still writes afterwards.
      await insert(handle.client, 'usr_after');
      expect(await countUsers(elsewhere.client, 'usr_after')).toBe(1);
    } finally {
      elsewhere.close();
    }
  });

  test('is taken back while the holder is the one committing: the commit fails, nothing of it stays', async () => {
    const elsewhere = openDb({ url: `${server.url}/` });
    try {
      const tx = await handle.client.transaction('write');
      await insert(tx, 'usr_slow');
      await sleep(TIMEOUT + 100);
      await insert(elsewhere.client, 'usr_fast');
      await expect(tx.commit()).rejects.toThrow();
      expect(await countUsers(elsewhere.client, 'usr_slow')).toBe(0);
      expect(await countUsers(elsewhere.client, 'usr_fast')).toBe(1);
    } finally {
      elsewhere.close();
    }
  });

  test('is kept when nobody waits for the lock, as in sqld (the timeout frees the lock for a waiter, it is not a deadline)', async () => {
    const tx = await handle.client.transaction('write');
    await insert(tx, 'usr_patient');
    await sleep(TIMEOUT + 100);
    await insert(tx, 'usr_patient2');
    await tx.commit();
    expect(server.stats.timedOut).toBe(0);
    expect(await countUsers(handle.client, 'usr_patient')).toBe(1);
    expect(await countUsers(handle.client, 'usr_patient2')).toBe(1);
  });
});

describe('counting', () => {
  test('a lone write: four round trips, all four inside the write lock, one write transaction and its hold time', async () => {
    server.resetStats();
    await insert(handle.client, 'usr_counted');
    expect(server.stats.roundTrips).toBe(4);
    // BEGIN IMMEDIATE (+SAVEPOINT) takes the lock, the INSERT and the RELEASE hold it, the COMMIT ends it.
    expect(server.stats.lockedRoundTrips).toBe(4);
    expect(server.stats.writeTransactions).toBe(1);
    expect(server.stats.lockHeldMs).toBeGreaterThan(0);
  });

  test('reads outside a transaction are round trips outside the lock', async () => {
    server.resetStats();
    await countUsers(handle.client, 'usr_nobody');
    await countUsers(handle.client, 'usr_nobody');
    expect(server.stats.roundTrips).toBe(2);
    expect(server.stats.lockedRoundTrips).toBe(0);
    expect(server.stats.writeTransactions).toBe(0);
    expect(server.stats.lockHeldMs).toBe(0);
  });

  test('a round trip that opens and commits a write transaction counts once inside the lock', async () => {
    server.resetStats();
    await handle.client.batch(
      [{ sql: "INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at) VALUES ('usr_b', 'b@example.com', 'b@example.com', 'x', 0, 0)", args: [] }],
      'write',
    );
    const before = server.stats.lockedRoundTrips;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(server.stats.writeTransactions).toBe(1);
    const raw = await fetch(`${server.url}/v2/pipeline`, {
      method: 'POST',
      body: JSON.stringify({
        baton: null,
        requests: [
          { type: 'execute', stmt: { sql: 'BEGIN IMMEDIATE' } },
          { type: 'execute', stmt: { sql: "UPDATE users SET updated_at = 1 WHERE id = 'usr_b'" } },
          { type: 'execute', stmt: { sql: 'COMMIT' } },
          { type: 'close' },
        ],
      }),
    });
    expect(raw.status).toBe(200);
    expect(server.stats.lockedRoundTrips).toBe(before + 1);
    expect(server.stats.writeTransactions).toBe(2);
  });

  test('the latency is a round trip: one request takes at least latencyMs (and it may change while running)', async () => {
    server.latencyMs = 60;
    const t0 = performance.now();
    await countUsers(handle.client, 'usr_nobody');
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(55);
    server.latencyMs = 0;
    expect(server.latencyMs).toBe(0);
  });
});
