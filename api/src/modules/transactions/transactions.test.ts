import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseDecimal } from '@bpay/db/money';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { postCard, registerUser, setTier } from '../../../test-support/world';
import type { PaymentVendor } from '../../vendors/types';
import { NEXT_CURSOR_HEADER } from './routes';
import { CSV_COLUMNS } from './service';

/*
 * GET /api/transactions (newest first, filtered, paged by the bpay-next-cursor header), GET /:id with its shares,
 * and the CSV export (same filter, spreadsheet formulas neutralised). The clock moves a minute between the
 * transactions so their order is known.
 */

const TX = '/api/transactions';
const HYPERLINK = '=HYPERLINK("x")';

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

const cents = (s: string) => parseDecimal(s) as number;

/** RFC 4180: quoted cells, doubled quotes, CRLF line ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) throw new Error('the CSV does not end with CRLF');
  return rows;
}

type Tx = { id: string; createdAt: string; merchant: string; status: string; amount: string; totalCharged: string; refunded: string; virtualCardName: string; failureMessage: string | null };

let ctx: TestContext;
let user: { cookie: string; id: string };
let other: { cookie: string; id: string };
let s1: string;
let s2: string;
/** Transaction ids in the order they were made. */
const made: Record<'first' | 'failed' | 'canceled' | 'coffee' | 'formula', string> = {} as never;
let othersTx: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx);
  const o = await registerUser(ctx);
  user = { cookie: u.cookie, id: u.user.id };
  other = { cookie: o.cookie, id: o.user.id };
  await setTier(ctx, user.id, 'tier_pro');
  s1 = (await postCard(ctx, user.cookie, '4242424242424242')).body.id;
  s2 = (await postCard(ctx, user.cookie, '5555555555554444')).body.id;
  const o1 = (await postCard(ctx, other.cookie, '4242424242424242')).body.id;

  const split = [
    { fundingSourceId: s1, percentage: 50 },
    { fundingSourceId: s2, percentage: 50 },
  ];
  const step = () => ctx.clock.advance(60_000);
  const bcard = (body: unknown) => call(ctx, '/api/virtual-cards', { method: 'POST', body, cookie: user.cookie });
  const pay = (body: unknown) => call(ctx, '/api/process-payment', { method: 'POST', body, cookie: user.cookie });

  const first = await bcard({ name: 'First', balance: '10.00', fundingSources: split });
  made.first = first.body.transactionId;
  step();
  const failed = await bcard({ name: 'Too big', balance: '9900.00', fundingSources: [{ fundingSourceId: s1, percentage: 100 }] });
  expect(failed.status).toBe(402);
  step();
  const canceled = await bcard({ name: 'Canceled', balance: '5.00', fundingSources: split });
  made.canceled = canceled.body.transactionId;
  expect((await call(ctx, `/api/virtual-cards/${canceled.body.id}/cancel`, { method: 'POST', cookie: user.cookie })).status).toBe(200);
  step();
  const coffee = await pay({ amount: '3.50', merchant: 'Coffee', splits: split });
  expect(coffee.status).toBe(200);
  made.coffee = coffee.body.transaction.id;
  step();
  const formula = await pay({ amount: '2.00', merchant: HYPERLINK, description: '+SUM(A1:A9)', splits: split });
  expect(formula.status).toBe(200);
  made.formula = formula.body.transaction.id;
  step();
  const others = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: other.cookie,
    body: { name: 'Not yours', balance: '1.00', fundingSources: [{ fundingSourceId: o1, percentage: 100 }] },
  });
  othersTx = others.body.transactionId;
  const all = (await call(ctx, `${TX}?status=failed`, { cookie: user.cookie })).body as Tx[];
  made.failed = all[0]!.id;
});
afterAll(() => {
  ctx.close();
});

const list = async (query = '') => {
  const res = await call(ctx, `${TX}${query}`, { cookie: user.cookie });
  expect(res.status).toBe(200);
  return res.body as Tx[];
};

