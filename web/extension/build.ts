import tailwind from 'bun-plugin-tailwind';
import { zipSync, type Zippable } from 'fflate';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';

/*
 * `bun run build:extension`: the browser extension (Manifest V3) into <out>/extension/ (unpacked, for "Load
 * unpacked"), <out>/bpay-extension.zip, and a copy of the zip at <web dist>/downloads/bpay-extension.zip, which
 * the bpay server serves for the /extension page's download link. Run it after `bun run build:web` (that build
 * empties web/dist).
 *
 * Environment (build scripts read it; the server's env.ts rule is about the server):
 * - BPAY_PUBLIC_URL    the bpay origin baked into the build (host permission, the bridge's match, the default the
 *                      options page shows). Default http://localhost:3000.
 * - BPAY_EXTENSION_OUT where to write (default <repo>/dist).
 * - BPAY_WEB_DIST      the web build the server serves (default web/dist), as for web/build.ts.
 *
 * Scripts: background.js, content.js and bridge.js are single self-contained IIFE files (content scripts cannot be
 * ES modules, and no code splitting: each runs alone). popup.html and options.html are HTML entries (module
 * scripts from the extension itself; CSP script-src 'self'). Minified, no source maps, no remote code, no eval.
 *
 * Firefox: the manifest carries browser_specific_settings.gecko (id, strict_min_version 128: MV3 with
 * optional_host_permissions and storage.session). Firefox does not run `background.service_worker`; it runs
 * `background.scripts`. The manifest therefore names background.js under both keys (it is one classic script that
 * works as either): Chromium uses the service worker and, since Chrome 121, ignores `scripts` when `service_worker`
 * is present (hence minimum_chrome_version 121). Older Chromium refused unknown or MV2-only keys with a warning
 * only; Debian's Chromium 156 loads this manifest with no error and no install warning (checked through
 * chrome.developerPrivate.getExtensionInfo in the smoke run). Firefox lacks chrome.action.openPopup outside a user
 * gesture: the background then opens popup.html in a small window, as it does on any failure.
 */

const HERE = import.meta.dir;
const ROOT = resolve(HERE, '..', '..');
const ORIGIN_PLACEHOLDER = '__BPAY_ORIGIN__';
export const ICON_SIZES = [16, 32, 48, 128] as const;

/** The bare origin of BPAY_PUBLIC_URL ("https://bpay.example.com/" -> "https://bpay.example.com"). */
export function originOf(publicUrl: string | undefined, port?: string): string {
  // Without BPAY_PUBLIC_URL the server's own default (api/src/env.ts): http://localhost:<PORT, 3000>.
  const fallback = `http://localhost:${port && /^[0-9]{1,5}$/.test(port.trim()) ? port.trim() : '3000'}`;
  const url = new URL(publicUrl && publicUrl.trim() !== '' ? publicUrl.trim() : fallback);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`BPAY_PUBLIC_URL must be http(s): ${publicUrl}`);
  return url.origin;
}

/** manifest.json for an origin: the template with the origin written where it says __BPAY_ORIGIN__. */
export function manifestFor(origin: string): Record<string, unknown> {
  const template = readFileSync(join(HERE, 'manifest.template.json'), 'utf8');
  return JSON.parse(template.replaceAll(ORIGIN_PLACEHOLDER, origin)) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------------------
// Icons: drawn here (a white "b" on the brand colour), so no binary is committed.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An RGBA PNG of the icon at `size` pixels (4×4 supersampling for smooth edges). */
export function iconPng(size: number): Uint8Array {
  const brand = [0x4f, 0x46, 0xe5];
  const inRoundedSquare = (x: number, y: number) => {
    const r = 0.22;
    const cx = Math.min(Math.max(x, r), 1 - r);
    const cy = Math.min(Math.max(y, r), 1 - r);
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  };
  const inB = (x: number, y: number) => {
    const stem = x >= 0.28 && x <= 0.41 && y >= 0.17 && y <= 0.82;
    const d = Math.hypot(x - 0.52, y - 0.6);
    const bowl = d <= 0.23 && d >= 0.11 && x >= 0.34;
    return stem || bowl;
  };
  const rows: number[] = [];
  const S = 4;
  for (let py = 0; py < size; py++) {
    rows.push(0); // filter: none
    for (let px = 0; px < size; px++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const x = (px + (sx + 0.5) / S) / size;
          const y = (py + (sy + 0.5) / S) / size;
          if (inRoundedSquare(x, y)) {
            bg += 1;
            if (inB(x, y)) fg += 1;
          }
        }
      }
      const a = bg / (S * S);
      const white = bg === 0 ? 0 : fg / bg;
      for (const c of brand) rows.push(Math.round(c + (255 - c) * white));
      rows.push(Math.round(a * 255));
    }
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, size);
  hv.setUint32(4, size);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const parts = [signature, chunk('IHDR', header), chunk('IDAT', deflateSync(new Uint8Array(rows), { level: 9 })), chunk('IEND', new Uint8Array())];
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Bundling

