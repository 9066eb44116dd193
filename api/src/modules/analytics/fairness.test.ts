import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { InStatement } from '@libsql/client';
import { newId } from '../../lib/ids';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, registerUser } from '../../../test-support/world';
import { AnalyticsGate, analyticsGate, resolveRange, spendingAnalytics, yieldToLoop, type Analytics } from './service';
import { spendingOver } from '../spending/kept';
import { analyticsFromHistory } from '../../../test-support/spending-reference';

/*
 * No single request may slow the server for others (issue 16, part 3 follow-up; issue 31 §1). The embedded client runs
 * a statement synchronously, so what bounds the stall is the work per statement and giving the event loop back
 * between statements. Analytics reads the figures kept as money moves (spending/kept.ts): a few statements whatever
 * the history, each seeking its index range, the months in pages. These tests check that without timing anything:
 * they count the statements and the pauses, read each statement's plan, look at the order in which concurrent
 * requests finish, and count the work done when one user asks several times at once. (The time itself is measured in
 * bench/analytics.ts.)
 */

let ctx: TestContext;
let cookie: string;
let userId: string;
const MONTH_ROWS = 6;

/** figures: the one statement of every figure (months, merchants, parts near the edges, plan charges); months: a further page. */
type Kind = 'figures' | 'months' | 'sources';
/** Every statement the analytics path executed, in order: what it read, its SQL and arguments. */
let statements: Array<{ kind: Kind; sql: string; args: unknown[] }> = [];
let onStatement: ((kind: Kind) => void) | null = null;
const kindOf = (sql: string): Kind | null =>
  sql.includes('FROM spending_months')
    ? sql.includes('AS merchants')
      ? 'figures'
      : 'months'
    : sql.includes('from "funding_sources"')
      ? 'sources'
      : null;
const kinds = () => statements.map((s) => s.kind);
beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx);
  cookie = u.cookie;
  userId = u.user.id;
  const source = await addCard(ctx, cookie);
  // MONTH_ROWS spent bcards (collection, share, bcard) in each of the last 36 months (mid-month), each with its share; straight into
  // the file (as the bench does): the volume does not matter here, the shape of the work does.
  const now = ctx.clock.now();
  const stmts: InStatement[] = [];
  for (let back = 0; back < 36; back++) {
    for (let k = 0; k < MONTH_ROWS; k++) {
      const at = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 10 + k);
      const id = newId('col');
      stmts.push({
        sql: `INSERT INTO collections (id, user_id, kind, status, amount_cents, fee_cents, total_cents, currency, name, cardholder_name, merchant, vendor, refunded_cents, lease_owner, lease_until, created_at, updated_at)
              VALUES (?, ?, 'bcard', 'completed', 1000, 25, 1025, 'usd', 'Card', 'Ada Lovelace', ?, 'simulated', 0, 'seed', ?, ?, ?)`,
        args: [id, userId, `Shop ${k % 3}`, at, at, at],
      });
      stmts.push({
        sql: `INSERT INTO collection_shares (id, collection_id, funding_source_id, position, percentage_bps, amount_cents, status, updated_at) VALUES (?, ?, ?, 0, 10000, 1025, 'captured', ?)`,
        args: [newId('shr'), id, source.id, at],
      });
      // Its bcard, spent in full the moment it was made (spending dates it by deactivated_at).
      stmts.push({
        sql: `INSERT INTO bcards (id, user_id, collection_id, name, cardholder_name, vendor, vendor_card_id, brand, last4, exp_month, exp_year, limit_cents, spent_cents, status, expires_at, created_at, deactivated_at)
              VALUES (?, ?, ?, 'Card', 'Ada Lovelace', 'simulated', ?, 'visa', '4242', 12, 2030, 1000, 1000, 'used', ?, ?, ?)`,
        args: [newId('bc'), userId, id, newId('vc'), at, at, at],
      });
    }
  }
  await ctx.handle.client.batch(stmts, 'write');

  // Every statement the app runs goes through the client's execute: note analytics' (and let a test act on them).
  const client = ctx.handle.client;
  const execute = client.execute.bind(client);
  client.execute = ((stmt: InStatement) => {
    const kind = typeof stmt === 'string' ? null : kindOf(stmt.sql);
    if (kind && typeof stmt !== 'string') {
      statements.push({ kind, sql: stmt.sql, args: stmt.args as unknown[] });
      onStatement?.(kind);
    }
    return execute(stmt);
  }) as typeof client.execute;
});
afterAll(() => ctx.close());

