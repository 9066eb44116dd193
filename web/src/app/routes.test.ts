import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'regexparam';
import { isWebRoute, matchesRoute, WEB_ROUTES } from './routes';

/** The router's <Route path="…"> list, read from its source in order (the catch-all <Route> has no path). */
const routerPaths = [...readFileSync(join(import.meta.dir, 'router.tsx'), 'utf8').matchAll(/<Route\s+path=(?:"([^"]*)"|\{'([^']*)'\})/g)].map(
  (m) => m[1] ?? m[2],
);

describe('one list of the SPA routes (issue 25 6e)', () => {
  test("router.tsx's <Route path=…> list is WEB_ROUTES, in order", () => {
    expect(routerPaths.length).toBeGreaterThan(20);
    expect(routerPaths).toEqual([...WEB_ROUTES]);
  });

  test('matching agrees with the router (regexparam, case-insensitive) on known, unknown and odd paths', () => {
    const patterns = [...WEB_ROUTES, '/u/:id', '/opt/:x?', '/files/*'];
    const paths = [
      ...WEB_ROUTES,
      '/AUTH',
      '/auth/',
      '/Checkout/Pay/',
      '/nope',
      '/auth/nope',
      '/checkout',
      '/checkout/pay/x',
      '//',
      '/u/42',
      '/u/42/',
      '/u',
      '/u/1/2',
      '/opt',
      '/opt/1',
      '/files/a/b',
      '/files/a',
    ];
    for (const pattern of patterns) {
      const { pattern: re } = parse(pattern);
      const router = new RegExp(re.source, 'i');
      for (const path of paths) expect({ pattern, path, match: matchesRoute(pattern, path) }).toEqual({ pattern, path, match: router.test(path) });
    }
  });

  test('isWebRoute: every route, not an unknown path', () => {
    for (const path of WEB_ROUTES) expect(isWebRoute(path)).toBe(true);
    for (const path of ['/nope', '/index.html', '/pages/ar.html', '/admin', '/extension/connect/x']) expect(isWebRoute(path)).toBe(false);
  });
});
