import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/*
 * The chunk graph of a web build (web/build-config.ts output), for the budgets test and bench/bundle.ts: the entry
 * scripts named by index.html, and for any chunk the chunks it imports statically (Bun writes `import ... from
 * "/assets/x.js"` between chunks) or lazily (`import("/assets/x.js")`, a route area's chunk).
 */

const STATIC_IMPORT = /(?:^|[;}\s])(?:import|export)\s*(?:[^"'();]*?from\s*)?["'](\/[^"']+\.js)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["'](\/[^"']+\.js)["']\s*\)/g;

export interface Chunk {
  /** URL path, e.g. /assets/index-abcd1234.js */
  path: string;
  raw: number;
  gzip: number;
  text: string;
  staticImports: string[];
  dynamicImports: string[];
}

export class ChunkGraph {
  private readonly cache = new Map<string, Chunk>();
  constructor(readonly dir: string) {}

  /** The module scripts index.html loads first. */
  entries(): string[] {
    const html = readFileSync(join(this.dir, 'index.html'), 'utf8');
    return [...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
  }

  chunk(path: string): Chunk {
    const known = this.cache.get(path);
    if (known) return known;
    // Bun drops the assets/ folder from chunk URLs when outdir lies outside the project: look there too.
    const file = existsSync(join(this.dir, path)) ? join(this.dir, path) : join(this.dir, 'assets', basename(path));
    const buf = readFileSync(file);
    const text = buf.toString('utf8');
    const chunk: Chunk = {
      path,
      raw: buf.byteLength,
      // Gzipped with every chunk's content hash replaced by a fixed stand-in (withoutHashes): the hashes, 8 random
      // characters each and 23 in the entry's preload map, change with any edit anywhere and moved the entry's gzip by
      // a few bytes either way (120.002 KB against its 120 KB ceiling after an admin-only change).
      gzip: gzipSync(this.withoutHashes(text), { level: 9 }).byteLength,
      text,
      staticImports: [...new Set([...text.matchAll(STATIC_IMPORT)].map((m) => m[1]!))],
      dynamicImports: [...new Set([...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!))],
    };
    this.cache.set(path, chunk);
    return chunk;
  }

  private hashes: { pattern: RegExp; stand: Map<string, string> } | null = null;
  /**
   * `text` with the content hash of every built chunk (its file name's `-xxxxxxxx.js`) replaced by a stand-in as random
   * as a hash but fixed by the chunk's name, so the figure is what is served, less the noise of which hashes an edit
   * happened to draw.
   */
  private withoutHashes(text: string): string {
    if (!this.hashes) {
      const assets = existsSync(join(this.dir, 'assets')) ? readdirSync(join(this.dir, 'assets')).sort() : [];
      const stand = new Map<string, string>();
      for (const f of assets) {
        const m = /^(.*)-([0-9a-z]{8})\.js$/.exec(f);
        if (!m || stand.has(m[2]!)) continue;
        const digest = createHash('sha256').update(`${m[1]}#${stand.size}`).digest();
        stand.set(m[2]!, [...digest.subarray(0, 8)].map((b) => '0123456789abcdefghijklmnopqrstuvwxyz'[b % 36]).join(''));
      }
      this.hashes = { pattern: stand.size > 0 ? new RegExp([...stand.keys()].join('|'), 'g') : /$^/g, stand };
    }
    const { pattern, stand } = this.hashes;
    return text.replace(pattern, (h) => stand.get(h) ?? h);
  }

  /** The chunks loaded with `roots`: themselves and everything they import statically, transitively. */
  closure(roots: string[]): Chunk[] {
    const seen = new Map<string, Chunk>();
    const stack = [...roots];
    while (stack.length) {
      const path = stack.pop()!;
      if (seen.has(path)) continue;
      const c = this.chunk(path);
      seen.set(path, c);
      stack.push(...c.staticImports);
    }
    return [...seen.values()];
  }

  /** The lazy chunk of a route area: the dynamic import (from any chunk of `from`) whose file name starts `<area>-`. */
  areaChunk(from: Chunk[], area: string): string {
    const found = from.flatMap((c) => c.dynamicImports).find((p) => p.split('/').pop()!.startsWith(`${area}-`));
    if (!found) throw new Error(`no lazy chunk for area ${area}`);
    return found;
  }
}

export const total = (chunks: Chunk[], key: 'raw' | 'gzip') => chunks.reduce((n, c) => n + c[key], 0);
