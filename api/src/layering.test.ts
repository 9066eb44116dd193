import { describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/*
 * The server's module graph reads top-down (issue 17):
 *
 *   app.ts / server.ts / boot.ts                 the composition root: mounts the routes, starts the timers
 *   modules/<domain>/routes.ts, *-routes.ts      the top layer: parse, call services, answer (plugins/ guard them)
 *   modules/<domain>/ everything else            services, in an order without cycles; events/, webhooks/, ledger/
 *                                                at the bottom, below every module that emits to them
 *   lib/, vendors/, storage/                     beneath every module: they import no module
 *
 * Walked: every file the production server reaches from server.ts (tests and their kits are not part of it), with
 * type-only imports counted too, since a type imported upward ties the modules together as much as a value does.
 * Reproduce by hand: read the `import … from '…'` lines of the files named in a failure.
 */

const SRC = import.meta.dir;
const rel = (file: string) => relative(SRC, file);

/** `modules/<name>` for a module's files, `lib`, `vendors`, `storage`, `plugins`, or null for the root files. */
function area(file: string): string | null {
  const parts = rel(file).split('/');
  if (parts.length === 1) return null;
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts[0]!;
}

const isRoute = (file: string) => /(^|[/-])routes\.ts$/.test(rel(file));

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null; // a package (@bpay/db, elysia): outside this graph
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${rel(from)}: cannot resolve the import '${spec}'`);
}

/** file -> the files under api/src it imports (value and type imports, re-exports, dynamic imports). */
async function productionGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const todo = [join(SRC, 'server.ts')];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (graph.has(file)) continue;
    const text = await Bun.file(file).text();
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((i) => resolveImport(file, i.fileName))
      .filter((t): t is string => t !== null && t.startsWith(`${SRC}/`));
    graph.set(file, [...new Set(targets)]);
    todo.push(...targets);
  }
  return graph;
}

const graph = await productionGraph();
const imports = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));
const show = (list: Array<{ from: string; to: string }>) => list.map(({ from, to }) => `${rel(from)} imports ${rel(to)}`);

test('the walk sees the whole server (a broken walk would pass every rule below)', () => {
  for (const file of ['app.ts', 'boot.ts', 'modules/bcards/collect.ts', 'modules/events/emit.ts', 'vendors/stripe/index.ts', 'lib/ids.ts']) {
    expect(graph.has(join(SRC, file))).toBe(true);
  }
  expect(imports.length).toBeGreaterThan(500);
});

describe('what each layer may import', () => {
  test('lib/ imports only lib/ and errors.ts: no module, plugin, vendor or storage', () => {
    const bad = imports.filter(({ from, to }) => area(from) === 'lib' && area(to) !== 'lib' && rel(to) !== 'errors.ts');
    expect(show(bad)).toEqual([]);
  });

  test('vendors/ and storage/ (the adapters beneath the services) import only themselves, lib/ and errors.ts', () => {
    const bad = imports.filter(({ from, to }) => {
      const a = area(from);
      return (a === 'vendors' || a === 'storage') && area(to) !== a && area(to) !== 'lib' && rel(to) !== 'errors.ts';
    });
    expect(show(bad)).toEqual([]);
  });

  test('events/, ledger/ and webhooks/ import no module that emits to them', () => {
    /**
     * The module folders each may import. Events are recorded in the emitter's transaction (events/emit.ts) and
     * delivered by webhooks/; neither knows who emits. The one exception: the Merchant Dashboard's webhook routes
     * (webhooks/dashboard-routes.ts) check the signed-in owner's merchant (merchants/service.ts), as every dashboard
     * route does; merchants/ emits nothing.
     */
    const allowed: Record<string, { services: string[]; routes: string[] }> = {
      'modules/ledger': { services: [], routes: [] },
      'modules/events': { services: ['modules/ledger'], routes: [] },
      'modules/webhooks': { services: ['modules/events', 'modules/ledger'], routes: ['modules/merchants'] },
    };
    const bad = imports.filter(({ from, to }) => {
      const rule = allowed[area(from) ?? ''];
      const target = area(to);
      if (!rule || !target?.startsWith('modules/') || target === area(from)) return false;
      return !rule.services.includes(target) && !(isRoute(from) && rule.routes.includes(target));
    });
    expect(show(bad)).toEqual([]);
  });

  test('routes are the top layer: no service imports a route file, and a route file imports routes of its own folder only', () => {
    const bad = imports.filter(({ from, to }) => {
      if (!isRoute(to) || area(from) === null) return false; // app.ts mounts every route
      return !isRoute(from) || area(from) !== area(to);
    });
    expect(show(bad)).toEqual([]);
  });

  test('nothing imports the composition root (app.ts, server.ts, boot.ts) but the root itself', () => {
    const root = new Set(['app.ts', 'server.ts', 'boot.ts']);
    const bad = imports.filter(({ from, to }) => root.has(rel(to)) && area(from) !== null);
    expect(show(bad)).toEqual([]);
  });
});

test('beneath the routes, the folders import each other without a cycle', () => {
  // Folder -> folder, from every file that is not a route file (route files call any module's services: they are
  // the top, and plugins/ stand between them and the services). The root files are the composition, not a folder.
  const edges = new Map<string, Map<string, Array<{ from: string; to: string }>>>();
  for (const edge of imports) {
    const [a, b] = [area(edge.from), area(edge.to)];
    if (a === null || b === null || a === b || isRoute(edge.from)) continue;
    const out = edges.get(a) ?? new Map<string, Array<{ from: string; to: string }>>();
    edges.set(a, out.set(b, [...(out.get(b) ?? []), edge]));
  }
  // Depth-first; a folder met again while it is still on the path closes a cycle.
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string) => {
    if (done.has(node)) return;
    const at = path.indexOf(node);
    if (at !== -1) {
      const cycle = [...path.slice(at), node];
      const why = cycle.slice(1).flatMap((next, i) => show(edges.get(cycle[i]!)!.get(next)!.slice(0, 3)).map((s) => `    ${s}`));
      cycles.push([cycle.join(' -> '), ...why].join('\n'));
      return;
    }
    path.push(node);
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) visit(next);
    path.pop();
    done.add(node);
  };
  for (const node of [...edges.keys()].sort()) visit(node);
  expect(cycles).toEqual([]);
});
