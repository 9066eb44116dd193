import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import {
  call,
  forkTestApp,
  interceptVendor,
  makeTestApp,
  merchantCall,
  type TestContext,
  type VendorMethod,
} from '../../../test-support/app';
import {
  addCard,
  CARDS_OK,
  createMerchant,
  makePremium,
  registerUser,
  testBcardCard,
  type TestMerchant,
} from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { REFUND_LEASE_MS } from './lease';

/*
 * Refunds through the split: a merchant refunds a bcard-paid payment intent and the money goes back to the
 * consumer's funding sources in the proportions they funded the bcard, the fee with it; the ledger records every
 * movement; concurrent refunds never pass the amount received; a crash in the middle is finished by the sweep.
 */

const FEE_BPS = 250; // 2.5 %: premium's fee in these tests, so the fee's path is exercised.

let template: TestContext;
let consumer: { cookie: string; id: string };
let ownerCookie: string;
let sources: string[];
let live: TestMerchant;
let sandbox: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  template = await makeTestApp();
  const c = await registerUser(template);
  const o = await registerUser(template);
  const x = await registerUser(template);
  await makePremium(template, c.user.id, FEE_BPS);
  await makePremium(template, o.user.id);
  await makePremium(template, x.user.id);
  consumer = { cookie: c.cookie, id: c.user.id };
  ownerCookie = o.cookie;
  sources = [];
  for (const n of CARDS_OK.slice(0, 3)) sources.push((await addCard(template, c.cookie, n)).id);
  live = await createMerchant(template, o.cookie, 'production');
  sandbox = await createMerchant(template, o.cookie, 'sandbox');
  other = await createMerchant(template, x.cookie, 'production');
});
afterAll(() => template.close());

type Fault = <T>(method: VendorMethod, args: unknown[], run: () => Promise<T>) => Promise<T>;

/** A fork of the prepared world whose processor runs through `hook.fault` when one is set. */
async function world(opts: { local?: boolean } = { local: true }) {
  const hook: { fault: Fault | null } = { fault: null };
  const ctx = await forkTestApp(template, {
    clock: new TestClock(template.clock.now().getTime()),
    // The per-second API limit is per merchant id, in this process, and these forks share ids and a frozen clock.
    rateLimits: false,
    wrapVendor: (v) => interceptVendor(v, (m, a, run) => (hook.fault ? hook.fault(m, a, run) : run()), opts),
  });
  return { ctx, hook };
}

/**
 * A live payment intent of `dollars`, paid by a bcard the consumer funds from the first sources at `percentages`.
 * `capture` below the amount takes a manual-capture intent and captures only that many cents (the rest goes back).
 */
