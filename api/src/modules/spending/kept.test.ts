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
  // The rest of what a bcard's figures read, each changed alone: a bcard's own columns, a share removed or moved to
  // another collection, a refund's amounts or intent changed or the refund removed, an authorization moved to another
  // bcard or removed, an intent removed (its refunds with it, by cascade).
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('bcardColumn' as const),
      i: fc.nat(),
      column: fc.constantFrom('sandbox', 'limit_cents', 'user_id'),
      value: permille,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('shareDelete' as const), i: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('shareMove' as const), i: fc.nat(), k: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('refundChange' as const),
      j: fc.nat(),
      column: fc.constantFrom('amount', 'fee_cents', 'payment_intent_id', 'payment_intent_id'),
      value: fc.integer({ min: 1, max: 5_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('refundDelete' as const), j: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('issuerMove' as const), j: fc.nat(), k: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('issuerDelete' as const), j: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('intentDelete' as const), i: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('plan' as const), user: fc.integer({ min: 0, max: 1 }), amount: fc.integer({ min: 100, max: 5_000 }), succeeded: fc.boolean(), at: instant }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
const stepArb = fc.oneof(
  { weight: 6, arbitrary: opArb.map((op) => ({ crash: false, ops: [op] })) },
  // Several writes in one transaction that fails at the end (a money path crashing half-way), or that commits.
  { weight: 1, arbitrary: fc.array(opArb, { minLength: 1, maxLength: 4 }).map((ops) => ({ crash: true, ops })) },
  { weight: 1, arbitrary: fc.array(opArb, { minLength: 2, maxLength: 4 }).map((ops) => ({ crash: false, together: true, ops })) },
);

/** A payment intent paid by the bcard (it has none yet). */
function intentFor(b: Made['bcards'][number]): InStatement {
  const now = ctx.clock.now().getTime();
  b.intent = newId('pi');
  const amount = Math.max(50, b.limit);
  return {
    sql: `INSERT INTO payment_intents (id, merchant_id, livemode, amount, currency, status, capture_method, bcard_id, amount_received, amount_refunded, metadata, client_secret, seq, created_at, updated_at)
          VALUES (?, ?, 1, ?, 'usd', 'succeeded', 'automatic', ?, ?, 0, '{}', ?, ?, ?, ?)`,
    args: [b.intent, merchantId, amount, b.id, amount, `${b.intent}_secret`, seq++, now, now],
  };
}

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
      // What it spent, a part of its limit as the row has it now.
      return [
        {
          sql: 'UPDATE bcards SET status = ?, spent_cents = CASE WHEN ? THEN CAST(limit_cents * ? / 1000 AS INTEGER) ELSE 0 END, deactivated_at = ? WHERE id = ?',
          args: [op.status, op.status === 'used' ? 1 : 0, op.spent, op.status === 'active' ? null : at(op.at), b.id],
        },
      ];
    }
    case 'refund': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      const out: InStatement[] = b.intent ? [] : [intentFor(b)];
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
    case 'bcardColumn': {
      const b = pick(made.bcards, op.i);
      if (!b) return [];
      if (op.column === 'sandbox') return [{ sql: 'UPDATE bcards SET sandbox = 1 - sandbox WHERE id = ?', args: [b.id] }];
      if (op.column === 'user_id') {
        b.user = 1 - b.user;
        return [{ sql: 'UPDATE bcards SET user_id = ? WHERE id = ?', args: [users[b.user]!.id, b.id] }];
      }
      // A limit at or above what was spent (the table's check).
      return [{ sql: 'UPDATE bcards SET limit_cents = max(spent_cents, 1) + CAST(? AS INTEGER) WHERE id = ?', args: [op.value, b.id] }];
    }
    case 'shareDelete': {
      const b = pick(made.bcards, op.i);
      return b ? [{ sql: 'DELETE FROM collection_shares WHERE id = (SELECT id FROM collection_shares WHERE collection_id = ? ORDER BY position DESC LIMIT 1)', args: [b.collectionId] }] : [];
    }
    case 'shareMove': {
      const from = pick(made.bcards, op.i);
      const to = pick(made.bcards, op.k);
      if (!from || !to || from === to) return [];
      // Its first share to the other collection, at a new last position, unless that collection has a share of the source.
      return [
        {
          sql: `UPDATE collection_shares SET collection_id = ?, position = (SELECT coalesce(max(position), -1) + 1 FROM collection_shares WHERE collection_id = ?)
                WHERE id = (SELECT id FROM collection_shares WHERE collection_id = ? ORDER BY position LIMIT 1)
                  AND NOT EXISTS (SELECT 1 FROM collection_shares x WHERE x.collection_id = ? AND x.funding_source_id = collection_shares.funding_source_id)`,
          args: [to.collectionId, to.collectionId, from.collectionId, to.collectionId],
        },
      ];
    }
    case 'refundChange': {
      const r = pick(made.refunds, op.j);
      if (!r) return [];
      if (op.column !== 'payment_intent_id') return [{ sql: `UPDATE refunds SET ${op.column} = ? WHERE id = ?`, args: [op.value, r] }];
      // To any bcard's intent (one made for it when it has none): usually another bcard's.
      const to = pick(made.bcards, op.value)!;
      const out: InStatement[] = to.intent ? [] : [intentFor(to)];
      return [...out, { sql: 'UPDATE refunds SET payment_intent_id = ? WHERE id = ?', args: [to.intent, r] }];
    }
    case 'refundDelete': {
      const r = pick(made.refunds, op.j);
      return r ? [{ sql: 'DELETE FROM refunds WHERE id = ?', args: [r] }] : [];
    }
    case 'issuerMove': {
      const a = pick(made.auths, op.j);
      const b = pick(made.bcards, op.k);
      return a && b ? [{ sql: 'UPDATE issuer_authorizations SET bcard_id = ? WHERE id = ?', args: [b.id, a] }] : [];
    }
    case 'issuerDelete': {
      const a = pick(made.auths, op.j);
      return a ? [{ sql: 'DELETE FROM issuer_authorizations WHERE id = ?', args: [a] }] : [];
    }
    case 'intentDelete': {
      const b = pick(
        made.bcards.filter((x) => x.intent),
        op.i,
      );
      if (!b) return [];
      const intent = b.intent;
      b.intent = null;
      return [{ sql: 'DELETE FROM payment_intents WHERE id = ?', args: [intent] }];
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
async function run(steps: Array<{ crash: boolean; together?: boolean; ops: Op[] }>) {
  const made: Made = { bcards: [], refunds: [], auths: [] };
  const client = ctx.handle.client;
  for (const step of steps) {
    if (!step.crash && !('together' in step)) {
      for (const op of step.ops) for (const s of statements(op, made)) await client.execute(s);
      expect(await spendingDrift(ctx.deps)).toEqual([]);
      continue;
    }
    // The writes of one transaction: when it fails, what `made` learnt from them is undone with it.
    const before = structuredClone(made);
    const tx: Transaction = await client.transaction('write');
    try {
      for (const op of step.ops) for (const s of statements(op, made)) await tx.execute(s);
    } finally {
      if (step.crash) await tx.rollback();
      else await tx.commit();
      tx.close();
    }
    if (step.crash) Object.assign(made, before);
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
      expect(triggers.length).toBe(16);
      let planned = 0;
      for (const t of triggers) {
        const body = t.sql.replace(/^[\s\S]*?\bBEGIN\b/, '').replace(/\bEND;?\s*$/, '');
        const statements = body
          .split(/;\s*\n/)
          .map((s) => s.replace(/--.*$/gm, '').trim())
          .filter(Boolean);
        // The WHEN clause runs on every write of its table: planned too (an EXISTS in it must seek as well).
        const when = /^[^]*?\bWHEN\b([^]*?)\bBEGIN\b/.exec(t.sql)?.[1];
        if (when) statements.push(`SELECT (${when})`);
        for (const s of statements) {
          const plan = (db.query(`EXPLAIN QUERY PLAN ${s.replace(/\b(new|old)\.\w+/g, "'x'")}`).all() as Array<{ detail: string }>).map((r) => r.detail);
          planned++;
          // Scans only of what the statement itself builds: a subquery's rows, one bcard's shares, two ids.
          const scans = plan.filter((d) => d.startsWith('SCAN ') && !/^SCAN (CONSTANT ROW|\(subquery-\d+\)|[qw]|json_each VIRTUAL TABLE INDEX \d+:)$/.test(d));
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

describe('every write a bcard’s figures read moves them, alone', () => {
  // Two spent bcards with an intent each, a refund, a network return: then each write below, one at a time. Each
  // must change the kept figures (it matters) and leave them equal to history (its trigger fired). fast-check reaches
  // these too, but rarely alone; here each trigger's WHEN clause is met on its own.
  test.each([
    ['a refund moved to the other bcard’s intent', "UPDATE refunds SET payment_intent_id = 'pi_k2' WHERE id = 're_k1'"],
    ['a refund’s amount', "UPDATE refunds SET amount = 120 WHERE id = 're_k1'"],
    ['a refund’s fee', "UPDATE refunds SET fee_cents = 7 WHERE id = 're_k1'"],
    ['a refund failing', "UPDATE refunds SET status = 'failed' WHERE id = 're_k1'"],
    ['a refund removed', "DELETE FROM refunds WHERE id = 're_k1'"],
    ['an intent moved to the other bcard', "UPDATE payment_intents SET bcard_id = NULL WHERE id = 'pi_k2'; UPDATE payment_intents SET bcard_id = 'bc_k2' WHERE id = 'pi_k1'"],
    ['an intent removed (its refunds by cascade)', "DELETE FROM payment_intents WHERE id = 'pi_k1'"],
    ['a return’s amount', "UPDATE issuer_authorizations SET returned_cents = 50 WHERE id = 'ia_k1'"],
    ['a return’s decision', "UPDATE issuer_authorizations SET decision = 'declined' WHERE id = 'ia_k1'"],
    ['a return moved to the other bcard', "UPDATE issuer_authorizations SET bcard_id = 'bc_k2' WHERE id = 'ia_k1'"],
    ['a return removed', "DELETE FROM issuer_authorizations WHERE id = 'ia_k1'"],
    ['a collection settling', "UPDATE collections SET status = 'refunding' WHERE id = 'col_k1'"],
    ['a collection’s refunded total', "UPDATE collections SET refunded_cents = 100 WHERE id = 'col_k1'"],
    ['a collection’s fee', "UPDATE collections SET fee_cents = 10, amount_cents = 1020 WHERE id = 'col_k1'"],
    ['a collection’s merchant', "UPDATE collections SET merchant = 'Other shop' WHERE id = 'col_k1'"],
    ['a share’s amount', "UPDATE collection_shares SET amount_cents = 100 WHERE id = 'shr_k1a'"],
    ['a share’s source', "UPDATE collection_shares SET funding_source_id = (SELECT funding_source_id FROM collection_shares WHERE id = 'shr_k2a') WHERE id = 'shr_k1b'"],
    ['a share’s position', "UPDATE collection_shares SET position = 5 WHERE id = 'shr_k1a'"],
    ['a share removed', "DELETE FROM collection_shares WHERE id = 'shr_k1b'"],
    ['a share moved to the other collection', "UPDATE collection_shares SET collection_id = 'col_k2', position = 9 WHERE id = 'shr_k1b'"],
    ['a share added', "INSERT INTO collection_shares (id, collection_id, funding_source_id, position, percentage_bps, amount_cents, status, updated_at) SELECT 'shr_k1c', 'col_k1', funding_source_id, 7, 0, 400, 'captured', 0 FROM collection_shares WHERE id = 'shr_k2a'"],
    ['a bcard’s spend', "UPDATE bcards SET spent_cents = 600 WHERE id = 'bc_k1'"],
    ['a bcard’s limit', "UPDATE bcards SET limit_cents = 1500 WHERE id = 'bc_k1'"],
    ['a bcard made a sandbox one', "UPDATE bcards SET sandbox = 1 WHERE id = 'bc_k1'"],
    ['a bcard given to the other user', "UPDATE bcards SET user_id = (SELECT user_id FROM bcards WHERE id = 'bc_k2') WHERE id = 'bc_k1'"],
    ['a bcard ended another day', "UPDATE bcards SET deactivated_at = deactivated_at - 86400000 * 40 WHERE id = 'bc_k1'"],
    ['a bcard ended unused instead', "UPDATE bcards SET status = 'expired', spent_cents = 0 WHERE id = 'bc_k1'"],
    ['a bcard live again', "UPDATE bcards SET status = 'active', spent_cents = 0, deactivated_at = NULL WHERE id = 'bc_k1'"],
  ])('%s', async (_name, write) => {
    const c = ctx.handle.client;
    const now = ctx.clock.now().getTime();
    // A fresh pair each time (their ids are the test's own: the history test's rows never use them).
    await c.executeMultiple(`DELETE FROM refunds WHERE id LIKE 're_k%'; DELETE FROM issuer_authorizations WHERE id LIKE 'ia_k%';
      DELETE FROM payment_intents WHERE id LIKE 'pi_k%'; DELETE FROM bcards WHERE id LIKE 'bc_k%';
      DELETE FROM collection_shares WHERE id LIKE 'shr_k%'; DELETE FROM collections WHERE id LIKE 'col_k%';`);
    const [u, other] = users;
    for (const k of ['1', '2']) {
      await c.execute({
        sql: `INSERT INTO collections (id, user_id, kind, status, amount_cents, fee_cents, total_cents, currency, name, cardholder_name, merchant, vendor, refunded_cents, lease_owner, lease_until, created_at, updated_at)
              VALUES (?, ?, 'bcard', 'completed', 1000, 30, 1030, 'usd', 'Card', 'Ada', 'Shop K', 'simulated', 250, 'seed', 0, ?, ?)`,
        args: [`col_k${k}`, k === '1' ? u!.id : other!.id, now, now],
      });
      // Equal shares, and an odd spend (801 - 300 - 40): the cent left over goes by position.
      for (const [p, part] of [['a', 515], ['b', 515]] as const) {
        await c.execute({
          sql: `INSERT INTO collection_shares (id, collection_id, funding_source_id, position, percentage_bps, amount_cents, status, updated_at) VALUES (?, ?, ?, ?, 0, ?, 'captured', ?)`,
          args: [`shr_k${k}${p}`, `col_k${k}`, (k === '1' ? u : other)!.sources[p === 'a' ? 0 : 1]!, p === 'a' ? 0 : 1, part, now],
        });
      }
      await c.execute({
        sql: `INSERT INTO bcards (id, user_id, collection_id, name, cardholder_name, vendor, vendor_card_id, brand, last4, exp_month, exp_year, limit_cents, spent_cents, status, sandbox, expires_at, created_at, deactivated_at)
              VALUES (?, ?, ?, 'Card', 'Ada', 'simulated', ?, 'visa', '4242', 12, 2030, 1000, 801, 'used', 0, ?, ?, ?)`,
        args: [`bc_k${k}`, k === '1' ? u!.id : other!.id, `col_k${k}`, `ic_k${k}`, now + HOUR, now, now - 5 * HOUR],
      });
      await c.execute({
        sql: `INSERT INTO payment_intents (id, merchant_id, livemode, amount, currency, status, capture_method, bcard_id, amount_received, amount_refunded, metadata, client_secret, seq, created_at, updated_at)
              VALUES (?, ?, 1, 800, 'usd', 'succeeded', 'automatic', ?, 800, 0, '{}', ?, ?, ?, ?)`,
        args: [`pi_k${k}`, merchantId, `bc_k${k}`, `pi_k${k}_secret`, seq++, now, now],
      });
    }
    await c.execute({
      sql: `INSERT INTO refunds (id, merchant_id, payment_intent_id, livemode, amount, fee_cents, currency, status, metadata, lease_owner, lease_until, seq, created_at, updated_at)
            VALUES ('re_k1', ?, 'pi_k1', 1, 300, 9, 'usd', 'succeeded', '{}', 'seed', 0, ?, ?, ?)`,
      args: [merchantId, seq++, now, now],
    });
    await c.execute({
      sql: `INSERT INTO issuer_authorizations (id, network, network_ref, bcard_id, user_id, amount_cents, currency, merchant_name, decision, captured_cents, returned_cents, created_at, updated_at)
            VALUES ('ia_k1', 'simulated', 'ia_k1', 'bc_k1', ?, 800, 'usd', 'A shop', 'approved', 800, 40, ?, ?)`,
      args: [u!.id, now, now],
    });
    expect(await spendingDrift(ctx.deps)).toEqual([]);
    const kept = async () => (await c.execute("SELECT * FROM spending_parts WHERE bcard_id IN ('bc_k1', 'bc_k2') ORDER BY bcard_id, kind, key")).rows.map((r) => JSON.stringify(r));
    const before = await kept();
    await c.executeMultiple(write);
    expect(await kept()).not.toEqual(before);
    expect(await spendingDrift(ctx.deps)).toEqual([]);
  });
});
