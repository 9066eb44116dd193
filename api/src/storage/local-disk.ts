import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { assertStorageKey, type FileStorage } from './types';

/** A fresh random storage key (128 bits, hex). */
export function newStorageKey(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Files on the local disk under `root` (BPAY_UPLOADS_DIR, ./data/uploads by default), spread over 256
 * sub-folders by the key's first two characters. Folders are created 0700 and files 0600: only the server's
 * user reads them. The folder must not be inside anything served statically (web/dist): server.ts serves only
 * BPAY_WEB_DIST, and env parsing refuses an uploads folder inside it.
 */
export function createLocalDiskStorage(root: string): FileStorage & { root: string; pathOf(key: string): string } {
  const base = resolve(root);
  const pathOf = (key: string) => {
    assertStorageKey(key);
    return join(base, key.slice(0, 2), key);
  };
  const ensureDir = async (dir: string) => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  };
  return {
    root: base,
    pathOf,
    async put(key, bytes) {
      const file = pathOf(key);
      await ensureDir(base);
      await ensureDir(join(base, key.slice(0, 2)));
      // 'wx': never overwrite an existing file.
      const handle = await open(file, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
    async get(key) {
      try {
        return new Uint8Array(await readFile(pathOf(key)));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
