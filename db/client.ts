import { createClient, type Client } from '@libsql/client';
import { ConnectionPool } from '@libsql/client/sqlite3';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as schema from './schema';

export * as schema from './schema';
export { UNLIMITED, FEATURE_KEYS, type FeatureKey } from './schema';
export type Db = LibSQLDatabase<typeof schema>;

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
  const db = drizzle(client, { schema });
  return { db, client, close: () => client.close() };
}

export const MIGRATIONS_FOLDER = join(import.meta.dir, 'migrations');

/** Applies every pending drizzle-kit migration. Safe to call at every start. */
export async function migrateDb(db: Db): Promise<void> {
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
