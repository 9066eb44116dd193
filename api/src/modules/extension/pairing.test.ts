import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { login, registerUser } from '../../../test-support/world';
import {
  connectBrowser,
  createPairing,
  exchangeCode,
  EXTENSION_ORIGIN,
  extensionCall,
  UNKNOWN_TOKEN,
} from '../../../test-support/modules/extension';
import { EXCHANGES_PER_ADDRESS_PER_HOUR, PAIRINGS_PER_USER_PER_HOUR } from './tokens';

/*
 * Connecting a browser: a pairing code from the signed-in web app (cookie, cross-site check), exchanged once by the
 * extension for a bpx_ token; the token's list, revocation and expiry; who a token is on the bearer routes.
 */

const DISCONNECTED = 'This browser was disconnected from bpay. Connect it again from the extension.';
const TOKEN_RE = /^bpx_[A-Za-z0-9_-]{43}$/;

function expectError(res: CallResult, status: number, code: ErrorCode): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
}

let ctx: TestContext;
let alice: { cookie: string; id: string; email: string };
let bob: { cookie: string; id: string };
// Each test exchanges from its own address, so the per-address limit is only met where a test means it.
let ipN = 0;
const freshIp = () => `198.51.100.${++ipN}`;

beforeAll(async () => {
  ctx = await makeTestApp();
  const a = await registerUser(ctx);
  const b = await registerUser(ctx);
  alice = { cookie: a.cookie, id: a.user.id, email: a.email };
  bob = { cookie: b.cookie, id: b.user.id };
});
afterAll(() => ctx.close());

