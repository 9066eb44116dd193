import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { makeTestApp, merchantCall, call, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, testBcardCard, type TestMerchant } from '../../../test-support/world';
import { resetRateWindows } from '../merchants/usage';
import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { SEARCH_SCAN_ROWS, scanRowsFor, searchIntents } from './search';
import { parseSearchQuery } from './search-query';

/*
 * GET /api/v1/payment_intents/search (and /v1/…): Stripe's search query language over the merchant's intents in its
 * mode. Filters by status, amount, currency, created and metadata; pages with next_page until has_more is false;
 * another merchant's intents and the other mode's never appear; a bad query is a 400 naming query.
 */

let ctx: TestContext;
/** Two sandbox merchants of different owners and a production merchant of A's owner. */
let a: TestMerchant;
let b: TestMerchant;
let live: TestMerchant;

interface Intent {
  id: string;
  amount: number;
  status: string;
  created: number;
  metadata: Record<string, string>;
  livemode: boolean;
}

const create = async (m: TestMerchant, body: Record<string, unknown>): Promise<Intent> => {
  const res = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { currency: 'usd', ...body } });
  expect(res.status).toBe(200);
  return res.body;
};
const search = (m: TestMerchant, query: string | null, extra = '') =>
  merchantCall(ctx, m.secretKey, `/payment_intents/search?${query === null ? '' : `query=${encodeURIComponent(query)}`}${extra}`);
/** The ids a query finds (one page of up to 100). */
const ids = async (m: TestMerchant, query: string) => {
  const res = await search(m, query, '&limit=100');
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Intent[]).map((p) => p.id);
};

/** A's sandbox intents, oldest first. */
let made: Intent[] = [];
let paid: Intent;
let canceled: Intent;
let before: number;
let after: number;

