import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { schema } from '@bpay/db';
import { getTableName } from 'drizzle-orm';
import { NEXT_CURSOR_HEADER } from '../../lib/cursor';
import { makeTestApp, statementsDuring, type CallResult, type TestContext } from '../../../test-support/app';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';

/*
 * The admin lists (users, merchants, KYC verifications) answer pages: newest first, ties by id, `limit` and the
 * `bpay-next-cursor` header. Rows are inserted directly (a registration per row would hash a password each time),
 * three to a millisecond so ties between equal times are crossed by the pages.
 */

let ctx: TestContext;
let token: string;
const BASE = Date.UTC(2026, 0, 1);
/** More than a default page (50). */
const N = 56;
const at = (i: number) => new Date(BASE + Math.floor(i / 3));

interface Row {
  id: string;
  createdAt: Date;
}
/** Newest first, ties by id descending: the order every page must follow. */
const newestFirst = (rows: Row[]) =>
  [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);

/** Every page of `path` at `limit` rows: the ids of each page, in order. */
async function allPages(path: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: CallResult<Array<{ id: string }>> = await adminCall<Array<{ id: string }>>(
      ctx,
      token,
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status).toBe(200);
    pages.push(res.body.map((r) => r.id));
    cursor = res.headers.get(NEXT_CURSOR_HEADER);
  } while (cursor && pages.length < 100);
  return pages;
}

beforeAll(async () => {
  ctx = await makeTestApp();
  await makeAdmin(ctx);
  token = await adminToken(ctx);
  const users = Array.from({ length: N }, (_, i) => ({
    id: `usr_page${String(i).padStart(3, '0')}${i % 2 ? 'b' : 'a'}`,
    email: `page${i}@example.com`,
    emailNormalized: `page${i}@example.com`,
    passwordHash: 'x',
    role: i % 2 ? ('merchant' as const) : ('user' as const),
    createdAt: at(i),
    updatedAt: at(i),
  }));
  await ctx.deps.db.insert(schema.users).values(users);
  await ctx.deps.db.insert(schema.merchants).values(
    users.map((u, i) => ({
      id: `mer_page${String(i).padStart(3, '0')}`,
      userId: u.id,
      businessName: `Shop ${i}`,
      businessEmail: `shop${i}@example.com`,
      platformType: 'custom' as const,
      environment: i % 3 ? ('sandbox' as const) : ('production' as const),
      publishableKey: `pk_test_page${i}`,
      secretKeyHash: `hash${i}`,
      secretKeyLast4: '0000',
      createdAt: at(i),
      updatedAt: at(i),
    })),
  );
  await ctx.deps.db.insert(schema.kycVerifications).values(
    users.map((u, i) => ({
      id: `kyc_page${String(i).padStart(3, '0')}`,
      userId: u.id,
      verificationType: 'identity_document' as const,
      documentType: 'passport' as const,
      documentCountry: 'UK' as const,
      firstName: 'Ada',
      lastName: `Page ${i}`,
      dateOfBirth: '1990-12-10',
      status: i % 2 ? ('verified' as const) : ('pending' as const),
      createdAt: at(i),
    })),
  );
});

afterAll(() => ctx?.close());

const LISTS = [
  { name: 'users', path: '/api/admin/users', table: schema.users, filter: 'role=merchant', keep: (r: { role: string }) => r.role === 'merchant' },
  {
    name: 'merchants',
    path: '/api/admin/merchants',
    table: schema.merchants,
    filter: 'environment=sandbox',
    keep: (r: { environment: string }) => r.environment === 'sandbox',
  },
  {
    name: 'KYC verifications',
    path: '/api/admin/kyc/verifications',
    table: schema.kycVerifications,
    filter: 'status=pending',
    keep: (r: { status: string }) => r.status === 'pending',
  },
] as const;

