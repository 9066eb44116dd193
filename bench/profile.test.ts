import { describe, expect, test } from 'bun:test';
import { packageOfUrl, summarize } from './profile';

/*
 * bench/profile.ts's reading of a profile (the run itself is a bench, not a test): which package a frame is charged
 * to, natives charged to their caller's package when that is libsql, and only the samples of the window counted.
 */
const base = '/repo';
const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

describe('bench:profile', () => {
  test('a frame is charged to the package its file is in', () => {
    expect(packageOfUrl('file:///repo/node_modules/drizzle-orm/sql/sql.js', base)).toBe('drizzle-orm');
    expect(packageOfUrl('/repo/node_modules/@sinclair/typebox/build/esm/compiler/compiler.mjs', base)).toBe('@sinclair/typebox');
    expect(packageOfUrl('/repo/node_modules/elysia/dist/bun/index.js', base)).toBe('elysia');
    expect(packageOfUrl('/repo/node_modules/@libsql/client/lib-esm/sqlite3.js', base)).toBe('libsql binding + @libsql/client (JS)');
    expect(packageOfUrl('/repo/node_modules/libsql/index.js', base)).toBe('libsql binding + @libsql/client (JS)');
    expect(packageOfUrl('/repo/node_modules/zod/index.js', base)).toBe('other node_modules');
    expect(packageOfUrl('/repo/api/src/modules/bcards/service.ts', base)).toBe('bpay api/src');
    expect(packageOfUrl('/repo/db/client.ts', base)).toBe('bpay db/');
    expect(packageOfUrl('/elsewhere/x.ts', base)).toBe('other');
    expect(packageOfUrl('', base)).toBeNull();
    expect(packageOfUrl('node:fs', base)).toBeNull();
  });

  test("natives go to libsql when libsql's JS called them, to bun otherwise; samples outside the window are left out", () => {
    const profile = {
      startTime: 1_000_000, // µs since the epoch: the first sample is at 1,000 + deltas[0]/1000 ms
      nodes: [
        frame(1, '(root)', '', [2, 6]),
        frame(2, 'handler', 'file:///repo/api/src/x.ts', [3, 5]),
        frame(3, 'run', 'file:///repo/node_modules/libsql/index.js', [4]),
        frame(4, 'js_run', ''),
        frame(5, 'stringify', ''),
        frame(6, '(idle)', ''),
      ],
      // at 1,001 … 1,005 ms: js_run, js_run, stringify, handler, idle; at 1,014 ms: js_run (outside the window)
      samples: [4, 4, 5, 2, 6, 4],
      timeDeltas: [1000, 1000, 1000, 1000, 1000, 9000],
    };
    const s = summarize(profile, base, 1_000, 1_005);
    expect(s.samples).toBe(5);
    expect(s.busyMs).toBeCloseTo(4); // four busy samples at the 1 ms interval
    const share = (k: Parameters<typeof s.byPackage.get>[0]) => s.byPackage.get(k)! / s.busyMs;
    expect(share('libsql native (SQLite, and natives its binding calls)')).toBeCloseTo(2 / 4);
    expect(share('bun internals (natives, built-ins, GC)')).toBeCloseTo(1 / 4);
    expect(share('bpay api/src')).toBeCloseTo(1 / 4);
    expect(s.idleMs).toBeGreaterThan(0);
    expect(s.frames[0]!.fn).toBe('js_run');
    expect(s.frames.find((f) => f.fn === 'stringify')!.where).toBe('(native) ← `handler` api/src/x.ts:1');
  });
});
