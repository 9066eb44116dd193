import { expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { reachable } from '../app/areas/source-graph';
import { entryCatalogues } from './messages';

/*
 * Catalogue messages travel with their area (issue 13): the entry registers only common and landing; every route
 * area module in web/src/app/areas registers its catalogues at its top level. A key whose catalogue is not
 * registered would show as a raw key, so: every key a module uses must belong to a catalogue that the area loading
 * that module registers, or to an entry catalogue. Read from the source's static import graph.
 */

const src = resolve(import.meta.dir, '..');
const messagesDir = join(src, 'i18n', 'messages');
const areasDir = join(src, 'app', 'areas');

const catalogueFiles = readdirSync(messagesDir).filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !f.includes('.test.'));
const owners = new Map<string, string>(); // key -> catalogue file name without .ts
for (const f of catalogueFiles) {
  const mod = (await import(join(messagesDir, f))) as { en: Record<string, string>; ar: Record<string, string> };
  for (const key of Object.keys(mod.en)) {
    expect(owners.has(key)).toBe(false);
    owners.set(key, basename(f, '.ts'));
  }
}
const entryOwned = new Set(Object.keys(entryCatalogues));
const fileOf: Record<string, string> = { common: 'common', landing: 'landing' };
for (const name of entryOwned) expect(fileOf[name]).toBeDefined();

/** The catalogues whose keys `file`'s text names: exact string literals, and template-literal prefixes (`auth.x.${y}`). */
function cataloguesUsedBy(file: string): Map<string, string> {
  const text = readFileSync(file, 'utf8');
  const used = new Map<string, string>(); // catalogue -> an example key
  for (const m of text.matchAll(/['"`]([a-zA-Z]+\.[\w.-]+)['"`]/g)) {
    const owner = owners.get(m[1]!);
    if (owner) used.set(owner, m[1]!);
  }
  for (const m of text.matchAll(/`([a-zA-Z]+\.[\w.-]*)\$\{/g)) {
    for (const [key, owner] of owners) if (key.startsWith(m[1]!)) used.set(owner, key);
  }
  return used;
}

/** The catalogues a module imports at runtime (not `import type`). */
function cataloguesImportedBy(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s+(?!type\b)[^'"]*from\s+'(?:\.\.\/)+i18n\/messages\/([\w-]+)'/gm)].map((m) => m[1]!);
}

function missingTexts(moduleFile: string, registered: Set<string>): string[] {
  const missing: string[] = [];
  for (const file of reachable(moduleFile)) {
    if (file.startsWith(messagesDir) || file.includes('.test.')) continue;
    for (const [catalogue, key] of cataloguesUsedBy(file)) {
      if (!registered.has(catalogue)) missing.push(`${file.slice(src.length + 1)} uses ${key} (${catalogue})`);
    }
  }
  return missing;
}

const areaFiles = readdirSync(areasDir).filter((f) => /\.tsx?$/.test(f) && !f.includes('.test.') && f !== 'source-graph.ts');

test('the entry chunk (main.tsx and what it imports statically) uses only the entry catalogues', () => {
  expect(missingTexts(join(src, 'app', 'main.tsx'), entryOwned)).toEqual([]);
});

test('every module reached from main.tsx imports no catalogue but through i18n/index (common, landing)', () => {
  const entryModules = reachable(join(src, 'app', 'main.tsx'));
  const importers = [...entryModules].filter((f) => cataloguesImportedBy(f).length > 0).map((f) => f.slice(src.length + 1));
  expect(importers).toEqual([]);
  const index = readFileSync(join(messagesDir, 'index.ts'), 'utf8');
  const runtime = [...index.matchAll(/^import\s+(?!type\b)[^'"]*from\s+'\.\/([\w-]+)'/gm)].map((m) => m[1]!);
  expect(runtime.sort()).toEqual(['common', 'landing']);
});

test.each(areaFiles)('area %s registers every catalogue its pages use', (area) => {
  const file = join(areasDir, area);
  const imported = cataloguesImportedBy(file);
  expect(imported.length).toBeGreaterThan(0);
  // Imported catalogues are registered at the module's top level, in one defineMessages call naming them all.
  const text = readFileSync(file, 'utf8');
  expect(text).toMatch(/^defineMessages\(/m);
  expect(missingTexts(file, new Set([...entryOwned, ...imported]))).toEqual([]);
});

/**
 * A catalogue only a lazily loaded part of an area shows (issue 26: what is owed and the Repay dialog, under the
 * dashboard) is registered by that part's own `<feature>/…texts.ts`, so the area's chunk does not carry it; every
 * module that names its keys must then reach that texts module statically.
 */
const featureTextFiles = readdirSync(join(src, 'features'), { recursive: true, encoding: 'utf8' })
  .filter((f) => /(^|[/-])texts\.ts$/.test(f) && !f.includes('.test.'))
  .map((f) => join(src, 'features', f));

test('every catalogue outside the entry is registered by at least one area module, or by the feature texts module of the lazy screens using it', () => {
  const registered = new Set(areaFiles.flatMap((a) => cataloguesImportedBy(join(areasDir, a))));
  const byFeature = new Map<string, string>(); // catalogue -> its feature texts module
  for (const f of featureTextFiles) for (const c of cataloguesImportedBy(f)) byFeature.set(c, f);
  for (const f of catalogueFiles) {
    const name = basename(f, '.ts');
    if (entryOwned.has(name) || registered.has(name)) continue;
    const texts = byFeature.get(name);
    expect(`${name}: ${Boolean(texts)}`).toBe(`${name}: true`);
    const users = [...new Set(featureTextFiles.map((t) => dirname(t)))]
      .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((x) => join(dir, x)))
      .filter((x) => /\.tsx?$/.test(x) && !x.includes('.test.') && x !== texts && cataloguesUsedBy(x).has(name));
    expect(users.length).toBeGreaterThan(0);
    for (const u of users) expect(`${u.slice(src.length + 1)} reaches ${name}'s texts: ${reachable(u).has(texts!)}`).toBe(`${u.slice(src.length + 1)} reaches ${name}'s texts: true`);
  }
});

test('the router loads every area module lazily, never statically', () => {
  const router = readFileSync(join(src, 'app', 'router.tsx'), 'utf8');
  expect(router).not.toMatch(/^import[^;]*'\.\/areas\//m);
  for (const area of areaFiles) expect(router).toContain(`import('./areas/${area.replace(/\.tsx?$/, '')}')`);
});