describe('pairing', () => {
  test('a code from the web app is exchanged for a token shown once, stored only as a hash', async () => {
    const pairing = await createPairing(ctx, alice.cookie, 'Chrome on Linux');
    expect(pairing.status).toBe(201);
    expect(pairing.body.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Date(pairing.body.expiresAt).getTime() - ctx.clock.now().getTime()).toBe(2 * 60_000);
    expect(pairing.headers.get('cache-control')).toBe('no-store');

    const res = await exchangeCode(ctx, pairing.body.code, { ip: freshIp() });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.token).toMatch(TOKEN_RE);
    expect(res.body.label).toBe('Chrome on Linux');
    expect(res.body.id).toMatch(/^ext_[0-9a-f]{24}$/);
    expect(new Date(res.body.expiresAt).getTime() - ctx.clock.now().getTime()).toBe(90 * 24 * 3600_000);

    // Neither the code nor the token is in the database: only their hashes.
    const [row] = await ctx.handle.db.select().from(schema.extensionTokens).where(eq(schema.extensionTokens.id, res.body.id));
    expect(row).toMatchObject({ userId: alice.id, label: 'Chrome on Linux', revokedAt: null, lastUsedAt: null });
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    const dump = JSON.stringify([
      await ctx.handle.db.select().from(schema.extensionTokens),
      await ctx.handle.db.select().from(schema.extensionPairings),
    ]);
    expect(dump).not.toContain(res.body.token.slice(4));
    expect(dump).not.toContain(pairing.body.code);

    const me = await extensionCall(ctx, res.body.token, '/api/extension/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      tokenId: res.body.id,
      label: 'Chrome on Linux',
      expiresAt: res.body.expiresAt,
      user: { email: alice.email, name: 'Ada Lovelace' },
      // The plan's fee, so the popup's fixed split adds up as the server will count it (the free plan: 2.9 %).
      feePercentage: 2.9,
    });
  });

  test('a code used twice: the second exchange is pairing_code_used and makes no token', async () => {
    const pairing = await createPairing(ctx, alice.cookie);
    const ip = freshIp();
    expect((await exchangeCode(ctx, pairing.body.code, { ip })).status).toBe(201);
    const before = (await ctx.handle.db.select().from(schema.extensionTokens)).length;
    const again = await exchangeCode(ctx, pairing.body.code, { ip });
    expectError(again, 400, 'pairing_code_used');
    expect(again.body.error.param).toBe('code');
    expect((await ctx.handle.db.select().from(schema.extensionTokens)).length).toBe(before);
  });

  test('parallel exchanges of one code: exactly one token', async () => {
    const pairing = await createPairing(ctx, bob.cookie, 'Edge');
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 12 }, () => exchangeCode(ctx, pairing.body.code, { ip })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 400, 'pairing_code_used');
    const tokens = await ctx.handle.db.select().from(schema.extensionTokens).where(eq(schema.extensionTokens.userId, bob.id));
    expect(tokens.filter((t) => t.label === 'Edge')).toHaveLength(1);
  });

  test.each([
    { name: 'unknown', code: 'q4uR0m8x2Jb7lF1tW9cN6hA3sY5vE0kZpD8gT2iU7oM' },
    { name: 'malformed', code: 'not a code' },
    { name: 'a token instead of a code', code: UNKNOWN_TOKEN },
  ])('an $name code is pairing_code_invalid', async ({ code }) => {
    expectError(await exchangeCode(ctx, code, { ip: freshIp() }), 400, 'pairing_code_invalid');
  });

  test('a code past its 2 minutes is pairing_code_invalid, and stays unusable', async () => {
    const pairing = await createPairing(ctx, alice.cookie);
    ctx.clock.advance(2 * 60_000);
    const ip = freshIp();
    expectError(await exchangeCode(ctx, pairing.body.code, { ip }), 400, 'pairing_code_invalid');
    const [row] = await ctx.handle.db.select().from(schema.extensionPairings).where(eq(schema.extensionPairings.userId, alice.id));
    expect(row).toBeDefined();
    expectError(await exchangeCode(ctx, pairing.body.code, { ip }), 400, 'pairing_code_invalid');
  });

  test.each([
    { name: 'no label', body: {}, param: 'label' },
    { name: 'a blank label', body: { label: '   ' }, param: 'label' },
    { name: 'a label over 80 characters', body: { label: 'x'.repeat(81) }, param: 'label' },
    { name: 'another field', body: { label: 'Chrome', userId: 'usr_x' }, param: 'userId' },
  ])('a pairing with $name is refused', async ({ body, param }) => {
    const res = await call(ctx, '/api/extension/pairings', { method: 'POST', cookie: alice.cookie, body });
    expectError(res, 400, 'validation_error');
    expect(res.body.error.param).toBe(param);
  });

  test('a pairing needs the session, and passes the cross-site check', async () => {
    expectError(await createPairing(ctx, '', 'Chrome', { cookie: null }), 401, 'unauthenticated');
    expectError(await createPairing(ctx, alice.cookie, 'Chrome', { origin: 'https://evil.example' }), 403, 'cross_site_request');
    expectError(await createPairing(ctx, alice.cookie, 'Chrome', { origin: EXTENSION_ORIGIN }), 403, 'cross_site_request');
    expectError(
      await createPairing(ctx, alice.cookie, 'Chrome', { origin: null, headers: { 'sec-fetch-site': 'cross-site' } }),
      403,
      'cross_site_request',
    );
    // A bpx_ token beside the cookie does not lift the check's purpose: it is out of the token's scope.
    const { token } = await connectBrowser(ctx, alice.cookie, 'Chrome', freshIp());
    expectError(
      await createPairing(ctx, alice.cookie, 'Chrome', { origin: 'https://evil.example', headers: { authorization: `Bearer ${token}` } }),
      403,
      'insufficient_scope',
    );
  });
});

