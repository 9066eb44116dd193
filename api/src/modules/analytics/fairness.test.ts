import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { InStatement } from '@libsql/client';
import { newId } from '../../lib/ids';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, registerUser } from '../../../test-support/world';
import { AnalyticsGate, analyticsGate, spendingAnalytics, yieldToLoop, type Analytics } from './service';

/*
 * No single request may slow the server for others (issue 16, part 3 follow-up). The embedded client runs a
 * statement synchronously, so what bounds the stall is the work per statement and giving the event loop back
 * between statements. These tests check that without timing anything: they count the statements and the pauses,
 * read each statement's plan, look at the order in which concurrent requests finish, and count the work done when
 * one user asks several times at once. (The stall itself is measured in bench/analytics.ts.)
 */

let ctx: TestContext;
let cookie: string;
let userId: string;
const MONTH_ROWS = 6;

/** Every analytics slice statement executed, in order, with its month's bounds. */
let slices: Array<{ sql: string; args: unknown[]; from: number; to: number }> = [];
let onSlice: (() => void) | null = null;

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

  // Every statement the app runs goes through the client's execute: note the slices (and let a test act on them).
  const client = ctx.handle.client;
  const execute = client.execute.bind(client);
  client.execute = ((stmt: InStatement) => {
    if (typeof stmt !== 'string' && stmt.sql.includes('AS part')) {
      const args = stmt.args as unknown[];
      slices.push({ sql: stmt.sql, args, from: Number(args[1]), to: Number(args[2]) });
      onSlice?.();
    }
    return execute(stmt);
  }) as typeof client.execute;
});
afterAll(() => ctx.close());

const get = (q: string) => call(ctx, `/api/analytics${q}`, { cookie });

