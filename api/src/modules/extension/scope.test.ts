import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, TEST_ORIGIN, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import {
  connectBrowser,
  EXTENSION_TOKEN_OPERATIONS,
  extensionCall,
  UNKNOWN_TOKEN,
} from '../../../test-support/modules/extension';

/*
 * A browser extension token (bpx_) is scoped: on every route of the OpenAPI document outside the extension's own, it
 * is answered 403 insufficient_scope before any handler runs, even beside a valid session cookie, from the app's own
 * origin, with a revoked or made-up token alike. The table is the document itself, so a route added later is
 * covered without touching this test.
 */

let ctx: TestContext;
let cookie: string;
let token: string;
let operations: Array<{ key: string; method: string; path: string }>;

beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx);
  cookie = u.cookie;
  token = (await connectBrowser(ctx, cookie)).token;
  const doc = (await call(ctx, '/swagger/json', { cookie: null })).body as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => ({ key: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path })),
  );
});
afterAll(() => ctx.close());

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x_1');

describe('a bpx_ token outside the extension routes', () => {
  test('the document has the extension routes and many others (sanity)', () => {
    const keys = new Set(operations.map((o) => o.key));
    for (const k of EXTENSION_TOKEN_OPERATIONS) expect(keys.has(k)).toBe(true);
    expect(operations.length).toBeGreaterThan(80);
  });

  test('every other operation of the document answers 403 insufficient_scope, with a live token and a session cookie', async () => {
    const wrong: string[] = [];
    const others = operations.filter((o) => !EXTENSION_TOKEN_OPERATIONS.has(o.key));
    expect(others.length).toBeGreaterThan(80);
    for (const op of others) {
      const res = await extensionCall(ctx, token, concrete(op.path), { method: op.method, cookie, origin: TEST_ORIGIN });
      if (res.status !== 403 || res.body?.error?.code !== 'insufficient_scope' || res.body.error.type !== 'permission_error') {
        wrong.push(`${op.key}: ${res.status} ${res.body?.error?.code ?? res.text.slice(0, 80)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('with a JSON body, a made-up token, another spelling of the scheme, or on a Stripe-compatible /v1 path: still 403', async () => {
    const rows: Array<{ name: string; method: string; path: string; token?: string; body?: unknown; scheme?: string }> = [
      { name: 'create a dashboard bcard', method: 'POST', path: '/api/virtual-cards', body: { name: 'x', balance: '10.00', fundingSources: [{ fundingSourceId: 'fs_x', percentage: 100 }] } },
      { name: "reveal a dashboard bcard's number", method: 'GET', path: '/api/virtual-cards/bc_x/checkout-details' },
      { name: 'read the profile', method: 'GET', path: '/api/auth/user' },
      { name: 'change the password', method: 'PATCH', path: '/api/auth/user', body: { password: 'another password 123' } },
      { name: 'make another pairing code', method: 'POST', path: '/api/extension/pairings', body: { label: 'Evil' } },
      { name: 'list the tokens', method: 'GET', path: '/api/extension/tokens' },
      { name: 'revoke a token', method: 'DELETE', path: '/api/extension/tokens/ext_x' },
      { name: 'a made-up token', method: 'GET', path: '/api/funding-sources', token: UNKNOWN_TOKEN },
      { name: 'a malformed bpx_ token', method: 'GET', path: '/api/funding-sources', token: 'bpx_x' },
      { name: 'lower-case bearer', method: 'GET', path: '/api/funding-sources', scheme: 'bearer' },
      { name: 'the merchant API', method: 'GET', path: '/api/v1/payment_intents' },
      { name: "Stripe's path", method: 'GET', path: '/v1/payment_intents' },
      { name: 'an unknown API route', method: 'GET', path: '/api/nothing-here' },
      { name: 'the OpenAPI document', method: 'GET', path: '/swagger/json' },
    ];
    for (const r of rows) {
      const res = await call(ctx, r.path, {
        method: r.method,
        cookie,
        body: r.body,
        headers: { authorization: `${r.scheme ?? 'Bearer'} ${r.token ?? token}` },
      });
      expect({ name: r.name, status: res.status, code: res.body?.error?.code }).toEqual({ name: r.name, status: 403, code: 'insufficient_scope' });
    }
  });

  test('the same requests without the token are not refused for scope (the guard looks only at bpx_ tokens)', async () => {
    const tiers = await call(ctx, '/api/subscription/tiers', { headers: { authorization: 'Bearer sk_test_something' } });
    expect(tiers.status).toBe(200);
    expect((await call(ctx, '/api/funding-sources', { cookie })).status).toBe(200);
  });
});

describe('a bpx_ token on the extension routes', () => {
  test('is not refused for scope on any of them', async () => {
    const answers: Record<string, number> = {};
    for (const key of EXTENSION_TOKEN_OPERATIONS) {
      const [method, path] = key.split(' ') as [string, string];
      const res = await extensionCall(ctx, token, concrete(path) + (path.endsWith('/progress') ? '?key=k1' : ''), {
        method,
        body: method === 'POST' ? {} : undefined,
      });
      answers[key] = res.status;
      expect(res.body?.error?.code).not.toBe('insufficient_scope');
    }
    expect(answers).toEqual({
      'GET /api/extension/me': 200,
      'GET /api/extension/funding-sources': 200,
      'POST /api/extension/bcards': 400,
      'GET /api/extension/bcards/progress': 200,
      'GET /api/extension/bcards/{id}/checkout-details': 404,
      'POST /api/extension/tokens': 400,
    });
  });
});
