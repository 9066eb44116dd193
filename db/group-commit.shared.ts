import { expect, test } from 'bun:test';
import type { Client, Transaction } from '@libsql/client';
import { sql } from 'drizzle-orm';
import type { DbHandle } from './client';

/*
 * Group commit's behaviour (db/client.ts), the same on a local file (db/client.test.ts) and through a libSQL server
 * (db/remote.test.ts): each file calls groupCommitTests inside its own describe, with its own handles.
 */

export type Executor = Pick<Client | Transaction, 'execute'>;

const now = Date.now();
export const insert = (on: Executor, id: string) =>
  on.execute({
    sql: `INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at)
          VALUES (?, ?, ?, 'x', ?, ?)`,
    args: [id, `${id}@example.com`, `${id}@example.com`, now, now],
  });
export const countUsers = async (on: Executor, id: string) =>
  Number((await on.execute({ sql: 'SELECT count(*) FROM users WHERE id = ?', args: [id] })).rows[0]?.[0]);

export interface Subject {
  /** The migrated handle under test (made afresh for each test). */
  handle(): DbHandle;
  /** A second handle on the same database: its reads see only what is committed. */
  observer(): DbHandle;
}

export function groupCommitTests(s: Subject): void {
  const h = () => s.handle();
  test('a lone write commits at once: one unit, one commit', async () => {
    const before = { ...h().stats };
    await insert(h().client, 'usr_alone');
    expect(h().stats.commits - before.commits).toBe(1);
    expect(h().stats.units - before.units).toBe(1);
  });

  test('concurrent writes share commits, and each is acknowledged only once it is committed', async () => {
    const other = s.observer();
    try {
      const before = h().stats.commits;
      const seenWhenAcknowledged = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          insert(h().client, `usr_g${i}`).then(() => countUsers(other.client, `usr_g${i}`)),
        ),
      );
      // Every acknowledged write was already visible to another connection: committed, not merely written.
      expect(seenWhenAcknowledged).toEqual(Array(40).fill(1));
      const commits = h().stats.commits - before;
      expect(commits).toBeGreaterThanOrEqual(1);
      expect(commits).toBeLessThan(40);
    } finally {
      other.close();
    }
  });

  test('a unit that fails rolls back alone; the others of its batch commit', async () => {
    const results = await Promise.allSettled([
      h().db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at)
                         VALUES ('usr_ok1', 'ok1@example.com', 'ok1@example.com', 'x', 0, 0)`);
      }),
      h().db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at)
                         VALUES ('usr_bad', 'bad@example.com', 'bad@example.com', 'x', 0, 0)`);
        throw new Error('this unit fails after writing');
      }),
      insert(h().client, 'usr_ok2'),
      // A constraint failure inside a batch: the duplicate id is refused, and only this unit fails.
      insert(h().client, 'usr_ok1'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('this unit fails after writing');
    expect(await countUsers(h().client, 'usr_ok1')).toBe(1);
    expect(await countUsers(h().client, 'usr_ok2')).toBe(1);
    expect(await countUsers(h().client, 'usr_bad')).toBe(0);
  });

  test('a unit refused because of an earlier unit of its batch answers once that unit is committed', async () => {
    const other = s.observer();
    try {
      const first = insert(h().client, 'usr_same');
      // The same id again, queued behind: refused by the first one's row, which is in the batch, not yet committed.
      const second = insert(h().client, 'usr_same').then(
        () => 'inserted',
        async () => `refused; another connection sees ${await countUsers(other.client, 'usr_same')} row`,
      );
      await first;
      expect(await second).toBe('refused; another connection sees 1 row');
    } finally {
      other.close();
    }
  });

  test('units of one batch that compete for the last of a balance: exactly one wins', async () => {
    await h().client.execute('CREATE TABLE balance (id INTEGER PRIMARY KEY, cents INTEGER NOT NULL)');
    await h().client.execute('INSERT INTO balance VALUES (1, 10000)');
    const before = h().stats.commits;
    // Each draws 60.00 of the 100.00 after reading the balance in its own transaction (check, then act).
    const draw = () =>
      h().db.transaction(async (tx) => {
        const row = await tx.get<{ cents: number }>(sql`SELECT cents FROM balance WHERE id = 1`);
        if (!row || row.cents < 6000) throw new Error('insufficient funds');
        await tx.run(sql`UPDATE balance SET cents = cents - 6000 WHERE id = 1`);
      });
    const results = await Promise.allSettled(Array.from({ length: 8 }, draw));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(h().stats.commits - before).toBeLessThan(8);
    expect(Number((await h().client.execute('SELECT cents FROM balance')).rows[0]?.[0])).toBe(4000);
  });

  test('two handles on one database interleave without waiting on each other forever', async () => {
    const other = s.observer();
    try {
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => insert(i % 2 ? other.client : h().client, `usr_h${i}`)),
      );
      const n = await h().client.execute(`SELECT count(*) FROM users WHERE id LIKE 'usr_h%'`);
      expect(Number(n.rows[0]?.[0])).toBe(30);
    } finally {
      other.close();
    }
  });

  test('a handle closed in the middle of a unit (a crash, in tests): the unit is lost whole, and another handle can write', async () => {
    const dying = s.observer();
    const tx = await dying.client.transaction('write');
    await insert(tx, 'usr_lost');
    dying.close();
    const other = s.observer();
    try {
      await insert(other.client, 'usr_after');
      expect(await countUsers(other.client, 'usr_lost')).toBe(0);
      expect(await countUsers(other.client, 'usr_after')).toBe(1);
    } finally {
      other.close();
    }
  });
}
