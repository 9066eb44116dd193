import { afterEach, describe, expect, test } from 'bun:test';
import { ApiError } from '../../lib/api';
import { adminLogin, adminUsersQuery, effectiveSearch, emailOutboxQuery, fetchKycDocument, kycVerificationsQuery, searchTooShort, vendorsQuery } from './api';
import { clearAdminToken, getAdminToken, setAdminToken } from './session';
import { answering, restoreFetch } from '../../../test-support/fetch-mock';

afterEach(() => {
  restoreFetch();
  clearAdminToken();
});


const pathOf = (r: Request) => {
  const u = new URL(r.url);
  return u.pathname + u.search;
};

/** Runs a query factory's queryFn as TanStack Query would (the context is not read by these factories). */
function run<T>(options: { queryFn?: unknown }, pageParam: string | null = null): Promise<T> {
  return (options.queryFn as (ctx: { pageParam: string | null }) => Promise<T>)({ pageParam });
}

describe('the admin client', () => {
  test('an admin call carries the token as a Bearer header', async () => {
    setAdminToken('tok_1');
    const seen = answering(() => Response.json({ mode: 'test' }));
    await run(vendorsQuery());
    expect(pathOf(seen[0]!)).toBe('/api/admin/vendors');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok_1');
    expect(seen[0]!.headers.get('accept')).toBe('application/json');
  });

  test('a 401 clears the token and still throws the "<status>: <body>" ApiError', async () => {
    setAdminToken('tok_2');
    const body = JSON.stringify({ error: { type: 'authentication_error', code: 'invalid_admin_token', message: 'Expired' } });
    answering(() => new Response(body, { status: 401, headers: { 'content-type': 'application/json' } }));
    const e = await run(vendorsQuery()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toBe(`401: ${body}`);
    expect(getAdminToken()).toBeNull();
  });

  test('another failure keeps the token', async () => {
    setAdminToken('tok_3');
    answering(() => new Response('', { status: 500, statusText: 'Internal Server Error' }));
    const e = (await run(vendorsQuery()).catch((err: unknown) => err)) as ApiError;
    expect(e.message).toBe('500: Internal Server Error');
    expect(getAdminToken()).toBe('tok_3');
  });

  test('a paged list sends its filters and the cursor, and reads the next cursor from bpay-next-cursor', async () => {
    setAdminToken('tok_4');
    let next: string | null = 'c_2';
    const seen = answering(() => Response.json([{ id: 'u_1' }], { headers: next ? { 'bpay-next-cursor': next } : {} }));
    const first = await run<{ items: { id: string }[]; nextCursor: string | null }>(adminUsersQuery(' ann ', 'merchant'));
    expect(first).toEqual({ items: [{ id: 'u_1' }], nextCursor: 'c_2' });
    next = null;
    const last = await run<{ nextCursor: string | null }>(adminUsersQuery(' ann ', 'merchant'), 'c_2');
    expect(last.nextCursor).toBeNull();
    expect(seen.map(pathOf)).toEqual(['/api/admin/users?search=ann&role=merchant', '/api/admin/users?search=ann&role=merchant&cursor=c_2']);
    await run(kycVerificationsQuery('all'));
    expect(pathOf(seen[2]!)).toBe('/api/admin/kyc/verifications');
  });

  test("a document's bytes come as a Blob, read with the token, asking for any type", async () => {
    setAdminToken('tok_5');
    const seen = answering(() => new Response(new Uint8Array([0x25, 0x50, 0x44, 0x46]), { headers: { 'content-type': 'application/pdf' } }));
    const blob = await fetchKycDocument('doc 1');
    expect(blob).toBeInstanceOf(Blob);
    expect(blob.type).toBe('application/pdf');
    expect(blob.size).toBe(4);
    expect(pathOf(seen[0]!)).toBe('/api/admin/kyc/documents/doc%201');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok_5');
    expect(seen[0]!.headers.get('accept')).toBe('*/*');
  });

  test('signing in sends no token, and a refused sign-in clears none', async () => {
    setAdminToken('tok_6');
    const seen = answering(() => new Response('{}', { status: 401 }));
    await expect(adminLogin({ username: 'a', password: 'b', accessCode: '123456' })).rejects.toBeInstanceOf(ApiError);
    expect(seen[0]!.headers.get('authorization')).toBeNull();
    expect(getAdminToken()).toBe('tok_6');
  });

  test("the e-mail outbox sends this tab's token when there is one, and a refusal signs nobody out", async () => {
    const seen = answering(() => new Response('{}', { status: 401 }));
    await expect(run(emailOutboxQuery('tok_7'))).rejects.toBeInstanceOf(ApiError);
    expect(pathOf(seen[0]!)).toBe('/api/email-outbox');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok_7');
    setAdminToken('tok_7');
    await expect(run(emailOutboxQuery('tok_7'))).rejects.toBeInstanceOf(ApiError);
    expect(getAdminToken()).toBe('tok_7');
    await run(emailOutboxQuery(null)).catch(() => undefined);
    expect(seen[2]!.headers.get('authorization')).toBeNull();
  });
});

describe('admin search text', () => {
  test('sent only from 3 characters on (the server refuses 1 or 2); shorter keeps the whole list and says why', () => {
    expect(effectiveSearch('  ab ')).toBe('');
    expect(searchTooShort('  ab ')).toBe(true);
    expect(effectiveSearch(' abc ')).toBe('abc');
    expect(searchTooShort(' abc ')).toBe(false);
    expect(effectiveSearch('   ')).toBe('');
    expect(searchTooShort('   ')).toBe(false);
    // Characters, not UTF-16 units: two emoji are two characters.
    expect(searchTooShort('😀😀')).toBe(true);
  });
});
