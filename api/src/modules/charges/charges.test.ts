import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, interceptVendor, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { VendorDeclineError } from '../../vendors/types';
import {
  addBankAccount,
  addCard,
  BANK_OK,
  BANK_RETURNS_R01,
  CARDS_OK,
  createMerchant,
  makePremium,
  registerUser,
  testBcardCard,
  type TestMerchant,
} from '../../../test-support/world';
import { ledgerBalance } from '../../../test-support/money-invariants';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { sweepBankDebits } from '../bcards/sweep';

/*
 * Issue 28 §2: a merchant sees how a payment was funded. A paid intent's Charge (ch_…) lists one allocation per funding
 * share of the consumer's bcard, in the merchant's cents; refunds list how much went back to each share. Premium's fee
 * is 0 here unless a test sets it, so each share's allocation is exactly what left its source (the ledger says so).
 */

let template: TestContext;
let consumer: { cookie: string; id: string; email: string };
let cards: Array<{ id: string; last4: string }>;
let live: TestMerchant;
let sandbox: TestMerchant;
let otherLive: TestMerchant;

beforeAll(async () => {
  template = await makeTestApp();
  const c = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  const o = await registerUser(template);
  const other = await registerUser(template);
  await makePremium(template, c.user.id, 0);
  await makePremium(template, o.user.id);
  await makePremium(template, other.user.id);
  consumer = { cookie: c.cookie, id: c.user.id, email: c.email };
  cards = [];
  for (const number of CARDS_OK.slice(0, 3)) cards.push(await addCard(template, c.cookie, number));
  live = await createMerchant(template, o.cookie, 'production');
  sandbox = await createMerchant(template, o.cookie, 'sandbox');
  otherLive = await createMerchant(template, other.cookie, 'production');
});
afterAll(() => template.close());

const fork = () => forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false });

/** A fork whose processor refuses the refunds `refuses` picks (by the call's order, from 1). */
async function refusingFork(refuses: (n: number) => boolean) {
  let n = 0;
  return forkTestApp(template, {
    clock: new TestClock(template.clock.now().getTime()),
    rateLimits: false,
    wrapVendor: (v) =>
      interceptVendor(
        v,
        async (method, _args, run) => {
          if (method === 'refund' && refuses(++n)) throw new VendorDeclineError('card_declined', 'The card account is closed.');
          return run();
        },
        { local: true },
      ),
  });
}

async function bcard(ctx: TestContext, split: Array<[string, number]>, balance: string) {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: consumer.cookie,
    body: { name: 'Split', balance, fundingSources: split.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })) },
  });
  expect(made.status, made.text).toBe(201);
  const d = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: consumer.cookie });
  return { id: made.body.id as string, card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } };
}

async function pay(ctx: TestContext, m: TestMerchant, card: object, amount: number, extra: Record<string, unknown> = {}) {
  const pi = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount, currency: 'usd', ...extra } });
  const confirmed = await merchantCall(ctx, m.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  return confirmed.body;
}

const charge = async (ctx: TestContext, m: TestMerchant, id: string) => merchantCall(ctx, m.secretKey, `/charges/${id}`);
const sum = (xs: Array<{ amount: number }>) => xs.reduce((a, x) => a + x.amount, 0);

