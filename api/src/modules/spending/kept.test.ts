import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import fc from 'fast-check';
import type { InStatement, Transaction } from '@libsql/client';
import { newId } from '../../lib/ids';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, createMerchant, makePremium, registerUser } from '../../../test-support/world';
import { analyticsFromHistory, spendingDrift, summaryFromHistory } from '../../../test-support/spending-reference';
import { spendingAnalytics, MAX_UTC_OFFSET } from '../analytics/service';
import { spendingSummary } from './kept';

/*
 * The spending figures kept as money moves (issue 31 §1) are what history says, after any history. fast-check writes
 * random histories straight into the tables a bcard's figures depend on (bcards, collections, their shares, payment
 * intents and their refunds, the card network's authorizations, plan charges), in any order, some of them inside a
 * transaction that then fails (a crash in the middle: nothing of it may stay, the kept figures included). After each:
 * - every bcard's kept parts and every kept month equal what bcardsEnded and spendBySource work out (spendingDrift);
 * - GET /api/analytics's figures for a random range at a random UTC offset (to the minute) equal the answer worked
 *   out bcard by bcard (analyticsFromHistory), and so do the Overview's (summaryFromHistory).
 * The money paths themselves (spends, refunds, returns, crashes through the processor) are checked the same way by
 * every test that ends with moneyViolations.
 */

let ctx: TestContext;
const users: Array<{ id: string; sources: string[] }> = [];
let merchantId = '';
let seq = 1_000_000;
const HOUR = 3_600_000;

beforeAll(async () => {
  ctx = await makeTestApp();
  for (const email of ['kept-a@example.com', 'kept-b@example.com']) {
    const u = await registerUser(ctx, { email });
    await makePremium(ctx, u.user.id);
    const sources = [];
    for (let i = 0; i < 3; i++) sources.push((await addCard(ctx, u.cookie)).id);
    users.push({ id: u.user.id, sources });
  }
  const owner = await registerUser(ctx, { email: 'kept-owner@example.com' });
  merchantId = (await createMerchant(ctx, owner.cookie, 'production')).id;
});
afterAll(() => ctx.close());

/** What a run made, so later steps can change it. */
interface Made {
  bcards: Array<{ id: string; collectionId: string; user: number; limit: number; total: number; intent: string | null }>;
  refunds: string[];
  auths: string[];
}

const STATUSES = ['used', 'expired', 'canceled', 'active'] as const;

/** A fraction in thousandths (fast-check's doubles crowd at the ends; these spread evenly). */
const permille = fc.integer({ min: 0, max: 1000 });

/** An instant within the last 38 months: near a UTC month's start (within 20 hours), or anywhere in the month. */
const instant = fc.record({ back: fc.integer({ min: -1, max: 38 }), near: fc.boolean(), minutes: fc.integer({ min: -20 * 60, max: 20 * 60 }), frac: permille });
type Instant = { back: number; near: boolean; minutes: number; frac: number };

function at(i: Instant): number {
  const now = ctx.clock.now();
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i.back, 1);
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i.back + 1, 1);
  return i.near ? start + i.minutes * 60_000 + (i.minutes % 7) * 1_000 : start + Math.floor((Math.min(i.frac, 999) / 1000) * (next - start));
}

/** Share amounts, often equal (so the largest remainder's ties to the earlier position are exercised) or zero. */
const shareAmount = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(0, 500, 500, 500, 1_000) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 30_000 }) });

const opArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('bcard' as const),
      user: fc.integer({ min: 0, max: 1 }),
      status: fc.constantFrom('used', 'used', ...STATUSES),
      sandbox: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      amount: fc.integer({ min: 100, max: 50_000 }),
      spent: permille,
      fee: fc.integer({ min: 0, max: 2_000 }),
      merchant: fc.constantFrom(null, 'Shop A', 'Shop B', 'Café Ç', ''),
      shares: fc.uniqueArray(fc.record({ source: fc.integer({ min: 0, max: 2 }), amount: shareAmount }), { minLength: 0, maxLength: 3, selector: (s) => s.source }),
      sharesFirst: fc.boolean(),
      settling: fc.boolean(),
      refunded: permille,
      at: instant,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('end' as const), i: fc.nat(), status: fc.constantFrom(...STATUSES), spent: permille, at: instant }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('refund' as const), i: fc.nat(), amount: fc.integer({ min: 1, max: 5_000 }), fee: fc.integer({ min: 0, max: 200 }), succeeded: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('refundStatus' as const), j: fc.nat(), succeeded: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('issuer' as const), i: fc.nat(), returned: fc.integer({ min: 0, max: 5_000 }), approved: fc.boolean() }) },
  // A return (returned_cents), a decision turned, or both.
  {
    weight: 4,
    arbitrary: fc.record(
      { op: fc.constant('issuerUpdate' as const), j: fc.nat(), returned: fc.integer({ min: 0, max: 5_000 }), approved: fc.boolean() },
      { requiredKeys: ['op', 'j', 'approved'] },
    ),
  },
  {
    weight: 2,
    // Any of the collection's columns a bcard's figures read, alone or together.
    arbitrary: fc.record(
      {
        op: fc.constant('collection' as const),
        i: fc.nat(),
        refunded: permille,
        settling: fc.boolean(),
        fee: fc.integer({ min: 0, max: 2_000 }),
        merchant: fc.constantFrom(null, 'Shop A', 'Shop C'),
      },
      { requiredKeys: ['op', 'i'] },
    ),
  },
  // A collection settling a used bcard's remainder (or starting to): its status alone.
  { weight: 2, arbitrary: fc.record({ op: fc.constant('settle' as const), i: fc.nat(), settling: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('share' as const), i: fc.nat(), amount: shareAmount, source: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('moveIntent' as const), i: fc.nat(), k: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('plan' as const), user: fc.integer({ min: 0, max: 1 }), amount: fc.integer({ min: 100, max: 5_000 }), succeeded: fc.boolean(), at: instant }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
const stepArb = fc.oneof(
  { weight: 6, arbitrary: opArb.map((op) => ({ crash: false, ops: [op] })) },
  // Several writes in one transaction that fails at the end: a money path crashing half-way.
  { weight: 1, arbitrary: fc.array(opArb, { minLength: 1, maxLength: 4 }).map((ops) => ({ crash: true, ops })) },
);

/** The statements of one write of the history (none when it has nothing to act on). */
function statements(op: Op, made: Made): InStatement[] {
  const pick = <T,>(xs: T[], i: number) => (xs.length ? xs[i % xs.length]! : null);
  const now = ctx.clock.now().getTime();
  switch (op.op) {
    case 'bcard': {
      const u = users[op.user]!;
      const collectionId = newId('col');
      const bcardId = newId('bc');
      const total = op.amount + op.fee;
      const status = op.status;
      const spent = status === 'used' ? Math.floor((op.amount * op.spent) / 1000) : 0;
      const deactivated = status === 'active' ? null : at(op.at);
      const collection: InStatement = {
        sql: `INSERT INTO collections (id, user_id, kind, status, amount_cents, fee_cents, total_cents, currency, name, cardholder_name, merchant, vendor, refunded_cents, lease_owner, lease_until, created_at, updated_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, 'usd', 'Card', 'Ada', ?, 'simulated', ?, 'seed', 0, ?, ?)`,
        args: [collectionId, u.id, op.sandbox ? 'sandbox' : 'bcard', op.settling ? 'refunding' : 'completed', op.amount, op.fee, total, op.merchant, Math.floor((total * op.refunded) / 1000), now, now],
      };
      const shares: InStatement[] = op.shares.map((s, p) => ({
        sql: `INSERT INTO collection_shares (id, collection_id, funding_source_id, position, percentage_bps, amount_cents, status, updated_at) VALUES (?, ?, ?, ?, 0, ?, 'captured', ?)`,
        args: [newId('shr'), collectionId, u.sources[s.source]!, p, s.amount, now],
      }));
      const bcard: InStatement = {
        sql: `INSERT INTO bcards (id, user_id, collection_id, name, cardholder_name, vendor, vendor_card_id, brand, last4, exp_month, exp_year, limit_cents, spent_cents, status, sandbox, expires_at, created_at, deactivated_at)
              VALUES (?, ?, ?, 'Card', 'Ada', 'simulated', ?, 'visa', '4242', 12, 2030, ?, ?, ?, ?, ?, ?, ?)`,
        args: [bcardId, u.id, collectionId, newId('ic'), op.amount, spent, status, op.sandbox ? 1 : 0, now + HOUR, now, deactivated],
      };
      made.bcards.push({ id: bcardId, collectionId, user: op.user, limit: op.amount, total, intent: null });
      return op.sharesFirst ? [collection, ...shares, bcard] : [collection, bcard, ...shares];
    }
    case 'end': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      const spent = op.status === 'used' ? Math.floor((b.limit * op.spent) / 1000) : 0;
      return [{ sql: 'UPDATE bcards SET status = ?, spent_cents = ?, deactivated_at = ? WHERE id = ?', args: [op.status, spent, op.status === 'active' ? null : at(op.at), b.id] }];
    }
    case 'refund': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      const out: InStatement[] = [];
      if (!b.intent) {
        b.intent = newId('pi');
        const amount = Math.max(50, b.limit);
        out.push({
          sql: `INSERT INTO payment_intents (id, merchant_id, livemode, amount, currency, status, capture_method, bcard_id, amount_received, amount_refunded, metadata, client_secret, seq, created_at, updated_at)
                VALUES (?, ?, 1, ?, 'usd', 'succeeded', 'automatic', ?, ?, 0, '{}', ?, ?, ?, ?)`,
          args: [b.intent, merchantId, amount, b.id, amount, `${b.intent}_secret`, seq++, now, now],
        });
      }
      const id = newId('re');
      made.refunds.push(id);
      out.push({
        sql: `INSERT INTO refunds (id, merchant_id, payment_intent_id, livemode, amount, fee_cents, currency, status, metadata, lease_owner, lease_until, seq, created_at, updated_at)
              VALUES (?, ?, ?, 1, ?, ?, 'usd', ?, '{}', 'seed', 0, ?, ?, ?)`,
        args: [id, merchantId, b.intent, op.amount, op.fee, op.succeeded ? 'succeeded' : 'pending', seq++, now, now],
      });
      return out;
    }
    case 'refundStatus': {
      const r = pick(made.refunds, op.j);
      return r ? [{ sql: 'UPDATE refunds SET status = ? WHERE id = ?', args: [op.succeeded ? 'succeeded' : 'failed', r] }] : [];
    }
    case 'issuer': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      const id = newId('iauth');
      made.auths.push(id);
      return [
        {
          sql: `INSERT INTO issuer_authorizations (id, network, network_ref, bcard_id, user_id, amount_cents, currency, merchant_name, decision, captured_cents, returned_cents, created_at, updated_at)
                VALUES (?, 'simulated', ?, ?, ?, ?, 'usd', 'A shop', ?, 0, ?, ?, ?)`,
          args: [id, id, b.id, users[b.user]!.id, b.limit, op.approved ? 'approved' : 'declined', op.returned, now, now],
        },
      ];
    }
    case 'issuerUpdate': {
      const a = pick(made.auths, op.j);
      if (!a) return [];
      const decision = op.approved ? 'approved' : 'declined';
      return op.returned === undefined
        ? [{ sql: 'UPDATE issuer_authorizations SET decision = ? WHERE id = ?', args: [decision, a] }]
        : [{ sql: 'UPDATE issuer_authorizations SET returned_cents = ?, decision = ? WHERE id = ?', args: [op.returned, decision, a] }];
    }
    case 'collection': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      const set: string[] = [];
      const args: Array<string | number | null> = [];
      if (op.fee !== undefined) {
        // total = amount + fee: the total stays, the split between them moves.
        const fee = Math.min(op.fee, b.total - 1);
        set.push('fee_cents = ?', 'amount_cents = ?');
        args.push(fee, b.total - fee);
      }
      if (op.refunded !== undefined) {
        set.push('refunded_cents = ?');
        args.push(Math.floor((b.total * op.refunded) / 1000));
      }
      if (op.settling !== undefined) {
        set.push('status = ?');
        args.push(op.settling ? 'refunding' : 'completed');
      }
      if (op.merchant !== undefined) {
        set.push('merchant = ?');
        args.push(op.merchant);
      }
      return set.length ? [{ sql: `UPDATE collections SET ${set.join(', ')} WHERE id = ?`, args: [...args, b.collectionId] }] : [];
    }
    case 'settle': {
      const b = pick(made.bcards, op.i);
      return b ? [{ sql: 'UPDATE collections SET status = ? WHERE id = ?', args: [op.settling ? 'refunding' : 'completed', b.collectionId] }] : [];
    }
    case 'share': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      const first = '(SELECT id FROM collection_shares WHERE collection_id = ? ORDER BY position LIMIT 1)';
      const source = users[b.user]!.sources[op.source]!;
      return [
        { sql: `UPDATE collection_shares SET amount_cents = ? WHERE id = ${first}`, args: [op.amount, b.collectionId] },
        // Another source, where the collection has no share of it yet (one share per source and collection).
        {
          sql: `UPDATE collection_shares SET funding_source_id = ? WHERE id = ${first} AND NOT EXISTS (SELECT 1 FROM collection_shares WHERE collection_id = ? AND funding_source_id = ?)`,
          args: [source, b.collectionId, b.collectionId, source],
        },
      ];
    }
    case 'moveIntent': {
      const from = pick(
        made.bcards.filter((b) => b.intent),
        op.i,
      );
      const to = pick(
        made.bcards.filter((b) => !b.intent),
        op.k,
      );
      if (!from || !to) return [];
      to.intent = from.intent;
      from.intent = null;
      return [{ sql: 'UPDATE payment_intents SET bcard_id = ? WHERE id = ?', args: [to.id, to.intent] }];
    }
    case 'plan': {
      const u = users[op.user]!;
      const id = newId('sch');
      const when = at(op.at);
      return [
        {
          sql: `INSERT INTO subscription_charges (id, user_id, tier_id, funding_source_id, kind, status, amount_cents, period_start, period_end, vendor, idempotency_key, lease_owner, lease_until, created_at, updated_at)
                VALUES (?, ?, 'tier_pro', ?, 'renewal', ?, ?, ?, ?, 'simulated', ?, 'seed', 0, ?, ?)`,
          args: [id, u.id, u.sources[0]!, op.succeeded ? 'succeeded' : 'failed', op.amount, when, when + 30 * 24 * HOUR, id, when, when],
        },
      ];
    }
  }
}

