import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvError, parseEnv } from '../env';
import { createLocalDiskStorage, newStorageKey } from './local-disk';

const dir = mkdtempSync(join(tmpdir(), 'bpay-storage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('local disk storage', () => {
  test('put/get/delete under random keys; folders 0700, files 0600; never overwrites', async () => {
    const storage = createLocalDiskStorage(join(dir, 'uploads'));
    const key = newStorageKey();
    expect(key).toMatch(/^[a-f0-9]{32}$/);
    expect(newStorageKey()).not.toBe(key);
    await storage.put(key, new Uint8Array([1, 2, 3]));
    expect(await storage.get(key)).toEqual(new Uint8Array([1, 2, 3]));
    expect(statSync(storage.pathOf(key)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'uploads')).mode & 0o777).toBe(0o700);
    await expect(storage.put(key, new Uint8Array([9]))).rejects.toThrow();
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    await storage.delete(key);
  });

  test('keys that could name another path are refused', async () => {
    const storage = createLocalDiskStorage(join(dir, 'uploads'));
    for (const key of ['../x', '..', 'a/b', 'ABCDEF0123456789ABCDEF0123456789', '']) {
      await expect(storage.put(key, new Uint8Array([1]))).rejects.toThrow('invalid storage key');
      await expect(storage.get(key)).rejects.toThrow('invalid storage key');
    }
  });

  test('BPAY_UPLOADS_DIR defaults to ./data/uploads and may not be inside the served web build', () => {
    const base = { BPAY_SESSION_SECRET: 'x'.repeat(40) };
    expect(parseEnv(base).uploadsDir).toBe('./data/uploads');
    expect(parseEnv({ ...base, BPAY_UPLOADS_DIR: '/srv/bpay-uploads' }).uploadsDir).toBe('/srv/bpay-uploads');
    expect(() => parseEnv({ ...base, BPAY_UPLOADS_DIR: './web/dist/uploads' })).toThrow(EnvError);
    expect(() => parseEnv({ ...base, BPAY_UPLOADS_DIR: './web/dist' })).toThrow(EnvError);
    expect(() => parseEnv({ ...base, BPAY_WEB_DIST: '/srv/site', BPAY_UPLOADS_DIR: '/srv/site/files' })).toThrow(EnvError);
  });
});
