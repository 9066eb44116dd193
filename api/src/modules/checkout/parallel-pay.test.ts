import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { sweepMoney } from '../../boot';
import { AppError } from '../../errors';
import { call, interceptVendor, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import {
  addCard,
  CARD_DECLINES_CHARGES,
  CARDS_OK,
  createMerchant,
  makePremium,
  registerUser,
  testBcardCard,
  type TestMerchant,
} from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { resetRateWindows } from '../merchants/usage';
import { claimIntent, confirmIntent, releaseClaim } from '../payment-intents/payment';

/*
 * Paying one intent several times at once (double clicks, a second window, a retrying client). The checkout claims
 * the intent (processing) before it collects anything, so exactly one payment goes on and the others are refused
 * before the consumer's cards are held or a bcard of their monthly allowance is used. A collection that fails gives
 * the claim back; a claim nobody finishes (a crash) is given back by the money sweep after 2 minutes, and can then
 * finish nothing.
 */

/** The free plan's bcards a month (seeded tier_free). */
const FREE_BCARDS_A_MONTH = 10;

let ctx: TestContext;
let live: TestMerchant;
let sandbox: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const o = await registerUser(ctx);
  await makePremium(ctx, o.user.id);
  live = await createMerchant(ctx, o.cookie, 'production');
  sandbox = await createMerchant(ctx, o.cookie, 'sandbox');
});
afterAll(() => ctx?.close());
beforeEach(() => resetRateWindows());

const rows = async (c: TestContext, sql: string, args: Array<string | number> = []) => (await c.handle.client.execute({ sql, args })).rows;
const count = async (c: TestContext, sql: string, args: Array<string | number> = []) => Number(Object.values((await rows(c, sql, args))[0]!)[0]);

async function createIntent(c: TestContext, m: TestMerchant, amount = 1000) {
  const res = await merchantCall(c, m.secretKey, '/payment_intents', { method: 'POST', body: { amount, currency: 'usd' } });
  expect(res.status).toBe(200);
  return res.body as { id: string; client_secret: string };
}

function pay(c: TestContext, cookie: string, pi: { id: string; client_secret: string }, sourceId: string): Promise<CallResult> {
  return call(c, `/api/checkout/payment_intents/${pi.id}/pay`, {
    method: 'POST',
    cookie,
    body: { client_secret: pi.client_secret, splits: [{ fundingSourceId: sourceId, percentage: 100 }] },
  });
}

const intentStatus = async (c: TestContext, m: TestMerchant, id: string) =>
  (await merchantCall(c, m.secretKey, `/payment_intents/${id}`)).body.status as string;
const eventTypes = async (c: TestContext, id: string) =>
  (await rows(c, "SELECT type FROM events WHERE json_extract(data, '$.id') = ? ORDER BY seq", [id])).map((r) => String(r.type));
/**
 * Holds the simulated processor has placed on a funding source's card (adding the card places one to verify it; each
 * further one is money taken, or about to be).
 */
const holdsOn = (c: TestContext, sourceId: string) =>
  count(c, 'SELECT count(*) FROM sim_holds h JOIN funding_sources f ON f.vendor_token = h.token WHERE f.id = ?', [sourceId]);
const merchantRow = async (c: TestContext, m: TestMerchant) => (await firstRow(c.deps.db, schema.merchants, eq(schema.merchants.id, m.id)))!;
const intentRow = async (c: TestContext, id: string) => (await firstRow(c.deps.db, schema.paymentIntents, eq(schema.paymentIntents.id, id)))!;

function newBcard(c: TestContext, cookie: string, sourceId: string): Promise<CallResult> {
  return call(c, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name: 'groceries', balance: '1.00', fundingSources: [{ fundingSourceId: sourceId, percentage: 100 }] },
  });
}

function expectRefusedAsAlreadyPaying(res: CallResult): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'payment_intent_unexpected_state' });
}