function failIf(result: Bun.BuildOutput, what: string): void {
  if (!result.success) throw new AggregateError(result.logs, `extension build failed (${what}):\n${result.logs.join('\n')}`);
}

function defines(origin: string): Record<string, string> {
  return { BPAY_DEFAULT_ORIGIN: JSON.stringify(origin), 'process.env.NODE_ENV': JSON.stringify('production') };
}

/** One self-contained classic script (IIFE): the background and the content scripts. */
async function bundleScript(entry: string, outFile: string, origin: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [join(HERE, 'src', entry)],
    target: 'browser',
    format: 'iife',
    splitting: false,
    minify: true,
    sourcemap: 'none',
    define: defines(origin),
  });
  failIf(result, entry);
  const [output] = result.outputs.filter((o) => o.kind === 'entry-point');
  if (!output) throw new Error(`extension build: no output for ${entry}`);
  writeFileSync(outFile, await output.text());
}

/** An extension page (HTML entry, its module script and CSS) into outdir. */
async function bundlePage(html: string, outdir: string, origin: string, withTailwind: boolean): Promise<void> {
  const result = await Bun.build({
    entrypoints: [join(HERE, 'src', html)],
    outdir,
    target: 'browser',
    splitting: false,
    minify: true,
    sourcemap: 'none',
    define: defines(origin),
    plugins: withTailwind ? [tailwind] : [],
    naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
  });
  failIf(result, html);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

export interface ExtensionBuild {
  dir: string;
  zip: string;
  download: string | null;
  files: { path: string; raw: number; gzip: number }[];
}

export async function buildExtension(options: { origin: string; out: string; webDist: string | null }): Promise<ExtensionBuild> {
  const dir = join(options.out, 'extension');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'icons'), { recursive: true });

  await bundleScript('background.ts', join(dir, 'background.js'), options.origin);
  await bundleScript('content/index.ts', join(dir, 'content.js'), options.origin);
  await bundleScript('bridge.ts', join(dir, 'bridge.js'), options.origin);
  await bundlePage('popup/popup.html', dir, options.origin, true);
  await bundlePage('options/options.html', dir, options.origin, false);
  for (const size of ICON_SIZES) writeFileSync(join(dir, 'icons', `icon-${size}.png`), iconPng(size));
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifestFor(options.origin), null, 2)}\n`);

  const files = filesUnder(dir).map((f) => {
    const bytes = readFileSync(f);
    return { path: relative(dir, f), raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  // Fixed timestamps: the same sources give the same zip.
  const entries: Zippable = {};
  for (const f of files) entries[f.path.split('\\').join('/')] = [new Uint8Array(readFileSync(join(dir, f.path))), { mtime: new Date('2025-01-01T00:00:00Z') }];
  const zip = join(options.out, 'bpay-extension.zip');
  writeFileSync(zip, zipSync(entries, { level: 9 }));
  let download: string | null = null;
  if (options.webDist) {
    download = join(options.webDist, 'downloads', 'bpay-extension.zip');
    mkdirSync(dirname(download), { recursive: true });
    copyFileSync(zip, download);
  }
  return { dir, zip, download, files };
}

if (import.meta.main) {
  const origin = originOf(process.env.BPAY_PUBLIC_URL, process.env.PORT);
  const out = resolve(process.env.BPAY_EXTENSION_OUT ?? join(ROOT, 'dist'));
  const webDist = resolve(process.env.BPAY_WEB_DIST ?? join(ROOT, 'web', 'dist'));
  const built = await buildExtension({ origin, out, webDist });
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const f of built.files) console.log(`  ${f.path.padEnd(34)} ${kb(f.raw).padStart(9)}  gzip ${kb(f.gzip).padStart(8)}`);
  const popupHtml = readFileSync(join(built.dir, 'popup.html'), 'utf8');
  const popupFiles = new Set(['popup.html', ...[...popupHtml.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1])]);
  const gz = (names: (f: ExtensionBuild['files'][number]) => boolean) => kb(built.files.filter(names).reduce((a, f) => a + f.gzip, 0));
  console.log(`  content script ${gz((f) => f.path === 'content.js')} gzip (budget 20 KB); popup ${gz((f) => popupFiles.has(f.path))} gzip (budget 150 KB)`);
  console.log(`extension: built for ${origin} into ${built.dir}`);
  console.log(`  ${relative(ROOT, built.zip)} ${kb(statSync(built.zip).size)}${built.download ? `; copied to ${built.download}` : ''}`);
}