beforeAll(async () => {
  ctx = await makeTestApp();
  const ownerA = await registerUser(ctx);
  const ownerB = await registerUser(ctx);
  a = await createMerchant(ctx, ownerA.cookie, 'sandbox');
  b = await createMerchant(ctx, ownerB.cookie, 'sandbox');
  live = await createMerchant(ctx, ownerA.cookie, 'production');

  made.push(await create(a, { amount: 1000, metadata: { order: '41', note: 'gift wrap' } }));
  before = made[0]!.created;
  ctx.clock.advance(10_000);
  made.push(await create(a, { amount: 2000, metadata: { order: '42' } }));
  made.push(await create(a, { amount: 3000, metadata: { order: '43', note: "O'Brien's GIFT" } }));
  made.push(await create(a, { amount: 4000 }));
  ctx.clock.advance(10_000);
  after = Math.floor(ctx.clock.now().getTime() / 1000);
  made.push(await create(a, { amount: 5000, metadata: { order: '42' } }));
  // The second one is paid with a sandbox test bcard, the fourth canceled.
  const { card } = await testBcardCard(ctx, a.secretKey, 2000);
  const confirm = await merchantCall(ctx, a.secretKey, `/payment_intents/${made[1]!.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  expect(confirm.body.status).toBe('succeeded');
  paid = confirm.body;
  const cancel = await merchantCall(ctx, a.secretKey, `/payment_intents/${made[3]!.id}/cancel`, { method: 'POST', body: {} });
  expect(cancel.body.status).toBe('canceled');
  canceled = cancel.body;
  // Look-alikes elsewhere: B's intent and A's production intent have the same amount and metadata.
  await create(b, { amount: 2000, metadata: { order: '42' } });
  await create(live, { amount: 2000, metadata: { order: '42' } });
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const idsOf = (...i: number[]) => i.map((n) => made[n]!.id);

describe('filters', () => {
  const cases: Array<[string, number[]]> = [
    ["status:'succeeded'", [1]],
    ['status:"canceled"', [3]],
    ["-status:'requires_payment_method'", [3, 1]],
    ["currency:'usd'", [4, 3, 2, 1, 0]],
    ["currency:'USD'", [4, 3, 2, 1, 0]],
    ["-currency:'usd'", []],
    ['amount:3000', [2]],
    ['amount=3000', [2]],
    ['amount>3000', [4, 3]],
    ['amount>=3000', [4, 3, 2]],
    ['amount<2000', [0]],
    ['amount<=2000', [1, 0]],
    ['-amount>1000', [0]],
    ['amount>1000 amount<5000', [3, 2, 1]],
    ['amount>1000 AND amount<5000', [3, 2, 1]],
    ['amount<2000 OR amount>4000', [4, 0]],
    ["metadata['order']:'42'", [4, 1]],
    ['metadata["order"]:"42"', [4, 1]],
    ["metadata['order']:'42' AND amount>2000", [4]],
    ["-metadata['order']:'42'", [3, 2, 0]],
    ["metadata['order']:null", [3]],
    ["-metadata['order']:null", [4, 2, 1, 0]],
    ["metadata['note']~'gift'", [0]],
    ["metadata['note']~'Brien\\'s'", [2]],
    ["metadata['note']:'O\\'Brien\\'s GIFT'", [2]],
    ["metadata['nothing']:'42'", []],
    ["status:'succeeded' AND metadata['order']:'42'", [1]],
    ["status:'succeeded' OR status:'canceled'", [3, 1]],
  ];
  for (const [query, want] of cases) {
    test(query, async () => expect(await ids(a, query)).toEqual(idsOf(...want)));
  }

  test('created in whole Unix seconds: :, >, <, >=, <=', async () => {
    expect(await ids(a, `created:${before}`)).toEqual(idsOf(0));
    expect(await ids(a, `created<=${before}`)).toEqual(idsOf(0));
    expect(await ids(a, `created>${before}`)).toEqual(idsOf(4, 3, 2, 1));
    expect(await ids(a, `created>=${after}`)).toEqual(idsOf(4));
    expect(await ids(a, `created<${after}`)).toEqual(idsOf(3, 2, 1, 0));
    expect(await ids(a, `created>${before} AND created<${after}`)).toEqual(idsOf(3, 2, 1));
  });

  test('the answer is Stripe\'s search_result, each intent as retrieve answers it', async () => {
    const res = await search(a, "status:'succeeded'");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'search_result', url: '/v1/payment_intents/search', has_more: false, next_page: null, data: [paid] });
    expect((await search(a, "status:'canceled'")).body.data).toEqual([canceled]);
  });

  test('values that look like SQL match nothing, and change nothing', async () => {
    for (const query of [
      "metadata['order']:'42\\' OR \\'1\\'=\\'1'",
      "metadata['order\\') OR 1=1 --']:null",
      "metadata['order']~'%%%'",
      "metadata['order']:'42; DROP TABLE payment_intents'",
    ]) {
      const res = await search(a, query, '&limit=100');
      expect(res.status).toBe(200);
      if (query.includes(':null')) expect(res.body.data).toHaveLength(made.length);
      else expect(res.body.data).toEqual([]);
    }
    expect(await ids(a, "currency:'usd'")).toHaveLength(made.length);
  });
});

describe('pages', () => {
  test('next_page walks every match once, newest first, until has_more is false', async () => {
    const seen: string[] = [];
    let page: string | null = null;
    let pages = 0;
    do {
      const res = await search(a, "currency:'usd'", `&limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      pages++;
      seen.push(...(res.body.data as Intent[]).map((p) => p.id));
      expect(res.body.has_more).toBe(res.body.next_page !== null);
      page = res.body.next_page;
      if (page) expect(res.body.data).toHaveLength(2);
    } while (page);
    expect(pages).toBe(3);
    expect(seen).toEqual(idsOf(4, 3, 2, 1, 0));
  });

  test('a page that ends exactly on the last match says has_more false', async () => {
    const res = await search(a, "metadata['order']:'42'", '&limit=2');
    expect({ has_more: res.body.has_more, next_page: res.body.next_page, n: res.body.data.length }).toEqual({ has_more: false, next_page: null, n: 2 });
  });

  test('limit is 10 unless given, 1 to 100', async () => {
    for (let i = 0; i < 6; i++) await create(a, { amount: 100 + i, metadata: { batch: 'limit' } });
    expect((await search(a, "metadata['batch']:'limit'", '&limit=1')).body.data).toHaveLength(1);
    const all = await search(a, "metadata['batch']:'limit' OR metadata['order']:null OR metadata['order']:'41'");
    expect(all.body.data).toHaveLength(8);
    expect(all.body.has_more).toBe(false);
    for (const limit of ['0', '101', 'ten']) {
      const res = await search(a, "status:'succeeded'", `&limit=${limit}`);
      expect({ status: res.status, code: res.body.error.code, param: res.body.error.param }).toEqual({ status: 400, code: 'validation_error', param: 'limit' });
    }
  });

  test("a page token of another query, another merchant's or a made-up one is refused, naming page", async () => {
    const first = await search(a, "currency:'usd'", '&limit=1');
    const token = first.body.next_page as string;
    expect(token).toBeTruthy();
    for (const [m, query, page] of [
      [a, 'amount>0', token],
      [b, "currency:'usd'", token],
      [a, "currency:'usd'", 'not-a-token'],
      [a, "currency:'usd'", Buffer.from('12.abc').toString('base64url')],
    ] as const) {
      const res = await search(m, query, `&limit=1&page=${encodeURIComponent(page)}`);
      expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status: 400, code: 'validation_error', param: 'page' });
    }
  });
});

