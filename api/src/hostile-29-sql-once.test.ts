import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, merchantCall, type TestContext } from '../test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser, type TestMerchant } from '../test-support/world';
import { moneyReport, moneyViolations } from '../test-support/money-invariants';
import { sweepMoney } from './boot';

/*
 * Hostile audit of issue 29 parts 4 and 5 (SQL built once on the bcard, confirm, refund and transactions paths): what
 * a per-call build protected that a query built once could lose. Each built-once read that filtered by its owner still
 * does (another consumer's or merchant's id answers 404, not the row); a session ends at its stored expiry to the
 * millisecond (a placeholder in a condition has no column encoder: the time goes as the stored ms); two apps in one
 * process (two databases) never run one's built query on the other's file; the transactions page's IN lists built
 * per count work at the largest page (100).
 */

const FEE_BPS = 250;

interface World {
  ctx: TestContext;
  consumer: { cookie: string; id: string };
  sources: string[];
  live: TestMerchant;
}

async function world(): Promise<World> {
  const ctx = await makeTestApp();
  const c = await registerUser(ctx);
  await makePremium(ctx, c.user.id, FEE_BPS);
  const sources: string[] = [];
  for (const n of CARDS_OK.slice(0, 3)) sources.push((await addCard(ctx, c.cookie, n)).id);
  const o = await registerUser(ctx);
  await makePremium(ctx, o.user.id);
  const live = await createMerchant(ctx, o.cookie, 'production');
  return { ctx, consumer: { cookie: c.cookie, id: c.user.id }, sources, live };
}

async function bcard(w: World, dollars: string, key?: string) {
  const made = await call(w.ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: w.consumer.cookie,
    headers: key ? { 'idempotency-key': key } : {},
    body: { name: 'Shoes', balance: dollars, fundingSources: [50, 30, 20].map((p, i) => ({ fundingSourceId: w.sources[i], percentage: p })) },
  });
  expect(made.status, made.text).toBe(201);
  return made.body as { id: string; transactionId: string };
}

