import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, inArray } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { createIntent, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { createSimulatedVendor, TEST_CARD_BEHAVIOR } from '../../vendors/simulated';
import { accountBalance, accounts } from '../ledger/service';
import { expireBcards } from '../bcards/sweep';
import { SANDBOX_SOURCES } from './split';

/*
 * POST /api/v1/test_helpers/bcards with `allocations` (issue 28 §3): a sandbox bcard collected as a split across magic
 * test sources by the live collection code, and each magic source's failure: declined, insufficient funds, 3-D Secure,
 * capture failed (everything released), refund refused for one share (the refund partly succeeds, naming it), slow.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let sandbox: Merchant;
let live: Merchant;

type Share = { amount: number; source: string };
const makeCard = (m: Merchant, amount: number, allocations: unknown, headers?: Record<string, string>) =>
  v1(ctx, m.key, '/test_helpers/bcards', { method: 'POST', body: { amount, allocations }, headers });

const q = async (sql: string, args: (string | number)[] = []) => (await ctx.handle.client.execute({ sql, args })).rows;

/** The collection a test bcard call made, found by its sandbox card's id or, for a failed call, as the newest one. */
async function newestCollection() {
  const [row] = await q("SELECT id FROM collections WHERE kind = 'sandbox' ORDER BY created_at DESC, rowid DESC LIMIT 1");
  const collectionId = String(row!.id);
  const collection = await ctx.handle.db.query.collections.findFirst({ where: eq(schema.collections.id, collectionId) });
  const shares = await ctx.handle.db.query.collectionShares.findMany({
    where: eq(schema.collectionShares.collectionId, collectionId),
    orderBy: (s, { asc }) => asc(s.position),
  });
  return { collection: collection!, shares };
}

/**
 * Every sandbox source's money at the processor and in the ledger agree (what it started with, the share's amount or
 * nothing for tok_chargeDeclinedInsufficientFunds, plus its ledger balance), no hold is left placed, and every
 * movement balances.
 */
async function moneyAgrees(): Promise<string[]> {
  const out: string[] = [];
  const rows = await q(
    `SELECT f.id AS id, s.available_cents AS available, s.behavior AS behavior, cs.amount_cents AS share,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'funding_source:' || f.id) AS ledger
       FROM funding_sources f JOIN sim_cards s ON s.token = f.vendor_token JOIN collection_shares cs ON cs.funding_source_id = f.id`,
  );
  for (const r of rows) {
    const start = r.behavior === 'insufficient_funds' ? 0 : Number(r.share);
    if (Number(r.available) !== start + Number(r.ledger)) out.push(`source ${r.id}: processor ${r.available}, ledger says ${start + Number(r.ledger)}`);
  }
  const [held] = await q("SELECT count(*) AS n FROM sim_holds WHERE status = 'held'");
  if (Number(held!.n) !== 0) out.push(`${held!.n} holds left placed`);
  const bad = await q('SELECT m.id FROM ledger_movements m JOIN ledger_postings p ON p.movement_id = m.id GROUP BY m.id HAVING sum(p.amount_cents) != 0');
  if (bad.length > 0) out.push(`${bad.length} movements do not balance`);
  return out;
}

const movementsOf = async (referenceId: string) => q('SELECT kind FROM ledger_movements WHERE reference_id = ?', [referenceId]);

beforeAll(async () => {
  ctx = await makeTestApp();
  owner = await registerUser(ctx);
  sandbox = await newMerchant(ctx, owner.cookie, 'sandbox');
  live = await newMerchant(ctx, owner.cookie, 'production');
});
afterAll(() => ctx.close());

describe('a split sandbox test bcard', () => {
  test('is collected from its test sources as a live bcard is, pays an intent, and stays out of the owner’s consumer screens', async () => {
    const res = await makeCard(sandbox, 2500, [
      { amount: 1500, source: 'tok_visa' },
      { amount: 1000, source: 'tok_visa_debit' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'test_bcard', limit: 2500, livemode: false });
    expect(res.body.number).toMatch(/^\d{16}$/);
    const bcard = await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, res.body.id) });
    expect(bcard).toMatchObject({ sandbox: true, lockedMerchantId: sandbox.id, limitCents: 2500, status: 'active' });
    const { collection, shares } = await newestCollection();
    expect(collection).toMatchObject({ id: bcard!.collectionId, kind: 'sandbox', status: 'completed', vendor: 'simulated', totalCents: 2500 });
    expect(shares.map((s) => [s.amountCents, s.status])).toEqual([
      [1500, 'captured'],
      [1000, 'captured'],
    ]);
    const sources = await ctx.handle.db.query.fundingSources.findMany({ where: inArray(schema.fundingSources.id, shares.map((s) => s.fundingSourceId)) });
    expect(sources.map((s) => [s.last4, s.cardFunding, s.brand]).sort()).toEqual([
      ['4242', 'credit', 'visa'],
      ['5556', 'debit', 'visa'],
    ]);
    // The ledger moved the money from the two sources to the bcard, as a consumer's collection does.
    expect(await movementsOf(collection.id)).toEqual([{ kind: 'collection.captured' }] as any);
    expect(await accountBalance(ctx.handle.db, accounts.bcard(res.body.id))).toBe(2500);
    for (const s of shares) expect(await accountBalance(ctx.handle.db, accounts.fundingSource(s.fundingSourceId))).toBe(-s.amountCents);

    const pi = await createIntent(ctx, sandbox, 2500);
    const paid = await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: res.body.id } });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('succeeded');

    // Not the owner's sources, cards, history or figures.
    expect((await call(ctx, '/api/funding-sources', { cookie: owner.cookie })).body).toEqual([]);
    expect((await call(ctx, '/api/virtual-cards', { cookie: owner.cookie })).body).toEqual([]);
    expect((await call(ctx, '/api/transactions', { cookie: owner.cookie })).body).toEqual([]);
    expect(await moneyAgrees()).toEqual([]);
  });

  test.each([
    ['not a list', 'tok_visa', 'allocations', 'validation_error'],
    ['one share', [{ amount: 2500, source: 'tok_visa' }], 'allocations', 'validation_error'],
    ['six shares', Array.from({ length: 6 }, () => ({ amount: 500, source: 'tok_visa' })), 'allocations', 'validation_error'],
    [
      'an unknown source',
      [
        { amount: 1000, source: 'tok_visa' },
        { amount: 1000, source: 'tok_visa' },
        { amount: 500, source: '4242424242424242' },
      ],
      'allocations[2][source]',
      'validation_error',
    ],
    ['a share of 0', [{ amount: 0, source: 'tok_visa' }, { amount: 2500, source: 'tok_visa' }], 'allocations[0][amount]', 'validation_error'],
    ['cents as a fraction', [{ amount: 1000.5, source: 'tok_visa' }, { amount: 1499.5, source: 'tok_visa' }], 'allocations[0][amount]', 'validation_error'],
    ['amounts that do not add up', [{ amount: 1000, source: 'tok_visa' }, { amount: 1000, source: 'tok_visa' }], 'allocations', 'validation_error'],
    ['an unknown field', [{ amount: 1000, source: 'tok_visa' }, { amount: 1500, source: 'tok_visa', card: 'x' }], 'allocations[1][card]', 'parameter_unknown'],
    ['a share that is no object', [{ amount: 1000, source: 'tok_visa' }, 'tok_visa'], 'allocations[1]', 'validation_error'],
  ])('%s is refused in Stripe’s shape, naming the parameter, and nothing is written', async (_name, allocations, param, code) => {
    const before = await q('SELECT (SELECT count(*) FROM collections) AS c, (SELECT count(*) FROM funding_sources) AS f, (SELECT count(*) FROM sim_cards) AS s');
    const res = await makeCard(sandbox, 2500, allocations);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(await q('SELECT (SELECT count(*) FROM collections) AS c, (SELECT count(*) FROM funding_sources) AS f, (SELECT count(*) FROM sim_cards) AS s')).toEqual(before);
  });

  test('form-encoded, as Stripe’s libraries send it, the amounts are read from their strings', async () => {
    const body = 'amount=1200&allocations[0][amount]=700&allocations[0][source]=tok_visa&allocations[1][amount]=500&allocations[1][source]=tok_visa_debit';
    const res = await ctx.app.handle(
      new Request('http://localhost/api/v1/test_helpers/bcards', {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.key}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).limit).toBe(1200);
    expect((await newestCollection()).shares.map((s) => s.amountCents)).toEqual([700, 500]);
  });

  test('a production key answers test_mode_only and makes nothing', async () => {
    const before = await q('SELECT count(*) AS n FROM collections');
    const res = await makeCard(live, 2000, [
      { amount: 1000, source: 'tok_visa' },
      { amount: 1000, source: 'tok_visa' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('test_mode_only');
    expect(await q('SELECT count(*) AS n FROM collections')).toEqual(before);
  });
});

describe('magic sources that fail', () => {
  const declines = [
    ['tok_chargeDeclined', 'card_declined', 'generic_decline'],
    ['tok_chargeDeclinedInsufficientFunds', 'insufficient_funds', 'insufficient_funds'],
    ['tok_threeDSecure2Required', 'card_declined', 'authentication_required'],
  ] as const;
  test.each(declines)('%s: 402 %s naming the share, no bcard, every other share released, nothing in the ledger', async (source, code, declineCode) => {
    const res = await makeCard(sandbox, 3000, [
      { amount: 1000, source: 'tok_visa' },
      { amount: 1000, source },
      { amount: 1000, source: 'tok_visa_debit' },
    ]);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'card_error', code, param: 'allocations[1][source]', decline_code: declineCode });
    expect(res.body.error.message).toContain(source);
    const { collection, shares } = await newestCollection();
    expect(collection.status).toBe('failed');
    expect(shares.map((s) => s.status)).toEqual(['voided', 'declined', 'voided']);
    expect(await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.collectionId, collection.id) })).toBeUndefined();
    expect(await movementsOf(collection.id)).toEqual([]);
    expect(await moneyAgrees()).toEqual([]);
  });

  test('tok_captureFail: the whole collection is voided, every share released, nothing half-written', async () => {
    const res = await makeCard(sandbox, 4000, [
      { amount: 1500, source: 'tok_visa' },
      { amount: 1500, source: 'tok_visa_debit' },
      { amount: 1000, source: 'tok_captureFail' },
    ]);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'processing_error', param: 'allocations[2][source]' });
    const { collection, shares } = await newestCollection();
    expect(collection).toMatchObject({ status: 'failed', refundedCents: 0 });
    expect(shares.map((s) => s.status)).toEqual(['voided', 'voided', 'voided']);
    // Nothing was captured at the processor (the earlier captures went with the failed one), nothing stays held.
    const holds = await q(`SELECT status FROM sim_holds WHERE idempotency_key IN (${shares.map(() => '?').join(',')})`, shares.map((s) => `hold:${s.id}`));
    expect(holds.map((h) => h.status)).toEqual(['voided', 'voided', 'voided']);
    expect(await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.collectionId, collection.id) })).toBeUndefined();
    expect(await movementsOf(collection.id)).toEqual([]);
    for (const s of shares) expect(await accountBalance(ctx.handle.db, accounts.fundingSource(s.fundingSourceId))).toBe(0);
    expect(await moneyAgrees()).toEqual([]);
  });

  test('tok_refundFail: a refund partly succeeds, failure_reason naming the share; the ledger moves only what went back', async () => {
    const card = await makeCard(sandbox, 2500, [
      { amount: 1500, source: 'tok_visa' },
      { amount: 1000, source: 'tok_refundFail' },
    ]);
    expect(card.status).toBe(200);
    const { shares } = await newestCollection();
    const pi = await createIntent(ctx, sandbox, 2500);
    expect((await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.body.id } })).body.status).toBe('succeeded');
    const merchantBefore = await accountBalance(ctx.handle.db, accounts.merchant(sandbox.id));

    const refund = await v1(ctx, sandbox.key, '/refunds', { method: 'POST', body: { payment_intent: pi } });
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ status: 'succeeded', amount: 1500 });
    expect(refund.body.failure_reason).toContain('share 2 (Visa •••• 5126) $10.00');
    // The payment's Charge lists the two test sources as its allocations (part A's contract), with what went back.
    const charges = await v1(ctx, sandbox.key, `/charges?payment_intent=${pi}`);
    expect(charges.status).toBe(200);
    expect(charges.body.data[0].allocations).toEqual([
      { amount: 1500, amount_refunded: 1500, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded' },
      { amount: 1000, amount_refunded: 0, funding: 'credit', brand: 'visa', last4: '5126', status: 'succeeded' },
    ]);
    // What was refused is given back to the intent's refundable amount (the reservation of it is released).
    const intent = await ctx.handle.db.query.paymentIntents.findFirst({ where: eq(schema.paymentIntents.id, pi) });
    expect(intent!.amountRefunded).toBe(1500);
    expect(await accountBalance(ctx.handle.db, accounts.merchant(sandbox.id))).toBe(merchantBefore - 1500);
    expect(await accountBalance(ctx.handle.db, accounts.fundingSource(shares[0]!.fundingSourceId))).toBe(0);
    expect(await accountBalance(ctx.handle.db, accounts.fundingSource(shares[1]!.fundingSourceId))).toBe(-1000);
    // The merchant's owner is told nothing: a sandbox refund has no consumer.
    expect(await q("SELECT count(*) AS n FROM notifications WHERE kind = 'merchant_refund'")).toEqual([{ n: 0 }] as any);
    expect(await moneyAgrees()).toEqual([]);
  });

  test('tok_refundFail first in the split: nothing went back, so the refund fails and the intent can be refunded again', async () => {
    const card = await makeCard(sandbox, 2000, [
      { amount: 1000, source: 'tok_refundFail' },
      { amount: 1000, source: 'tok_visa' },
    ]);
    const pi = await createIntent(ctx, sandbox, 2000);
    await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.body.id } });
    const refund = await v1(ctx, sandbox.key, '/refunds', { method: 'POST', body: { payment_intent: pi, amount: 500 } });
    expect(refund.body).toMatchObject({ status: 'failed', amount: 500 });
    expect(refund.body.failure_reason).toContain("The card's issuer refused the refund.");
    expect(await moneyAgrees()).toEqual([]);
  });

  test('tok_refundFail: what the bcard left unspent still goes back to it (no collection is left refunding)', async () => {
    const card = await makeCard(sandbox, 2000, [
      { amount: 1000, source: 'tok_visa' },
      { amount: 1000, source: 'tok_refundFail' },
    ]);
    const pi = await createIntent(ctx, sandbox, 1200);
    const paid = await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.body.id } });
    expect(paid.body.status).toBe('succeeded');
    const { collection, shares } = await newestCollection();
    expect(collection).toMatchObject({ status: 'completed', refundedCents: 800 });
    expect(await accountBalance(ctx.handle.db, accounts.bcard(card.body.id))).toBe(0);
    expect((await accountBalance(ctx.handle.db, accounts.fundingSource(shares[1]!.fundingSourceId))) > -1000).toBe(true);
    expect(await moneyAgrees()).toEqual([]);
  });

  test('tok_slow: the collection is recorded holding, and stays so until the processor answers', async () => {
    ctx.deps.sandboxSlowMs = 300;
    try {
      const pending = makeCard(sandbox, 2000, [
        { amount: 1000, source: 'tok_slow' },
        { amount: 1000, source: 'tok_visa' },
      ]);
      let seen: string | null = null;
      for (let i = 0; i < 200 && seen === null; i++) {
        const [row] = await q("SELECT c.status AS status FROM collections c JOIN collection_shares s ON s.collection_id = c.id JOIN funding_sources f ON f.id = s.funding_source_id WHERE f.name = 'Sandbox tok_slow'");
        if (row) seen = String(row.status);
        else await Bun.sleep(5);
      }
      expect(seen).toBe('holding');
      const res = await pending;
      expect(res.status).toBe(200);
      expect((await newestCollection()).collection.status).toBe('completed');
    } finally {
      ctx.deps.sandboxSlowMs = undefined;
    }
  });
});