describe('connected browsers: list and revoke', () => {
  test('lists active tokens newest first; revoking one stops it at once (401 with the message), idempotently', async () => {
    const u = await registerUser(ctx);
    const first = await connectBrowser(ctx, u.cookie, 'Firefox', freshIp());
    ctx.clock.advance(1000);
    const second = await connectBrowser(ctx, u.cookie, 'Brave', freshIp());

    const list = await call(ctx, '/api/extension/tokens', { cookie: u.cookie });
    expect(list.status).toBe(200);
    expect(list.body.map((t: { id: string }) => t.id)).toEqual([second.id, first.id]);
    expect(list.body[0]).toEqual({
      id: second.id,
      label: 'Brave',
      createdAt: ctx.clock.now().toISOString(),
      expiresAt: expect.any(String),
      lastUsedAt: null,
    });
    expect(JSON.stringify(list.body)).not.toContain('bpx_');

    expect((await extensionCall(ctx, first.token, '/api/extension/me')).status).toBe(200);
    const revoked = await call(ctx, `/api/extension/tokens/${first.id}`, { method: 'DELETE', cookie: u.cookie });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: first.id, revoked: true });
    const again = await call(ctx, `/api/extension/tokens/${first.id}`, { method: 'DELETE', cookie: u.cookie });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: first.id, revoked: true });

    const refused = await extensionCall(ctx, first.token, '/api/extension/me');
    expectError(refused, 401, 'extension_token_invalid');
    expect(refused.body.error.message).toBe(DISCONNECTED);
    expect((await extensionCall(ctx, first.token, '/api/extension/funding-sources')).status).toBe(401);
    // The other browser is untouched.
    expect((await extensionCall(ctx, second.token, '/api/extension/me')).status).toBe(200);
    const after = await call(ctx, '/api/extension/tokens', { cookie: u.cookie });
    expect(after.body.map((t: { id: string }) => t.id)).toEqual([second.id]);
  });

  test("another user's token id, or an unknown one, is 404 and changes nothing", async () => {
    const mallory = await registerUser(ctx);
    const victim = await connectBrowser(ctx, alice.cookie, 'Victim', freshIp());
    for (const id of [victim.id, 'ext_000000000000000000000000']) {
      const res = await call(ctx, `/api/extension/tokens/${id}`, { method: 'DELETE', cookie: mallory.cookie });
      expectError(res, 404, 'resource_not_found');
    }
    expect((await extensionCall(ctx, victim.token, '/api/extension/me')).status).toBe(200);
    const list = await call(ctx, '/api/extension/tokens', { cookie: mallory.cookie });
    expect(list.body).toEqual([]);
  });

  test('a password change disconnects every browser, in the transaction that stores the new password', async () => {
    const u = await registerUser(ctx, { password: 'correct horse battery' });
    const browser = await connectBrowser(ctx, u.cookie, 'Chrome on Linux', freshIp());
    expect((await extensionCall(ctx, browser.token, '/api/extension/me')).status).toBe(200);
    const changed = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { password: 'brass lantern meadow', currentPassword: 'correct horse battery' },
    });
    expect(changed.status).toBe(200);
    expectError(await extensionCall(ctx, browser.token, '/api/extension/me'), 401, 'extension_token_invalid');
    expect((await call(ctx, '/api/extension/tokens', { cookie: u.cookie })).body).toEqual([]);
  });

  test('revoking keeps the cross-site check', async () => {
    const b = await connectBrowser(ctx, alice.cookie, 'Kept', freshIp());
    const res = await call(ctx, `/api/extension/tokens/${b.id}`, { method: 'DELETE', cookie: alice.cookie, origin: 'https://evil.example' });
    expectError(res, 403, 'cross_site_request');
    expect((await extensionCall(ctx, b.token, '/api/extension/me')).status).toBe(200);
  });
});