/** A live intent of `cents` paid by a fresh 3-source bcard of `dollars`. */
async function paidIntent(w: World, dollars: string, cents: number) {
  const made = await bcard(w, dollars);
  const details = await call(w.ctx, `/api/virtual-cards/${made.id}/checkout-details`, { cookie: w.consumer.cookie });
  const pi = await merchantCall(w.ctx, w.live.secretKey, '/payment_intents', { method: 'POST', body: { amount: cents, currency: 'usd' } });
  const card = { number: details.body.cardNumber, exp_month: details.body.expiryMonth, exp_year: details.body.expiryYear, cvc: details.body.cvv };
  const confirmed = await merchantCall(w.ctx, w.live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { id: pi.body.id as string, bcard: made };
}

let a: World;
let b: World;

beforeAll(async () => {
  a = await world();
  b = await world();
});
afterAll(async () => {
  await a.ctx.close();
  await b.ctx.close();
});

describe('owner checks on the reads built once', () => {
  let mallory: { cookie: string; id: string };
  let thief: TestMerchant;
  let paid: { id: string; bcard: { id: string; transactionId: string } };
  let refundId: string;
  let chargeId: string;

  beforeAll(async () => {
    const m = await registerUser(a.ctx);
    mallory = { cookie: m.cookie, id: m.user.id };
    await makePremium(a.ctx, m.user.id);
    thief = await createMerchant(a.ctx, m.cookie, 'production');
    paid = await paidIntent(a, '50.00', 5000);
    const r = await merchantCall(a.ctx, a.live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: paid.id, amount: 100 } });
    expect(r.status, r.text).toBe(200);
    refundId = r.body.id;
    const charges = await merchantCall(a.ctx, a.live.secretKey, `/charges?payment_intent=${paid.id}`);
    chargeId = charges.body.data[0].id;
  });

  test("another consumer's bcard: its card details and its cancel answer 404, and it stays active", async () => {
    const details = await call(a.ctx, `/api/virtual-cards/${paid.bcard.id}/checkout-details`, { cookie: mallory.cookie });
    expect(details.status).toBe(404);
    expect(details.text).not.toContain('cardNumber');
    const made = await bcard(a, '5.00');
    const cancel = await call(a.ctx, `/api/virtual-cards/${made.id}/cancel`, { method: 'POST', cookie: mallory.cookie });
    expect(cancel.status).toBe(404);
    const mine = await call(a.ctx, '/api/virtual-cards', { cookie: a.consumer.cookie });
    expect(JSON.stringify(mine.body)).toContain(made.id);
    const row = await a.ctx.handle.client.execute({ sql: 'SELECT status FROM bcards WHERE id = ?', args: [made.id] });
    expect(row.rows[0]!.status).toBe('active');
  });

  test("another consumer's transaction: 404 by id, and never in their list", async () => {
    expect((await call(a.ctx, `/api/transactions/${paid.bcard.transactionId}`, { cookie: mallory.cookie })).status).toBe(404);
    expect((await call(a.ctx, `/api/transactions/${paid.bcard.transactionId}`, { cookie: a.consumer.cookie })).status).toBe(200);
    const list = await call(a.ctx, '/api/transactions?limit=100', { cookie: mallory.cookie });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });

  test("another merchant's intent, refund and charge: 404, and nothing is refunded", async () => {
    const before = await a.ctx.handle.client.execute({ sql: 'SELECT amount_refunded FROM payment_intents WHERE id = ?', args: [paid.id] });
    const r = await merchantCall(a.ctx, thief.secretKey, '/refunds', { method: 'POST', body: { payment_intent: paid.id, amount: 100 } });
    expect(r.status).toBe(404);
    expect((await merchantCall(a.ctx, thief.secretKey, `/refunds/${refundId}`)).status).toBe(404);
    expect((await merchantCall(a.ctx, thief.secretKey, `/charges/${chargeId}`)).status).toBe(404);
    expect((await merchantCall(a.ctx, thief.secretKey, `/payment_intents/${paid.id}`)).status).toBe(404);
    const after = await a.ctx.handle.client.execute({ sql: 'SELECT amount_refunded FROM payment_intents WHERE id = ?', args: [paid.id] });
    expect(after.rows[0]!.amount_refunded).toBe(before.rows[0]!.amount_refunded);
    // The owner still sees them.
    expect((await merchantCall(a.ctx, a.live.secretKey, `/refunds/${refundId}`)).status).toBe(200);
    expect((await merchantCall(a.ctx, a.live.secretKey, `/charges/${chargeId}`)).status).toBe(200);
  });

  test("another consumer's Idempotency-Key reads as not started, and the same key makes each consumer their own bcard", async () => {
    const key = 'shared-key-1';
    const mine = await bcard(a, '3.00', key);
    const progress = await call(a.ctx, `/api/virtual-cards/collection-progress?key=${key}`, { cookie: mallory.cookie });
    expect(progress.status).toBe(200);
    expect(progress.body.stage).toBe('not_started');
    const src = (await addCard(a.ctx, mallory.cookie, CARDS_OK[0]!)).id;
    const theirs = await call(a.ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: mallory.cookie,
      headers: { 'idempotency-key': key },
      body: { name: 'Mine', balance: '3.00', fundingSources: [{ fundingSourceId: src, percentage: 100 }] },
    });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.id).not.toBe(mine.id);
  });
});

describe('session expiry, compared as the stored milliseconds', () => {
  test('a session answers 1 ms before its expiry and not at it', async () => {
    const { cookie, user } = await registerUser(b.ctx);
    const row = await b.ctx.handle.client.execute({ sql: 'SELECT expires_at FROM sessions WHERE user_id = ? ORDER BY expires_at DESC LIMIT 1', args: [user.id] });
    const expiresAt = Number(row.rows[0]!.expires_at);
    const now = b.ctx.clock.now().getTime();
    // Stored as ms (not seconds): the lifetime is 14 days of milliseconds from now.
    expect(expiresAt - now).toBe(14 * 24 * 3600_000);
    b.ctx.clock.advance(expiresAt - now - 1);
    expect((await call(b.ctx, '/api/auth/user', { cookie })).status).toBe(200);
    b.ctx.clock.advance(1);
    expect((await call(b.ctx, '/api/auth/user', { cookie })).status).toBe(401);
    b.ctx.clock.advance(-(expiresAt - now));
  });
});

