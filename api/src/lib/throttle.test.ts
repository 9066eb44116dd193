import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { makeTestApp, type TestContext } from '../../test-support/app';
import { hitThrottle, pruneThrottle, recordThrottle, throttleUsed, type ThrottleRule } from './throttle';

/* The generic counters: growing delays (backoff rules), which rule refused, and pruning records kept longer. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp();
});
afterAll(() => ctx.close());

const hit = (rule: ThrottleRule, key = 'k') => hitThrottle(ctx.handle.db, ctx.clock, [{ rule, key }]);

describe('backoff rules', () => {
  test('after the free events, each one more waits base × 2^n after the latest, capped, and the window still expires them', async () => {
    const rule: ThrottleRule = { scope: 't:backoff', limit: 2, windowMs: 3600_000, backoff: { baseMs: 10_000, maxMs: 40_000 } };
    expect((await hit(rule)).allowed).toBe(true);
    expect((await hit(rule)).allowed).toBe(true);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const refused = await hit(rule);
      if (refused.allowed) throw new Error('expected a refusal');
      expect(refused.blocked).toEqual({ 't:backoff': refused.retryAfterSeconds });
      waits.push(refused.retryAfterSeconds);
      ctx.clock.advance(refused.retryAfterSeconds * 1000);
      expect((await hit(rule)).allowed).toBe(true);
    }
    expect(waits).toEqual([10, 20, 40, 40]);
    // An hour after the first events, the window alone has room again.
    ctx.clock.advance(3600_000);
    expect((await hit(rule)).allowed).toBe(true);
  });

  test('a parallel burst gets exactly the free events', async () => {
    const rule: ThrottleRule = { scope: 't:burst', limit: 3, windowMs: 3600_000, backoff: { baseMs: 60_000, maxMs: 600_000 } };
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => hit(rule)));
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(3);
  });

  test('ids come back in the order of the hits; a refusal names only the rules that refused', async () => {
    const a: ThrottleRule = { scope: 't:a', limit: 1, windowMs: 60_000 };
    const b: ThrottleRule = { scope: 't:b', limit: 5, windowMs: 60_000 };
    const first = await hitThrottle(ctx.handle.db, ctx.clock, [{ rule: a, key: 'x' }, { rule: b, key: 'x' }]);
    if (!first.allowed) throw new Error('expected room');
    const rows = await Promise.all(first.ids.map((id) => ctx.handle.db.query.throttleEvents.findFirst({ where: eq(schema.throttleEvents.id, id) })));
    expect(rows.map((r) => r?.scope)).toEqual(['t:a', 't:b']);
    const second = await hitThrottle(ctx.handle.db, ctx.clock, [{ rule: a, key: 'x' }, { rule: b, key: 'x' }]);
    expect(second.allowed).toBe(false);
    if (!second.allowed) expect(Object.keys(second.blocked)).toEqual(['t:a']);
  });
});

test('pruneThrottle keeps the records of keepLonger rules for their own window', async () => {
  const short: ThrottleRule = { scope: 't:short', limit: 1, windowMs: 60_000 };
  const long: ThrottleRule = { scope: 't:long', limit: 1, windowMs: 30 * 86_400_000 };
  await recordThrottle(ctx.handle.db, ctx.clock, [{ rule: short, key: 'p' }, { rule: long, key: 'p' }]);
  ctx.clock.advance(8 * 86_400_000);
  await pruneThrottle(ctx.handle.db, ctx.clock, 7 * 86_400_000, [long]);
  expect(await throttleUsed(ctx.handle.db, ctx.clock, { rule: { ...short, windowMs: 365 * 86_400_000 }, key: 'p' })).toBe(0);
  expect(await throttleUsed(ctx.handle.db, ctx.clock, { rule: long, key: 'p' })).toBe(1);
  ctx.clock.advance(23 * 86_400_000);
  await pruneThrottle(ctx.handle.db, ctx.clock, 7 * 86_400_000, [long]);
  expect(await throttleUsed(ctx.handle.db, ctx.clock, { rule: { ...long, windowMs: 365 * 86_400_000 }, key: 'p' })).toBe(0);
});