describe('GET /api/transactions', () => {
  test('newest first, only the caller’s, each with its status', async () => {
    const txs = await list();
    expect(txs.map((t) => t.id)).toEqual([made.formula, made.coffee, made.canceled, made.failed, made.first]);
    // First is an unused bcard still holding its money: pending, never completed (issue 25).
    expect(txs.map((t) => t.status)).toEqual(['completed', 'completed', 'refunded', 'failed', 'pending']);
    for (let i = 1; i < txs.length; i++) expect(txs[i - 1]!.createdAt > txs[i]!.createdAt).toBe(true);
    expect(txs.map((t) => t.id)).not.toContain(othersTx);
    expect(txs.find((t) => t.id === made.coffee)).toMatchObject({ merchant: 'Coffee', amount: '3.50', virtualCardName: 'Coffee purchase' });
    expect(txs.find((t) => t.id === made.first)).toMatchObject({ merchant: 'bpay', amount: '10.00', totalCharged: '10.29', virtualCardName: 'First' });
    // The canceled bcard's money all came back, fee included.
    expect(txs.find((t) => t.id === made.canceled)).toMatchObject({ refunded: '5.15', totalCharged: '5.15' });
    expect(txs.find((t) => t.id === made.failed)!.failureMessage).toContain('Insufficient funds');
    const others = (await call(ctx, TX, { cookie: other.cookie })).body as Tx[];
    expect(others.map((t) => t.id)).toEqual([othersTx]);
    expectError(await call(ctx, TX), 401, 'unauthenticated');
  });

  test('status filter: all, completed, pending, failed', async () => {
    expect((await list('?status=all')).map((t) => t.id)).toEqual((await list()).map((t) => t.id));
    expect((await list('?status=completed')).map((t) => t.id)).toEqual([made.formula, made.coffee]);
    expect((await list('?status=failed')).map((t) => t.id)).toEqual([made.failed]);
    expect((await list('?status=pending')).map((t) => t.id)).toEqual([made.first]);
  });

  const bad: Array<[string, string, string]> = [
    ['status=refunded', 'status', 'an unknown status'],
    ['status=', 'status', 'an empty status'],
    ['limit=0', 'limit', 'limit 0'],
    ['limit=101', 'limit', 'limit 101'],
    ['limit=-5', 'limit', 'a negative limit'],
    ['limit=1.5', 'limit', 'a fractional limit'],
    ['limit=abc', 'limit', 'limit abc'],
    ['cursor=not-a-cursor', 'cursor', 'a cursor we never gave out'],
    [`cursor=${Buffer.from('{"t":"x","id":"y"}').toString('base64url')}`, 'cursor', 'a cursor with a bad time'],
    [`cursor=${Buffer.from('{"t":1e999,"id":"y"}').toString('base64url')}`, 'cursor', 'a cursor with an infinite time'],
    [`cursor=${Buffer.from('{"t":-1e20,"id":"y"}').toString('base64url')}`, 'cursor', 'a cursor with a time out of range'],
    [`cursor=${Buffer.from('null').toString('base64url')}`, 'cursor', 'a cursor of null'],
  ];
  for (const [query, param, name] of bad) {
    test(`${name} is 400 naming ${param}`, async () => {
      expectError(await call(ctx, `${TX}?${query}`, { cookie: user.cookie }), 400, 'validation_error', param);
    });
  }

  test('limit 1 and 100 are accepted', async () => {
    expect((await list('?limit=1')).map((t) => t.id)).toEqual([made.formula]);
    expect(await list('?limit=100')).toHaveLength(5);
  });

  test('cursor pagination through 5 with limit 2: pages of 2, 2 and 1, the header absent on the last', async () => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res: CallResult<Tx[]> = await call(ctx, `${TX}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { cookie: user.cookie });
      expect(res.status).toBe(200);
      pages.push(res.body.map((t) => t.id));
      cursor = res.headers.get(NEXT_CURSOR_HEADER);
      expect(pages.length).toBeLessThan(10);
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual((await list()).map((t) => t.id));
  });

  test('the cursor keeps the filter’s pages: completed with limit 1', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: CallResult<Tx[]> = await call(ctx, `${TX}?status=completed&limit=1${cursor ? `&cursor=${cursor}` : ''}`, { cookie: user.cookie });
      seen.push(...res.body.map((t) => t.id));
      cursor = res.headers.get(NEXT_CURSOR_HEADER);
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([made.formula, made.coffee]);
    expect(pages).toBe(2);
  });

  test('a page with exactly the rest has no next cursor', async () => {
    const res = await call(ctx, `${TX}?limit=5`, { cookie: user.cookie });
    expect(res.body).toHaveLength(5);
    expect(res.headers.get(NEXT_CURSOR_HEADER)).toBeNull();
  });

  test('transactions made in the same millisecond are neither skipped nor repeated across pages', async () => {
    const local = await makeTestApp();
    try {
      const u = await registerUser(local);
      await setTier(local, u.user.id, 'tier_premium');
      const s = (await postCard(local, u.cookie)).body.id as string;
      for (let i = 0; i < 7; i++) {
        const res = await call(local, '/api/virtual-cards', {
          method: 'POST',
          cookie: u.cookie,
          body: { name: `Same ${i}`, balance: '1.00', fundingSources: [{ fundingSourceId: s, percentage: 100 }] },
        });
        expect(res.status).toBe(201);
      }
      const all = ((await call(local, TX, { cookie: u.cookie })).body as Tx[]).map((t) => t.id);
      expect(new Set(all).size).toBe(7);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res: CallResult<Tx[]> = await call(local, `${TX}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { cookie: u.cookie });
        paged.push(...res.body.map((t) => t.id));
        cursor = res.headers.get(NEXT_CURSOR_HEADER);
      } while (cursor && paged.length < 20);
      expect(paged).toEqual(all);
    } finally {
      local.close();
    }
  });
});