describe('10 pays of one intent at once', () => {
  test("one pays; nine get 400 payment_intent_unexpected_state; the consumer's card is held and charged once", async () => {
    // A free-plan consumer: 10 bcards a month, exactly as many as the payments fired at once.
    const c = await registerUser(ctx);
    const source = await addCard(ctx, c.cookie, CARDS_OK[0]);
    const pi = await createIntent(ctx, live, 1000);
    const holdsBefore = await holdsOn(ctx, source.id);

    const res = await Promise.all(Array.from({ length: 10 }, () => pay(ctx, c.cookie, pi, source.id)));

    const ok = res.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.paymentIntent).toEqual({ id: pi.id, status: 'succeeded', amount: 1000 });
    for (const r of res.filter((x) => x.status !== 200)) expectRefusedAsAlreadyPaying(r);
    // Charged once at the processor, and once in the ledger: 10.00 plus the free plan's 2.9 % fee, nothing refunded.
    expect((await holdsOn(ctx, source.id)) - holdsBefore).toBe(1);
    expect(await count(ctx, "SELECT count(*) FROM collection_shares WHERE funding_source_id = ? AND status IN ('captured', 'refunded')", [source.id])).toBe(1);
    expect(await count(ctx, 'SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = ?', [`funding_source:${source.id}`])).toBe(-1029);
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.unsettledCollections).toBe(0);
    // What the merchant sees is one payment: its two events, nothing from the refused ones.
    expect(await intentStatus(ctx, live, pi.id)).toBe('succeeded');
    expect(await eventTypes(ctx, pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
  });

  test("the payment uses one bcard of the consumer's monthly allowance, not ten", async () => {
    const c = await registerUser(ctx);
    const source = await addCard(ctx, c.cookie, CARDS_OK[1]);
    const pi = await createIntent(ctx, live, 1000);
    const res = await Promise.all(Array.from({ length: 10 }, () => pay(ctx, c.cookie, pi, source.id)));
    expect(res.filter((r) => r.status === 200)).toHaveLength(1);

    // The other nine of the month are still there, and then the plan's limit applies.
    for (let i = 1; i < FREE_BCARDS_A_MONTH; i++) expect((await newBcard(ctx, c.cookie, source.id)).status).toBe(201);
    const over = await newBcard(ctx, c.cookie, source.id);
    expect({ status: over.status, code: over.body?.error?.code }).toEqual({ status: 403, code: 'plan_limit_reached' });
  }, 30_000);
});