describe('two apps in one process, two databases', () => {
  test('each writes and reads only its own file through the same built queries', async () => {
    const count = async (w: World, t: string) => Number((await w.ctx.handle.client.execute(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
    const before = { a: await count(a, 'collections'), b: await count(b, 'collections'), ra: await count(a, 'refunds'), rb: await count(b, 'refunds') };
    // Interleaved: a bcard in A, one in B, a paid intent and a refund in each, alternately.
    const ca = await bcard(a, '7.00', 'two-apps');
    const cb = await bcard(b, '8.00', 'two-apps');
    const pa = await paidIntent(a, '9.00', 900);
    const pb = await paidIntent(b, '11.00', 1100);
    expect((await merchantCall(a.ctx, a.live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pa.id } })).status).toBe(200);
    expect((await merchantCall(b.ctx, b.live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pb.id } })).status).toBe(200);
    expect(await count(a, 'collections')).toBe(before.a + 2);
    expect(await count(b, 'collections')).toBe(before.b + 2);
    expect(await count(a, 'refunds')).toBe(before.ra + 1);
    expect(await count(b, 'refunds')).toBe(before.rb + 1);
    // Each app's rows are in its own file only.
    const has = async (w: World, id: string) => (await w.ctx.handle.client.execute({ sql: 'SELECT 1 FROM bcards WHERE id = ?', args: [id] })).rows.length;
    expect([await has(a, ca.id), await has(b, ca.id), await has(a, cb.id), await has(b, cb.id)]).toEqual([1, 0, 0, 1]);
    // A replay of the key in each app answers that app's own bcard.
    expect((await bcard(a, '7.00', 'two-apps')).id).toBe(ca.id);
    expect((await bcard(b, '8.00', 'two-apps')).id).toBe(cb.id);
    for (const w of [a, b]) expect(moneyViolations(await moneyReport(w.ctx))).toEqual([]);
  });
});

describe('the transactions page at its largest count', () => {
  test('100 collections on one page, then the next page after the cursor: every IN list built for 100 (and 1) answers', async () => {
    const w = b;
    // 101 collections from raw copies of one real bcard's rows (the API would take 101 round trips of the saga).
    const made = await bcard(w, '2.00');
    const col = await w.ctx.handle.client.execute({ sql: 'SELECT * FROM collections WHERE id = ?', args: [made.transactionId] });
    const src = col.rows[0]!;
    const existing = Number((await w.ctx.handle.client.execute({ sql: "SELECT count(*) AS n FROM collections WHERE user_id = ? AND kind != 'sandbox'", args: [w.consumer.id] })).rows[0]!.n);
    const cols = Object.keys(src);
    for (let i = 0; i < 101 - existing; i++) {
      const values = cols.map((k) =>
        k === 'id' ? `col_copy${String(i).padStart(4, '0')}` : k === 'idempotency_key' ? null : k === 'created_at' ? Number(src.created_at) - 1000 - i : src[k],
      );
      await w.ctx.handle.client.execute({ sql: `INSERT INTO collections (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`, args: values as never });
    }
    const first = await call(w.ctx, '/api/transactions?limit=100', { cookie: w.consumer.cookie });
    expect(first.status, first.text).toBe(200);
    expect(first.body.length).toBe(100);
    const cursor = first.headers.get('bpay-next-cursor');
    expect(cursor).toBeTruthy();
    const next = await call(w.ctx, `/api/transactions?limit=100&cursor=${cursor}`, { cookie: w.consumer.cookie });
    expect(next.status, next.text).toBe(200);
    expect(next.body.length).toBe(1);
    expect(next.headers.get('bpay-next-cursor')).toBeNull();
    const ids = [...first.body, ...next.body].map((t: { id: string }) => t.id);
    expect(new Set(ids).size).toBe(101);
    // The one real bcard's view still has its card and its three shares' debits read by the per-count queries.
    const real = first.body.find((t: { id: string }) => t.id === made.transactionId);
    expect(real.virtualCardId).toBe(made.id);
  });
});

/*
 * A write that fails after the converted ones in the same unit: the built-once statements before it (the shares'
 * one-UPDATE capture, the refund parts' JSON-keyed UPDATE, the ledger's multi-row postings) must roll back with it,
 * and the sweep must finish the money exactly once afterwards. The failure is a trigger on a later table.
 */
