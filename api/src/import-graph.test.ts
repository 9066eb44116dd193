import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/*
 * api/src is only what runs in production; test kits live in api/test-support/ and sdk/test-support/ (issue 17).
 * This walks the server's import graph as Bun loads it, from the process entry (server.ts) and the app factory
 * (app.ts): relative imports and the workspace packages (@bpay/db -> db/…, through each package.json's "exports"),
 * static and dynamic imports alike, type-only imports left out as the transpiler drops them. No file it reaches may
 * be a test kit, a test, or import bun:test. And no file under api/src but a test imports from a test-support folder,
 * type-only imports included: the production tree does not lean on the test tree at all. Nor does api/src hold a
 * file that production never imports, counting type-only imports (a test kit left there, or dead code).
 *
 * A failure names the file and the chain of imports that reaches it from the entry.
 */

const ROOT = resolve(import.meta.dir, '../..');
const ENTRIES = ['api/src/server.ts', 'api/src/app.ts'];
const TEST_SUPPORT = ['api/test-support/', 'sdk/test-support/'];
const TEST_FILE = /\.(test|spec|e2e)\.tsx?$/;

/** The workspace packages by name, each with its folder and package.json "exports" map. */
const workspaces = new Map<string, { dir: string; exports: Record<string, string> }>(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces as string[]).map((dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
    return [pkg.name as string, { dir, exports: pkg.exports ?? {} }];
  }),
);

function asFile(path: string): string | null {
  for (const candidate of [path, `${path}.ts`, `${path}.tsx`, join(path, 'index.ts'), join(path, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

type Resolved = { file: string } | { external: true } | { unresolved: true };

/** A specifier as Bun resolves it for a file in this repository; npm packages and built-ins are external. */
function resolveSpecifier(spec: string, from: string): Resolved {
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const file = asFile(resolve(dirname(from), spec));
    return file ? { file } : { unresolved: true };
  }
  for (const [name, ws] of workspaces) {
    if (spec !== name && !spec.startsWith(`${name}/`)) continue;
    const sub = spec === name ? '.' : `./${spec.slice(name.length + 1)}`;
    const file = asFile(join(ROOT, ws.dir, ws.exports[sub] ?? sub));
    return file ? { file } : { unresolved: true };
  }
  return { external: true };
}

// The loader follows the extension: the tsx loader reads `<T>(x: T) => …` in a .ts file as JSX and fails.
const transpilers = { ts: new Bun.Transpiler({ loader: 'ts' }), tsx: new Bun.Transpiler({ loader: 'tsx' }) };
const source = (file: string) => readFileSync(file, 'utf8').replace(/^#!.*/, '');
const isScript = (file: string) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts');
/** What Bun loads at run time for this file: static and dynamic imports and re-exports, not type-only ones. */
const runtimeImports = (file: string) => transpilers[file.endsWith('.tsx') ? 'tsx' : 'ts'].scanImports(source(file)).map((i) => i.path);
/** Every module specifier in the text, as a grep finds it (`from '…'`, `import '…'`, `import('…')`): type-only ones too. */
const allImports = (file: string) => [...source(file).matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

const rel = (file: string) => relative(ROOT, file);

interface Graph {
  /** Every file reached, with the file that first imported it (null for an entry). */
  parent: Map<string, string | null>;
  /** Imports inside the repository that resolve to no file: the walk would be blind past them. */
  unresolved: string[];
}

function walk(entries: string[], importsOf: (file: string) => string[]): Graph {
  const parent = new Map<string, string | null>();
  const unresolved: string[] = [];
  const queue: string[] = [];
  for (const entry of entries) {
    const file = join(ROOT, entry);
    parent.set(file, null);
    queue.push(file);
  }
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (!isScript(file)) continue; // web/index.html (the dev server's page), JSON, declaration files
    for (const spec of importsOf(file)) {
      const r = resolveSpecifier(spec, file);
      if ('unresolved' in r) unresolved.push(`${rel(file)}: '${spec}'`);
      if (!('file' in r) || parent.has(r.file)) continue;
      parent.set(r.file, file);
      queue.push(r.file);
    }
  }
  return { parent, unresolved };
}

/** 'api/src/server.ts -> api/src/app.ts -> …' down to `file`. */
function chain(graph: Graph, file: string): string {
  const steps: string[] = [];
  for (let at: string | null | undefined = file; at; at = graph.parent.get(at)) steps.unshift(rel(at));
  return steps.join(' -> ');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

const graph = walk(ENTRIES, runtimeImports);
const reached = [...graph.parent.keys()].filter(isScript);

describe("the server's import graph (from api/src/server.ts and api/src/app.ts)", () => {
  test('resolves every import inside the repository, and reaches the modules and the db package', () => {
    expect(graph.unresolved).toEqual([]);
    const names = reached.map(rel);
    // A walk that stopped early would find nothing below: it must reach deep into the app and across packages.
    expect(names).toContain('api/src/modules/refunds/routes.ts');
    expect(names).toContain('api/src/boot.ts');
    expect(names).toContain('db/client.ts');
    expect(names).toContain('db/schema/index.ts');
  });

  test('reaches no test kit (api/test-support/, sdk/test-support/)', () => {
    const kits = reached.filter((f) => TEST_SUPPORT.some((dir) => rel(f).startsWith(dir)));
    expect(kits.map((f) => chain(graph, f))).toEqual([]);
  });

  test('reaches no test file (*.test.ts, *.spec.ts, *.e2e.ts)', () => {
    const tests = reached.filter((f) => TEST_FILE.test(f));
    expect(tests.map((f) => chain(graph, f))).toEqual([]);
  });

  test('reaches no file that imports bun:test', () => {
    const importers = reached.filter((f) => runtimeImports(f).includes('bun:test'));
    expect(importers.map((f) => chain(graph, f))).toEqual([]);
  });
});

describe('api/src holds only production code', () => {
  const production = filesUnder(join(ROOT, 'api/src')).filter((f) => isScript(f) && !TEST_FILE.test(f));

  test('no file under api/src but a test imports from a test-support folder (type-only imports too)', () => {
    const offenders = production.flatMap((f) =>
      allImports(f)
        .filter((spec) => {
          const r = resolveSpecifier(spec, f);
          return /(^|\/)test-support(\/|$)/.test(spec) || ('file' in r && TEST_SUPPORT.some((dir) => rel(r.file).startsWith(dir)));
        })
        .map((spec) => `${rel(f)} imports '${spec}'`),
    );
    expect(offenders).toEqual([]);
  });

  test('no file under api/src but a test imports bun:test (type-only imports too)', () => {
    const offenders = production.filter((f) => allImports(f).includes('bun:test')).map(rel);
    expect(offenders).toEqual([]);
  });

  test('every file under api/src but a test is imported by production (from the entries, type-only imports too)', () => {
    const withTypes = walk(ENTRIES, allImports);
    expect(production.filter((f) => !withTypes.parent.has(f)).map(rel)).toEqual([]);
  });
});
