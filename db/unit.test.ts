import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHranaServer, type HranaServer } from '../api/test-support/hrana-server';
import { openDb, type DbHandle } from './client';
import { isUniqueViolationAt, sqlOnce, UnitStepError, writeUnit } from './unit';

/*
 * Units of work as data (db/unit.ts, db/hrana-batch.ts), on both engines: the embedded file (a closure unit of the
 * group-commit writer) and a libSQL server (the Hrana 2 stand-in: one request per group of units).
 */

class Refused extends Error {}

for (const engine of ['file', 'server'] as const) {
  describe(`units as data (${engine})`, () => {
    let dir: string;
    let server: HranaServer | null = null;
    let handle: DbHandle;
    let other: DbHandle;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'bpay-unit-'));
      if (engine === 'server') server = startHranaServer({ path: join(dir, 'server.db') });
      const url = server ? server.url : `file:${join(dir, 'local.db')}`;
      handle = openDb({ url });
      other = openDb({ url });
      await handle.client.execute('CREATE TABLE acct (id TEXT PRIMARY KEY, available INTEGER NOT NULL CHECK (available >= 0))');
      await handle.client.execute('CREATE TABLE note (id INTEGER PRIMARY KEY, key TEXT UNIQUE, body TEXT, n INTEGER, r REAL, b BLOB, flag INTEGER)');
      await handle.client.execute("INSERT INTO acct VALUES ('a', 100), ('b', 0)");
      server?.resetStats();
    });

    afterEach(() => {
      handle.close();
      other.close();
      server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const available = async (id: string) => Number((await other.client.execute({ sql: 'SELECT available FROM acct WHERE id = ?', args: [id] })).rows[0]?.[0]);
    const notes = async () => (await other.client.execute('SELECT key FROM note ORDER BY id')).rows.map((r) => r.key);

    /** Moves `cents` from a to b if a has them: a guarded UPDATE and an unguarded one. */
    const move = (cents: number, key: string) => {
      const u = writeUnit(handle.db);
      u.add(sql`UPDATE acct SET available = available - ${cents} WHERE id = 'a' AND available >= ${cents}`);
      u.expectChanges(1, () => new Refused(`no ${cents}`));
      u.add(sql`UPDATE acct SET available = available + ${cents} WHERE id = 'b'`);
      u.add(sql`INSERT INTO note (key) VALUES (${key})`);
      return u;
    };

    test('a unit commits whole; its results are read after commit, never inside', async () => {
      const u = move(30, 'm1');
      u.add(sql`SELECT available FROM acct WHERE id = 'a'`);
      await u.commit();
      const stats = server ? { ...server.stats } : null;
      expect(await available('a')).toBe(70);
      expect(await available('b')).toBe(30);
      expect(u.result(0).rowsAffected).toBe(1);
      expect(Number(u.result(3).rows[0]?.[0])).toBe(70);
      if (stats) {
        // One round trip, inside the lock only for the server's own work.
        expect(stats.roundTrips).toBe(1);
        expect(stats.lockedRoundTrips).toBe(1);
        expect(stats.writeTransactions).toBe(1);
      }
      // A statement recorded by running a query on the unit's tx answers at once, with nothing that can be read.
      const inside = writeUnit(handle.db);
      const read = inside.tx.run(sql`SELECT 1`).execute();
      expect(inside.size).toBe(1);
      await expect(read.then((r) => r.rowsAffected)).rejects.toThrow(/no result until the unit has committed/);
    });

    test('a guard that fails undoes its unit alone, with its declared error; units beside it commit', async () => {
      const units = [move(60, 'ok1'), move(60, 'refused'), move(40, 'ok2')];
      const outcomes = await Promise.allSettled(units.map((u) => u.commit()));
      const trips = server?.stats.roundTrips;
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(Refused);
      expect(await available('a')).toBe(0);
      expect(await available('b')).toBe(100);
      expect(await notes()).toEqual(['ok1', 'ok2']);
      // Committed together, sent together.
      if (server) expect(trips).toBe(1);
    });

    test('twenty units on the last dollars: exactly the affordable ones win, in few requests', async () => {
      const commitsBefore = handle.stats.commits;
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => move(15, `k${i}`).commit()));
      const trips = server?.stats.roundTrips;
      const writes = server?.stats.writeTransactions;
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(6);
      expect(outcomes.filter((o) => o.status === 'rejected').every((o) => (o as PromiseRejectedResult).reason instanceof Refused)).toBe(true);
      expect(await available('a')).toBe(10);
      expect(await available('b')).toBe(90);
      if (server) {
        expect(trips).toBe(1);
        expect(writes).toBe(1);
        expect(handle.stats.commits - commitsBefore).toBe(1);
      } else {
        // The file's group commit: a lone unit commits at once, the others join batches behind it.
        expect(handle.stats.commits - commitsBefore).toBeLessThanOrEqual(5);
      }
    });

    test('a constraint error names its step; nothing of the unit stays', async () => {
      await move(10, 'dup').commit();
      const u = move(10, 'dup');
      const error = await u.commit().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnitStepError);
      expect(isUniqueViolationAt(error, 2)).toBe(true);
      expect(isUniqueViolationAt(error, 1)).toBe(false);
      expect(await available('a')).toBe(90);
    });

    test('an error that ends the transaction fails every unit of its request, and nothing commits', async () => {
      // A conflict resolved by ROLLBACK ends the whole transaction with an error, as SQLITE_FULL or an I/O error can.
      const breaking = writeUnit(handle.db);
      breaking.add(sql`UPDATE acct SET available = available - 1 WHERE id = 'a'`);
      breaking.add(sql`INSERT OR ROLLBACK INTO note (key) VALUES ('before')`);
      breaking.add(sql`UPDATE acct SET available = available - 1 WHERE id = 'a'`);
      const all = [move(5, 'before'), breaking, move(5, 'after')];
      const outcomes = await Promise.allSettled(all.map((u) => u.commit()));
      expect(outcomes[1]!.status).toBe('rejected');
      if (server) {
        // In one request: every unit fails (the first one's RELEASE ran, but the COMMIT never did).
        expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
        expect(await available('a')).toBe(100);
        expect(await notes()).toEqual([]);
      }
      // Whatever the engine did, nothing half-written stays and the handle works afterwards.
      const total = (await available('a')) + (await available('b'));
      expect(total).toBe(100);
      await move(1, 'later').commit();
      expect(await notes()).toContain('later');
    });

    test('a guard after a statement that returns rows (INSERT … RETURNING) counts its changes on both engines', async () => {
      const u = writeUnit(handle.db);
      u.add(sql`INSERT INTO note (key) VALUES ('ret') ON CONFLICT DO NOTHING RETURNING id`);
      u.expectChanges(1, () => new Refused('not inserted'));
      await u.commit();
      const again = writeUnit(handle.db);
      again.add(sql`INSERT INTO note (key) VALUES ('ret') ON CONFLICT DO NOTHING RETURNING id`);
      again.expectChanges(1, () => new Refused('not inserted'));
      await expect(again.commit()).rejects.toBeInstanceOf(Refused);
      expect(await notes()).toEqual(['ret']);
    });

    test('a value no driver takes fails its own unit, not the others sent with it', async () => {
      const bad = writeUnit(handle.db);
      bad.add(sql`INSERT INTO note (key, n) VALUES ('bad', ${undefined as unknown as number})`);
      const outcomes = await Promise.allSettled([move(1, 'good').commit(), bad.commit()]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
      expect(await notes()).toEqual(['good']);
    });

    test('an assertion reads inside the unit what a decision rested on; false, the unit fails with its error', async () => {
      const atLeast = sqlOnce(() => sql`(SELECT available FROM acct WHERE id = 'a') >= ${sql.placeholder('min')}`);
      const guarded = (min: number, key: string) => {
        const u = writeUnit(handle.db);
        u.assert(atLeast(), { min }, () => new Refused(`a below ${min}`));
        u.add(sql`INSERT INTO note (key) VALUES (${key})`);
        return u;
      };
      const outcomes = await Promise.allSettled([guarded(100, 'yes').commit(), guarded(101, 'no').commit()]);
      expect(outcomes[0]!.status).toBe('fulfilled');
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(Refused);
      expect(await notes()).toEqual(['yes']);
    });

    test('a statement that would end or open a transaction cannot be part of a unit', () => {
      const u = writeUnit(handle.db);
      for (const stmt of ['COMMIT', 'ROLLBACK', ' begin immediate', 'SAVEPOINT x', 'RELEASE x', 'PRAGMA foreign_keys = OFF', 'VACUUM']) {
        expect(() => u.add(sql.raw(stmt))).toThrow(/cannot be part of a unit/);
      }
      expect(u.size).toBe(0);
    });

    test('values are stored and answered as the client stores and answers them', async () => {
      const blob = new Uint8Array([0, 1, 254, 255]);
      const u = writeUnit(handle.db);
      u.add(sql`INSERT INTO note (key, body, n, r, b, flag) VALUES (${'v'}, ${'é ✓ "q"'}, ${2 ** 40}, ${1.5}, ${blob}, ${true})`);
      u.add(sql`SELECT key, body, n, r, b, flag, NULL AS none_ FROM note WHERE key = 'v'`);
      await u.commit();
      const viaClient = (await other.client.execute("SELECT key, body, n, r, b, flag, NULL AS none_ FROM note WHERE key = 'v'")).rows[0]!;
      const viaUnit = u.result(1).rows[0]!;
      expect({ ...viaUnit }).toEqual({ ...viaClient });
      expect(Array.prototype.slice.call(viaUnit).length).toBe(7);
      expect(new Uint8Array(viaUnit.b as ArrayBuffer)).toEqual(blob);
      expect(typeof (await other.client.execute("SELECT typeof(n) AS t FROM note WHERE key = 'v'")).rows[0]?.t).toBe('string');
      expect((await other.client.execute("SELECT typeof(n) AS t, typeof(flag) AS f FROM note WHERE key = 'v'")).rows[0]).toMatchObject({ t: 'integer', f: 'integer' });
    });
  });
}