describe('a payment split across three cards', () => {
  test('latest_charge names the Charge: three allocations in the split order, summing to the amount, each with only funding, brand and last4', async () => {
    const ctx = await fork();
    const b = await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 30], [cards[2]!.id, 20]], '90.00');
    const pi = await pay(ctx, live, b.card, 9000, { metadata: { order: '42' }, description: 'Order 42' });
    expect(pi.latest_charge).toBe(`ch_${pi.id.slice(3)}`);
    const res = await charge(ctx, live, pi.latest_charge);
    expect(res.status, res.text).toBe(200);
    const ch = res.body;
    expect(ch).toMatchObject({
      id: pi.latest_charge,
      object: 'charge',
      amount: 9000,
      amount_captured: 9000,
      amount_refunded: 0,
      currency: 'usd',
      livemode: true,
      paid: true,
      captured: true,
      refunded: false,
      status: 'succeeded',
      payment_intent: pi.id,
      description: 'Order 42',
      metadata: { order: '42' },
      payment_method_details: { type: 'bcard', bcard: { last4: b.card.number.slice(-4) } },
    });
    expect(ch.allocations).toEqual([
      { amount: 4500, amount_refunded: 0, funding: 'credit', brand: 'visa', last4: cards[0]!.last4, status: 'succeeded' },
      { amount: 2700, amount_refunded: 0, funding: expect.any(String), brand: expect.any(String), last4: cards[1]!.last4, status: 'succeeded' },
      { amount: 1800, amount_refunded: 0, funding: expect.any(String), brand: expect.any(String), last4: cards[2]!.last4, status: 'succeeded' },
    ]);
    expect(sum(ch.allocations)).toBe(9000);
    // Each allocation is what its source paid (the fee is 0 here): the ledger agrees to the cent.
    for (const [i, a] of ch.allocations.entries()) expect(await ledgerBalance(ctx, `funding_source:${cards[i]!.id}`)).toBe(-a.amount);
    // Nothing that names the consumer or the source itself.
    const text = JSON.stringify(ch);
    for (const secret of [consumer.id, consumer.email, 'Ada', 'Lovelace', ...cards.map((c) => c.id), b.id, b.card.number]) expect(text).not.toContain(secret);
    ctx.close();
  });

  test('a purchase under the bcard total: each share paid its captured part less what the remainder gave back to it', async () => {
    const ctx = await fork();
    const b = await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 30], [cards[2]!.id, 20]], '100.00');
    const pi = await pay(ctx, live, b.card, 6001);
    const ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(sum(ch.allocations)).toBe(6001);
    // The remainder ($39.99) went back through the split at once: what stayed with each source is its allocation.
    for (const [i, a] of ch.allocations.entries()) expect(await ledgerBalance(ctx, `funding_source:${cards[i]!.id}`)).toBe(-a.amount);
    expect(ch.allocations.map((a: { amount: number }) => a.amount)).toEqual([3001, 1800, 1200]);
    ctx.close();
  });

  test("with a bpay fee, the merchant's allocations still sum to what it was paid (the fee is the consumer's, not in them)", async () => {
    const ctx = await fork();
    await makePremium(ctx, consumer.id, 290);
    const b = await bcard(ctx, [[cards[0]!.id, 34], [cards[1]!.id, 33], [cards[2]!.id, 33]], '77.77');
    const pi = await pay(ctx, live, b.card, 5555);
    const ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(sum(ch.allocations)).toBe(5555);
    const shares = (await ctx.handle.client.execute('SELECT amount_cents AS a FROM collection_shares ORDER BY position')).rows.map((r) => Number(r.a));
    // Each allocation within a cent of its share's part of the payment.
    const net = shares.map((s) => (s * 5555) / shares.reduce((x, y) => x + y, 0));
    for (const [i, a] of ch.allocations.entries()) expect(Math.abs(a.amount - net[i]!)).toBeLessThan(1);
    ctx.close();
  });
});

describe('refunds and their allocations', () => {
  test('a partial then a full refund: each refund lists what went back to each share; the charge adds them up per share', async () => {
    const ctx = await fork();
    const b = await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 30], [cards[2]!.id, 20]], '90.00');
    const pi = await pay(ctx, live, b.card, 9000);
    const first = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 3001 } });
    expect(first.body.status, first.text).toBe('succeeded');
    expect(sum(first.body.allocations)).toBe(3001);
    expect(first.body.allocations.map((a: { last4: string; status: string }) => [a.last4, a.status])).toEqual(cards.map((c) => [c.last4, 'succeeded']));
    expect(first.body.allocations[0]).toEqual({ amount: expect.any(Number), funding: 'credit', brand: 'visa', last4: cards[0]!.last4, status: 'succeeded' });
    let ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(ch).toMatchObject({ amount_refunded: 3001, refunded: false });
    expect(ch.allocations.map((a: { amount_refunded: number }) => a.amount_refunded)).toEqual(first.body.allocations.map((a: { amount: number }) => a.amount));

    const rest = await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id } });
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: 5999 });
    expect(sum(rest.body.allocations)).toBe(5999);
    ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(ch).toMatchObject({ amount_refunded: 9000, refunded: true });
    // All of each share's part went back to it, and the sources are whole again (the fee is 0).
    for (const [i, a] of ch.allocations.entries()) {
      expect(a.amount_refunded).toBe(a.amount);
      expect(a.amount_refunded).toBe(first.body.allocations[i].amount + rest.body.allocations[i].amount);
      expect(await ledgerBalance(ctx, `funding_source:${cards[i]!.id}`)).toBe(0);
    }
    // Retrieve and list answer the same allocations.
    expect((await merchantCall(ctx, live.secretKey, `/refunds/${first.body.id}`)).body.allocations).toEqual(first.body.allocations);
    const list = await merchantCall(ctx, live.secretKey, `/refunds?payment_intent=${pi.id}`);
    expect(list.body.data.map((r: { allocations: unknown }) => r.allocations)).toEqual([rest.body.allocations, first.body.allocations]);
    ctx.close();
  });
});

