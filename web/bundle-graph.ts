import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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
      gzip: gzipSync(buf, { level: 9 }).byteLength,
      text,
      staticImports: [...new Set([...text.matchAll(STATIC_IMPORT)].map((m) => m[1]!))],
      dynamicImports: [...new Set([...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!))],
    };
    this.cache.set(path, chunk);
    return chunk;
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