describe('the claim', () => {
  test('a collection that fails gives the intent back unchanged (no event), and the next try pays it', async () => {
    const c = await registerUser(ctx);
    const declining = await addCard(ctx, c.cookie, CARD_DECLINES_CHARGES);
    const good = await addCard(ctx, c.cookie, CARDS_OK[2]);
    const pi = await createIntent(ctx, live, 1500);

    const refused = await pay(ctx, c.cookie, pi, declining.id);
    expect(refused.status).toBe(402);
    expect(await intentStatus(ctx, live, pi.id)).toBe('requires_payment_method');
    expect(await eventTypes(ctx, pi.id)).toEqual(['payment_intent.created']);

    const paid = await pay(ctx, c.cookie, pi, good.id);
    expect(paid.status).toBe(200);
    expect(await eventTypes(ctx, pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('an intent claimed by a process that then died is refused until the sweep gives it back after 2 minutes', async () => {
    const c = await registerUser(ctx);
    const source = await addCard(ctx, c.cookie, CARDS_OK[3]);
    const pi = await createIntent(ctx, live, 800);
    const holdsBefore = await holdsOn(ctx, source.id);
    // What a crash between claim and confirm leaves: the intent processing, nobody to finish it.
    await claimIntent(ctx.deps, await intentRow(ctx, pi.id));

    const early = await pay(ctx, c.cookie, pi, source.id);
    expectRefusedAsAlreadyPaying(early);
    expect(early.body.error.message).toBe('This payment is already being processed.');
    expect(await holdsOn(ctx, source.id)).toBe(holdsBefore);

    ctx.clock.advance(60_000);
    await sweepMoney(ctx.deps);
    expect(await intentStatus(ctx, live, pi.id)).toBe('processing');

    ctx.clock.advance(61_000 + 1);
    await sweepMoney(ctx.deps);
    expect(await intentStatus(ctx, live, pi.id)).toBe('requires_payment_method');
    expect((await pay(ctx, c.cookie, pi, source.id)).status).toBe(200);
    expect(await eventTypes(ctx, pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
  });

  test('a claim the sweep expired can neither pay nor give back the intent once another payment holds it', async () => {
    const pi = await createIntent(ctx, sandbox, 700);
    const merchant = await merchantRow(ctx, sandbox);
    const stale = await claimIntent(ctx.deps, await intentRow(ctx, pi.id));
    ctx.clock.advance(3 * 60_000);
    await sweepMoney(ctx.deps);
    const current = await claimIntent(ctx.deps, await intentRow(ctx, pi.id));

    // The slow holder comes back with a bcard: the spend is refused and rolled back, the card still holds its money.
    const bcard = await testBcardCard(ctx, sandbox.secretKey, 700);
    const late = confirmIntent(ctx.deps, merchant, false, pi.id, { kind: 'bcard', bcardId: bcard.id }, stale);
    await expect(late).rejects.toBeInstanceOf(AppError);
    await expect(late).rejects.toMatchObject({ code: 'payment_intent_unexpected_state' });
    expect(await firstRow(ctx.deps.db, schema.bcards, eq(schema.bcards.id, bcard.id))).toMatchObject({ status: 'active', spentCents: 0 });
    expect(await releaseClaim(ctx.deps, stale)).toBe(false);
    expect(await intentRow(ctx, pi.id)).toMatchObject({ status: 'processing', updatedAt: current.intent.updatedAt });

    // The current holder pays.
    const paid = await confirmIntent(ctx.deps, merchant, false, pi.id, { kind: 'bcard', bcardId: bcard.id }, current);
    expect(paid.status).toBe('succeeded');
    expect(await eventTypes(ctx, pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
  });
});

describe('while the split is being collected', () => {
  let gated: TestContext;
  /** While set, the processor's holds wait for it: a slow collection, held open. */
  let gate: Promise<void> | null = null;
  let holdsStarted = 0;

  beforeAll(async () => {
    gated = await makeTestApp({
      wrapVendor: (v) =>
        interceptVendor(v, async (method, _args, run) => {
          if (method === 'hold' && gate) {
            holdsStarted++;
            await gate;
          }
          return run();
        }),
    });
  });
  afterAll(() => gated?.close());

  test('the merchant sees processing (no event), and another pay is refused without touching any card', async () => {
    const o = await registerUser(gated);
    await makePremium(gated, o.user.id);
    const m = await createMerchant(gated, o.cookie, 'production');
    const c = await registerUser(gated);
    const first = await addCard(gated, c.cookie, CARDS_OK[0]);
    const second = await addCard(gated, c.cookie, CARDS_OK[1]);
    const pi = await createIntent(gated, m, 1200);
    const secondHolds = await holdsOn(gated, second.id);

    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const paying = pay(gated, c.cookie, pi, first.id);
    while (holdsStarted === 0) await Bun.sleep(5);

    expect(await intentStatus(gated, m, pi.id)).toBe('processing');
    expect(await eventTypes(gated, pi.id)).toEqual(['payment_intent.created']);
    expectRefusedAsAlreadyPaying(await pay(gated, c.cookie, pi, second.id));
    expect(holdsStarted).toBe(1);
    expect(await holdsOn(gated, second.id)).toBe(secondHolds);

    gate = null;
    open();
    expect((await paying).status).toBe(200);
    expect(await intentStatus(gated, m, pi.id)).toBe('succeeded');
    expect(await eventTypes(gated, pi.id)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    expect(moneyViolations(await moneyReport(gated))).toEqual([]);
  });
});