/** Runs the history, checking the kept figures against history after every step (a later write cannot hide a drift). */
async function run(steps: Array<{ crash: boolean; ops: Op[] }>) {
  const made: Made = { bcards: [], refunds: [], auths: [] };
  const client = ctx.handle.client;
  for (const step of steps) {
    if (!step.crash) {
      for (const op of step.ops) for (const s of statements(op, made)) await client.execute(s);
      expect(await spendingDrift(ctx.deps)).toEqual([]);
      continue;
    }
    // The writes of a transaction that then fails: what `made` learnt from them is undone with it.
    const before = structuredClone(made);
    const tx: Transaction = await client.transaction('write');
    try {
      for (const op of step.ops) for (const s of statements(op, made)) await tx.execute(s);
    } finally {
      await tx.rollback();
      tx.close();
    }
    Object.assign(made, before);
    expect(await spendingDrift(ctx.deps)).toEqual([]);
  }
}

const queryArb = fc.record({
  range: fc.oneof(
    fc.record({ months: fc.integer({ min: 1, max: 36 }) }),
    fc.record({ back: fc.integer({ min: 0, max: 40 }), span: fc.integer({ min: 1, max: 36 }) }),
  ),
  utcOffset: fc.oneof(fc.constantFrom(0, 60, 180, -300, 330, 345, -840, 840), fc.integer({ min: -MAX_UTC_OFFSET, max: MAX_UTC_OFFSET })),
  top: fc.integer({ min: 1, max: 20 }),
  monthStartMinutes: fc.integer({ min: -14 * 60, max: 14 * 60 }),
});