async function paidIntent(ctx: TestContext, dollars: string, percentages: number[], capture?: number) {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: consumer.cookie,
    body: { name: 'Shoes', balance: dollars, fundingSources: percentages.map((p, i) => ({ fundingSourceId: sources[i], percentage: p })) },
  });
  expect(made.status).toBe(201);
  const details = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: consumer.cookie });
  const amount = Math.round(Number(dollars) * 100);
  const pi = await merchantCall(ctx, live.secretKey, '/payment_intents', {
    method: 'POST',
    body: { amount, currency: 'usd', ...(capture ? { capture_method: 'manual' } : {}) },
  });
  const card = { number: details.body.cardNumber, exp_month: details.body.expiryMonth, exp_year: details.body.expiryYear, cvc: details.body.cvv };
  const confirmed = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  if (capture) {
    const captured = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.body.id}/capture`, { method: 'POST', body: { amount_to_capture: capture } });
    expect(captured.body.status).toBe('succeeded');
  } else {
    expect(confirmed.body.status).toBe('succeeded');
  }
  return { id: pi.body.id as string, bcardId: made.body.id as string };
}

const refund = (ctx: TestContext, body: Record<string, unknown>, key: string = live.secretKey, headers: Record<string, string> = {}) =>
  merchantCall(ctx, key, '/refunds', { method: 'POST', body, headers });

/** What went back to each of the first n sources, by refund, from refund_parts. */
async function partsOf(ctx: TestContext, refundId: string): Promise<Record<string, number>> {
  const { rows } = await ctx.handle.client.execute({
    sql: "SELECT funding_source_id AS s, amount_cents AS a, status, vendor_refund_id AS v FROM refund_parts WHERE refund_id = ?",
    args: [refundId],
  });
  for (const r of rows) {
    expect(r.status).toBe('succeeded');
    expect(String(r.v)).toMatch(/^sim_re_/);
  }
  return Object.fromEntries(rows.map((r) => [String(r.s), Number(r.a)]));
}

async function sourceLedger(ctx: TestContext): Promise<number[]> {
  return Promise.all(sources.map((s) => ledgerBalance(ctx, `funding_source:${s}`)));
}

async function expectMoneyHolds(ctx: TestContext) {
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.ledgerTotal).toBe(0);
}

describe('POST /api/v1/refunds', () => {
  test('a partial refund goes back through the split with its part of the fee; the rest refunds in full with the rest of the fee', async () => {
    const { ctx } = await world();
    // $100.00 at 50/30/20 with a 2.5 % fee: shares 5125 / 3075 / 2050 of 10250.
    const pi = await paidIntent(ctx, '100.00', [50, 30, 20]);
    const before = await sourceLedger(ctx);

    const first = await refund(ctx, { payment_intent: pi.id, amount: 3333, reason: 'requested_by_customer', metadata: { rma: '7' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: 'refund',
      amount: 3333,
      currency: 'usd',
      status: 'succeeded',
      reason: 'requested_by_customer',
      payment_intent: pi.id,
      metadata: { rma: '7' },
      failure_reason: null,
    });
    expect(first.body.id).toMatch(/^re_/);
    // Fee: floor(250 * 3333 / 10000) = 83; 3416 back in the proportions 50/30/20 (largest remainder).
    const parts1 = await partsOf(ctx, first.body.id);
    expect(Object.values(parts1).reduce((a, b) => a + b, 0)).toBe(3333 + 83);
    expect(parts1).toEqual({ [sources[0]!]: 1708, [sources[1]!]: 1025, [sources[2]!]: 683 });

    const got = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`);
    expect(got.body.amount_refunded).toBe(3333);

    const rest = await refund(ctx, { payment_intent: pi.id });
    expect(rest.body).toMatchObject({ amount: 6667, status: 'succeeded', reason: null });
    const parts2 = await partsOf(ctx, rest.body.id);
    // The rest of the fee (250 - 83) goes with the refund that completes the payment: the consumer is made whole.
    expect(Object.values(parts2).reduce((a, b) => a + b, 0)).toBe(6667 + 167);
    const after = await sourceLedger(ctx);
    expect(after.map((a, i) => a - before[i]!)).toEqual([5125, 3075, 2050]);
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`)).body.amount_refunded).toBe(10_000);
    expect(await ledgerBalance(ctx, `merchant:${live.id}`)).toBe(0);
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test('over-refunding is refused with the amount left; a fully refunded payment says so', async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '10.00', [100]);
    const over = await refund(ctx, { payment_intent: pi.id, amount: 1001 });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect(over.body.error.message).toBe('Refund amount ($10.01) is greater than the amount not yet refunded on this PaymentIntent ($10.00).');
    expect((await refund(ctx, { payment_intent: pi.id, amount: 400 })).status).toBe(200);
    const again = await refund(ctx, { payment_intent: pi.id, amount: 601 });
    expect(again.body.error.message).toContain('($6.00)');
    expect((await refund(ctx, { payment_intent: pi.id })).body.amount).toBe(600);
    const done = await refund(ctx, { payment_intent: pi.id, amount: 1 });
    expect(done.status).toBe(400);
    expect(done.body.error).toMatchObject({ code: 'charge_already_refunded', param: 'payment_intent' });
    // Nothing half-written by the refusals.
    const { rows } = await ctx.handle.client.execute({ sql: 'SELECT count(*) AS n FROM refunds WHERE payment_intent_id = ?', args: [pi.id] });
    expect(Number(rows[0]!.n)).toBe(2);
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: -5 }, 'amount'],
    [{ amount: 1.5 }, 'amount'],
    [{ amount: '100' }, 'amount'],
    [{ reason: 'changed_mind' }, 'reason'],
    [{ metadata: { k: 5 } }, 'metadata'],
    [{ extra: 1 }, 'extra'],
  ])('a bad body is refused before anything is written: %p', async (bad, param) => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '5.00', [100]);
    const res = await refund(ctx, { payment_intent: pi.id, ...bad });
    expect(res.status).toBe(400);
    // A field the route does not take has Stripe's code, parameter_unknown; a bad value is validation_error.
    expect(res.body.error.code).toBe(param === 'extra' ? 'parameter_unknown' : 'validation_error');
    expect(String(res.body.error.param ?? '')).toContain(param);
    const { rows } = await ctx.handle.client.execute('SELECT count(*) AS n FROM refunds');
    expect(Number(rows[0]!.n)).toBe(0);
    ctx.close();
  });

  test('only a succeeded payment intent of this merchant can be refunded', async () => {
    const { ctx } = await world();
    const open = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 500, currency: 'usd' } });
    const notPaid = await refund(ctx, { payment_intent: open.body.id });
    expect(notPaid.status).toBe(400);
    expect(notPaid.body.error.code).toBe('payment_intent_unexpected_state');
    expect(notPaid.body.error.message).toContain('requires_payment_method');
    const pi = await paidIntent(ctx, '5.00', [100]);
    // Another merchant, or this merchant's other mode, sees no such payment intent.
    for (const key of [other.secretKey, sandbox.secretKey]) {
      const res = await refund(ctx, { payment_intent: pi.id }, key);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'payment_intent', message: `No such payment_intent: '${pi.id}'` });
    }
    ctx.close();
  });

  test('an Idempotency-Key replays the first refund instead of refunding twice', async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '20.00', [60, 40]);
    const headers = { 'idempotency-key': 'refund-once' };
    const a = await refund(ctx, { payment_intent: pi.id, amount: 500 }, live.secretKey, headers);
    const b = await refund(ctx, { payment_intent: pi.id, amount: 500 }, live.secretKey, headers);
    expect(b.body.id).toBe(a.body.id);
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`)).body.amount_refunded).toBe(500);
    ctx.close();
  });

  test('a payment captured in part: the refund never asks a source for more than its charge has left', async () => {
    const { ctx } = await world();
    // $10.00 at 34/33/33, captured $7.77: the remainder $2.23 went back pro rata already, with its part of the fee.
    const pi = await paidIntent(ctx, '10.00', [34, 33, 33], 777);
    for (const amount of [1, 1, 100, 333]) expect((await refund(ctx, { payment_intent: pi.id, amount })).body.status).toBe('succeeded');
    const last = await refund(ctx, { payment_intent: pi.id });
    expect(last.body).toMatchObject({ status: 'succeeded', amount: 777 - 435 });
    // Every source is back where it started: its whole share (the fee included) has come back.
    const { rows } = await ctx.handle.client.execute({
      sql: `SELECT cs.amount_cents AS share, (SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'funding_source:' || cs.funding_source_id) AS ledger
              FROM collection_shares cs JOIN bcards b ON b.collection_id = cs.collection_id WHERE b.id = ?`,
      args: [pi.bcardId],
    });
    for (const r of rows) expect(Number(r.ledger)).toBe(0);
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test('a partly spent bcard: its remainder takes its pro-rata part of the fee back, the refunds the rest; exact cents, 3 sources', async () => {
    const { ctx } = await world();
    // $10.00 + 2.5 % = $10.25 at 34/33/33: 348.5, 338.25, 338.25 -> 349, 338, 338. Captured $7.77, so $2.23 is left,
    // and its part of the $0.25 fee is floor(25 × 223 / 1000) = 5: $2.28 back over 349/338/338 is 77.63, 75.18,
    // 75.18 -> 77, 75, 75 and the spare cent to the first (.63): 78, 75, 75. $0.20 of fee stays with the $7.77 spent.
    const pi = await paidIntent(ctx, '10.00', [34, 33, 33], 777);
    const { rows: mv } = await ctx.handle.client.execute({
      sql: `SELECT p.account AS account, p.amount_cents AS cents FROM ledger_movements m JOIN ledger_postings p ON p.movement_id = m.id
              WHERE m.kind = 'bcard.remainder_refunded' AND m.reference_id = ? ORDER BY p.id`,
      args: [pi.bcardId],
    });
    expect(Object.fromEntries(mv.map((r) => [String(r.account), Number(r.cents)]))).toEqual({
      [`bcard:${pi.bcardId}`]: -223,
      'bpay:fees': -5,
      [`funding_source:${sources[0]}`]: 78,
      [`funding_source:${sources[1]}`]: 75,
      [`funding_source:${sources[2]}`]: 75,
    });
    expect(mv.reduce((a, r) => a + Number(r.cents), 0)).toBe(0);
    expect(await sourceLedger(ctx)).toEqual([-(349 - 78), -(338 - 75), -(338 - 75)]);

    // A $1.00 refund takes floor(20 × 100 / 777) = 2 of the fee that stayed: $1.02 over what each share has left
    // (271, 263, 263): 34.68, 33.66, 33.66 -> 34, 33, 33 and the two spare cents to .68 and the first .66: 35, 34, 33.
    const first = await refund(ctx, { payment_intent: pi.id, amount: 100 });
    expect(first.body.status).toBe('succeeded');
    const { rows: fee } = await ctx.handle.client.execute({ sql: 'SELECT fee_cents AS f FROM refunds WHERE id = ?', args: [first.body.id] });
    expect(Number(fee[0]!.f)).toBe(2);
    expect(await sourceLedger(ctx)).toEqual([-(271 - 35), -(263 - 34), -(263 - 33)]);
    // The rest: $6.77 and the fee's last $0.18. Every source is whole and bpay kept no fee on a refunded purchase.
    const rest = await refund(ctx, { payment_intent: pi.id });
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: 677 });
    const { rows: fee2 } = await ctx.handle.client.execute({ sql: 'SELECT fee_cents AS f FROM refunds WHERE id = ?', args: [rest.body.id] });
    expect(Number(fee2[0]!.f)).toBe(18);
    expect(await sourceLedger(ctx)).toEqual([0, 0, 0]);
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test('a sandbox refund moves only sandbox test funds', async () => {
    const { ctx } = await world();
    const card = await testBcardCard(ctx, sandbox.secretKey, 2500);
    const pi = await merchantCall(ctx, sandbox.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd' } });
    await merchantCall(ctx, sandbox.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card: card.card } },
    });
    const before = await sourceLedger(ctx);
    const testFunds = await ledgerBalance(ctx, 'sandbox:test_funds');
    const res = await refund(ctx, { payment_intent: pi.body.id, amount: 1000 }, sandbox.secretKey);
    expect(res.body.status).toBe('succeeded');
    expect(await ledgerBalance(ctx, 'sandbox:test_funds')).toBe(testFunds + 1000);
    expect(await sourceLedger(ctx)).toEqual(before);
    const { rows } = await ctx.handle.client.execute('SELECT count(*) AS n FROM refund_parts');
    expect(Number(rows[0]!.n)).toBe(0);
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test('20 concurrent refunds of one payment never refund more than it received', async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '10.00', [50, 50]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(ctx, { payment_intent: pi.id, amount: 150 })));
    const ok = answers.filter((a) => a.status === 200);
    // 6 × $1.50 = $9.00 fit; a 7th would pass $10.00.
    expect(ok.length).toBe(6);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(a.body.error.param).toBe('amount');
    }
    const got = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`);
    expect(got.body.amount_refunded).toBe(900);
    const { rows } = await ctx.handle.client.execute({ sql: 'SELECT coalesce(sum(amount), 0) AS s FROM refunds WHERE payment_intent_id = ?', args: [pi.id] });
    expect(Number(rows[0]!.s)).toBe(900);
    // The last $1.00, again from 20 at once: exactly one gets it.
    const lastDollar = await Promise.all(Array.from({ length: 20 }, () => refund(ctx, { payment_intent: pi.id, amount: 100 })));
    expect(lastDollar.filter((a) => a.status === 200).length).toBe(1);
    await expectMoneyHolds(ctx);
    ctx.close();
  });
});

describe('events', () => {
  test('refund.created, refund.updated and charge.refunded are emitted', async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '8.00', [100]);
    const r = await refund(ctx, { payment_intent: pi.id, amount: 300 });
    const events = await merchantCall(ctx, live.secretKey, '/events?limit=10');
    const types = events.body.data.map((e: { type: string }) => e.type);
    expect(types.slice(0, 3)).toEqual(['charge.refunded', 'refund.updated', 'refund.created']);
    // charge.refunded carries the intent's Charge (issue 28), and the refund events its allocations.
    const charge = events.body.data[0];
    expect(charge.data.object).toMatchObject({ object: 'charge', id: `ch_${pi.id.slice(3)}`, payment_intent: pi.id, amount_refunded: 300 });
    expect(events.body.data[1].data.object).toMatchObject({ id: r.body.id, status: 'succeeded', allocations: [expect.objectContaining({ amount: 300, status: 'succeeded' })] });
    expect(events.body.data[2].data.object).toMatchObject({ id: r.body.id, status: 'pending', allocations: [expect.objectContaining({ amount: 300, status: 'pending' })] });
    ctx.close();
  });
});

describe('GET /api/v1/refunds', () => {
  test('retrieve, list newest first with pages, and filter by payment intent; another merchant sees none', async () => {
    const { ctx } = await world();
    const a = await paidIntent(ctx, '10.00', [100]);
    const b = await paidIntent(ctx, '10.00', [100]);
    const ids: string[] = [];
    for (const pi of [a, b, a]) ids.push((await refund(ctx, { payment_intent: pi.id, amount: 100 })).body.id);
    const one = await merchantCall(ctx, live.secretKey, `/refunds/${ids[0]}`);
    expect(one.body).toMatchObject({ id: ids[0], amount: 100, payment_intent: a.id });
    const page1 = await merchantCall(ctx, live.secretKey, '/refunds?limit=2');
    expect(page1.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await merchantCall(ctx, live.secretKey, `/refunds?limit=2&starting_after=${ids[1]}`);
    expect(page2.body.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(page2.body.has_more).toBe(false);
    const back = await merchantCall(ctx, live.secretKey, `/refunds?limit=2&ending_before=${ids[0]}`);
    expect(back.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const ofA = await merchantCall(ctx, live.secretKey, `/refunds?payment_intent=${a.id}`);
    expect(ofA.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[0]]);
    const theirs = await merchantCall(ctx, other.secretKey, `/refunds/${ids[0]}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ param: 'id', message: `No such refund: '${ids[0]}'` });
    expect((await merchantCall(ctx, other.secretKey, '/refunds')).body.data).toEqual([]);
    const badCursor = await merchantCall(ctx, other.secretKey, `/refunds?starting_after=${ids[0]}`);
    expect(badCursor.body.error.param).toBe('starting_after');
    ctx.close();
  });
});

