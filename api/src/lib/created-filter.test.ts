import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { AppError } from '../errors';
import { makeTestApp, merchantCall, type TestContext } from '../../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../../test-support/world';
import { resetRateWindows } from '../modules/merchants/usage';
import { parseCreatedFilter } from './created-filter';

describe('parseCreatedFilter', () => {
  const at = (s: number) => new Date(s * 1000);
  const parse = (qs: string) => parseCreatedFilter(new URLSearchParams(qs));
  test('each operator, combined; other parameters ignored', () => {
    expect(parse('')).toEqual({});
    expect(parse('limit=3&created[gte]=100')).toEqual({ gte: at(100) });
    expect(parse('created[gt]=5&created[lt]=9')).toEqual({ gt: at(5), lt: at(9) });
    expect(parse('created[lte]=0')).toEqual({ lte: at(0) });
    expect(parse('created=1767225600')).toEqual({ gte: at(1767225600), lte: at(1767225600) });
    expect(parse('created[lt]=253402300799')).toEqual({ lt: at(253_402_300_799) });
  });

  const bad: Array<[string, string]> = [
    ['created[gte]=1.5', 'created[gte]'],
    ['created[gt]=-1', 'created[gt]'],
    ['created[lte]=soon', 'created[lte]'],
    ['created[lt]=253402300800', 'created[lt]'],
    ['created=x', 'created'],
    ['created=5&created[gte]=1', 'created'],
    ['created[after]=5', 'created[after]'],
    // What Number() would have read: blank as 0, hex, an exponent, infinities, a sign, surrounding spaces.
    ['created[gte]=%20', 'created[gte]'],
    ['created[gte]=', 'created[gte]'],
    ['created[gte]=0x10', 'created[gte]'],
    ['created[gte]=1e3', 'created[gte]'],
    ['created[gte]=Infinity', 'created[gte]'],
    ['created[gte]=1e400', 'created[gte]'],
    ['created[gte]=%2B5', 'created[gte]'],
    ['created[gte]=%205', 'created[gte]'],
    ['created[gte]=0000000000001', 'created[gte]'],
    // Repeated: no silent "last one wins".
    ['created[gte]=1&created[gte]=2000000000', 'created[gte]'],
    ['created=1&created=2000000000', 'created'],
  ];
  for (const [qs, param] of bad) {
    test(`${qs} -> validation_error naming ${param}`, () => {
      let thrown: unknown;
      try {
        parse(qs);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect({ code: (thrown as AppError).code, param: (thrown as AppError).param }).toEqual({ code: 'validation_error', param });
      expect((thrown as AppError).message).toContain(param);
    });
  }

  test('an unknown operator is named escaped and cut to 80 characters', () => {
    let thrown: unknown;
    try {
      parse(`created[${'x'.repeat(5000)}]=1`);
    } catch (e) {
      thrown = e;
    }
    const e = thrown as AppError;
    expect(e.param!.length).toBeLessThanOrEqual(81);
    expect(e.message.length).toBeLessThan(300);
  });
});

describe('created filters on the merchant lists', () => {
  let ctx: TestContext;
  let m: TestMerchant;
  /** Unix seconds at which each intent was created: t0, t0 + 10, t0 + 20, t0 + 30 (each in the middle of its second). */
  let t0: number;
  const ids: string[] = [];

  beforeAll(async () => {
    ctx = await makeTestApp();
    const owner = await registerUser(ctx);
    m = await createMerchant(ctx, owner.cookie, 'sandbox');
    ctx.clock.advance(3_600_000 + 500);
    t0 = Math.floor(ctx.clock.now().getTime() / 1000);
    for (let i = 0; i < 4; i++) {
      const res = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 100 + i, currency: 'usd' } });
      expect(res.body.created).toBe(t0 + 10 * i);
      ids.push(res.body.id);
      ctx.clock.advance(10_000);
    }
  });
  afterAll(() => ctx.close());
  beforeEach(() => resetRateWindows());

  const listed = async (qs: string) => {
    const res = await merchantCall(ctx, m.secretKey, `/payment_intents?limit=100&${qs}`);
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ id: string }>).map((x) => ids.indexOf(x.id)).filter((i) => i >= 0).sort();
  };

  const rows: Array<[string, (t: number) => string, number[]]> = [
    ['gte its second', (t) => `created[gte]=${t + 10}`, [1, 2, 3]],
    ['gt its second', (t) => `created[gt]=${t + 10}`, [2, 3]],
    ['lte its second', (t) => `created[lte]=${t + 10}`, [0, 1]],
    ['lt its second', (t) => `created[lt]=${t + 10}`, [0]],
    ['a window', (t) => `created[gte]=${t + 5}&created[lt]=${t + 30}`, [1, 2]],
    ['exactly one second', (t) => `created=${t + 20}`, [2]],
    ['a second nothing was made in', (t) => `created=${t + 21}`, []],
    ['brackets percent-encoded, as URLSearchParams writes them', (t) => `created%5Bgte%5D=${t + 30}`, [3]],
  ];
  for (const [name, qs, expected] of rows) {
    test(`payment intents: ${name}`, async () => {
      expect(await listed(qs(t0))).toEqual(expected);
    });
  }

  test('with a cursor: the filter holds on every page', async () => {
    const first = await merchantCall(ctx, m.secretKey, `/payment_intents?limit=1&created[gte]=${t0 + 10}`);
    expect(first.body.data.map((x: { id: string }) => x.id)).toEqual([ids[3]]);
    expect(first.body.has_more).toBe(true);
    const rest = await merchantCall(ctx, m.secretKey, `/payment_intents?limit=10&created[gte]=${t0 + 10}&starting_after=${ids[3]}`);
    expect(rest.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
    expect(rest.body.has_more).toBe(false);
  });

  test('events: the same filter (each intent made one payment_intent.created)', async () => {
    const res = await merchantCall(ctx, m.secretKey, `/events?type=payment_intent.created&created[gt]=${t0}&created[lte]=${t0 + 20}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { data: { object: { id: string } } }) => e.data.object.id)).toEqual([ids[2], ids[1]]);
  });

  const badOnEveryList: Array<[string, string]> = [
    ['created[gte]=%20', 'created[gte]'],
    ['created[gte]=0x10', 'created[gte]'],
    ['created[gte]=1e3', 'created[gte]'],
    ['created[gte]=Infinity', 'created[gte]'],
    ['created[lt]=1e400', 'created[lt]'],
    ['created[gte]=1&created[gte]=2000000000', 'created[gte]'],
    ['created=1&created=2000000000', 'created'],
  ];
  for (const [qs, param] of badOnEveryList) {
    test(`${qs} -> 400 naming ${param} on payment intents, events and refunds`, async () => {
      for (const path of ['/payment_intents', '/events', '/refunds']) {
        resetRateWindows();
        const res = await merchantCall(ctx, m.secretKey, `${path}?${qs}`);
        expect({ path, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
          path,
          status: 400,
          code: 'validation_error',
          param,
        });
      }
    });
  }

  test('a bad bound -> 400 naming it, on every list', async () => {
    for (const path of ['/payment_intents', '/events', '/refunds']) {
      const res = await merchantCall(ctx, m.secretKey, `${path}?created[gte]=yesterday`);
      expect({ status: res.status, param: res.body.error.param }).toEqual({ status: 400, param: 'created[gte]' });
      expect(res.body.error.message).toBe('created[gte] must be a Unix timestamp in seconds (a whole number from 0 to 253402300799, such as 1767225600).');
    }
  });
});