describe('refused refund parts', () => {
  test('a later share refused: the refund covers the others; its allocations show that share failed, and the charge counts only what went back', async () => {
    const ctx = await refusingFork((n) => n === 2);
    const b = await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 50]], '40.00');
    const pi = await pay(ctx, live, b.card, 4000);
    const r = (await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 3000 } })).body;
    expect(r).toMatchObject({ status: 'succeeded', amount: 1500 });
    expect(r.allocations.map((a: { amount: number; status: string }) => [a.amount, a.status])).toEqual([[1500, 'succeeded'], [1500, 'failed']]);
    // The failure names the share by its last 4 digits; the allocations never carry more than funding, brand and last4.
    expect(Object.keys(r.allocations[1]).sort()).toEqual(['amount', 'brand', 'funding', 'last4', 'status']);
    // failure_reason goes to the merchant: the share's number, brand and last 4, never the consumer's name for it.
    expect(r.failure_reason).toContain(`share 2 (Visa •••• ${cards[1]!.last4})`);
    for (const secret of [consumer.email, 'Ada', 'Lovelace', cards[1]!.id]) expect(r.failure_reason).not.toContain(secret);
    const ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(ch.amount_refunded).toBe(1500);
    expect(ch.allocations.map((a: { amount_refunded: number }) => a.amount_refunded)).toEqual([1500, 0]);
    ctx.close();
  });

  test('the first share refused: the refund failed, every allocation failed, nothing counted as refunded', async () => {
    const ctx = await refusingFork(() => true);
    const pi = await pay(ctx, live, (await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 50]], '20.00')).card, 2000);
    const r = (await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 1001 } })).body;
    expect(r.status).toBe('failed');
    expect(r.allocations.map((a: { status: string }) => a.status)).toEqual(['failed', 'failed']);
    expect(sum(r.allocations)).toBe(1001);
    const events = (await merchantCall(ctx, live.secretKey, '/events?limit=10')).body.data as Array<{ type: string; data: { object: Record<string, any> } }>;
    const updated = events.find((e) => e.type === 'refund.updated' && e.data.object.id === r.id)!;
    expect(updated.data.object.allocations).toEqual(r.allocations);
    const ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect({ refunded: ch.amount_refunded, shares: ch.allocations.map((a: { amount_refunded: number }) => a.amount_refunded) }).toEqual({ refunded: 0, shares: [0, 0] });
    ctx.close();
  });
});

describe('a bank share', () => {
  test('pending while its debit settles, then succeeded; a returned debit shows failed (the merchant was paid all the same)', async () => {
    const ctx = await fork();
    const bank = await addBankAccount(ctx, consumer.cookie, BANK_OK);
    const r01 = await addBankAccount(ctx, consumer.cookie, BANK_RETURNS_R01);
    const settles = await bcard(ctx, [[cards[0]!.id, 60], [bank.id, 40]], '50.00');
    const returns = await bcard(ctx, [[cards[1]!.id, 50], [r01.id, 50]], '40.00');
    const a = await pay(ctx, live, settles.card, 5000);
    const b = await pay(ctx, live, returns.card, 4000);
    const statusOf = async (pi: { latest_charge: string }) =>
      (await charge(ctx, live, pi.latest_charge)).body.allocations.map((x: { funding: string; brand: string | null; status: string }) => [x.funding, x.brand, x.status]);
    expect(await statusOf(a)).toEqual([['credit', 'visa', 'succeeded'], ['bank_account', null, 'pending']]);
    expect(await statusOf(b)).toEqual([[expect.any(String), expect.any(String), 'succeeded'], ['bank_account', null, 'pending']]);
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    expect(await sweepBankDebits(ctx.deps)).toBe(2);
    expect(await statusOf(a)).toEqual([['credit', 'visa', 'succeeded'], ['bank_account', null, 'succeeded']]);
    expect((await statusOf(b))[1]).toEqual(['bank_account', null, 'failed']);
    const ch = (await charge(ctx, live, b.latest_charge)).body;
    expect(ch).toMatchObject({ status: 'succeeded', amount_captured: 4000 });
    expect(ch.allocations[1].last4).toBe(r01.last4);
    ctx.close();
  });
});