describe('analytics works in month slices, giving the event loop back between them', () => {
  test('36 months: 36 statements, each bounded to one month at the viewer’s offset, a pause after each', async () => {
    slices = [];
    const order: string[] = [];
    onSlice = () => order.push('slice');
    const a = await spendingAnalytics(ctx.deps, userId, { months: 36, utcOffset: 60 }, async () => {
      order.push('pause');
      await yieldToLoop();
    });
    onSlice = null;
    expect(a.totals.purchases).toBe(36 * MONTH_ROWS);
    expect(a.totals.spent).toBe(`${36 * MONTH_ROWS * 10}.00`);
    expect(order).toEqual(Array.from({ length: 36 }, () => ['slice', 'pause']).flat());
    // The slices tile the range, month by month: each starts at local midnight on the 1st (UTC+1) and ends where
    // the next begins.
    const local = (ms: number) => new Date(ms + 60 * 60_000);
    slices.forEach((s, i) => {
      const start = local(s.from);
      expect([start.getUTCDate(), start.getUTCHours(), start.getUTCMinutes()]).toEqual([1, 0, 0]);
      expect(s.to).toBe(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) - 60 * 60_000);
      if (i > 0) expect(s.from).toBe(slices[i - 1]!.to);
      expect(`${start.getUTCFullYear()}-${String(start.getUTCMonth() + 1).padStart(2, '0')}`).toBe(a.months[i]!.month);
    });
  });

  test('each slice seeks its month’s index range: no table or index read whole, refunds found from their intent', async () => {
    slices = [];
    expect((await get('?months=2')).status).toBe(200);
    expect(slices).toHaveLength(2);
    const { rows } = await ctx.handle.client.execute({ sql: `EXPLAIN QUERY PLAN ${slices[0]!.sql}`, args: slices[0]!.args as never });
    const plan = rows.map((r) => String(r.detail));
    const onOwnerRows = plan.filter((d) => d.startsWith('SEARCH b '));
    // One seek per part that reads bcards (the month's bcards with their figures, the shares of the spent ones), each
    // the owner's bcards of the month.
    expect(onOwnerRows).toEqual(
      Array.from({ length: 2 }, () => 'SEARCH b USING INDEX bcards_user_deactivated_idx (user_id=? AND deactivated_at>? AND deactivated_at<?)'),
    );
    // The plan charges: the owner's of the month.
    expect(plan).toContain('SEARCH p USING INDEX subscription_charges_user_idx (user_id=? AND created_at>? AND created_at<?)');
    // The only scan is of the plan charges' one-row aggregate (the co-routine p), never of a table or an index.
    expect(plan.filter((d) => d.startsWith('SCAN '))).toEqual(['SCAN p']);
    // Each bcard's refunds and issuer-side returns are found from it.
    expect(plan).toContain('SEARCH pi USING INDEX payment_intents_bcard_unique (bcard_id=?)');
    expect(plan).toContain('SEARCH a USING INDEX issuer_authorizations_bcard_idx (bcard_id=?)');
    expect(plan).toContain('SEARCH r USING INDEX refunds_intent_idx (payment_intent_id=?)');
    expect(plan.some((d) => d.includes('refunds_status_idx') || d.includes('bcards_status_idx') || d.includes('subscription_charges_paid_idx'))).toBe(false);
    expect(plan.some((d) => d.includes('AUTOMATIC'))).toBe(false);
    // The slice is built from the owner's rows outward: the collections are the first table searched in each part.
    expect(plan.find((d) => d.startsWith('SEARCH '))).toStartWith('SEARCH b ');
  });

  test('a cheap request arriving during a 36-month analytics request answers first, within at most one more slice', async () => {
    slices = [];
    const events: string[] = [];
    onSlice = () => events.push('slice');
    const analytics = get('?months=36').then((r) => {
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
    onSlice = null;
    expect(a.status).toBe(200);
    expect(u.status).toBe(200);
    const answered = events.indexOf('user');
    expect(answered).toBeLessThan(events.indexOf('analytics'));
    const sent = events.indexOf('user sent');
    expect(events.slice(sent, answered).filter((e) => e === 'slice').length).toBeLessThanOrEqual(1);
    expect(events.filter((e) => e === 'slice')).toHaveLength(36);
  });
});

describe('one analytics computation per user at a time', () => {
  test('the same range asked at once is computed once and shared; another range waits its turn', async () => {
    slices = [];
    const same = await Promise.all([
      get('?months=36'),
      get('?months=36'),
      get('?months=36'),
      call(ctx, '/api/analytics.csv?months=36', { cookie }),
      get('?from=2025-01&to=2025-03'),
    ]);
    for (const r of same) expect(r.status).toBe(200);
    // 36 slices for the four requests of the same range, 3 for the other: five requests, two computations.
    expect(slices).toHaveLength(36 + 3);
    // Never interleaved: a computation's slices follow each other month by month, so two computations make two
    // runs of consecutive months (interleaved slices would break the chain at every switch).
    const computations = slices.map((s, i) => (i > 0 && slices[i - 1]!.to === s.from ? 'next' : 'start'));
    expect(computations.filter((c) => c === 'start')).toHaveLength(2);
    expect(same[0]!.body).toEqual(same[1]!.body);
    expect(same[0]!.body).toEqual(same[2]!.body);
    expect((same[0]!.body as Analytics).totals.purchases).toBe(36 * MONTH_ROWS);
    expect((same[4]!.body as Analytics).range).toEqual({ from: '2025-01', to: '2025-03', utcOffset: 0 });
    expect(analyticsGate(ctx.deps).size).toBe(0);
    // Nothing is kept once answered: the next request computes afresh.
    slices = [];
    expect((await get('?months=36')).status).toBe(200);
    expect(slices).toHaveLength(36);
  });

  test('another user is not held up by this user’s computation', async () => {
    const other = await registerUser(ctx);
    const events: string[] = [];
    const mine = get('?months=36').then(() => events.push('mine'));
    // One month for the other user: under a lock shared by all users it would wait for all 36 of mine.
    const theirs = call(ctx, '/api/analytics?months=1', { cookie: other.cookie }).then((r) => {
      expect(r.status).toBe(200);
      events.push('theirs');
    });
    await Promise.all([mine, theirs]);
    expect(events).toEqual(['theirs', 'mine']);
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