describe('an unused split test bcard', () => {
  test('expires like any bcard: deactivated, every share (tok_refundFail too) back to its test source, nobody told', async () => {
    const card = await makeCard(sandbox, 1800, [
      { amount: 600, source: 'tok_visa' },
      { amount: 600, source: 'tok_refundFail' },
      { amount: 600, source: 'tok_visa_debit' },
    ]);
    expect(card.status).toBe(200);
    const { collection, shares } = await newestCollection();
    ctx.clock.advance(31 * 60_000);
    expect(await expireBcards(ctx.deps)).toBeGreaterThanOrEqual(1);
    const bcard = await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, card.body.id) });
    expect(bcard?.status).toBe('expired');
    expect(await accountBalance(ctx.handle.db, accounts.bcard(card.body.id))).toBe(0);
    const after = await ctx.handle.db.query.collections.findFirst({ where: eq(schema.collections.id, collection.id) });
    expect(after).toMatchObject({ status: 'refunded', refundedCents: 1800 });
    for (const s of shares) expect(await accountBalance(ctx.handle.db, accounts.fundingSource(s.fundingSourceId))).toBe(0);
    expect(await q('SELECT count(*) AS n FROM notifications WHERE user_id = ?', [owner.user.id])).toEqual([{ n: 0 }] as any);
    expect(await moneyAgrees()).toEqual([]);
  });
});

