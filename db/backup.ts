import { createClient } from '@libsql/client';
import { Database } from 'bun:sqlite';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { localDatabasePath, tightenModes } from './file-modes';

/*
 * Online backup and restore of a local bpay install: the database and the uploads folder (KYC documents).
 *
 * Backup: `VACUUM INTO` writes a consistent snapshot of the live database (one read transaction: WAL writers carry
 * on meanwhile) to a hidden partial file, which is synced, checked (PRAGMA integrity_check), and only then linked
 * to the chosen name, so a name that exists always holds a complete, checked backup. The uploads are copied after
 * the snapshot: a document's file is written before its row commits and files are never deleted once referenced,
 * so every file the snapshot refers to is in the copy (a few files of later uploads may be too; they are unused).
 *
 * Restore: the reverse, into a database path and uploads folder that do not exist yet (never over live data).
 */

/** Why a backup or restore did not happen. `refused`: nothing was wrong but it would have overwritten something. */
export class BackupError extends Error {
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message);
  }
}

/** The uploads copy that belongs to a backup file: `<file>.uploads/`. */
export const uploadsBackupPath = (file: string) => `${file}.uploads`;

export { localDatabasePath };

const BUSY_TIMEOUT_MS = 5000;

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Syncs every file under `dir` (and the folders themselves); answers how many files there are. */
function fsyncTree(dir: string): number {
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files += fsyncTree(path);
    else if (entry.isFile()) {
      fsyncFile(path);
      files++;
    }
  }
  fsyncFile(dir);
  return files;
}

