import { afterAll, beforeAll, expect, test } from 'bun:test';
import { NEXT_CURSOR_HEADER, decodeCursor, encodeCursor } from './lib/cursor';
import { call, makeTestApp, statementsDuring, type TestContext } from '../test-support/app';
import { addCard, makePremium, registerUser } from '../test-support/world';

/*
 * A cursor belongs to the list that gave it out and to the account it was given to (issue 31: "a cursor from another
 * list or another user: 400, nothing read"). Two consumers with two bcards each (so two transactions and two notices
 * each): every consumer list's cursor is refused on the other lists and on the other consumer's same list, before the
 * list is read; on its own list, for its own account, it goes on. (The admin lists: admin/pages.test.ts.)
 */

let ctx: TestContext;
const people: Array<{ cookie: string; id: string }> = [];
const LISTS = [
  { path: '/api/transactions', table: 'collections' },
  { path: '/api/virtual-cards', table: 'bcards' },
  { path: '/api/notifications', table: 'notifications' },
] as const;

beforeAll(async () => {
  ctx = await makeTestApp();
  for (const email of ['cursor-a@example.com', 'cursor-b@example.com']) {
    const u = await registerUser(ctx, { email });
    await makePremium(ctx, u.user.id);
    const source = await addCard(ctx, u.cookie);
    for (const name of ['One', 'Two']) {
      const made = await call(ctx, '/api/virtual-cards', {
        method: 'POST',
        cookie: u.cookie,
        body: { name, balance: '5.00', fundingSources: [{ fundingSourceId: source.id, percentage: 100 }] },
      });
      expect(made.status).toBe(201);
    }
    people.push({ cookie: u.cookie, id: u.user.id });
  }
});
afterAll(() => ctx.close());

const cursorOf = async (path: string, cookie: string) => {
  const first = await call(ctx, `${path}?limit=1`, { cookie });
  expect(first.status).toBe(200);
  const cursor = first.headers.get(NEXT_CURSOR_HEADER);
  expect(cursor).toBeString();
  return cursor!;
};
const reads = (sql: string[], table: string) => sql.filter((s) => s.includes(`from "${table}"`) || s.includes(`FROM ${table}`));

for (const list of LISTS) {
  test(`${list.path}: its cursor goes on for its owner, and is 400 for another consumer and on the other lists, before anything is read`, async () => {
    const [a, b] = people as [(typeof people)[0], (typeof people)[0]];
    const cursor = await cursorOf(list.path, a.cookie);
    const own = await statementsDuring(ctx, () => call(ctx, `${list.path}?limit=1&cursor=${encodeURIComponent(cursor)}`, { cookie: a.cookie }));
    expect(own.result.status).toBe(200);
    expect((own.result.body as unknown[]).length).toBe(1);
    expect(reads(own.sql, list.table).length).toBeGreaterThan(0);

    const theirs = await statementsDuring(ctx, () => call(ctx, `${list.path}?cursor=${encodeURIComponent(cursor)}`, { cookie: b.cookie }));
    expect(theirs.result.status).toBe(400);
    expect(theirs.result.body.error).toMatchObject({ code: 'validation_error', param: 'cursor' });
    expect(reads(theirs.sql, list.table)).toEqual([]);

    for (const other of LISTS.filter((l) => l !== list)) {
      const wrong = await statementsDuring(ctx, () => call(ctx, `${other.path}?cursor=${encodeURIComponent(cursor)}`, { cookie: a.cookie }));
      expect(wrong.result.status).toBe(400);
      expect(wrong.result.body.error).toMatchObject({ code: 'validation_error', param: 'cursor' });
      expect(reads(wrong.sql, other.table)).toEqual([]);
    }
  });
}

test('a cursor of the earlier shape (no list, no account) is refused: the client starts again from the first page', () => {
  const old = Buffer.from(JSON.stringify({ t: 1, id: 'col_x' })).toString('base64url');
  expect(() => decodeCursor(old, { list: 'transactions', owner: 'usr_a' })).toThrow('earlier version of this list: start again');
  const fresh = encodeCursor({ t: 1, id: 'col_x' }, { list: 'transactions', owner: 'usr_a' });
  expect(decodeCursor(fresh, { list: 'transactions', owner: 'usr_a' })).toEqual({ t: 1, id: 'col_x' });
  // The account is in it as a tag, not as its id.
  expect(Buffer.from(fresh, 'base64url').toString()).not.toContain('usr_a');
});