describe('pending transactions', () => {
  test('a collection still being held is listed as pending (collecting), and still pending once its bcard holds the money', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const local = await makeTestApp({
      wrapVendor: (v: PaymentVendor): PaymentVendor => ({
        ...v,
        hold: async (...args) => {
          await gate;
          return v.hold(...args);
        },
      }),
    });
    try {
      const u = await registerUser(local);
      const s = (await postCard(local, u.cookie)).body.id as string;
      const running = call(local, '/api/virtual-cards', {
        method: 'POST',
        cookie: u.cookie,
        body: { name: 'Slow', balance: '12.00', fundingSources: [{ fundingSourceId: s, percentage: 100 }] },
      });
      let pending: Tx[] = [];
      for (let i = 0; i < 100 && pending.length === 0; i++) {
        pending = (await call(local, `${TX}?status=pending`, { cookie: u.cookie })).body;
        if (pending.length === 0) await Bun.sleep(5);
      }
      expect(pending.map((t) => [t.status, (t as unknown as { stage: { code: string } }).stage.code])).toEqual([['pending', 'collecting']]);
      expect((await call(local, `${TX}?status=completed`, { cookie: u.cookie })).body).toEqual([]);
      expect((await call(local, `${TX}?status=active`, { cookie: u.cookie })).body).toEqual([]);
      release();
      expect((await running).status).toBe(201);
      // Issued and unused: its money is held on the bcard, not spent; pending and active, not completed.
      const held = (await call(local, `${TX}?status=pending`, { cookie: u.cookie })).body as Array<Tx & { stage: { code: string; held: string } }>;
      expect(held.map((t) => [t.id, t.stage.code, t.stage.held])).toEqual([[pending[0]!.id, 'active', '12.00']]);
      expect((await call(local, `${TX}?status=completed`, { cookie: u.cookie })).body).toEqual([]);
      const active = (await call(local, `${TX}?status=active`, { cookie: u.cookie })).body as Tx[];
      expect(active.map((t) => t.id)).toEqual([pending[0]!.id]);
    } finally {
      release();
      local.close();
    }
  });
});