describe('the dashboard routes', () => {
  test("the owner refunds from the dashboard; another user's merchant is a 404", async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '12.00', [50, 50]);
    const mine = await call(ctx, `/api/merchants/${live.id}/refunds`, {
      method: 'POST',
      cookie: ownerCookie,
      headers: { 'idempotency-key': 'dash-1' },
      body: { payment_intent: pi.id, amount: 200, reason: 'duplicate' },
    });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ amount: 200, status: 'succeeded', reason: 'duplicate' });
    const again = await call(ctx, `/api/merchants/${live.id}/refunds`, {
      method: 'POST',
      cookie: ownerCookie,
      headers: { 'idempotency-key': 'dash-1' },
      body: { payment_intent: pi.id, amount: 200, reason: 'duplicate' },
    });
    expect(again.body.id).toBe(mine.body.id);
    const history = await call(ctx, `/api/merchants/${live.id}/refunds?payment_intent=${pi.id}`, { cookie: ownerCookie });
    expect(history.body.data.map((r: { id: string }) => r.id)).toEqual([mine.body.id]);
    const stranger = await registerUser(ctx);
    const theirs = await call(ctx, `/api/merchants/${live.id}/refunds`, { method: 'POST', cookie: stranger.cookie, body: { payment_intent: pi.id } });
    expect(theirs.status).toBe(404);
    const list = await call(ctx, `/api/merchants/${live.id}/refunds`, { cookie: stranger.cookie });
    expect(list.status).toBe(404);
    ctx.close();
  });
});

