/*
 * What each route area downloads, from a built web app: `bun bench/bundle.ts [dist folder]` (default web/dist; build
 * it first with `bun run build:web`). Prints raw and gzip sizes of the JS a first visit to / loads, of the dashboard
 * after sign-in (the entry's chunks plus the dashboard chunk and its static imports), and of every other area.
 */
import { resolve } from 'node:path';
import { ChunkGraph, total } from '../web/bundle-graph';

const dir = resolve(process.argv[2] ?? 'web/dist');
const graph = new ChunkGraph(dir);
const entry = graph.closure(graph.entries());
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const rows: [string, number, number, number][] = [['/ (entry)', entry.length, total(entry, 'raw'), total(entry, 'gzip')]];
const areas = [...new Set(entry.flatMap((c) => c.dynamicImports).map((p) => p.split('/').pop()!.replace(/-[a-z0-9]{8}\.js$/, '')))];
for (const area of areas.sort()) {
  const all = graph.closure([...graph.entries(), graph.areaChunk(entry, area)]);
  rows.push([`${area} (entry + area)`, all.length, total(all, 'raw'), total(all, 'gzip')]);
}
console.log(`JS by route area in ${dir}\n`);
console.log(`${'area'.padEnd(34)}${'chunks'.padStart(7)}${'raw'.padStart(12)}${'gzip'.padStart(12)}`);
for (const [name, n, raw, gz] of rows) console.log(`${name.padEnd(34)}${String(n).padStart(7)}${kb(raw).padStart(12)}${kb(gz).padStart(12)}`);