describe('who sees a charge', () => {
  test("another merchant's charge, or the other mode's, is 404 resource_missing; a made-up id too", async () => {
    const ctx = await fork();
    const b = await bcard(ctx, [[cards[0]!.id, 100]], '20.00');
    const pi = await pay(ctx, live, b.card, 2000);
    for (const m of [otherLive, sandbox]) {
      const res = await charge(ctx, m, pi.latest_charge);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'resource_missing' });
      const listed = await merchantCall(ctx, m.secretKey, `/charges?payment_intent=${pi.id}`);
      expect(listed.status).toBe(404);
      expect(listed.body.error.param).toBe('payment_intent');
    }
    for (const id of ['ch_nothing', 'pi_x', 'ch_' + '9'.repeat(24)]) expect((await charge(ctx, live, id)).status).toBe(404);
    // Stripe's paths answer the same.
    const stripePath = await call(ctx, `/v1/charges/${pi.latest_charge}`, { headers: { authorization: `Bearer ${live.secretKey}` }, origin: null });
    expect(stripePath.status).toBe(200);
    expect(stripePath.body.id).toBe(pi.latest_charge);
    ctx.close();
  });

  test('an intent with no payment yet has no charge: latest_charge null, its list empty, its would-be id 404', async () => {
    const ctx = await fork();
    const pi = (await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } })).body;
    expect(pi.latest_charge).toBeNull();
    expect((await merchantCall(ctx, live.secretKey, `/charges?payment_intent=${pi.id}`)).body).toEqual({ object: 'list', url: '/api/v1/charges', has_more: false, data: [] });
    expect((await charge(ctx, live, `ch_${pi.id.slice(3)}`)).status).toBe(404);
    ctx.close();
  });
});

describe('listing', () => {
  test("by payment intent, and all of a merchant's charges newest first, paged", async () => {
    const ctx = await fork();
    const paid: Array<{ id: string; latest_charge: string }> = [];
    for (const amount of [1000, 1100, 1200]) paid.push(await pay(ctx, live, (await bcard(ctx, [[cards[0]!.id, 100]], '20.00')).card, amount));
    const one = await merchantCall(ctx, live.secretKey, `/charges?payment_intent=${paid[1]!.id}`);
    expect(one.body.data.map((c: { id: string }) => c.id)).toEqual([paid[1]!.latest_charge]);
    expect(one.body.has_more).toBe(false);
    const page1 = await merchantCall(ctx, live.secretKey, '/charges?limit=2');
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([paid[2]!.latest_charge, paid[1]!.latest_charge]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await merchantCall(ctx, live.secretKey, `/charges?limit=2&starting_after=${paid[1]!.latest_charge}`);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toContain(paid[0]!.latest_charge);
    const back = await merchantCall(ctx, live.secretKey, `/charges?limit=2&ending_before=${paid[0]!.latest_charge}`);
    expect(back.body.data.map((c: { id: string }) => c.id)).toEqual([paid[2]!.latest_charge, paid[1]!.latest_charge]);
    const bad = await merchantCall(ctx, live.secretKey, `/charges?starting_after=ch_${'0'.repeat(24)}`);
    expect({ status: bad.status, param: bad.body.error.param }).toEqual({ status: 400, param: 'starting_after' });
    // Another merchant's list does not hold them.
    const theirs = await merchantCall(ctx, otherLive.secretKey, '/charges');
    expect(theirs.body.data.map((c: { id: string }) => c.id)).not.toContain(paid[0]!.latest_charge);
    ctx.close();
  });
});

describe('expand[]=latest_charge', () => {
  test('on retrieve answers the Charge inline (at /v1 too); any other expansion is a 400 naming expand[i], and lists never expand', async () => {
    const ctx = await fork();
    const pi = await pay(ctx, live, (await bcard(ctx, [[cards[0]!.id, 70], [cards[1]!.id, 30]], '30.00')).card, 3000);
    const got = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}?expand[]=latest_charge`);
    expect(got.status, got.text).toBe(200);
    expect(got.body.latest_charge).toEqual((await charge(ctx, live, pi.latest_charge)).body);
    const viaStripe = await call(ctx, `/v1/payment_intents/${pi.id}?expand[0]=latest_charge`, { headers: { authorization: `Bearer ${live.secretKey}` }, origin: null });
    expect(viaStripe.body.latest_charge.allocations).toHaveLength(2);
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`)).body.latest_charge).toBe(pi.latest_charge);
    for (const path of [`/payment_intents/${pi.id}?expand[]=latest_charge&expand[]=customer`, '/payment_intents?expand[]=data.latest_charge', `/charges/${pi.latest_charge}?expand[]=payment_intent`]) {
      const res = await merchantCall(ctx, live.secretKey, path);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'validation_error' });
      expect(res.body.error.param).toMatch(/^expand\[\d\]$/);
    }
    // An unpaid intent expands to null.
    const unpaid = (await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } })).body;
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${unpaid.id}?expand[]=latest_charge`)).body.latest_charge).toBeNull();
    ctx.close();
  });
});

describe('manual capture', () => {
  test('authorized: captured false, amount_captured 0, allocations of the amount; a partial capture allocates what was captured; a cancel releases all', async () => {
    const ctx = await fork();
    const pi = await pay(ctx, live, (await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 50]], '40.00')).card, 4000, { capture_method: 'manual' });
    expect(pi.status).toBe('requires_capture');
    let ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(ch).toMatchObject({ captured: false, amount_captured: 0, amount: 4000, paid: true, status: 'succeeded' });
    expect(ch.allocations.map((a: { amount: number }) => a.amount)).toEqual([2000, 2000]);
    await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}/capture`, { method: 'POST', body: { amount_to_capture: 3001 } });
    ch = (await charge(ctx, live, pi.latest_charge)).body;
    expect(ch).toMatchObject({ captured: true, amount_captured: 3001, amount: 4000 });
    expect(sum(ch.allocations)).toBe(3001);
    for (const [i, a] of ch.allocations.entries()) expect(await ledgerBalance(ctx, `funding_source:${cards[i]!.id}`)).toBe(-a.amount);

    const other = await pay(ctx, live, (await bcard(ctx, [[cards[2]!.id, 100]], '15.00')).card, 1500, { capture_method: 'manual' });
    await merchantCall(ctx, live.secretKey, `/payment_intents/${other.id}/cancel`, { method: 'POST', body: {} });
    ch = (await charge(ctx, live, other.latest_charge)).body;
    expect(ch).toMatchObject({ captured: false, amount_captured: 0, refunded: true, amount_refunded: 1500 });
    expect(ch.allocations).toEqual([expect.objectContaining({ amount: 1500, amount_refunded: 1500 })]);
    ctx.close();
  });
});

