import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

/*
 * Precompressed copies of the web build: `x.js.br` (brotli, quality 11) and `x.js.gz` (gzip, level 9) beside `x.js`,
 * which the server sends by Accept-Encoding (api/src/static-files.ts). Done once at build time so the server never
 * spends CPU on static files and can use the slowest, smallest settings.
 */

/** Text formats worth compressing; images and fonts (png, woff2) are compressed already. */
export const COMPRESSIBLE_EXTENSIONS = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.xml', '.map', '.webmanifest']);
/** Below this, headers outweigh the saving. */
export const MIN_BYTES = 1024;
/** A copy is kept only when it is at most this fraction of the original. */
export const MAX_RATIO = 0.9;

export interface CompressedFile {
  /** Path relative to the folder, with `/` separators. */
  path: string;
  bytes: number;
  /** Sizes of the copies written, absent when the copy would not save enough. */
  br?: number;
  gz?: number;
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

function writeIfWorth(target: string, original: number, compressed: Uint8Array): number | undefined {
  if (compressed.byteLength <= original * MAX_RATIO) {
    writeFileSync(target, compressed);
    return compressed.byteLength;
  }
  // A copy left from an earlier build would be served for content it no longer matches.
  rmSync(target, { force: true });
  return undefined;
}

/**
 * Writes `.br` and `.gz` beside every compressible file of `root` (recursively) of at least MIN_BYTES, each only
 * when it saves at least 10 %. Returns what it compressed, for the build's summary.
 */
export function compressFolder(root: string): CompressedFile[] {
  const done: CompressedFile[] = [];
  for (const file of walk(root)) {
    if (!COMPRESSIBLE_EXTENSIONS.has(extname(file).toLowerCase())) continue;
    const size = statSync(file).size;
    if (size < MIN_BYTES) {
      rmSync(`${file}.br`, { force: true });
      rmSync(`${file}.gz`, { force: true });
      continue;
    }
    const bytes = readFileSync(file);
    const br = brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: size,
      },
    });
    const gz = gzipSync(bytes, { level: 9 });
    done.push({
      path: relative(root, file).split('\\').join('/'),
      bytes: size,
      br: writeIfWorth(`${file}.br`, size, br),
      gz: writeIfWorth(`${file}.gz`, size, gz),
    });
  }
  return done;
}