describe('the spending figures kept as money moves are what history says', () => {
  test('after random histories, crashes in the middle included: every part and month, analytics at any offset, the Overview', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 30 }), queryArb, async (steps, q) => {
        await run(steps);
        const now = ctx.clock.now();
        const range =
          'months' in q.range
            ? { months: q.range.months }
            : (() => {
                const m = (k: number) => {
                  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - k, 1));
                  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
                };
                return { from: m(q.range.back + q.range.span - 1), to: m(q.range.back) };
              })();
        const query = { ...range, utcOffset: q.utcOffset, top: q.top };
        const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) + q.monthStartMinutes * 60_000);
        for (const u of users) {
          expect(await spendingAnalytics(ctx.deps, u.id, query)).toEqual(await analyticsFromHistory(ctx.deps, u.id, query));
          expect(await spendingSummary(ctx.deps, u.id, monthStart)).toEqual(await summaryFromHistory(ctx.deps, u.id, monthStart));
        }
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});

describe('keeping the figures costs a few seeks per write', () => {
  test('every statement of the spending triggers seeks by a key: no table or index read whole, no automatic index', () => {
    // The trigger programs are not statements the app sends, so the query-plan test never sees them: each statement
    // of each trigger is planned here with the row's values as parameters.
    const db = new Database(join(ctx.dir, 'test.db'), { readonly: true });
    try {
      const triggers = db.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'spending_%'").all() as Array<{ name: string; sql: string }>;
      expect(triggers.length).toBe(15);
      let planned = 0;
      for (const t of triggers) {
        const body = t.sql.replace(/^[\s\S]*?\bBEGIN\b/, '').replace(/\bEND;?\s*$/, '');
        const statements = body
          .split(/;\s*\n/)
          .map((s) => s.replace(/--.*$/gm, '').trim())
          .filter(Boolean);
        for (const s of statements) {
          const plan = (db.query(`EXPLAIN QUERY PLAN ${s.replace(/\b(new|old)\.\w+/g, "'x'")}`).all() as Array<{ detail: string }>).map((r) => r.detail);
          planned++;
          // Scans only of what the statement itself builds: a subquery's rows, one bcard's shares, two ids.
          const scans = plan.filter((d) => d.startsWith('SCAN ') && !/^SCAN (\(subquery-\d+\)|[qw]|json_each VIRTUAL TABLE INDEX \d+:)$/.test(d));
          expect({ trigger: t.name, statement: s.slice(0, 80), scans }).toEqual({ trigger: t.name, statement: s.slice(0, 80), scans: [] });
          expect(plan.some((d) => d.includes('AUTOMATIC'))).toBe(false);
        }
      }
      expect(planned).toBeGreaterThan(20);
    } finally {
      db.close();
    }
  });
});
