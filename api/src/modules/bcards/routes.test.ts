import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { parseDecimal } from '@bpay/db/money';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { luhnValid } from '../../lib/cards';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { postCard, registerUser, setTier } from '../../../test-support/world';

/*
 * POST/GET /api/virtual-cards, checkout-details, cancel and POST /api/process-payment, through the routes.
 * Alice is on the pro plan (2.9 % fee, 100 bcards a month) with two cards and a paused third; Bob has one card.
 * Money is checked through what the API itself reports: each source's balance and each bcard's shares.
 */

const VC = '/api/virtual-cards';
const PP = '/api/process-payment';

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string | null): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param ?? undefined);
}

const cents = (s: string) => {
  const c = parseDecimal(s);
  if (c === null) throw new Error(`not an amount: ${s}`);
  return c as number;
};
const sumCents = (xs: Array<{ amount: string }>) => xs.reduce((a, x) => a + cents(x.amount), 0);

let ctx: TestContext;
let alice: { cookie: string; id: string };
let bob: { cookie: string; id: string };
let a1: string;
let a2: string;
let aPaused: string;
let b1: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const a = await registerUser(ctx);
  const b = await registerUser(ctx);
  alice = { cookie: a.cookie, id: a.user.id };
  bob = { cookie: b.cookie, id: b.user.id };
  await setTier(ctx, alice.id, 'tier_pro');
  a1 = (await postCard(ctx, alice.cookie, '4242424242424242')).body.id;
  a2 = (await postCard(ctx, alice.cookie, '5555555555554444')).body.id;
  aPaused = (await postCard(ctx, alice.cookie, '4000056655665556')).body.id;
  expect((await call(ctx, `/api/funding-sources/${aPaused}`, { method: 'PATCH', body: { isActive: false }, cookie: alice.cookie })).status).toBe(200);
  b1 = (await postCard(ctx, bob.cookie, '4242424242424242')).body.id;
});
afterAll(() => {
  ctx.close();
});

async function balances(cookie: string): Promise<Record<string, string>> {
  const res = await call(ctx, '/api/funding-sources', { cookie });
  return Object.fromEntries((res.body as Array<{ id: string; balance: string }>).map((s) => [s.id, s.balance]));
}

const createBcard = (cookie: string, body: unknown, headers?: Record<string, string>) =>
  call(ctx, VC, { method: 'POST', body, cookie, headers });
const split = (...parts: Array<[string, number]>) => parts.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage }));

