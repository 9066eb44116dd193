/**
 * Online backup of a local install: `bun run db:backup <file>`, safe while the server runs and writes.
 * Writes <file> (a consistent, integrity-checked copy of the database, made with VACUUM INTO) and <file>.uploads/ (a
 * copy of the uploads folder: KYC documents). Reads the server's configuration (BPAY_DATABASE_URL, BPAY_UPLOADS_DIR)
 * through the same env parsing as the server. See README.md ("Backups and restore").
 *
 * Exit codes: 0 written and checked; 1 failed (bad configuration, no database, an error or a failed check; nothing is
 * left at <file>); 2 wrong usage; 3 refused because <file> or <file>.uploads already exists (it never overwrites).
 */
import { oneFileArgument } from './one-file-argument';
import { BackupError, createBackup } from '../db/backup';
import { EnvError, parseStorageEnv } from '../api/src/env';
import { privateUmask } from '../db/file-modes';

// The copy holds what the database holds: created 0600 (its folders 0700), as the server's own files are.
privateUmask();

const USAGE = 'Usage: bun run db:backup <file>   (writes <file> and <file>.uploads/; never overwrites)';

const file = oneFileArgument(USAGE);

try {
  const env = parseStorageEnv(process.env);
  const started = performance.now();
  const r = await createBackup({ databaseUrl: env.databaseUrl, uploadsDir: env.uploadsDir }, file);
  console.log(`Backup written and checked (integrity_check ok) in ${Math.round(performance.now() - started)} ms:`);
  console.log(`  database  ${r.file} (${r.bytes} bytes)`);
  console.log(`  uploads   ${r.uploads}/ (${r.uploadFiles} files)`);
  console.log('Keep the session secret (BPAY_SESSION_SECRET or its file) and BPAY_VENDOR_KEY apart from it: a restore needs them.');
  process.exit(0);
} catch (e) {
  if (e instanceof EnvError || e instanceof BackupError) {
    console.error(`db:backup: ${e.message}`);
    process.exit(e instanceof BackupError && e.refused ? 3 : 1);
  }
  console.error(`db:backup: the backup failed: ${(e as Error).message ?? e}`);
  process.exit(1);
}