describe('failures', () => {
  test('a crash after the processor refunded one part: the sweep finishes the refund and refunds nothing twice', async () => {
    // The simulator as a remote processor (calls first, then the record), so a part can reach it before a crash.
    const { ctx, hook } = await world({ local: false });
    const pi = await paidIntent(ctx, '30.00', [50, 30, 20]);
    let refunds = 0;
    hook.fault = async (method, _args, run) => {
      if (method === 'refund' && ++refunds === 2) {
        await run();
        throw new VendorUnavailableError('the answer was lost');
      }
      return run();
    };
    const res = await refund(ctx, { payment_intent: pi.id, amount: 1000 });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    // Reserved while pending: a second refund cannot take the same money.
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`)).body.amount_refunded).toBe(1000);
    hook.fault = null;
    // Nothing happens while the lease holds; after it, the sweep settles the refund.
    await sweepMoney(ctx.deps);
    expect((await merchantCall(ctx, live.secretKey, `/refunds/${res.body.id}`)).body.status).toBe('pending');
    ctx.clock.advance(REFUND_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    expect((await merchantCall(ctx, live.secretKey, `/refunds/${res.body.id}`)).body.status).toBe('succeeded');
    const { rows } = await ctx.handle.client.execute('SELECT coalesce(sum(amount_cents), 0) AS s, count(*) AS n FROM sim_refunds');
    // Each part refunded once at the processor: $10.00 plus its $0.25 of fee.
    expect(Number(rows[0]!.s)).toBe(1025);
    expect(Number(rows[0]!.n)).toBe(3);
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test('a crash inside the simulator phase leaves nothing half-done; the sweep refunds it', async () => {
    const { ctx, hook } = await world();
    const pi = await paidIntent(ctx, '30.00', [50, 50]);
    let refunds = 0;
    hook.fault = async (method, _args, run) => {
      if (method === 'refund' && ++refunds === 2) throw new Error('the process died here');
      return run();
    };
    const res = await refund(ctx, { payment_intent: pi.id });
    expect(res.body.status).toBe('pending');
    const { rows: none } = await ctx.handle.client.execute('SELECT count(*) AS n FROM sim_refunds');
    expect(Number(none[0]!.n)).toBe(0);
    hook.fault = null;
    ctx.clock.advance(REFUND_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
    expect((await merchantCall(ctx, live.secretKey, `/refunds/${res.body.id}`)).body.status).toBe('succeeded');
    await expectMoneyHolds(ctx);
    ctx.close();
  });

  test('a processor that refuses the first part fails the refund and gives the amount back to refund again', async () => {
    const { ctx, hook } = await world();
    const pi = await paidIntent(ctx, '10.00', [100]);
    hook.fault = async (method, _args, run) => {
      if (method === 'refund') throw new VendorDeclineError('card_declined', 'The card account is closed.');
      return run();
    };
    const res = await refund(ctx, { payment_intent: pi.id, amount: 600 });
    expect(res.body.status).toBe('failed');
    expect(res.body.failure_reason).toContain('The card account is closed.');
    expect((await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.id}`)).body.amount_refunded).toBe(0);
    hook.fault = null;
    expect((await refund(ctx, { payment_intent: pi.id })).body).toMatchObject({ status: 'succeeded', amount: 1000 });
    const events = await merchantCall(ctx, live.secretKey, '/events?limit=10');
    const failed = events.body.data.find((e: { type: string; data: { object: { id: string } } }) => e.type === 'refund.updated' && e.data.object.id === res.body.id);
    expect(failed.data.object.status).toBe('failed');
    await expectMoneyHolds(ctx);
    ctx.close();
  });
});