describe('sandbox', () => {
  test('a test bcard from the one test pool is one allocation of the test Visa 4242; a test key never sees a live charge', async () => {
    const ctx = await fork();
    const t = await testBcardCard(ctx, sandbox.secretKey, 2500);
    const pi = await pay(ctx, sandbox, t.card, 2500);
    const ch = (await charge(ctx, sandbox, pi.latest_charge)).body;
    expect(ch).toMatchObject({ livemode: false, amount_captured: 2500 });
    expect(ch.allocations).toEqual([{ amount: 2500, amount_refunded: 0, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded' }]);
    const refund = await merchantCall(ctx, sandbox.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 1000 } });
    expect(refund.body.allocations).toEqual([{ amount: 1000, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded' }]);
    expect((await charge(ctx, sandbox, pi.latest_charge)).body.allocations[0].amount_refunded).toBe(1000);
    expect((await charge(ctx, live, pi.latest_charge)).status).toBe(404);
    ctx.close();
  });
});

describe('event payloads', () => {
  test('payment_intent.succeeded expands latest_charge; refund.created/updated carry allocations; charge.refunded is the Charge', async () => {
    const ctx = await fork();
    const pi = await pay(ctx, live, (await bcard(ctx, [[cards[0]!.id, 50], [cards[1]!.id, 30], [cards[2]!.id, 20]], '60.00')).card, 6000);
    const refund = (await merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 2000 } })).body;
    const events = (await merchantCall(ctx, live.secretKey, '/events?limit=20')).body.data as Array<{ type: string; data: { object: Record<string, any> } }>;
    const of = (type: string) => events.filter((e) => e.type === type && (e.data.object.payment_intent ?? e.data.object.id) === pi.id)[0]?.data.object;
    const succeeded = of('payment_intent.succeeded')!;
    expect(succeeded.latest_charge).toMatchObject({ id: pi.latest_charge, object: 'charge', amount_captured: 6000, amount_refunded: 0 });
    expect(succeeded.latest_charge.allocations.map((a: { amount: number }) => a.amount)).toEqual([3000, 1800, 1200]);
    const created = of('refund.created')!;
    expect(created).toMatchObject({ id: refund.id, status: 'pending' });
    expect(created.allocations.map((a: { status: string }) => a.status)).toEqual(['pending', 'pending', 'pending']);
    expect(sum(created.allocations)).toBe(2000);
    const updated = of('refund.updated')!;
    expect(updated.allocations).toEqual(refund.allocations);
    const refunded = of('charge.refunded')!;
    expect(refunded).toMatchObject({ id: pi.latest_charge, object: 'charge', amount_refunded: 2000, payment_intent: pi.id });
    expect(refunded.allocations.map((a: { amount_refunded: number }) => a.amount_refunded)).toEqual(refund.allocations.map((a: { amount: number }) => a.amount));
    ctx.close();
  });
});