describe('POST /api/virtual-cards: validation', () => {
  const ok = () => ({ name: 'Groceries', balance: '100.00', fundingSources: split([a1, 60], [a2, 40]) });
  const rows: Array<{
    name: string;
    body?: () => unknown;
    raw?: { body: string; type: string };
    cookie?: 'none';
    origin?: string;
    expectStatus: number;
    expectCode: ErrorCode;
    expectParam?: string;
    expectMessage?: string;
  }> = [
    { name: 'blank name', body: () => ({ ...ok(), name: '   ' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'empty name', body: () => ({ ...ok(), name: '' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'name over 100 characters', body: () => ({ ...ok(), name: 'n'.repeat(101) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'name missing', body: () => ({ ...ok(), name: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'balance 0', body: () => ({ ...ok(), balance: 0 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: "balance '0.00'", body: () => ({ ...ok(), balance: '0.00' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'balance -1', body: () => ({ ...ok(), balance: -1 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: "balance '-1'", body: () => ({ ...ok(), balance: '-1' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'balance 0.5 (under the $1.00 minimum)', body: () => ({ ...ok(), balance: 0.5 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance', expectMessage: 'balance must be at least $1.00.' },
    { name: "balance '0.99'", body: () => ({ ...ok(), balance: '0.99' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance', expectMessage: 'balance must be at least $1.00.' },
    { name: "balance '12.345' (refused, not rounded)", body: () => ({ ...ok(), balance: '12.345' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'balance 12.345 as a number (refused, not rounded)', body: () => ({ ...ok(), balance: 12.345 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: "balance '1.234'", body: () => ({ ...ok(), balance: '1.234' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'balance 1.234', body: () => ({ ...ok(), balance: 1.234 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: "balance 'abc'", body: () => ({ ...ok(), balance: 'abc' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'balance over $1,000,000.00', body: () => ({ ...ok(), balance: '1000000.01' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'balance missing', body: () => ({ ...ok(), balance: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'balance' },
    { name: 'empty fundingSources', body: () => ({ ...ok(), fundingSources: [] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources' },
    { name: 'fundingSources missing', body: () => ({ ...ok(), fundingSources: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources' },
    { name: 'duplicate source ids', body: () => ({ ...ok(), fundingSources: split([a1, 50], [a1, 50]) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources' },
    {
      name: 'percentages summing to 99.98',
      body: () => ({ ...ok(), fundingSources: split([a1, 49.99], [a2, 49.99]) }),
      expectStatus: 400,
      expectCode: 'invalid_splits',
      expectParam: 'fundingSources',
      expectMessage: 'Funding splits must add up to 100%',
    },
    {
      name: 'percentages summing to 100.02',
      body: () => ({ ...ok(), fundingSources: split([a1, 50.01], [a2, 50.01]) }),
      expectStatus: 400,
      expectCode: 'invalid_splits',
      expectMessage: 'Funding splits must add up to 100%',
    },
    { name: 'all percentages 0', body: () => ({ ...ok(), fundingSources: split([a1, 0], [a2, 0]) }), expectStatus: 400, expectCode: 'invalid_splits' },
    { name: 'percentage 101', body: () => ({ ...ok(), fundingSources: split([a1, 101]) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources.0.percentage' },
    { name: 'percentage -1', body: () => ({ ...ok(), fundingSources: split([a1, -1], [a2, 101]) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources.0.percentage' },
    { name: 'a split without a percentage', body: () => ({ ...ok(), fundingSources: [{ fundingSourceId: a1, percentage: 100 }, { fundingSourceId: a2 }] }), expectStatus: 400, expectCode: 'invalid_splits' },
    { name: 'a paused source', body: () => ({ ...ok(), fundingSources: split([a1, 50], [aPaused, 50]) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources.1.fundingSourceId' },
    { name: "another user's source", body: () => ({ ...ok(), fundingSources: split([a1, 50], [b1, 50]) }), expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'a source that does not exist', body: () => ({ ...ok(), fundingSources: split([`fs_${'0'.repeat(24)}`, 100]) }), expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'unknown field', body: () => ({ ...ok(), currency: 'eur' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'currency' },
    { name: 'unknown field inside a split', body: () => ({ ...ok(), fundingSources: [{ fundingSourceId: a1, percentage: 100, cvv: '123' }] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'fundingSources.0.cvv' },
    { name: 'no session cookie', body: ok, cookie: 'none', expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'cross-site Origin', body: ok, origin: 'https://evil.example', expectStatus: 403, expectCode: 'cross_site_request' },
    { name: 'text/plain body', raw: { body: '{}', type: 'text/plain' }, expectStatus: 415, expectCode: 'unsupported_media_type' },
  ];

  for (const row of rows) {
    test(`${row.name} -> ${row.expectStatus} ${row.expectCode}`, async () => {
      const res = await call(ctx, VC, {
        method: 'POST',
        body: row.body?.(),
        rawBody: row.raw?.body,
        headers: row.raw ? { 'content-type': row.raw.type } : undefined,
        cookie: row.cookie === 'none' ? null : alice.cookie,
        origin: row.origin,
      });
      expectError(res, row.expectStatus, row.expectCode, row.expectParam);
      if (row.expectMessage) expect(res.body.error.message).toBe(row.expectMessage);
    });
  }

  test('none of them created a bcard or a transaction, or moved money', async () => {
    expect((await call(ctx, VC, { cookie: alice.cookie })).body).toEqual([]);
    expect((await call(ctx, '/api/transactions', { cookie: alice.cookie })).body).toEqual([]);
    expect(Object.values(await balances(alice.cookie))).toEqual(['10000.00', '10000.00', '10000.00']);
    expect(Object.values(await balances(bob.cookie))).toEqual(['10000.00']);
  });
});

describe('POST /api/virtual-cards: success', () => {
  test('201: amount, 2.9 % fee, total, shares that sum exactly to it, masked number, 30-minute expiry', async () => {
    const before = await balances(alice.cookie);
    const res = await createBcard(alice.cookie, {
      name: '  Groceries ',
      cardholderName: 'Someone Else',
      balance: '100.00',
      fundingSources: split([a1, 60], [a2, 40]),
      spendingLimit: '100.00',
      interval: 'monthly',
    });
    expect(res.status).toBe(201);
    const now = ctx.clock.now().getTime();
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^bc_/),
      name: 'Groceries',
      // The cardholder name is the account's, whatever is sent (spec §5: read-only).
      cardholderName: 'Ada Lovelace',
      balance: '100.00',
      spendingLimit: '100.00',
      interval: 'single_use',
      status: 'active',
      amount: '100.00',
      fee: '2.90',
      totalCharged: '102.90',
      brand: 'visa',
      transactionId: expect.stringMatching(/^col_/),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 30 * 60_000).toISOString(),
    });
    expect(res.body.cardNumber).toBe(`•••• •••• •••• ${res.body.last4}`);
    expect(res.body.last4).toMatch(/^\d{4}$/);
    expect(res.body.fundingSources).toEqual([
      { fundingSourceId: a1, name: 'Ada Lovelace', last4: '4242', brand: 'visa', percentage: 60, amount: '61.74', status: 'captured', stage: 'charged' },
      { fundingSourceId: a2, name: 'Ada Lovelace', last4: '4444', brand: 'mastercard', percentage: 40, amount: '41.16', status: 'captured', stage: 'charged' },
    ]);
    expect(sumCents(res.body.fundingSources)).toBe(cents(res.body.totalCharged));
    const after = await balances(alice.cookie);
    expect(cents(before[a1]!) - cents(after[a1]!)).toBe(6174);
    expect(cents(before[a2]!) - cents(after[a2]!)).toBe(4116);
  });

  test('percentages summing to 100.005 are accepted (within 0.01)', async () => {
    const res = await createBcard(alice.cookie, { name: 'Close enough', balance: '10.00', fundingSources: split([a1, 50.005], [a2, 50]) });
    expect(res.status).toBe(201);
    expect(sumCents(res.body.fundingSources)).toBe(cents(res.body.totalCharged));
  });

  const cases: Array<[string, [number, number]]> = [
    ['1.00', [33.33, 66.67]],
    ['1.01', [33.33, 66.67]],
    ['33.33', [33.33, 66.67]],
    ['99.99', [50, 50]],
    ['1234.56', [12.5, 87.5]],
    ['7.77', [99.9, 0.1]],
  ];
  for (const [balance, [p1, p2]] of cases) {
    test(`balance ${balance} split ${p1}/${p2}: the shares add up exactly to amount + fee`, async () => {
      const res = await createBcard(alice.cookie, { name: `Case ${balance}`, balance, fundingSources: split([a1, p1], [a2, p2]) });
      expect(res.status).toBe(201);
      const amount = cents(res.body.amount);
      const fee = cents(res.body.fee);
      expect(amount).toBe(cents(balance));
      // 2.9 %, half a cent rounded up.
      expect(fee).toBe(Math.floor((amount * 290 + 5000) / 10000));
      expect(cents(res.body.totalCharged)).toBe(amount + fee);
      expect(sumCents(res.body.fundingSources)).toBe(amount + fee);
      for (const share of res.body.fundingSources as Array<{ percentage: number; amount: string }>) {
        // Each share is within a cent of its exact part.
        expect(Math.abs(cents(share.amount) - ((amount + fee) * share.percentage) / 100)).toBeLessThan(1);
      }
    });
  }

  test('a source without enough money: 402 insufficient_funds with the breakdown; nothing stays taken', async () => {
    const before = await balances(alice.cookie);
    const res = await createBcard(alice.cookie, { name: 'Too much', balance: '9800.00', fundingSources: split([a1, 100]) });
    expectError(res, 402, 'insufficient_funds');
    expect(res.body.error.message).toContain('Insufficient funds');
    expect(await balances(alice.cookie)).toEqual(before);
  });

  test('GET /api/virtual-cards lists only the caller’s bcards, newest first', async () => {
    ctx.clock.advance(1000);
    const bobs = await createBcard(bob.cookie, { name: 'Bob card', balance: '5.00', fundingSources: split([b1, 100]) });
    expect(bobs.status).toBe(201);
    ctx.clock.advance(1000);
    const latest = await createBcard(alice.cookie, { name: 'Latest', balance: '5.00', fundingSources: split([a1, 100]) });
    const mine = (await call(ctx, VC, { cookie: alice.cookie })).body as Array<{ id: string; name: string; createdAt: string }>;
    expect(mine[0]!.id).toBe(latest.body.id);
    expect(mine.map((b) => b.id)).not.toContain(bobs.body.id);
    expect(mine.length).toBeGreaterThan(5);
    const sorted = [...mine].sort((x, y) => y.createdAt.localeCompare(x.createdAt));
    expect(mine.map((b) => b.createdAt)).toEqual(sorted.map((b) => b.createdAt));
    const bobsList = (await call(ctx, VC, { cookie: bob.cookie })).body as Array<{ id: string }>;
    expect(bobsList.map((b) => b.id)).toEqual([bobs.body.id]);
    expectError(await call(ctx, VC), 401, 'unauthenticated');
  });
});

describe('checkout-details and cancel', () => {
  test('the owner sees the full number, expiry and CVV (no-store, recorded); another user gets 404', async () => {
    const card = await createBcard(alice.cookie, { name: 'Checkout', balance: '25.00', fundingSources: split([a1, 100]) });
    const path = `${VC}/${card.body.id}/checkout-details`;
    const res = await call(ctx, path, { cookie: alice.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      cardNumber: expect.stringMatching(/^4000009\d{9}$/),
      expiryMonth: card.body.expiryMonth,
      expiryYear: card.body.expiryYear,
      cvv: expect.stringMatching(/^\d{3}$/),
      isDemoCard: false,
    });
    expect(res.body.cardNumber.slice(-4)).toBe(card.body.last4);
    expect(luhnValid(res.body.cardNumber)).toBe(true);
    const again = await call(ctx, path, { cookie: alice.cookie });
    expect(again.body).toEqual(res.body);

    const stranger = await call(ctx, path, { cookie: bob.cookie });
    expectError(stranger, 404, 'resource_not_found');
    expect(stranger.text).not.toContain(res.body.cardNumber);
    expectError(await call(ctx, path), 401, 'unauthenticated');
    expectError(await call(ctx, `${VC}/bc_nope/checkout-details`, { cookie: alice.cookie }), 404, 'resource_not_found');

    const reveals = await ctx.handle.db.select().from(schema.bcardReveals).where(eq(schema.bcardReveals.bcardId, card.body.id));
    expect(reveals.map((r) => r.userId)).toEqual([alice.id, alice.id]);
  });

  test('cancel refunds every share, fee included; a canceled card has no checkout details (409) and cannot be canceled again', async () => {
    const before = await balances(alice.cookie);
    const card = await createBcard(alice.cookie, { name: 'Cancel me', balance: '40.00', fundingSources: split([a1, 25], [a2, 75]) });
    expect(card.status).toBe(201);
    expectError(await call(ctx, `${VC}/${card.body.id}/cancel`, { method: 'POST', cookie: bob.cookie }), 404, 'resource_not_found');
    const canceled = await call(ctx, `${VC}/${card.body.id}/cancel`, { method: 'POST', cookie: alice.cookie });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: card.body.id, status: 'canceled', balance: '0.00' });
    expect(canceled.body.fundingSources.map((s: { status: string }) => s.status)).toEqual(['refunded', 'refunded']);
    expect(await balances(alice.cookie)).toEqual(before);
    expectError(await call(ctx, `${VC}/${card.body.id}/checkout-details`, { cookie: alice.cookie }), 409, 'bcard_not_active');
    expectError(await call(ctx, `${VC}/${card.body.id}/cancel`, { method: 'POST', cookie: alice.cookie }), 409, 'bcard_not_active');
  });

  test('an expired card has no checkout details (409)', async () => {
    const local = await makeTestApp();
    try {
      const u = await registerUser(local);
      const s = await postCard(local, u.cookie);
      const card = await call(local, VC, { method: 'POST', cookie: u.cookie, body: { name: 'Soon gone', balance: '5.00', fundingSources: split([s.body.id, 100]) } });
      expect(card.status).toBe(201);
      const path = `${VC}/${card.body.id}/checkout-details`;
      local.clock.advance(29 * 60_000);
      expect((await call(local, path, { cookie: u.cookie })).status).toBe(200);
      local.clock.advance(60_000);
      expectError(await call(local, path, { cookie: u.cookie }), 409, 'bcard_not_active');
    } finally {
      local.close();
    }
  });
});

describe('POST /api/process-payment', () => {
  const pay = (cookie: string, body: unknown) => call(ctx, PP, { method: 'POST', body, cookie });

  test('percentage splits: 200 with totalAmount, totalFees, transaction and splits; the bcard is used', async () => {
    const before = await balances(alice.cookie);
    const res = await pay(alice.cookie, { amount: '50.00', merchant: 'Coffee Shop', splits: split([a1, 50], [a2, 50]) });
    expect(res.status).toBe(200);
    // Read before toMatchObject: bun's toMatchObject writes its asymmetric matchers into the object it checks.
    const txId: string = res.body.transaction.id;
    expect(res.body).toMatchObject({
      totalAmount: '51.45',
      totalFees: '1.45',
      transaction: { id: expect.stringMatching(/^col_/) },
      virtualCard: { status: 'used', balance: '0.00', amount: '50.00' },
    });
    expect(res.body.splits.map((s: { fundingSourceId: string; amount: string }) => [s.fundingSourceId, s.amount])).toEqual([
      [a1, '25.73'],
      [a2, '25.72'],
    ]);
    expect(sumCents(res.body.splits)).toBe(5145);
    const after = await balances(alice.cookie);
    expect(cents(before[a1]!) - cents(after[a1]!) + cents(before[a2]!) - cents(after[a2]!)).toBe(5145);
    const tx = await call(ctx, `/api/transactions/${txId}`, { cookie: alice.cookie });
    expect(tx.body).toMatchObject({ merchant: 'Coffee Shop', status: 'completed', amount: '50.00', totalCharged: '51.45' });
  });

  test('fixed amounts equal to amount + fee are charged as given', async () => {
    const res = await pay(alice.cookie, {
      amount: '100.00',
      merchant: 'Shoes',
      splits: [
        { fundingSourceId: a1, fixedAmount: '50.00' },
        { fundingSourceId: a2, fixedAmount: 52.9 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.totalAmount).toBe('102.90');
    expect(res.body.splits.map((s: { amount: string }) => s.amount)).toEqual(['50.00', '52.90']);
  });

  test('fixed amounts within a cent are accepted and the shares still sum exactly to the total', async () => {
    const res = await pay(alice.cookie, {
      amount: '100.00',
      merchant: 'Shoes',
      splits: [
        { fundingSourceId: a1, fixedAmount: '50.00' },
        { fundingSourceId: a2, fixedAmount: '52.89' },
      ],
    });
    expect(res.status).toBe(200);
    expect(sumCents(res.body.splits)).toBe(10290);
  });

  test("fixed amounts off by more than a cent: 400 invalid_splits with the spec's message; nothing charged", async () => {
    const before = await balances(alice.cookie);
    const res = await pay(alice.cookie, {
      amount: '100.00',
      merchant: 'Shoes',
      splits: [
        { fundingSourceId: a1, fixedAmount: '50.00' },
        { fundingSourceId: a2, fixedAmount: '52.80' },
      ],
    });
    expectError(res, 400, 'invalid_splits');
    expect(res.body.error.message).toBe('Total fixed amounts ($102.80) must equal the total payment amount ($102.90) including fees.');
    const over = await pay(alice.cookie, {
      amount: '100.00',
      merchant: 'Shoes',
      splits: [
        { fundingSourceId: a1, fixedAmount: '60.00' },
        { fundingSourceId: a2, fixedAmount: '52.90' },
      ],
    });
    expectError(over, 400, 'invalid_splits');
    expect(over.body.error.message).toBe('Total fixed amounts ($112.90) must equal the total payment amount ($102.90) including fees.');
    expect(await balances(alice.cookie)).toEqual(before);
  });

  test("a fixed amount with 3 decimals (52.905), as text or a number: 400 naming the field, not rounded; nothing charged", async () => {
    const before = await balances(alice.cookie);
    for (const [i, third] of [[0, '52.905'], [1, 52.905]] as const) {
      const splits = [{ fundingSourceId: a1, fixedAmount: '50.00' }, { fundingSourceId: a2, fixedAmount: '50.00' }];
      splits[i] = { fundingSourceId: splits[i]!.fundingSourceId, fixedAmount: third as string };
      const res = await pay(alice.cookie, { amount: '100.00', merchant: 'Coffee Shop', splits });
      expectError(res, 400, 'validation_error', `splits.${i}.fixedAmount`);
      expect(res.body.error.message).toBe(
        `${i === 0 ? 'fixedAmount' : `splits.${i}.fixedAmount`} must be an amount in dollars with at most 2 decimals, such as 52.90: a third decimal is refused, never rounded.`,
      );
    }
    expect(await balances(alice.cookie)).toEqual(before);
  });

  const rows: Array<{ name: string; body: () => unknown; status: number; code: ErrorCode; param?: string }> = [
    { name: 'no splits and no bcard', body: () => ({ amount: '10.00', merchant: 'M' }), status: 400, code: 'invalid_splits' },
    { name: 'empty splits', body: () => ({ amount: '10.00', merchant: 'M', splits: [] }), status: 400, code: 'invalid_splits' },
    { name: 'merchant missing', body: () => ({ amount: '10.00', splits: split([a1, 100]) }), status: 400, code: 'validation_error', param: 'merchant' },
    { name: 'merchant empty', body: () => ({ amount: '10.00', merchant: '', splits: split([a1, 100]) }), status: 400, code: 'validation_error', param: 'merchant' },
    { name: 'merchant only spaces', body: () => ({ amount: '10.00', merchant: '   ', splits: split([a1, 100]) }), status: 400, code: 'validation_error', param: 'merchant' },
    { name: 'amount 0', body: () => ({ amount: '0', merchant: 'M', splits: split([a1, 100]) }), status: 400, code: 'validation_error', param: 'amount' },
    { name: "amount '1.234'", body: () => ({ amount: '1.234', merchant: 'M', splits: split([a1, 100]) }), status: 400, code: 'validation_error', param: 'amount' },
    { name: "fixedAmount '1.234'", body: () => ({ amount: '10.00', merchant: 'M', splits: [{ fundingSourceId: a1, fixedAmount: '1.234' }] }), status: 400, code: 'validation_error', param: 'splits.0.fixedAmount' },
    { name: 'percentages summing to 99.98', body: () => ({ amount: '10.00', merchant: 'M', splits: split([a1, 49.99], [a2, 49.99]) }), status: 400, code: 'invalid_splits' },
    { name: "another user's source", body: () => ({ amount: '10.00', merchant: 'M', splits: split([b1, 100]) }), status: 404, code: 'resource_not_found' },
    { name: 'unknown field', body: () => ({ amount: '10.00', merchant: 'M', splits: split([a1, 100]), tip: '1.00' }), status: 400, code: 'validation_error', param: 'tip' },
  ];
  for (const row of rows) {
    test(`${row.name} -> ${row.status} ${row.code}`, async () => {
      expectError(await pay(alice.cookie, row.body()), row.status, row.code, row.param);
    });
  }

  test('with an existing bcard: it pays, what is left goes back to the sources, and it cannot pay twice', async () => {
    const before = await balances(alice.cookie);
    const card = await createBcard(alice.cookie, { name: 'For later', balance: '80.00', fundingSources: split([a1, 100]) });
    expect(card.status).toBe(201);
    expect(cents(before[a1]!) - cents((await balances(alice.cookie))[a1]!)).toBe(8232);

    expectError(await pay(alice.cookie, { amount: '80.01', merchant: 'Books', virtualCardId: card.body.id }), 400, 'validation_error', 'amount');
    const res = await pay(alice.cookie, { amount: '30.00', merchant: 'Books', virtualCardId: card.body.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      totalAmount: '82.32',
      totalFees: '2.32',
      transaction: { id: card.body.transactionId },
      virtualCard: { id: card.body.id, status: 'used', balance: '0.00' },
    });
    // $50.00 of the $80.00 came back, with the fee's part on it (issue 25: floor(2.32 × 50 / 80) = 1.45).
    expect(cents(before[a1]!) - cents((await balances(alice.cookie))[a1]!)).toBe(3087);
    expectError(await pay(alice.cookie, { amount: '1.00', merchant: 'Books', virtualCardId: card.body.id }), 409, 'bcard_not_active');
    const tx = await call(ctx, `/api/transactions/${card.body.transactionId}`, { cookie: alice.cookie });
    expect(tx.body).toMatchObject({ merchant: 'Books', refunded: '51.45', status: 'completed' });
  });

  test("another user's bcard is 404 and stays active", async () => {
    const bobs = await createBcard(bob.cookie, { name: 'Mine', balance: '10.00', fundingSources: split([b1, 100]) });
    expect(bobs.status).toBe(201);
    expectError(await pay(alice.cookie, { amount: '10.00', merchant: 'Thief', virtualCardId: bobs.body.id }), 404, 'resource_not_found');
    const still = ((await call(ctx, VC, { cookie: bob.cookie })).body as Array<{ id: string; status: string }>).find((b) => b.id === bobs.body.id);
    expect(still!.status).toBe('active');
    const rows = await ctx.handle.db
      .select({ n: sql<number>`count(*)` })
      .from(schema.collections)
      .where(eq(schema.collections.merchant, 'Thief'));
    expect(Number(rows[0]!.n)).toBe(0);
  });

  test('a source whose charges are declined: 402 card_declined naming it; nothing stays taken', async () => {
    const u = await registerUser(ctx);
    const good = await postCard(ctx, u.cookie, '4242424242424242');
    const bad = await postCard(ctx, u.cookie, '4000000000000341');
    expect(bad.status).toBe(201);
    const res = await pay(u.cookie, { amount: '20.00', merchant: 'M', splits: split([good.body.id, 50], [bad.body.id, 50]) });
    expectError(res, 402, 'card_declined');
    expect(res.body.error.message).toContain('0341');
    expect(Object.values(await balances(u.cookie))).toEqual(['10000.00', '10000.00']);
    const txs = (await call(ctx, '/api/transactions', { cookie: u.cookie })).body as Array<{ status: string }>;
    expect(txs.map((t) => t.status)).toEqual(['failed']);
  });
});

describe('GET /api/virtual-cards: pages', () => {
  test('newest first, a page at a time through the cursor header; every card once; a bad limit or cursor is 400', async () => {
    const local = await makeTestApp();
    try {
      const u = await registerUser(local);
      await setTier(local, u.user.id, 'tier_premium');
      const source = (await postCard(local, u.cookie)).body.id as string;
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await call(local, '/api/virtual-cards', {
          method: 'POST',
          cookie: u.cookie,
          body: { name: `Card ${i}`, balance: '1.00', fundingSources: [{ fundingSourceId: source, percentage: 100 }] },
        });
        expect(res.status).toBe(201);
        made.unshift(res.body.id);
        local.clock.advance(1000);
      }
      // Without parameters (the spec's call): every card, newest first, no next page.
      const all = await call(local, '/api/virtual-cards', { cookie: u.cookie });
      expect(all.body.map((b: { id: string }) => b.id)).toEqual(made);
      expect(all.headers.get('bpay-next-cursor')).toBeNull();

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: CallResult = await call(local, `/api/virtual-cards?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { cookie: u.cookie });
        expect(page.status).toBe(200);
        expect(page.body.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.map((b: { id: string }) => b.id));
        cursor = page.headers.get('bpay-next-cursor');
      } while (cursor);
      expect(seen).toEqual(made);

      for (const q of ['limit=0', 'limit=101', 'limit=abc', 'cursor=not-a-cursor']) {
        const bad = await call(local, `/api/virtual-cards?${q}`, { cookie: u.cookie });
        expect(bad.status).toBe(400);
        expect(bad.body.error.code).toBe('validation_error');
      }
    } finally {
      local.close();
    }
  });
});

describe('GET /api/virtual-cards/collection-progress', () => {
  const PROGRESS = `${VC}/collection-progress`;
  const progress = (cookie: string | null, key: string) => call(ctx, `${PROGRESS}?key=${encodeURIComponent(key)}`, { cookie });

  test('a completed request: every share captured, with its amount', async () => {
    const key = `progress-ok-${crypto.randomUUID()}`;
    const res = await createBcard(alice.cookie, { name: 'Tracked', balance: '10.00', fundingSources: split([a1, 50], [a2, 50]) }, { 'Idempotency-Key': key });
    expect(res.status).toBe(201);
    const p = await progress(alice.cookie, key);
    expect(p.status).toBe(200);
    expect(p.body.stage).toBe('completed');
    expect(p.body.shares.map((s: { fundingSourceId: string; status: string }) => [s.fundingSourceId, s.status])).toEqual([
      [a1, 'captured'],
      [a2, 'captured'],
    ]);
    expect(sumCents(p.body.shares)).toBe(cents(res.body.totalCharged));
  });

  test('a failed request: the share that did not hold is declined and the other released', async () => {
    const key = `progress-failed-${crypto.randomUUID()}`;
    const res = await createBcard(alice.cookie, { name: 'Too much', balance: '20000.00', fundingSources: split([a2, 1], [a1, 99]) }, { 'Idempotency-Key': key });
    expectError(res, 402, 'insufficient_funds');
    const p = await progress(alice.cookie, key);
    expect(p.body.stage).toBe('failed');
    expect(p.body.shares.map((s: { fundingSourceId: string; status: string }) => [s.fundingSourceId, s.status])).toEqual([
      [a2, 'voided'],
      [a1, 'declined'],
    ]);
  });

  test("another user's key, and a key never used, read as not started", async () => {
    const key = `progress-private-${crypto.randomUUID()}`;
    expect((await createBcard(alice.cookie, { name: 'Private', balance: '5.00', fundingSources: split([a1, 100]) }, { 'Idempotency-Key': key })).status).toBe(201);
    expect((await progress(bob.cookie, key)).body).toEqual({ stage: 'not_started', shares: [] });
    expect((await progress(alice.cookie, `never-${crypto.randomUUID()}`)).body).toEqual({ stage: 'not_started', shares: [] });
  });

  const rows: Array<{ name: string; cookie: 'alice' | 'none'; key: string; expectStatus: number; expectCode: ErrorCode }> = [
    { name: 'no session', cookie: 'none', key: 'k', expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'a key with a space', cookie: 'alice', key: 'a b', expectStatus: 400, expectCode: 'validation_error' },
    { name: 'an empty key', cookie: 'alice', key: '', expectStatus: 400, expectCode: 'validation_error' },
  ];
  for (const row of rows) {
    test(`${row.name} -> ${row.expectStatus} ${row.expectCode}`, async () => {
      expectError(await progress(row.cookie === 'none' ? null : alice.cookie, row.key), row.expectStatus, row.expectCode);
    });
  }
});
