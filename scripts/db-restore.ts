/**
 * Restores a backup made by `bun run db:backup`: `bun run db:restore <file>`, with the server stopped.
 * Puts <file> at BPAY_DATABASE_URL's path and <file>.uploads/ at BPAY_UPLOADS_DIR, after checking the backup. It never
 * overwrites: the current database (and its -wal/-shm) and a non-empty uploads folder must be moved aside first, and it
 * refuses while something answers on the server's port. The session secret must be the one the backup's server used
 * (it is not created here). See README.md ("Backups and restore").
 *
 * Exit codes: 0 restored; 1 failed (bad configuration, no session secret, a missing or damaged backup, an error);
 * 2 wrong usage; 3 refused (a server is running, or the database or uploads are still in place).
 */
import { createConnection } from 'node:net';
import { oneFileArgument } from './one-file-argument';
import { BackupError, localDatabasePath, restoreBackup } from '../db/backup';
import { EnvError, parseEnv } from '../api/src/env';
import { privateUmask } from '../db/file-modes';

// What it puts in place is the server's data: created 0600 (its folders 0700), as the server's own files are.
privateUmask();

const USAGE = 'Usage: bun run db:restore <file>   (the server stopped; the current database and uploads moved aside)';

const file = oneFileArgument(USAGE);

/** Whether something accepts connections on the server's port (best effort: a server on another host is not seen). */
function listening(host: string, port: number): Promise<boolean> {
  const target = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return new Promise((resolve) => {
    const socket = createConnection({ host: target, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

try {
  const env = parseEnv(process.env, { createSessionSecret: false });
  const databasePath = localDatabasePath(env.databaseUrl);
  if (!databasePath) throw new BackupError('BPAY_DATABASE_URL is not a local file (file:...): restore a remote libSQL database with its provider\'s tools');
  if (await listening(env.host, env.port)) {
    throw new BackupError(`something answers on port ${env.port} (a bpay server?): stop the server before restoring`, true);
  }
  const r = restoreBackup(file, { databasePath, uploadsDir: env.uploadsDir });
  console.log(`Restored ${file}:`);
  console.log(`  database  ${databasePath}`);
  console.log(`  uploads   ${env.uploadsDir} (${r.uploadFiles} files)`);
  console.log('Start the server: at start it finishes or undoes collections left in flight and refunds expired bcards (README: "Backups and restore").');
  process.exit(0);
} catch (e) {
  if (e instanceof EnvError || e instanceof BackupError) {
    console.error(`db:restore: ${e.message}`);
    process.exit(e instanceof BackupError && e.refused ? 3 : 1);
  }
  console.error(`db:restore: the restore failed: ${(e as Error).message ?? e}`);
  process.exit(1);
}
