import { afterAll, expect, test } from 'bun:test';
import { unzipSync } from 'fflate';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { manifestFor } from './build';

/*
 * Issue 24 §3 budgets, by bytes, from a real build (build.ts in a child process, as web/src/budgets.test.ts does:
 * Bun.build inside the test runner resolves modules differently): the content script at most 20 KB gzip, the popup
 * (its HTML, module script and CSS) at most 150 KB gzip. KB = 1024 bytes, gzip level 9. Also what the build must
 * give: the manifest for the origin, the zip with the same files, its copy for the web server, no eval.
 */

const KB = 1024;
const CONTENT_CEILING_KB = 20;
const POPUP_CEILING_KB = 150;
const ORIGIN = 'http://localhost:3999';

const out = mkdtempSync(join(tmpdir(), 'bpay-extension-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const built = Bun.spawnSync(['bun', join(import.meta.dir, 'build.ts')], {
  env: { ...process.env, BPAY_PUBLIC_URL: `${ORIGIN}/`, BPAY_EXTENSION_OUT: out, BPAY_WEB_DIST: join(out, 'web') },
  stderr: 'pipe',
  stdout: 'pipe',
});
if (built.exitCode !== 0) throw new Error(`extension build failed: ${built.stderr.toString()}`);
const dir = join(out, 'extension');
const gz = (file: string) => gzipSync(readFileSync(join(dir, file)), { level: 9 }).length;

/** The files popup.html loads (its module script and stylesheet), and the page itself. */
function popupFiles(): string[] {
  const html = readFileSync(join(dir, 'popup.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
  return ['popup.html', ...refs];
}

test(`the content script is at most ${CONTENT_CEILING_KB} KB gzip`, () => {
  const size = gz('content.js');
  console.log(`content.js: ${(size / KB).toFixed(1)} KB gzip`);
  expect(size / KB).toBeLessThanOrEqual(CONTENT_CEILING_KB);
});

test(`the popup is at most ${POPUP_CEILING_KB} KB gzip (HTML, script and CSS)`, () => {
  const files = popupFiles();
  expect(files.some((f) => f.endsWith('.js'))).toBe(true);
  expect(files.some((f) => f.endsWith('.css'))).toBe(true);
  const size = files.reduce((a, f) => a + gz(f), 0);
  console.log(`popup: ${(size / KB).toFixed(1)} KB gzip (${files.join(', ')})`);
  expect(size / KB).toBeLessThanOrEqual(POPUP_CEILING_KB);
});

test('content scripts and the worker are single classic scripts: no import, no chunk to load', () => {
  for (const file of ['content.js', 'bridge.js', 'background.js']) {
    const js = readFileSync(join(dir, file), 'utf8');
    expect(js).not.toMatch(/(^|[;\s])import\s*[({"']|\bimport\(/);
    expect(js).not.toMatch(/^export\s/m);
  }
});

test('no eval and no code from elsewhere in any script', () => {
  const scripts = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  expect(scripts.length).toBeGreaterThanOrEqual(5);
  for (const file of scripts) {
    const js = readFileSync(join(dir, file), 'utf8');
    expect(js).not.toMatch(/\beval\(|new Function\(|importScripts\(/);
  }
  for (const page of ['popup.html', 'options.html']) {
    const html = readFileSync(join(dir, page), 'utf8');
    expect(html).not.toMatch(/<script(?![^>]*src="\.\/)/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  }
});

test('the manifest is written for BPAY_PUBLIC_URL, and the origin is baked into the scripts', () => {
  expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))).toEqual(manifestFor(ORIGIN));
  expect(readFileSync(join(dir, 'background.js'), 'utf8')).toContain(ORIGIN);
  for (const size of [16, 32, 48, 128]) {
    const png = readFileSync(join(dir, 'icons', `icon-${size}.png`));
    expect([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(size);
  }
});

test('the zip holds exactly the unpacked folder, and the web build gets a copy under /downloads', () => {
  const zip = readFileSync(join(out, 'bpay-extension.zip'));
  const entries = unzipSync(new Uint8Array(zip));
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)).split('\\').join('/'))
    .sort();
  expect(Object.keys(entries).sort()).toEqual(files);
  expect(new TextDecoder().decode(entries['manifest.json'])).toBe(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  expect(readFileSync(join(out, 'web', 'downloads', 'bpay-extension.zip')).equals(zip)).toBe(true);
});