describe('GET /api/transactions/:id', () => {
  test('one transaction with its shares, which sum to what was charged', async () => {
    const res = await call(ctx, `${TX}/${made.first}`, { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: made.first, status: 'pending', amount: '10.00', fee: '0.29', totalCharged: '10.29' });
    expect(res.body.shares.map((s: { fundingSourceId: string }) => s.fundingSourceId)).toEqual([s1, s2]);
    expect(res.body.shares.reduce((a: number, s: { amount: string }) => a + cents(s.amount), 0)).toBe(1029);
    expect(res.body.shares.every((s: { status: string }) => s.status === 'captured')).toBe(true);
  });

  test('a failed one shows its shares released', async () => {
    const res = await call(ctx, `${TX}/${made.failed}`, { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.shares).toHaveLength(1);
    expect(['declined', 'voided']).toContain(res.body.shares[0].status);
  });

  test("another user's id, or one that does not exist, is 404", async () => {
    expectError(await call(ctx, `${TX}/${othersTx}`, { cookie: user.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `${TX}/${made.first}`, { cookie: other.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `${TX}/col_nope`, { cookie: user.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `${TX}/${made.first}`), 401, 'unauthenticated');
  });
});

describe('GET /api/transactions/export.csv', () => {
  const csv = (query = '') => call(ctx, `${TX}/export.csv${query}`, { cookie: user.cookie });

  test('text/csv attachment: a header row, then one line per transaction, newest first', async () => {
    const res = await csv();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]+\.csv"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.slice(1).map((r) => r[0])).toEqual((await list()).map((t) => t.id));
    for (const r of rows) expect(r).toHaveLength(CSV_COLUMNS.length);
    const first = rows.find((r) => r[0] === made.first)!;
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    expect(first[col('amount')]).toBe('10.00');
    expect(first[col('total_charged')]).toBe('10.29');
    expect(first[col('status')]).toBe('pending');
    expect(first[col('stage')]).toBe('active');
    expect(first[col('virtual_card')]).toBe('First');
    expect(res.text).not.toContain(othersTx);
  });

  test('the same filter applies', async () => {
    const failed = parseCsv((await csv('?status=failed')).text);
    expect(failed.slice(1).map((r) => r[0])).toEqual([made.failed]);
    const completed = parseCsv((await csv('?status=completed')).text);
    expect(completed.slice(1).map((r) => r[0])).toEqual([made.formula, made.coffee]);
    const pending = parseCsv((await csv('?status=pending')).text);
    expect(pending.slice(1).map((r) => r[0])).toEqual([made.first]);
    expectError(await csv('?status=bogus'), 400, 'validation_error', 'status');
    expectError(await call(ctx, `${TX}/export.csv`), 401, 'unauthenticated');
  });

  test('a merchant named like a formula is exported as text: the cell starts with a quote', async () => {
    const res = await csv();
    const rows = parseCsv(res.text);
    const row = rows.find((r) => r[0] === made.formula)!;
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    expect(row[col('merchant')]).toBe(`'${HYPERLINK}`);
    expect(row[col('virtual_card')]).toBe(`'${HYPERLINK} purchase`);
    expect(row[col('description')]).toBe("'+SUM(A1:A9)");
    // No cell anywhere starts a formula.
    for (const r of rows) for (const cell of r) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    // And the raw text never has the formula at the start of a cell.
    expect(res.text).not.toMatch(/(^|,|\r\n)"?=HYPERLINK/);
  });

  test('an empty history exports just the header row', async () => {
    const empty = await registerUser(ctx);
    const res = await call(ctx, `${TX}/export.csv`, { cookie: empty.cookie });
    expect(res.status).toBe(200);
    expect(res.text).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });
});
