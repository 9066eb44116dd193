import { chmodSync, lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/*
 * Nothing bpay keeps may be readable by other users of the machine (issue 27): its folders are 0700 and its files
 * 0600. New ones are made so by the process umask (every entry point calls privateUmask() first); what an older
 * version or another tool left readable is tightened at start by tightenModes(), which only ever takes permissions
 * away from group and others (a 0644 file becomes 0600, a 0755 folder 0700, the owner's own bits are kept).
 */

/** The umask of every bpay process: files are created 0600 and folders 0700. */
export const PRIVATE_UMASK = 0o077;

/** Sets the process umask so nothing bpay creates is readable by others. Call it before anything is written. */
export function privateUmask(): void {
  process.umask(PRIVATE_UMASK);
}

/** The file behind a local database URL (`file:...`, relative to the working directory), or null for a remote one. */
export function localDatabasePath(url: string): string | null {
  if (!url.startsWith('file:')) return null;
  const path = url.slice('file:'.length).split('?')[0] ?? '';
  return path && path !== ':memory:' ? resolve(path) : null;
}

/** A database file and the journal files SQLite keeps beside it. */
export const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];

export interface PrivatePaths {
  /** Files that are bpay's alone (the database and its journals, the session-secret file); missing ones are skipped. */
  files: string[];
  /** Folders whose whole tree is bpay's (the uploads folder): every folder and file in it; links are not followed. */
  trees: string[];
  /**
   * Folders bpay keeps its files in but may share with other things (the database's folder): tightened only when
   * everything directly in them is private already, so a folder such as /var/lib or a checkout is never changed.
   */
  folders: string[];
}

export interface TightenResult {
  /** What had group or other permissions, and now has none. */
  changed: string[];
  /** Folders readable by others that were left as they are, because something in them is not bpay's to tighten. */
  shared: string[];
}

const openToOthers = (st: Stats) => (st.mode & 0o077) !== 0;

function statOrNull(path: string, follow: boolean): Stats | null {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function tighten(path: string, st: Stats, changed: string[]): void {
  if (!openToOthers(st)) return;
  chmodSync(path, st.mode & 0o7700);
  changed.push(path);
}

/** Every folder and file under `root` (the root followed if it is a link, as a mounted uploads volume may be). */
function tightenTree(root: string, changed: string[]): void {
  const st = statOrNull(root, true);
  if (!st) return;
  tighten(root, st, changed);
  if (!st.isDirectory()) return;
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    const entry = lstatSync(path);
    // bpay writes only folders and files here; a link someone else made is not followed out of the tree.
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) tightenTree(path, changed);
    else tighten(path, entry, changed);
  }
}

/**
 * Takes group and other permissions away from bpay's files and folders (see PrivatePaths). Answers what it changed,
 * and the shared folders it left readable, for the caller to log. Throws only what the file system throws (a file
 * owned by another user: EPERM).
 */
export function tightenModes(paths: PrivatePaths): TightenResult {
  const changed: string[] = [];
  const shared: string[] = [];
  for (const file of paths.files) {
    const st = statOrNull(file, true);
    if (st?.isFile()) tighten(file, st, changed);
  }
  for (const tree of paths.trees.map((t) => resolve(t))) {
    // A folder meant for many users (the sticky bit: /tmp) is never walked, whatever the configuration says.
    if (((statOrNull(tree, true)?.mode ?? 0) & 0o1000) !== 0) shared.push(tree);
    else tightenTree(tree, changed);
  }
  for (const folder of [...new Set(paths.folders.map((f) => resolve(f)))]) {
    const st = statOrNull(folder, true);
    if (!st?.isDirectory() || !openToOthers(st)) continue;
    // The sticky bit marks a folder meant for many users (/tmp); anything readable by others in it is not ours.
    const others = (st.mode & 0o1000) !== 0 || readdirSync(folder).some((name) => {
      const entry = lstatSync(join(folder, name));
      return entry.isSymbolicLink() || openToOthers(entry);
    });
    if (others) shared.push(folder);
    else tighten(folder, st, changed);
  }
  return { changed, shared };
}

/** The folder a file is in, for PrivatePaths.folders. */
export const folderOf = (file: string) => dirname(resolve(file));
