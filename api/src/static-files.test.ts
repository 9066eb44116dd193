import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveStaticFile } from './static-files';

let dir: string;
let web: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-static-'));
  web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html>');
  writeFileSync(join(web, 'assets', 'app-abcdefgh.js'), '');
  // Siblings whose names start with the build folder's: a prefix check alone would serve them.
  mkdirSync(join(dir, 'web-private'));
  writeFileSync(join(dir, 'web-private', 's.txt'), 'TOPSECRET');
  writeFileSync(join(dir, 'web.db'), 'db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('files of the build are found', () => {
  expect(resolveStaticFile(web, '/index.html')).toBe(join(web, 'index.html'));
  expect(resolveStaticFile(web, '/assets/app-abcdefgh.js')).toBe(join(web, 'assets', 'app-abcdefgh.js'));
  expect(resolveStaticFile(web, '/assets/../index.html')).toBe(join(web, 'index.html'));
});

test('nothing outside the build is ever named, however the path is spelt', () => {
  for (const path of [
    '/..%2fweb-private/s.txt',
    '/..%2Fweb.db',
    '/%2e%2e/web-private/s.txt',
    '/../web-private/s.txt',
    '/..\\web-private\\s.txt',
    '/..%5cweb-private%5cs.txt',
    '/%zz',
    '/index.html%00.js',
    '/',
    '/assets',
    '/missing.js',
  ]) {
    expect({ path, file: resolveStaticFile(web, path) }).toEqual({ path, file: null });
  }
});
