import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/*
 * A small static reader of the web app's own import graph, for tests (catalogue ownership): which source modules a
 * module reaches through static imports (not `import type`, not `import()`), and which catalogue areas' keys those
 * modules name. It reads the source text, so it needs no build.
 */

const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function resolveModule(fromFile: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null; // packages are not ours
  const base = resolve(dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && !candidate.endsWith('/') && /\.(ts|tsx)$/.test(candidate)) return candidate;
  }
  return null;
}

/** The module's own static imports of project files, resolved to absolute paths. */
export function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(STATIC_IMPORT)) {
    const resolved = resolveModule(file, m[1]!);
    if (resolved) out.push(resolved);
  }
  return out;
}

/** Every project module statically reachable from `entry` (itself included). */
export function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [resolve(entry)];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of staticImports(file)) if (!seen.has(next)) stack.push(next);
  }
  return seen;
}
