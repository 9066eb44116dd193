import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';

/*
 * The Create bcard dialog's fixed-amount mode (issue 12): POST /api/virtual-cards splits by percentage when every
 * entry has one, otherwise by each entry's `amount` (fee included), which must add up to balance + fee within $0.01.
 */

let ctx: TestContext;
let user: { cookie: string; id: string };
let a: string;
let b: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx);
  user = { cookie: u.cookie, id: u.user.id };
  a = (await addCard(ctx, u.cookie, CARDS_OK[0])).id;
  b = (await addCard(ctx, u.cookie, CARDS_OK[1])).id;
});
afterAll(() => ctx.close());

const create = (fundingSources: unknown[], balance = '100.00') =>
  call(ctx, '/api/virtual-cards', { method: 'POST', cookie: user.cookie, body: { name: 'Fixed', balance, fundingSources } });
const bcardCount = async () =>
  Number((await ctx.handle.client.execute({ sql: 'SELECT count(*) AS n FROM bcards WHERE user_id = ?', args: [user.id] })).rows[0]!.n);

describe('POST /api/virtual-cards with fixed amounts', () => {
  test('each source pays exactly its amount; $100 + 2.9 % = $102.90', async () => {
    const res = await create([
      { fundingSourceId: a, amount: '70.40' },
      { fundingSourceId: b, amount: '32.50' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.totalCharged).toBe('102.90');
    expect(res.body.fundingSources.map((s: { amount: string }) => s.amount)).toEqual(['70.40', '32.50']);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('one cent off is absorbed by the largest share; two cents off is refused with the spec text', async () => {
    const near = await create([
      { fundingSourceId: a, amount: '70.40' },
      { fundingSourceId: b, amount: '32.49' },
    ]);
    expect(near.status).toBe(201);
    expect(near.body.fundingSources.map((s: { amount: string }) => s.amount)).toEqual(['70.41', '32.49']);

    const count = await bcardCount();
    const far = await create([
      { fundingSourceId: a, amount: '70.40' },
      { fundingSourceId: b, amount: '32.48' },
    ]);
    expect(far.status).toBe(400);
    expect(far.body.error).toMatchObject({
      code: 'invalid_splits',
      message: 'Total fixed amounts ($102.88) must equal the total payment amount ($102.90) including fees.',
    });
    expect(await bcardCount()).toBe(count);
  });

  test('a percentage on every entry wins: amount is then only informative', async () => {
    const res = await create([
      { fundingSourceId: a, percentage: 50, amount: '1.00' },
      { fundingSourceId: b, percentage: 50, amount: '1.00' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.fundingSources.map((s: { amount: string }) => s.amount)).toEqual(['51.45', '51.45']);
  });

  test('mixing modes, or a malformed amount, is a client error', async () => {
    const mixed = await create([{ fundingSourceId: a, percentage: 100 }, { fundingSourceId: b, amount: '10.00' }]);
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.code).toBe('invalid_splits');
    const bad = await create([{ fundingSourceId: a, amount: '10.001' }]);
    expect(bad.status).toBe(400);
    const negative = await create([{ fundingSourceId: a, amount: -5 }]);
    expect(negative.status).toBe(400);
    const none = await create([{ fundingSourceId: a }]);
    expect(none.status).toBe(400);
  });

  test('a share of 52.905 (text or number, fixed or informative) is refused naming the field, never rounded', async () => {
    const count = await bcardCount();
    const bodies: Array<[unknown[], string]> = [
      [[{ fundingSourceId: a, amount: '52.905' }, { fundingSourceId: b, amount: '50.00' }], 'fundingSources.0.amount'],
      [[{ fundingSourceId: a, amount: '50.00' }, { fundingSourceId: b, amount: 52.905 }], 'fundingSources.1.amount'],
      [[{ fundingSourceId: a, percentage: 50, amount: 52.905 }, { fundingSourceId: b, percentage: 50 }], 'fundingSources.0.amount'],
    ];
    for (const [fundingSources, param] of bodies) {
      const res = await create(fundingSources);
      expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status: 400, code: 'validation_error', param });
      expect(res.body.error.message).toMatch(/^(fundingSources\.\d\.)?amount must be an amount in dollars with at most 2 decimals, such as 52\.90: a third decimal is refused, never rounded\.$/);
    }
    expect(await bcardCount()).toBe(count);
  });
});