describe('scope: the merchant and its mode', () => {
  test("another merchant's intents never appear, whatever the query", async () => {
    const mine = new Set(made.map((p) => p.id));
    for (const query of ["metadata['order']:'42'", "-status:'succeeded'", 'amount>0', "currency:'usd' OR -currency:'usd'"]) {
      const bIds = await ids(b, query);
      for (const id of bIds) expect(mine.has(id)).toBe(false);
    }
    expect(await ids(b, "metadata['order']:'42'")).toHaveLength(1);
  });

  test('a production key finds production intents only, a sandbox key sandbox ones only', async () => {
    const res = await search(live, "metadata['order']:'42'");
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].livemode).toBe(true);
    const sandbox = await search(a, "metadata['order']:'42'");
    expect((sandbox.body.data as Intent[]).every((p) => p.livemode === false)).toBe(true);
  });

  test('needs the secret key', async () => {
    expect((await merchantCall(ctx, null, `/payment_intents/search?query=amount>0`)).status).toBe(401);
    expect((await merchantCall(ctx, a.publishableKey, `/payment_intents/search?query=amount>0`)).status).toBe(403);
  });
});

describe('the route', () => {
  test('answers at /v1 as at /api/v1, and "search" is never read as an intent id', async () => {
    const q = encodeURIComponent("status:'succeeded'");
    const headers = { authorization: `Bearer ${a.secretKey}` };
    const v1 = await call(ctx, `/v1/payment_intents/search?query=${q}`, { headers, origin: null });
    const api = await call(ctx, `/api/v1/payment_intents/search?query=${q}`, { headers, origin: null });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(api.body);
    expect(v1.body.data).toEqual([paid]);
  });

  test('a bad query: 400 invalid_request_error naming query, with the position and the token', async () => {
    const res = await search(a, "status:'succeeded' OR amount>5 AND currency:'usd'");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_error', param: 'query' });
    expect(res.body.error.message).toBe(
      'The search query is not valid at character 32 ("AND"): AND and OR cannot be mixed in one query (a space between clauses means AND): ' +
        'join every clause with AND, or every one with OR.',
    );
    const missing = await search(a, null);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'validation_error', param: 'query' });
    expect(missing.body.error.message).toStartWith('query is required');
    const twice = await search(a, "status:'succeeded'", `&query=${encodeURIComponent("status:'canceled'")}`);
    expect(twice.body.error).toMatchObject({ code: 'validation_error', param: 'query', message: 'query was given more than once: give one query (join clauses with AND or OR).' });
    const unknown = await search(a, "email:'amy@example.com'");
    expect(unknown.body.error.message).toContain('email is not a field bpay searches');
  });
});

describe('bounded work (hostile review 28-H)', () => {
  // A merchant's search reads at most `scanRows` of its intents per request (SEARCH_SCAN_ROWS in production): a query
  // matching nothing, over many intents with large metadata, would otherwise hold the server for seconds.
  test('a request reads at most scanRows intents; has_more and next_page walk on to the older ones', async () => {
    const owner = await registerUser(ctx);
    const c = await createMerchant(ctx, owner.cookie, 'sandbox');
    const mine: Intent[] = [];
    mine.push(await create(c, { amount: 500, metadata: { rare: 'yes' } }));
    for (let i = 0; i < 6; i++) mine.push(await create(c, { amount: 600 + i }));
    const row = (await firstRow(ctx.deps.db, schema.merchants, eq(schema.merchants.id, c.id)))!;
    const query = ["metadata['rare']:'yes'"];
    const pages: { n: number; has_more: boolean }[] = [];
    const found: string[] = [];
    let page: string | undefined;
    do {
      const res = await searchIntents(ctx.deps, row, false, { query, limit: 10, page }, 3);
      pages.push({ n: res.data.length, has_more: res.has_more });
      found.push(...res.data.map((p) => p.id));
      expect(res.has_more).toBe(res.next_page !== null);
      page = res.next_page ?? undefined;
    } while (page);
    // 7 intents, 3 a request: the two newer windows match nothing and say so with has_more, the last finds the one.
    expect(pages).toEqual([
      { n: 0, has_more: true },
      { n: 0, has_more: true },
      { n: 1, has_more: false },
    ]);
    expect(found).toEqual([mine[0]!.id]);
    // Matches within a window page as before: limit reached, next_page starts after the last one shown.
    const all = await searchIntents(ctx.deps, row, false, { query: ["currency:'usd'"], limit: 2 }, 3);
    expect(all.data.map((p) => p.id)).toEqual([mine[6]!.id, mine[5]!.id]);
    const next = await searchIntents(ctx.deps, row, false, { query: ["currency:'usd'"], limit: 2, page: all.next_page! }, 3);
    expect(next.data.map((p) => p.id)).toEqual([mine[4]!.id, mine[3]!.id]);
    expect(SEARCH_SCAN_ROWS).toBeLessThanOrEqual(1000);
    // Metadata clauses are the costly part: ten of them read 100 intents a request, one of them 1,000.
    const tenOf = Array.from({ length: 10 }, (_, i) => `metadata['k${i}']~'zzz'`).join(' OR ');
    expect(scanRowsFor(parseSearchQuery(tenOf))).toBe(100);
    expect(scanRowsFor(parseSearchQuery("metadata['k']:'v' status:'succeeded'"))).toBe(1000);
    expect(scanRowsFor(parseSearchQuery("status:'succeeded'"))).toBe(1000);
  });
});
