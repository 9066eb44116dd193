import { afterEach, beforeEach, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compressFolder } from './compress';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-compress-'));
  mkdirSync(join(dir, 'assets'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const text = (n: number) => 'export const message = "hello, compressed world";\n'.repeat(Math.ceil(n / 50)).slice(0, n);
/** Bytes that do not compress: a copy would not save 10 %. */
const noise = (n: number) => crypto.getRandomValues(new Uint8Array(n));

test('writes .br and .gz beside each compressible file, in subfolders too, and they decode to the original', () => {
  const js = text(20_000);
  writeFileSync(join(dir, 'assets', 'index-abcdefgh.js'), js);
  writeFileSync(join(dir, 'index.html'), `<!doctype html>${text(3000)}`);
  const result = compressFolder(dir);

  expect(brotliDecompressSync(readFileSync(join(dir, 'assets', 'index-abcdefgh.js.br'))).toString()).toBe(js);
  expect(gunzipSync(readFileSync(join(dir, 'assets', 'index-abcdefgh.js.gz'))).toString()).toBe(js);
  expect(existsSync(join(dir, 'index.html.br'))).toBe(true);
  expect(existsSync(join(dir, 'index.html.gz'))).toBe(true);
  const entry = result.find((r) => r.path === 'assets/index-abcdefgh.js');
  expect(entry?.bytes).toBe(20_000);
  expect(entry?.br).toBeLessThan(entry!.gz!);
});

test('every listed text format is compressed; other formats, tiny files and the copies themselves are not', () => {
  for (const ext of ['css', 'svg', 'json', 'txt', 'xml', 'map']) writeFileSync(join(dir, `f.${ext}`), text(2000));
  writeFileSync(join(dir, 'logo.png'), text(2000));
  writeFileSync(join(dir, 'small.js'), text(1023));
  compressFolder(dir);
  for (const ext of ['css', 'svg', 'json', 'txt', 'xml', 'map']) {
    expect({ ext, br: existsSync(join(dir, `f.${ext}.br`)), gz: existsSync(join(dir, `f.${ext}.gz`)) }).toEqual({ ext, br: true, gz: true });
  }
  expect(existsSync(join(dir, 'logo.png.br'))).toBe(false);
  expect(existsSync(join(dir, 'small.js.br'))).toBe(false);
  expect(existsSync(join(dir, 'small.js.gz'))).toBe(false);
  // Run twice: the .br/.gz of the first run are not compressed again.
  compressFolder(dir);
  expect(existsSync(join(dir, 'f.css.br.br'))).toBe(false);
  expect(existsSync(join(dir, 'f.css.gz.gz'))).toBe(false);
});

test('no copy when it would not save 10 %, and a stale copy from an earlier build is removed', () => {
  writeFileSync(join(dir, 'random.js'), noise(4096));
  writeFileSync(join(dir, 'random.js.br'), 'stale');
  writeFileSync(join(dir, 'random.js.gz'), 'stale');
  const result = compressFolder(dir);
  expect(existsSync(join(dir, 'random.js.br'))).toBe(false);
  expect(existsSync(join(dir, 'random.js.gz'))).toBe(false);
  expect(result).toEqual([{ path: 'random.js', bytes: 4096, br: undefined, gz: undefined }]);
});