const get = (q: string) => call(ctx, `/api/analytics${q}`, { cookie });

describe('analytics reads one statement whatever the history, giving the event loop back after it', () => {
  test('36 months at UTC+1: one statement of every figure, then the sources’ names; a pause after the figures', async () => {
    statements = [];
    const order: string[] = [];
    onStatement = (k) => order.push(k);
    const a = await spendingAnalytics(ctx.deps, userId, { months: 36, utcOffset: 60 }, async () => {
      order.push('pause');
      await yieldToLoop();
    });
    onStatement = null;
    expect(a.totals.purchases).toBe(36 * MONTH_ROWS);
    expect(a.totals.spent).toBe(`${36 * MONTH_ROWS * 10}.00`);
    expect(a).toEqual(await analyticsFromHistory(ctx.deps, userId, { months: 36, utcOffset: 60 }));
    expect(order).toEqual(['figures', 'pause', 'sources']);
    // The bcards near the edges: one window an hour long before each of the 37 UTC month starts (UTC+1), a row of
    // the statement's VALUES each.
    const figures = statements[0]!.sql;
    expect(figures.match(/\(\?, \?, \?, \?\)/g)).toHaveLength(37);
  });

  test('at UTC the month edges are the kept months’ own: no bcard is read', async () => {
    statements = [];
    await spendingAnalytics(ctx.deps, userId, { months: 36, utcOffset: 0 }, yieldToLoop);
    expect(kinds()).toEqual(['figures', 'sources']);
    expect(statements[0]!.sql).not.toContain('spending_parts');
  });

  test('the months are read a page at a time in key order, and the pages add up to the same figures', async () => {
    const { edges } = resolveRange(ctx.deps.clock.now(), { months: 36, utcOffset: 0 });
    const whole = await spendingOver(ctx.deps, userId, edges, true, yieldToLoop);
    const rows = Number((await ctx.handle.client.execute({ sql: "SELECT count(*) AS n FROM spending_months WHERE user_id = ? AND kind IN ('source', 'total')", args: [userId] })).rows[0]!.n);
    expect(rows).toBeGreaterThan(36);
    statements = [];
    const paged = await spendingOver(ctx.deps, userId, edges, true, yieldToLoop, 7);
    expect(paged).toEqual(whole);
    expect(kinds()).toEqual(['figures', ...Array.from({ length: Math.floor(rows / 7) }, () => 'months' as const)]);
  });

  test('the statement seeks each index range it reads: no table or index read whole', async () => {
    statements = [];
    expect((await get('?months=36&utcOffset=180')).status).toBe(200);
    const s = statements.find((x) => x.kind === 'figures')!;
    const { rows } = await ctx.handle.client.execute({ sql: `EXPLAIN QUERY PLAN ${s.sql}`, args: s.args as never });
    const plan = rows.map((r) => String(r.detail));
    // The months' totals and sources, and the merchants': the owner's months of the range.
    expect(plan.filter((d) => d === 'SEARCH spending_months USING PRIMARY KEY (user_id=? AND kind=? AND month>? AND month<?)')).toHaveLength(2);
    // The parts near the edges: the owner's, in each window.
    expect(plan).toContain('SEARCH p USING PRIMARY KEY (user_id=? AND at>? AND at<?)');
    expect(plan).toContain('SEARCH p USING INDEX subscription_charges_user_idx (user_id=? AND created_at>? AND created_at<?)');
    // Scans only of what the statement builds itself (its one row, the windows' VALUES, its subqueries' rows).
    expect(plan.filter((d) => d.startsWith('SCAN ') && !/^SCAN (CONSTANT ROW|\d+ CONSTANT ROWS|\(subquery-\d+\))$/.test(d))).toEqual([]);
    expect(plan.some((d) => d.includes('AUTOMATIC'))).toBe(false);
  });

  test('a cheap request arriving during a 36-month analytics request answers first, within at most one more statement', async () => {
    statements = [];
    const events: string[] = [];
    onStatement = () => events.push('statement');
    const analytics = get('?months=36&utcOffset=180').then((r) => {
      events.push('analytics');
      return r;
    });
    // The cheap request arrives as a network request does: from an event-loop callback, not from a promise chain
    // (in-process promise chains interleave at every await anyway; a request from a socket needs the loop).
    const user = new Promise<Awaited<ReturnType<typeof call>>>((resolve, reject) =>
      setImmediate(() => {
        events.push('user sent');
        call(ctx, '/api/auth/user', { cookie }).then((r) => {
          events.push('user');
          resolve(r);
        }, reject);
      }),
    );
    const [a, u] = await Promise.all([analytics, user]);
    onStatement = null;
    expect(a.status).toBe(200);
    expect(u.status).toBe(200);
    const answered = events.indexOf('user');
    expect(answered).toBeLessThan(events.indexOf('analytics'));
    const sent = events.indexOf('user sent');
    expect(events.slice(sent, answered).filter((e) => e === 'statement').length).toBeLessThanOrEqual(1);
    expect(events.filter((e) => e === 'statement')).toHaveLength(2);
  });
});