describe('the bearer routes', () => {
  test('a session cookie alone is 401; a bad token is 401 extension_token_invalid, even beside a good cookie', async () => {
    for (const path of ['/api/extension/me', '/api/extension/funding-sources', '/api/extension/bcards/progress?key=k']) {
      const res = await call(ctx, path, { cookie: alice.cookie });
      expectError(res, 401, 'unauthenticated');
      expect(res.body.error.message).toContain('Authorization: Bearer bpx_');
    }
    const body = { name: 'x', balance: '10.00', fundingSources: [{ fundingSourceId: 'fs_x', percentage: 100 }], site: 'https://shop.example' };
    const post = await call(ctx, '/api/extension/bcards', { method: 'POST', cookie: alice.cookie, body });
    expectError(post, 401, 'unauthenticated');
    for (const token of [UNKNOWN_TOKEN, 'bpx_short', `bpx_${'A'.repeat(42)}!`]) {
      const res = await extensionCall(ctx, token, '/api/extension/me', { cookie: alice.cookie });
      expectError(res, 401, 'extension_token_invalid');
      expect(res.body.error.message).toBe(DISCONNECTED);
    }
    // Another kind of credential on an extension route.
    expectError(await extensionCall(ctx, 'sk_test_abc', '/api/extension/me'), 401, 'extension_token_invalid');
  });

  test("with both a token and a session cookie, only the token counts", async () => {
    const bobs = await connectBrowser(ctx, bob.cookie, 'Bob browser', freshIp());
    const me = await extensionCall(ctx, bobs.token, '/api/extension/me', { cookie: alice.cookie });
    expect(me.status).toBe(200);
    expect(me.body.tokenId).toBe(bobs.id);
    expect(me.body.user.email).not.toBe(alice.email);
  });

  test('lastUsedAt is written at most once a minute', async () => {
    const b = await connectBrowser(ctx, alice.cookie, 'Used', freshIp());
    const lastUsed = async () =>
      (await ctx.handle.db.select().from(schema.extensionTokens).where(eq(schema.extensionTokens.id, b.id)))[0]!.lastUsedAt?.getTime() ?? null;
    const t0 = ctx.clock.now().getTime();
    await extensionCall(ctx, b.token, '/api/extension/me');
    expect(await lastUsed()).toBe(t0);
    ctx.clock.advance(30_000);
    await extensionCall(ctx, b.token, '/api/extension/me');
    expect(await lastUsed()).toBe(t0);
    ctx.clock.advance(31_000);
    await extensionCall(ctx, b.token, '/api/extension/me');
    expect(await lastUsed()).toBe(t0 + 61_000);
  });
});

describe('expiry and limits (their own app: the clock moves far)', () => {
  test('a token stops working after 90 days, and leaves the list', async () => {
    const own = await makeTestApp();
    try {
      const u = await registerUser(own);
      const b = await connectBrowser(own, u.cookie, 'Old');
      own.clock.advance(90 * 24 * 3600_000 - 1000);
      expect((await extensionCall(own, b.token, '/api/extension/me')).status).toBe(200);
      own.clock.advance(1000);
      const res = await extensionCall(own, b.token, '/api/extension/me');
      expectError(res, 401, 'extension_token_invalid');
      expect(res.body.error.message).toBe(DISCONNECTED);
      // The session has long expired too: sign in again to look at the list.
      const again = await login(own, u.email, u.password);
      expect((await call(own, '/api/extension/tokens', { cookie: again.cookie })).body).toEqual([]);
    } finally {
      own.close();
    }
  });

  test(`pairings: ${PAIRINGS_PER_USER_PER_HOUR} an hour per user; exchanges: ${EXCHANGES_PER_ADDRESS_PER_HOUR} an hour per address`, async () => {
    const own = await makeTestApp();
    try {
      const u = await registerUser(own);
      const codes: string[] = [];
      for (let i = 0; i < PAIRINGS_PER_USER_PER_HOUR; i++) {
        const res = await createPairing(own, u.cookie);
        expect(res.status).toBe(201);
        codes.push(res.body.code);
      }
      const over = await createPairing(own, u.cookie);
      expectError(over, 429, 'pairing_rate_limited');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

      const ip = '192.0.2.50';
      for (let i = 0; i < EXCHANGES_PER_ADDRESS_PER_HOUR; i++) {
        expectError(await exchangeCode(own, `bad${i}`, { ip }), 400, 'pairing_code_invalid');
      }
      // Even a good code waits once the address has used its exchanges.
      const limited = await exchangeCode(own, codes[0]!, { ip });
      expectError(limited, 429, 'pairing_rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another address is not held up, and the code was not spent by the refusal.
      expect((await exchangeCode(own, codes[0]!, { ip: '192.0.2.51' })).status).toBe(201);
    } finally {
      own.close();
    }
  });

  test('with the request-rate limits off (BPAY_RATE_LIMITS=off) neither limit applies', async () => {
    const own = await makeTestApp({ rateLimits: false });
    try {
      const u = await registerUser(own);
      for (let i = 0; i <= PAIRINGS_PER_USER_PER_HOUR; i++) expect((await createPairing(own, u.cookie)).status).toBe(201);
      for (let i = 0; i <= EXCHANGES_PER_ADDRESS_PER_HOUR; i++) expect((await exchangeCode(own, `bad${i}`)).status).toBe(400);
    } finally {
      own.close();
    }
  });
});