describe('the same Idempotency-Key sent twice at once', () => {
  test('makes one collection and one bcard; the other request is told the key is in use or replays the answer', async () => {
    ctx.deps.sandboxSlowMs = 100;
    try {
      const body = [
        { amount: 1100, source: 'tok_slow' },
        { amount: 1000, source: 'tok_visa' },
      ];
      const headers = { 'idempotency-key': 'split-race-1' };
      const [a, b] = await Promise.all([makeCard(sandbox, 2100, body, headers), makeCard(sandbox, 2100, body, headers)]);
      const statuses = [a.status, b.status].sort();
      expect([[200, 200], [200, 409]]).toContainEqual(statuses);
      const ok = [a, b].filter((r) => r.status === 200);
      expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
      expect(await q('SELECT count(*) AS n FROM collections WHERE total_cents = 2100')).toEqual([{ n: 1 }] as any);
      const again = await makeCard(sandbox, 2100, body, headers);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(ok[0]!.body.id);
    } finally {
      ctx.deps.sandboxSlowMs = undefined;
    }
  });
});

describe('mode isolation', () => {
  test('no card number leads to a sandbox-only behaviour: not Stripe’s refund-failure test card, not any test number', async () => {
    const sandboxOnly = new Set(Object.values(SANDBOX_SOURCES).map((s) => s.behavior));
    sandboxOnly.delete('normal');
    sandboxOnly.delete('declined');
    sandboxOnly.delete('insufficient_funds');
    expect([...sandboxOnly].sort()).toEqual(['authentication_required', 'capture_fails', 'refund_refused']);
    for (const behavior of Object.values(TEST_CARD_BEHAVIOR)) expect(sandboxOnly.has(behavior as never)).toBe(false);

    // A consumer's card with Stripe's "refund fails" test number pays and refunds normally.
    const vendor = createSimulatedVendor(ctx.handle.db, ctx.clock, 'isolation-secret');
    const v = await vendor.verifyCard({ number: '4000000000005126', expMonth: 12, expYear: 2040, cvc: '123', name: 'A B' }, { idempotencyKey: 'iso-1', customerRef: 'u' });
    expect(v.status).toBe('verified');
    if (v.status !== 'verified') return;
    const [row] = await q('SELECT behavior FROM sim_cards WHERE token = ?', [v.card.token]);
    expect(row!.behavior).toBe('normal');
    const { holdId } = await vendor.hold(v.card.token, 500, { idempotencyKey: 'iso-hold', description: 'x' });
    await vendor.capture(holdId);
    await vendor.refund(holdId, 500, { idempotencyKey: 'refund:re_iso:shr_iso' });
  });

  test("the test sources' funding sources are no one's to use: removed from the start, and not in the owner's list", async () => {
    const rows = await q("SELECT deleted_at AS d, is_active AS a FROM funding_sources WHERE name LIKE 'Sandbox tok_%'");
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.d).not.toBeNull();
      expect(Number(r.a)).toBe(0);
    }
  });
});