describe('a failure after the converted writes of a unit rolls them back with it', () => {
  const q = async (w: World, sql: string, args: (string | number)[] = []) => (await w.ctx.handle.client.execute({ sql, args })).rows;

  test("the bcard's capture phase: the bcard's insert fails after every share was captured in one UPDATE; nothing of the phase stays (the holds are voided), and the sweep leaves it so", async () => {
    const w = await world();
    try {
      await w.ctx.handle.client.execute("CREATE TRIGGER audit45_boom BEFORE INSERT ON bcards WHEN NEW.name = 'BOOM' BEGIN SELECT RAISE(ABORT, 'boom'); END");
      const res = await call(w.ctx, '/api/virtual-cards', {
        method: 'POST',
        cookie: w.consumer.cookie,
        body: { name: 'BOOM', balance: '20.00', fundingSources: [50, 30, 20].map((p, i) => ({ fundingSourceId: w.sources[i], percentage: p })) },
      });
      expect(res.status).not.toBe(201);
      const [col] = await q(w, "SELECT id, status FROM collections WHERE name = 'BOOM'");
      // The phase's record rolled back whole: not completed, no share captured, no captured movement, no bcard.
      expect(col!.status).not.toBe('completed');
      const shares = await q(w, 'SELECT status FROM collection_shares WHERE collection_id = ?', [String(col!.id)]);
      expect(shares.length).toBe(3);
      expect(shares.map((r) => r.status)).not.toContain('captured');
      // The simulator's captures ran inside the phase (saga.ts `within`) and rolled back with it: the holds were voided.
      expect(shares.map((r) => r.status)).toEqual(['voided', 'voided', 'voided']);
      expect((await q(w, "SELECT count(*) AS n FROM ledger_movements WHERE kind = 'collection.captured' AND reference_id = ?", [String(col!.id)]))[0]!.n).toBe(0);
      expect((await q(w, "SELECT count(*) AS n FROM bcards WHERE name = 'BOOM'"))[0]!.n).toBe(0);
      expect(moneyViolations(await moneyReport(w.ctx))).toEqual([]);
      await w.ctx.handle.client.execute('DROP TRIGGER audit45_boom');
      w.ctx.clock.advance(61_000);
      await sweepMoney(w.ctx.deps);
      await sweepMoney(w.ctx.deps);
      const [after] = await q(w, 'SELECT status FROM collections WHERE id = ?', [String(col!.id)]);
      expect(['completed', 'failed', 'refunded']).toContain(String(after!.status));
      expect((await q(w, "SELECT count(*) AS n FROM ledger_movements WHERE kind = 'collection.captured' AND reference_id = ?", [String(col!.id)]))[0]!.n).toBe(
        after!.status === 'completed' ? 1 : 0,
      );
      const report = await moneyReport(w.ctx);
      expect(moneyViolations(report)).toEqual([]);
      expect(report.ledgerTotal).toBe(0);
    } finally {
      await w.ctx.close();
    }
  });

  test("a refund's settlement: its notice fails after the parts' one UPDATE and the postings; the refund stays pending whole, the sweep settles it once", async () => {
    const w = await world();
    try {
      const pi = await paidIntent(w, '30.00', 2000);
      await w.ctx.handle.client.execute("CREATE TRIGGER audit45_boom BEFORE INSERT ON notifications WHEN NEW.kind = 'merchant_refund' BEGIN SELECT RAISE(ABORT, 'boom'); END");
      const r = await merchantCall(w.ctx, w.live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 1500 } });
      // Transaction 1 (the refund recorded, the amount reserved) committed; the settlement's did not.
      expect(r.status, r.text).toBe(200);
      expect(r.body.status).toBe('pending');
      const parts = await q(w, 'SELECT status, vendor_refund_id FROM refund_parts WHERE refund_id = ?', [r.body.id]);
      expect(parts.length).toBe(3);
      for (const p of parts) expect([p.status, p.vendor_refund_id]).toEqual(['pending', null]);
      expect((await q(w, 'SELECT count(*) AS n FROM ledger_movements WHERE reference_id = ?', [r.body.id]))[0]!.n).toBe(0);
      expect(moneyViolations(await moneyReport(w.ctx))).toEqual([]);
      await w.ctx.handle.client.execute('DROP TRIGGER audit45_boom');
      w.ctx.clock.advance(61_000);
      await sweepMoney(w.ctx.deps);
      const [row] = await q(w, 'SELECT status, amount, fee_cents FROM refunds WHERE id = ?', [r.body.id]);
      expect(row!.status).toBe('succeeded');
      const settled = await q(w, 'SELECT status, vendor_refund_id, amount_cents FROM refund_parts WHERE refund_id = ?', [r.body.id]);
      for (const p of settled) {
        expect(p.status).toBe('succeeded');
        expect(String(p.vendor_refund_id)).toMatch(/^sim_re_/);
      }
      expect(settled.reduce((a, p) => a + Number(p.amount_cents), 0)).toBe(Number(row!.amount) + Number(row!.fee_cents));
      // Each part refunded at the processor once (its key), and one movement.
      expect((await q(w, 'SELECT count(*) AS n FROM sim_refunds WHERE idempotency_key LIKE ?', [`refund:${r.body.id}:%`]))[0]!.n).toBe(3);
      expect((await q(w, 'SELECT count(*) AS n FROM ledger_movements WHERE reference_id = ?', [r.body.id]))[0]!.n).toBe(1);
      await sweepMoney(w.ctx.deps);
      expect((await q(w, 'SELECT count(*) AS n FROM ledger_movements WHERE reference_id = ?', [r.body.id]))[0]!.n).toBe(1);
      const report = await moneyReport(w.ctx);
      expect(moneyViolations(report)).toEqual([]);
      expect(report.ledgerTotal).toBe(0);
    } finally {
      await w.ctx.close();
    }
  });
});
