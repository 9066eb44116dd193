import { createClient, type Client, type InStatement, type ResultSet, type Transaction, type TransactionMode } from '@libsql/client';
import { ConnectionPool } from '@libsql/client/sqlite3';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as schema from './schema';

export * as schema from './schema';
export { UNLIMITED, FEATURE_KEYS, ENVIRONMENTS, PLATFORM_TYPES, PAYMENT_INTENT_STATUSES, type FeatureKey, type CollectionStatus, type BcardStatus, type ShareStatus, type PaymentIntentStatus, type Environment } from './schema';
export type Db = LibSQLDatabase<typeof schema>;
/** A database handle or an open transaction on it. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

export const BUSY_TIMEOUT_MS = 5000;

/**
 * Every local connection runs with these. WAL lets readers work during a write; synchronous=FULL makes a
 * committed ledger posting survive a power cut; foreign keys are off by default in SQLite.
 */
export const CONNECTION_PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = FULL',
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  'PRAGMA foreign_keys = ON',
];

/*
 * @libsql/client keeps a pool of connections for a local file and opens new ones lazily (for instance when a
 * transaction holds the first one). It has no hook for per-connection set-up, so we wrap the one place where a
 * connection comes into being and apply the pragmas there, once per connection. A test
 * (db/client.test.ts) checks the pragmas on the connections used inside, after and beside transactions, so an
 * upgrade that moves this seam fails loudly instead of silently dropping foreign keys.
 */
const prepared = new WeakSet<object>();
type AcquireSync = (this: ConnectionPool, forTransaction?: boolean) => ReturnType<ConnectionPool['acquireSync']>;
const proto = ConnectionPool.prototype as unknown as { acquireSync: AcquireSync; __bpayPatched?: boolean };
if (!proto.__bpayPatched) {
  const original = proto.acquireSync;
  proto.acquireSync = function acquireSync(forTransaction?: boolean) {
    const conn = original.call(this, forTransaction);
    if (!prepared.has(conn)) {
      // exec() steps each statement to completion; run() on a row-returning PRAGMA would leave it in progress.
      conn.exec(CONNECTION_PRAGMAS.join(";\n"));
      prepared.add(conn);
    }
    return conn;
  };
  proto.__bpayPatched = true;
}

/*
 * Writes are serialised inside the process. The local driver runs each statement synchronously, so a statement
 * that waits for SQLite's write lock blocks the event loop; if another connection of this same process holds
 * that lock in an interactive transaction (between two awaits), it can never commit, and the waiter fails with
 * SQLITE_BUSY after the busy timeout. One async lock per database file, taken by every write statement, batch
 * and write transaction (until it commits or rolls back), makes such waits impossible. Reads never take it:
 * WAL readers do not block. Other processes still meet the busy timeout as usual.
 * Never call `db` (rather than `tx`) for a write inside a transaction: it would wait for itself.
 */
export const WRITE_LOCK_TIMEOUT_MS = 30_000;

class WriteLock {
  private queue: Array<() => void> = [];
  private held = false;

  acquire(): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let granted = false;
      const grant = () => {
        granted = true;
        clearTimeout(timer);
        this.held = true;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          const next = this.queue.shift();
          if (next) next();
          else this.held = false;
        });
      };
      const timer = setTimeout(() => {
        if (granted) return;
        this.queue = this.queue.filter((w) => w !== grant);
        reject(new Error(`database write lock not acquired within ${WRITE_LOCK_TIMEOUT_MS} ms`));
      }, WRITE_LOCK_TIMEOUT_MS);
      if (!this.held) grant();
      else this.queue.push(grant);
    });
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

const writeLocks = new Map<string, WriteLock>();

function isReadOnlySql(sql: string): boolean {
  return /^\s*select\b/i.test(sql) || /^\s*pragma\s+\w+\s*;?\s*$/i.test(sql);
}

function serialiseWrites(client: Client, lock: WriteLock): void {
  const execute = client.execute.bind(client) as (...a: unknown[]) => Promise<ResultSet>;
  const batch = client.batch.bind(client);
  const migrate = client.migrate.bind(client);
  const executeMultiple = client.executeMultiple.bind(client);
  const transaction = client.transaction.bind(client);
  client.execute = ((stmt: InStatement | string, args?: unknown) => {
    const sql = typeof stmt === 'string' ? stmt : stmt.sql;
    return isReadOnlySql(sql) ? execute(stmt, args) : lock.run(() => execute(stmt, args));
  }) as Client['execute'];
  client.batch = ((stmts, mode) => (mode === 'read' ? batch(stmts, mode) : lock.run(() => batch(stmts, mode)))) as Client['batch'];
  client.migrate = ((stmts) => lock.run(() => migrate(stmts))) as Client['migrate'];
  client.executeMultiple = ((sql) => lock.run(() => executeMultiple(sql))) as Client['executeMultiple'];
  client.transaction = (async (mode?: TransactionMode) => {
    if (mode === 'read') return transaction(mode);
    const release = await lock.acquire();
    let tx: Transaction;
    try {
      tx = await transaction(mode);
    } catch (e) {
      release();
      throw e;
    }
    const commit = tx.commit.bind(tx);
    const rollback = tx.rollback.bind(tx);
    const close = tx.close.bind(tx);
    tx.commit = async () => {
      try {
        return await commit();
      } finally {
        release();
      }
    };
    tx.rollback = async () => {
      try {
        return await rollback();
      } finally {
        release();
      }
    };
    tx.close = () => {
      try {
        close();
      } finally {
        release();
      }
    };
    return tx;
  }) as Client['transaction'];
}

export interface OpenDbOptions {
  url: string;
  authToken?: string;
}

export interface DbHandle {
  db: Db;
  client: Client;
  close(): void;
}

export function openDb(opts: OpenDbOptions): DbHandle {
  if (opts.url.startsWith('file:')) {
    const path = opts.url.slice('file:'.length).split('?')[0] ?? '';
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  }
  const client = createClient({ url: opts.url, authToken: opts.authToken, timeout: BUSY_TIMEOUT_MS });
  const lockKey = opts.url.startsWith('file:') ? resolve(opts.url.slice('file:'.length).split('?')[0] ?? '') : opts.url;
  let lock = writeLocks.get(lockKey);
  if (!lock) writeLocks.set(lockKey, (lock = new WriteLock()));
  serialiseWrites(client, lock);
  const db = drizzle(client, { schema });
  return { db, client, close: () => client.close() };
}

export const MIGRATIONS_FOLDER = join(import.meta.dir, 'migrations');

/** Applies every pending drizzle-kit migration. Safe to call at every start. */
export async function migrateDb(db: Db): Promise<void> {
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
