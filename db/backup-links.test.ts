import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackupError, createBackup } from './backup';
import { migrateDb, openDb } from './client';

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-backup-links-'));
  const handle = openDb({ url: `file:${join(dir, 'bpay.db')}` });
  await migrateDb(handle.db);
  handle.close();
  writeFileSync(join(dir, 'secret.txt'), 'outside the uploads');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a symbolic link inside the uploads folder is refused, and nothing is left at the target', async () => {
  const uploads = join(dir, 'uploads-with-link');
  mkdirSync(join(uploads, 'ab'), { recursive: true });
  writeFileSync(join(uploads, 'ab', 'doc'), 'a document');
  symlinkSync(join(dir, 'secret.txt'), join(uploads, 'ab', 'evil'));
  const target = join(dir, 'refused.db');
  const err = await createBackup({ databaseUrl: `file:${join(dir, 'bpay.db')}`, uploadsDir: uploads }, target).catch((e) => e);
  expect(err).toBeInstanceOf(BackupError);
  expect(String(err.message)).toContain('is a symbolic link');
  expect(existsSync(target)).toBe(false);
  expect(existsSync(`${target}.uploads`)).toBe(false);
});

test('the uploads folder itself may be a link to where the files live', async () => {
  const real = join(dir, 'volume');
  mkdirSync(real);
  writeFileSync(join(real, 'doc'), 'a document');
  const uploads = join(dir, 'uploads-link');
  symlinkSync(real, uploads);
  const target = join(dir, 'ok.db');
  await createBackup({ databaseUrl: `file:${join(dir, 'bpay.db')}`, uploadsDir: uploads }, target);
  expect(readFileSync(join(`${target}.uploads`, 'doc'), 'utf8')).toBe('a document');
});
