import { afterAll, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localDatabasePath, tightenModes } from './file-modes';

/*
 * tightenModes only ever takes permissions away from group and others, only from what is bpay's: it never follows a
 * link out of the uploads tree, never walks a folder meant for many users, and keeps the owner's own bits.
 */

const top = mkdtempSync(join(tmpdir(), 'bpay-tighten-'));
afterAll(() => rmSync(top, { recursive: true, force: true }));
const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);

test("a link in the uploads tree is not followed: the file it points to keeps its mode", () => {
  const outside = join(top, 'outside.txt');
  writeFileSync(outside, 'someone else\'s');
  chmodSync(outside, 0o644);
  const uploads = join(top, 'uploads');
  mkdirSync(join(uploads, 'ab'), { recursive: true });
  symlinkSync(outside, join(uploads, 'ab', 'link'));
  chmodSync(uploads, 0o755);
  const r = tightenModes({ files: [], trees: [uploads], folders: [] });
  expect(mode(outside)).toBe('644');
  expect(mode(uploads)).toBe('700');
  expect(r.changed).toContain(uploads);
});

test("the owner's own bits are kept (an executable stays executable for its owner), group and other bits go", () => {
  const tool = join(top, 'tool.sh');
  writeFileSync(tool, '#!/bin/sh\n');
  chmodSync(tool, 0o755);
  tightenModes({ files: [tool], trees: [], folders: [] });
  expect(mode(tool)).toBe('700');
});

test('a folder with the sticky bit (a /tmp) is never walked nor changed, even when configured as the uploads folder', () => {
  const shared = join(top, 'shared');
  mkdirSync(shared);
  writeFileSync(join(shared, 'theirs'), 'x');
  chmodSync(join(shared, 'theirs'), 0o644);
  chmodSync(shared, 0o1777);
  const r = tightenModes({ files: [], trees: [shared], folders: [shared] });
  expect(mode(shared)).toBe('1777');
  expect(mode(join(shared, 'theirs'))).toBe('644');
  expect(r.shared).toEqual([shared, shared]);
  expect(r.changed).toEqual([]);
});

test('missing paths are skipped; a remote or in-memory database has no local file', () => {
  expect(tightenModes({ files: [join(top, 'none.db')], trees: [join(top, 'no-uploads')], folders: [join(top, 'nowhere')] })).toEqual({
    changed: [],
    shared: [],
  });
  expect(localDatabasePath('libsql://x.turso.io')).toBeNull();
  expect(localDatabasePath('file::memory:')).toBeNull();
  expect(localDatabasePath('file:./data/bpay.db?mode=rwc')).toMatch(/\/data\/bpay\.db$/);
});