for (const list of LISTS) {
  describe(`admin ${list.name} in pages`, () => {
    const everyRow = async () => (await ctx.deps.db.select().from(list.table)) as Array<Row & Record<string, unknown>>;

    test('without a limit, a page is the 50 newest and its cursor leads to the rest', async () => {
      const first = await adminCall<Array<{ id: string }>>(ctx, token, list.path);
      expect(first.status).toBe(200);
      const all = newestFirst(await everyRow());
      expect(first.body.map((r) => r.id)).toEqual(all.slice(0, 50));
      const cursor = first.headers.get(NEXT_CURSOR_HEADER);
      expect(cursor).toBeString();
      const rest = await adminCall<Array<{ id: string }>>(ctx, token, `${list.path}?cursor=${encodeURIComponent(cursor!)}`);
      expect(rest.body.map((r) => r.id)).toEqual(all.slice(50));
      expect(rest.headers.get(NEXT_CURSOR_HEADER)).toBeNull();
    });

    test('pages hold every row exactly once, newest first (ties by id), and the last page has no cursor', async () => {
      const pages = await allPages(list.path, 8);
      const all = newestFirst(await everyRow());
      expect(pages.flat()).toEqual(all);
      expect(pages.slice(0, -1).every((p) => p.length === 8)).toBe(true);
      expect(pages.length).toBe(Math.ceil(all.length / 8));
    });

    test(`a filter (${list.filter}) holds on every page`, async () => {
      const pages = await allPages(`${list.path}?${list.filter}`, 5);
      const kept = newestFirst((await everyRow()).filter((r) => list.keep(r as never)));
      expect(kept.length).toBeGreaterThan(6);
      expect(pages.flat()).toEqual(kept);
    });

    const bad: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('{"t":"x","id":"y"}').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('null').toString('base64url')}`, 'cursor'],
    ];
    for (const [query, param] of bad) {
      test(`${query.slice(0, 24)} is 400 validation_error naming ${param}`, async () => {
        const res = await adminCall(ctx, token, `${list.path}?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('validation_error');
        expect(res.body.error.param).toBe(param);
        if (param === 'limit') expect(res.body.error.message).toBe('limit must be a whole number between 1 and 200.');
      });
    }

    test('limit 200 is accepted', async () => {
      const res = await adminCall<unknown[]>(ctx, token, `${list.path}?limit=200`);
      expect(res.status).toBe(200);
    });
  });
}

describe('a cursor belongs to the list that gave it out (issue 31)', () => {
  for (const [i, list] of LISTS.entries()) {
    const other = LISTS[(i + 1) % LISTS.length]!;
    test(`${list.name}' cursor on ${other.name} is 400 naming cursor, and ${other.name} is not read`, async () => {
      const first = await adminCall(ctx, token, `${list.path}?limit=1`);
      const cursor = first.headers.get(NEXT_CURSOR_HEADER)!;
      expect(cursor).toBeString();
      const read = await statementsDuring(ctx, () => adminCall(ctx, token, `${other.path}?cursor=${encodeURIComponent(cursor)}`));
      expect(read.result.status).toBe(400);
      expect(read.result.body.error).toMatchObject({ code: 'validation_error', param: 'cursor' });
      expect(read.sql.filter((s) => s.includes(`from "${getTableName(other.table)}"`))).toEqual([]);
      // With a search too (the lists that have one): the cursor is refused before the search index is read.
      if (other.name === 'KYC verifications') return;
      const searching = await statementsDuring(ctx, () => adminCall(ctx, token, `${other.path}?search=page&cursor=${encodeURIComponent(cursor)}`));
      expect(searching.result.status).toBe(400);
      expect(searching.result.body.error).toMatchObject({ code: 'validation_error', param: 'cursor' });
      expect(searching.sql.filter((s) => s.includes('_search') || s.includes(`from "${getTableName(other.table)}"`))).toEqual([]);
      // The same cursor on its own list goes on, and reads it.
      const own = await statementsDuring(ctx, () => adminCall(ctx, token, `${list.path}?cursor=${encodeURIComponent(cursor)}`));
      expect(own.result.status).toBe(200);
      expect(own.sql.filter((s) => s.includes(`from "${getTableName(list.table)}"`)).length).toBeGreaterThan(0);
    });
  }
});