/** PRAGMA integrity_check of a database file nobody else uses, opened read-only; throws unless it answers ok. */
export function checkBackupFile(path: string): void {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (e) {
    throw new BackupError(`${path} is not a readable SQLite database (${(e as Error).message})`);
  }
  try {
    const rows = db.query('PRAGMA integrity_check').all() as Array<Record<string, unknown>>;
    const answer = rows.map((r) => String(Object.values(r)[0])).join('; ');
    if (answer !== 'ok') throw new BackupError(`${path} failed its integrity check: ${answer.slice(0, 500)}`);
    const migrated = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
    if (!migrated) throw new BackupError(`${path} is not a bpay database (it has no migrations table)`);
  } catch (e) {
    if (e instanceof BackupError) throw e;
    throw new BackupError(`${path} could not be checked: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/** Removes a partial file and the journal files SQLite may have left beside it. */
function removePartial(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(p, { force: true });
}

/** Links `partial` to `final`, failing (refused) if `final` exists: never overwrites, even in a race. */
function publishFile(partial: string, final: string): void {
  try {
    linkSync(partial, final);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupError(`${final} already exists`, true);
    throw e;
  } finally {
    rmSync(partial, { force: true });
  }
  fsyncFile(dirname(final));
}

/** Copies a folder tree to `to` (which must not exist), keeping modes; a missing `from` gives an empty folder. */
function copyTree(from: string, to: string): number {
  // bpay writes only regular files and folders there; a symbolic link was put there by someone else, and copied
  // into a backup (or restored from a tampered one) it would make document reads follow it out of the folder.
  const refuseLinks = (src: string) => {
    if (lstatSync(src).isSymbolicLink()) throw new BackupError(`${src} is a symbolic link; uploads hold only files bpay wrote.`);
    return true;
  };
  if (existsSync(from)) {
    // The folder itself may be a link to where the files live (a mounted volume): copy from where it points.
    cpSync(realpathSync(from), to, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true, filter: refuseLinks });
  }
  else mkdirSync(to, { recursive: true });
  chmodSync(to, 0o700);
  // Copies keep their source's modes: an uploads folder an older version left readable is not copied so.
  tightenModes({ files: [], trees: [to], folders: [] });
  return fsyncTree(to);
}

export interface BackupResult {
  /** The backup database file (absolute). */
  file: string;
  /** The uploads copy beside it. */
  uploads: string;
  bytes: number;
  uploadFiles: number;
}

/**
 * Writes `<target>` (the database) and `<target>.uploads/` (the uploads folder) from a live local install.
 * Fails with BackupError: a remote database, no database, a target or its uploads folder that exists (refused), a
 * snapshot that fails its integrity check. Nothing is left at the target names when it fails.
 */
export async function createBackup(source: { databaseUrl: string; uploadsDir: string }, target: string): Promise<BackupResult> {
  const dbPath = localDatabasePath(source.databaseUrl);
  if (!dbPath) {
    throw new BackupError(
      'BPAY_DATABASE_URL is not a local file (file:...): back up a remote libSQL database with its provider\'s tools',
    );
  }
  if (!existsSync(dbPath)) throw new BackupError(`there is no database at ${dbPath} (BPAY_DATABASE_URL)`);
  const file = resolve(target);
  const uploads = uploadsBackupPath(file);
  for (const p of [file, uploads]) {
    if (existsSync(p)) throw new BackupError(`${p} already exists: a backup never overwrites; choose a new name`, true);
  }
  const folder = dirname(file);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new BackupError(`the folder ${folder} does not exist`);
  const uploadsDir = resolve(source.uploadsDir);
  if (file.startsWith(uploadsDir + sep)) throw new BackupError(`${file} is inside the uploads folder: write the backup somewhere else`);

  const partial = join(folder, `.${basename(file)}.partial-${process.pid}`);
  const partialUploads = `${partial}.uploads`;
  let uploadsPublished = false;
  try {
    // Created empty first (VACUUM INTO accepts an empty file), so the copy is never readable by others, even briefly.
    closeSync(openSync(partial, 'wx', 0o600));
    const client = createClient({ url: `file:${dbPath}`, timeout: BUSY_TIMEOUT_MS });
    try {
      await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      await client.execute({ sql: 'VACUUM INTO ?', args: [partial] });
    } finally {
      client.close();
    }
    fsyncFile(partial);
    checkBackupFile(partial);
    const uploadFiles = copyTree(uploadsDir, partialUploads);
    // The uploads folder first: whoever sees the database file at its name finds its documents beside it.
    if (existsSync(uploads)) throw new BackupError(`${uploads} already exists`, true);
    renameSync(partialUploads, uploads);
    uploadsPublished = true;
    const bytes = statSync(partial).size;
    publishFile(partial, file);
    return { file, uploads, bytes, uploadFiles };
  } catch (e) {
    if (uploadsPublished) rmSync(uploads, { recursive: true, force: true });
    throw e;
  } finally {
    removePartial(partial);
    rmSync(partialUploads, { recursive: true, force: true });
  }
}

export interface RestoreTarget {
  /** The database file the server opens (BPAY_DATABASE_URL's path). */
  databasePath: string;
  /** BPAY_UPLOADS_DIR. */
  uploadsDir: string;
}

/**
 * Puts a backup (`<file>` and `<file>.uploads/`) where a stopped server will find it. Refuses (BackupError, refused)
 * when the database file, its -wal/-shm, or a non-empty uploads folder exists: move the old data aside first. The
 * backup is checked before anything is written; the uploads are placed before the database.
 */
export function restoreBackup(file: string, target: RestoreTarget): { uploadFiles: number } {
  const source = resolve(file);
  const sourceUploads = uploadsBackupPath(source);
  if (!existsSync(source)) throw new BackupError(`there is no backup at ${source}`);
  if (!existsSync(sourceUploads)) {
    throw new BackupError(`${sourceUploads} is missing: a backup is the database file and this folder beside it`);
  }
  const databasePath = resolve(target.databasePath);
  const uploadsDir = resolve(target.uploadsDir);
  for (const p of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`]) {
    if (existsSync(p)) throw new BackupError(`${p} exists: stop the server and move the current database aside first`, true);
  }
  if (existsSync(uploadsDir) && readdirSync(uploadsDir).length > 0) {
    throw new BackupError(`${uploadsDir} is not empty: stop the server and move the current uploads aside first`, true);
  }
  checkBackupFile(source);

  mkdirSync(dirname(databasePath), { recursive: true, mode: 0o700 });
  mkdirSync(dirname(uploadsDir), { recursive: true, mode: 0o700 });
  const partial = join(dirname(databasePath), `.${basename(databasePath)}.restoring-${process.pid}`);
  const partialUploads = `${uploadsDir}.restoring-${process.pid}`;
  let uploadsPlaced = false;
  try {
    const uploadFiles = copyTree(sourceUploads, partialUploads);
    if (existsSync(uploadsDir)) rmdirSync(uploadsDir); // empty, checked above
    renameSync(partialUploads, uploadsDir);
    uploadsPlaced = true;
    closeSync(openSync(partial, 'wx', 0o600));
    copyFileSync(source, partial);
    fsyncFile(partial);
    publishFile(partial, databasePath);
    return { uploadFiles };
  } catch (e) {
    // Leave things as they were, so the restore can simply be run again.
    if (uploadsPlaced) rmSync(uploadsDir, { recursive: true, force: true });
    throw e;
  } finally {
    removePartial(partial);
    rmSync(partialUploads, { recursive: true, force: true });
  }
}