describe('one analytics computation per user at a time', () => {
  test('the same range asked at once is computed once and shared; another range waits its turn', async () => {
    statements = [];
    const same = await Promise.all([
      get('?months=36'),
      get('?months=36'),
      get('?months=36'),
      call(ctx, '/api/analytics.csv?months=36', { cookie }),
      get('?from=2025-01&to=2025-03'),
    ]);
    for (const r of same) expect(r.status).toBe(200);
    // Five requests, two computations, never interleaved: each one's statements follow each other.
    expect(kinds()).toEqual(['figures', 'sources', 'figures', 'sources']);
    expect(same[0]!.body).toEqual(same[1]!.body);
    expect(same[0]!.body).toEqual(same[2]!.body);
    expect((same[0]!.body as Analytics).totals.purchases).toBe(36 * MONTH_ROWS);
    expect((same[4]!.body as Analytics).range).toEqual({ from: '2025-01', to: '2025-03', utcOffset: 0 });
    expect(analyticsGate(ctx.deps).size).toBe(0);
    // Nothing is kept once answered: the next request computes afresh.
    statements = [];
    expect((await get('?months=36')).status).toBe(200);
    expect(kinds()).toEqual(['figures', 'sources']);
  });

  test('another user is not held up by this user’s computation', async () => {
    const other = await registerUser(ctx);
    const events: string[] = [];
    // Mine stops at its first pause until released; theirs (another user) runs meanwhile, to the end.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const mine = spendingAnalytics(ctx.deps, userId, { months: 36 }, () => held).then(() => events.push('mine'));
    const theirs = call(ctx, '/api/analytics?months=1', { cookie: other.cookie }).then((r) => {
      expect(r.status).toBe(200);
      events.push('theirs');
    });
    await theirs;
    // A second request of mine, another range, waits behind the held one: the gate is per user.
    const mineAgain = get('?months=2').then(() => events.push('mine again'));
    await yieldToLoop();
    expect(events).toEqual(['theirs']);
    release();
    await Promise.all([mine, mineAgain]);
    expect(events).toEqual(['theirs', 'mine', 'mine again']);
  });

  test('a failed computation is handed to whoever shared it and does not block the next one', async () => {
    const gate = new AnalyticsGate();
    const boom = new Error('disk on fire');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = gate.run('u', 'a', async () => {
      await held;
      throw boom;
    });
    const sharer = gate.run('u', 'a', async () => {
      throw new Error('never run: shares the first');
    });
    const order: string[] = [];
    const next = gate.run('u', 'b', async () => {
      order.push('b ran');
      return {} as Analytics;
    });
    expect(gate.size).toBe(1);
    await yieldToLoop();
    expect(order).toEqual([]);
    release();
    await expect(first).rejects.toBe(boom);
    await expect(sharer).rejects.toBe(boom);
    await next;
    expect(order).toEqual(['b ran']);
    await yieldToLoop();
    expect(gate.size).toBe(0);
  });
});
