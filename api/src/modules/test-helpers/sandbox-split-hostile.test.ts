import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { createIntent, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';

/*
 * A hostile merchant against split sandbox test bcards (issue 28 §3 audit): shapes and amounts no client would send,
 * form bodies that only look like lists, refunds repeated and raced against a share that refuses them, and slow
 * test sources sent many at once. Each is refused by name with nothing written, or keeps every money invariant.
 */

let ctx: TestContext;
let sandbox: Merchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  sandbox = await newMerchant(ctx, owner.cookie, 'sandbox');
});
afterAll(() => ctx.close());

const q = async (sql: string, args: (string | number)[] = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const written = () => q('SELECT (SELECT count(*) FROM collections) AS c, (SELECT count(*) FROM funding_sources) AS f, (SELECT count(*) FROM sim_cards) AS s');
const makeCard = (amount: number, allocations: unknown, headers?: Record<string, string>) =>
  v1(ctx, sandbox.key, '/test_helpers/bcards', { method: 'POST', body: { amount, allocations }, headers });
const formCard = (body: string) =>
  ctx.app.handle(
    new Request('http://localhost/api/v1/test_helpers/bcards', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }),
  );

/** A sandbox intent paid by a split test bcard. */
async function paidIntent(amount: number, allocations: Array<{ amount: number; source: string }>) {
  const card = await makeCard(amount, allocations);
  expect(card.status).toBe(200);
  const pi = await createIntent(ctx, sandbox, amount);
  const paid = await v1(ctx, sandbox.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.body.id } });
  expect(paid.body.status).toBe('succeeded');
  return pi;
}

/** No test source's hold was ever refunded more than it captured. */
const overRefundedHolds = () => q('SELECT id FROM sim_holds WHERE refunded_cents > amount_cents');

describe('allocations no client sends', () => {
  test.each([
    ['null', null, 'allocations'],
    ['an object', { amount: 2000, source: 'tok_visa' }, 'allocations'],
    ['an empty list', [], 'allocations'],
    ['a negative share', [{ amount: -500, source: 'tok_visa' }, { amount: 2500, source: 'tok_visa' }], 'allocations[0][amount]'],
    ['a share too large for an integer', [{ amount: 1e300, source: 'tok_visa' }, { amount: 2000, source: 'tok_visa' }], 'allocations[0][amount]'],
    ['a share as a decimal string', [{ amount: '1000.0', source: 'tok_visa' }, { amount: 1000, source: 'tok_visa' }], 'allocations[0][amount]'],
    ['Object.prototype names as sources', [{ amount: 1000, source: '__proto__' }, { amount: 1000, source: 'constructor' }], 'allocations[0][source]'],
    ['a source that is no string', [{ amount: 1000, source: ['tok_visa'] }, { amount: 1000, source: 'tok_visa' }], 'allocations[0][source]'],
  ])('%s -> 400 naming the parameter; nothing written', async (_name, allocations, param) => {
    const before = await written();
    const res = await makeCard(2000, allocations);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
    expect(await written()).toEqual(before);
  });

  test.each([
    ['a plain value', 'amount=2000&allocations=tok_visa', 'allocations'],
    ['a list of strings', 'amount=2000&allocations[0]=tok_visa&allocations[1]=tok_visa', 'allocations[0]'],
    ['members named, not indexed', 'amount=2000&allocations[a][amount]=1000&allocations[a][source]=tok_visa&allocations[b][amount]=1000&allocations[b][source]=tok_visa', 'allocations'],
    ['a signed amount', 'amount=2000&allocations[0][amount]=%2B1000&allocations[0][source]=tok_visa&allocations[1][amount]=1000&allocations[1][source]=tok_visa', 'allocations[0][amount]'],
    ['a negative amount', 'amount=2000&allocations[0][amount]=-1000&allocations[0][source]=tok_visa&allocations[1][amount]=3000&allocations[1][source]=tok_visa', 'allocations[0][amount]'],
    ['a decimal amount', 'amount=2000&allocations[0][amount]=1000.0&allocations[0][source]=tok_visa&allocations[1][amount]=1000&allocations[1][source]=tok_visa', 'allocations[0][amount]'],
  ])('form-encoded, %s -> 400 naming the parameter; nothing written', async (_name, body, param) => {
    const before = await written();
    const res = await formCard(body);
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe(param);
    expect(await written()).toEqual(before);
  });
});

describe('refunds against a share that refuses them', () => {
  test('refunded again and again, no share ever gets back more than it paid, and the money agrees', async () => {
    const pi = await paidIntent(3000, [
      { amount: 1000, source: 'tok_visa' },
      { amount: 1000, source: 'tok_refundFail' },
      { amount: 1000, source: 'tok_visa_debit' },
    ]);
    let back = 0;
    for (const amount of [1700, 900, 1000, 400, 1]) {
      const r = await v1(ctx, sandbox.key, '/refunds', { method: 'POST', body: { payment_intent: pi, amount } });
      expect(r.status).toBe(200);
      // What the refused share was asked for never counts as given back.
      expect(r.body.amount).toBeLessThan(amount + 1);
      if (r.body.status === 'succeeded') back += r.body.amount;
    }
    const charge = (await v1(ctx, sandbox.key, `/charges?payment_intent=${pi}`)).body.data[0];
    expect(charge.allocations[1]).toMatchObject({ last4: '5126', amount_refunded: 0 });
    for (const a of charge.allocations) expect(a.amount_refunded).toBeLessThanOrEqual(a.amount);
    expect(charge.amount_refunded).toBe(back);
    expect(await overRefundedHolds()).toEqual([]);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('six refunds of a third each at once (different keys): three succeed, the rest are refused; nothing over-refunded', async () => {
    const pi = await paidIntent(3000, [
      { amount: 1500, source: 'tok_visa' },
      { amount: 1500, source: 'tok_visa_debit' },
    ]);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        v1(ctx, sandbox.key, '/refunds', { method: 'POST', body: { payment_intent: pi, amount: 1000 }, headers: { 'idempotency-key': `third-${i}` } }),
      ),
    );
    expect(answers.filter((a) => a.status === 200 && a.body.status === 'succeeded')).toHaveLength(3);
    expect(answers.filter((a) => a.status === 400).map((a) => a.body.error.code)).toEqual(Array(3).fill('charge_already_refunded'));
    expect(await overRefundedHolds()).toEqual([]);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });
});

describe('tok_slow sent many at once', () => {
  test('the slow ones do not hold up another request, and every collection settles with the money agreeing', async () => {
    // Long enough that the fast request, sent after them, is answered while all four still wait.
    ctx.deps.sandboxSlowMs = 4000;
    try {
      const order: string[] = [];
      const slow = Array.from({ length: 4 }, (_, i) =>
        makeCard(2000, [{ amount: 1000, source: 'tok_slow' }, { amount: 1000, source: 'tok_captureFail' }], { 'idempotency-key': `slow-${i}` }).then((r) => {
          order.push(`slow ${r.status}`);
          return r;
        }),
      );
      await Bun.sleep(50);
      const fast = await makeCard(2000, [{ amount: 1000, source: 'tok_visa' }, { amount: 1000, source: 'tok_visa_debit' }]);
      order.push(`fast ${fast.status}`);
      await Promise.all(slow);
      expect(order).toEqual(['fast 200', 'slow 402', 'slow 402', 'slow 402', 'slow 402']);
      expect(await q("SELECT count(*) AS n FROM collections WHERE status IN ('holding', 'capturing', 'refunding')")).toEqual([{ n: 0 }] as any);
      expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
    } finally {
      ctx.deps.sandboxSlowMs = undefined;
    }
  });
});
