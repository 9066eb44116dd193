import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { createMerchant, registerUser } from '../../../test-support/world';
import { listAllMerchants } from './merchants';
import { listUsers } from './users';

/*
 * Admin search through the FTS5 trigram indexes (issue 31 §2): a part of a name or an e-mail address, at least 3
 * characters, ASCII-case-insensitive, taken literally; the indexes follow every insert, rename, e-mail change and
 * delete in the same transaction (triggers); the two ways a page is found (few matches by id, many by walking the
 * list in order) answer the same pages.
 */

let ctx: TestContext;
let token: string;
let grace: Awaited<ReturnType<typeof registerUser>>;
let alan: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
  await makeAdmin(ctx);
  token = await adminToken(ctx);
  grace = await registerUser(ctx, { firstName: 'Grace', lastName: 'Hopper', email: 'g.hopper@navy.example' });
  alan = await registerUser(ctx, { firstName: 'Alan', lastName: 'Turing', email: 'alan@bletchley.example' });
  await registerUser(ctx, { firstName: 'Émile', lastName: 'Zola', email: 'emile@paris.example' });
  await createMerchant(ctx, grace.cookie, 'sandbox', { businessName: 'COBOL Works', businessEmail: 'hello@cobol.example' });
  await createMerchant(ctx, alan.cookie, 'production', { businessName: 'Enigma Machines', businessEmail: 'sales@enigma.example' });
});
afterAll(() => ctx.close());

const users = async (search: string) => (await adminCall(ctx, token, `/api/admin/users?search=${encodeURIComponent(search)}`)).body.map((u: { email: string }) => u.email).sort();
const merchants = async (search: string) =>
  (await adminCall(ctx, token, `/api/admin/merchants?search=${encodeURIComponent(search)}`)).body.map((m: { businessName: string }) => m.businessName).sort();

describe('admin search', () => {
  test('users by a part of the first name, last name, full name or e-mail, whatever its case', async () => {
    expect(await users('hopp')).toEqual(['g.hopper@navy.example']);
    expect(await users('GRACE')).toEqual(['g.hopper@navy.example']);
    expect(await users('grace hop')).toEqual(['g.hopper@navy.example']);
    expect(await users('bletchley')).toEqual(['alan@bletchley.example']);
    expect(await users('.example')).toHaveLength(3);
    // Taken literally: no LIKE wildcard, no FTS5 syntax.
    expect(await users('%%%')).toEqual([]);
    expect(await users('a"b OR c')).toEqual([]);
    expect(await users('mile')).toEqual(['emile@paris.example']);
  });

  test('merchants by business name, business e-mail or the owner\'s name', async () => {
    expect(await merchants('cobol')).toEqual(['COBOL Works']);
    expect(await merchants('sales@')).toEqual(['Enigma Machines']);
    expect(await merchants('turing')).toEqual(['Enigma Machines']);
    expect(await merchants('.example')).toEqual(['COBOL Works', 'Enigma Machines']);
  });

  test('the indexes follow a new user, a new merchant, a rename and a delete in the same transaction', async () => {
    const u = await registerUser(ctx, { firstName: 'Ada', lastName: 'Byron', email: 'ada.b@analytical.example' });
    await createMerchant(ctx, u.cookie, 'sandbox', { businessName: 'Difference Engines' });
    expect(await users('byron')).toEqual(['ada.b@analytical.example']);
    expect(await merchants('byron')).toEqual(['Difference Engines']);
    const renamed = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { lastName: 'Lovelace' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await users('byron')).toEqual([]);
    expect(await users('lovelace')).toEqual(['ada.b@analytical.example']);
    // The owner's name in the merchant's search document too.
    expect(await merchants('byron')).toEqual([]);
    expect(await merchants('lovelace')).toEqual(['Difference Engines']);
    // Deleting the user's row takes its document with it.
    await ctx.handle.client.execute({ sql: 'DELETE FROM merchants WHERE user_id = ?', args: [u.user.id] });
    await ctx.handle.client.execute({ sql: 'DELETE FROM users WHERE id = ?', args: [u.user.id] });
    expect(await users('lovelace')).toEqual([]);
    expect(await merchants('engines')).toEqual([]);
    const docs = await ctx.handle.client.execute({ sql: 'SELECT count(*) AS n FROM user_search_docs WHERE user_id = ?', args: [u.user.id] });
    expect(Number(docs.rows[0]!.n)).toBe(0);
  });

  test('shorter than 3 characters: 400 naming search, with the rule in words; spaces around do not count; none is the whole list', async () => {
    for (const s of ['ab', '  ab  ', 'é']) {
      for (const path of ['/api/admin/users', '/api/admin/merchants']) {
        const res = await adminCall(ctx, token, `${path}?search=${encodeURIComponent(s)}`);
        expect(res.status, `${path} ${JSON.stringify(s)}`).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'search', message: 'search must be at least 3 characters (a part of a name or an e-mail address).' });
      }
    }
    expect(await users(' hop ')).toEqual(['g.hopper@navy.example']);
    // No search (empty or only spaces) is the whole list, as it always was.
    const all = (await adminCall(ctx, token, '/api/admin/users')).body.length;
    expect(all).toBeGreaterThan(2);
    for (const s of ['', '   ']) expect((await users(s)).length).toBe(all);
  });

  test('few matches found by id and many found by walking the list answer the same pages, cursors included', async () => {
    for (let i = 0; i < 7; i++) await registerUser(ctx, { firstName: `Walker${i}`, lastName: 'Same', email: `walker${i}@walk.example` });
    const pages = async (many: number | undefined) => {
      const seen: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await listUsers(ctx.deps.db, { search: 'walk', limit: 3, cursor, searchMany: many });
        seen.push(page.data.map((u) => u.email));
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };
    const byId = await pages(undefined);
    expect(byId.flat()).toHaveLength(7);
    expect(await pages(1)).toEqual(byId);
    const m1 = await listAllMerchants(ctx.deps, { search: '.example', limit: 50 });
    const m2 = await listAllMerchants(ctx.deps, { search: '.example', limit: 50, searchMany: 0 });
    expect(m2.data.map((m) => m.id)).toEqual(m1.data.map((m) => m.id));
  });
});