describe("the consumer's transaction", () => {
  test('shows each refund and what went back to which source; the list counts it as refunded', async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '40.00', [75, 25]);
    const r = await refund(ctx, { payment_intent: pi.id, amount: 2000, reason: 'requested_by_customer' });
    const collection = (await ctx.handle.client.execute({ sql: 'SELECT collection_id AS c FROM bcards WHERE id = ?', args: [pi.bcardId] })).rows[0]!.c;
    const detail = await call(ctx, `/api/transactions/${collection}`, { cookie: consumer.cookie });
    expect(detail.status).toBe(200);
    // $20.00 of $40.00 with half the $1.00 fee: $20.50 back, 75/25.
    expect(detail.body.refunded).toBe('20.50');
    expect(detail.body.refunds).toEqual([
      {
        id: r.body.id,
        createdAt: expect.any(String),
        amount: '20.00',
        fee: '0.50',
        status: 'succeeded',
        reason: 'requested_by_customer',
        parts: [
          { fundingSourceId: sources[0], name: 'Ada Lovelace', last4: CARDS_OK[0]!.slice(-4), amount: '15.38' },
          { fundingSourceId: sources[1], name: 'Ada Lovelace', last4: CARDS_OK[1]!.slice(-4), amount: '5.12' },
        ],
      },
    ]);
    const list = await call(ctx, '/api/transactions', { cookie: consumer.cookie });
    expect(list.body.find((t: { id: string }) => t.id === collection).refunded).toBe('20.50');
    ctx.close();
  });
});

describe('created filters', () => {
  test('created[gte|gt|lte|lt] and created= keep the refunds made then; a bad value names its param', async () => {
    const { ctx } = await world();
    const pi = await paidIntent(ctx, '10.00', [100]);
    const ids: string[] = [];
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      ctx.clock.advance(60_000);
      times.push(Math.floor(ctx.clock.now().getTime() / 1000));
      ids.push((await refund(ctx, { payment_intent: pi.id, amount: 100 })).body.id);
    }
    const list = async (q: string) => (await merchantCall(ctx, live.secretKey, `/refunds?${q}`)).body.data.map((r: { id: string }) => r.id);
    expect(await list(`created[gte]=${times[1]}`)).toEqual([ids[2], ids[1]]);
    expect(await list(`created[gt]=${times[1]}`)).toEqual([ids[2]]);
    expect(await list(`created[lte]=${times[1]}`)).toEqual([ids[1], ids[0]]);
    expect(await list(`created[lt]=${times[1]}`)).toEqual([ids[0]]);
    expect(await list(`created=${times[2]}`)).toEqual([ids[2]]);
    const bad = await merchantCall(ctx, live.secretKey, '/refunds?created[gte]=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('created[gte]');
    ctx.close();
  });
});
