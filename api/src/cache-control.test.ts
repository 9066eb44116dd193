/**
 * Issue 27 §1: no answer carrying personal or account data may be kept by a shared cache. Every GET operation in the
 * API document is called as its owner would call it (a signed-in session, a merchant's secret key, an admin token, the
 * browser extension's token), with real ids where the test has them and made-up ones elsewhere (a 404 must be private
 * too), and again without credentials (the 401 too): each answer says `Cache-Control: no-store` unless its path is on
 * PUBLIC below. A new GET route that forgets it fails here, because the list comes from the document.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { adminToken, makeAdmin } from '../test-support/modules/admin';
import { connectBrowser } from '../test-support/modules/extension';
import { call, makeTestApp, merchantCall, TEST_ORIGIN, type TestContext } from '../test-support/app';
import { merchantWorld, type MerchantWorld } from '../test-support/world';

/** The only API answers a shared cache may keep: the same for everyone, with no credential. */
const PUBLIC = ['/api/subscription/tiers', '/api/site/contact'];
/** The API's documentation, outside /api/ and public too. */
const DOCS = ['/swagger', '/swagger/json'];

interface Operation {
  path: string;
  security: string[];
}

let ctx: TestContext;
let world: MerchantWorld;
let operations: Operation[];
let admin: string;
let extension: string;
let intentId: string;
let clientSecret: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const doc = (await (await ctx.app.handle(new Request(`${TEST_ORIGIN}/swagger/json`))).json()) as {
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
    security?: Array<Record<string, unknown>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    ops.get ? [{ path, security: (ops.get.security ?? doc.security ?? []).flatMap((s) => Object.keys(s)) }] : [],
  );
  world = await merchantWorld(ctx);
  await makeAdmin(ctx);
  admin = await adminToken(ctx);
  extension = (await connectBrowser(ctx, world.consumer.cookie)).token;
  const intent = await merchantCall(ctx, world.live.secretKey, '/payment_intents', {
    method: 'POST',
    body: { amount: 1500, currency: 'usd' },
  });
  if (intent.status !== 200) throw new Error(`creating an intent failed: ${intent.status} ${intent.text}`);
  intentId = intent.body.id;
  clientSecret = intent.body.client_secret;
});
afterAll(() => ctx.close());

/** A path with its parameters filled: the owner's merchant, a real intent, else an id that exists nowhere. */
function concrete(path: string): string {
  return path
    .replace(/^\/api\/merchants\/\{id\}/, `/api/merchants/${world.live.id}`)
    .replace(/^\/api\/v1\/payment_intents\/\{id\}$/, `/api/v1/payment_intents/${intentId}`)
    .replace(/^\/api\/checkout\/payment_intents\/\{id\}$/, `/api/checkout/payment_intents/${intentId}?client_secret=${clientSecret}`)
    .replace(/\{[^}]+\}/g, 'x_1');
}

/** GET `path` with the credential its operation names (the first one it accepts), or none. */
async function get(op: Operation, withCredential: boolean, path = concrete(op.path)): Promise<Response> {
  const headers: Record<string, string> = {};
  const scheme = withCredential ? op.security[0] : undefined;
  if (scheme === 'sessionCookie') headers.cookie = path.startsWith('/api/merchants') ? world.owner.cookie : world.consumer.cookie;
  else if (scheme === 'secretKey') headers.authorization = `Bearer ${world.live.secretKey}`;
  else if (scheme === 'adminToken') headers.authorization = `Bearer ${admin}`;
  else if (scheme === 'extensionToken') headers.authorization = `Bearer ${extension}`;
  else if (scheme !== undefined) throw new Error(`${op.path}: no credential for the scheme ${scheme} in this test`);
  const res = await ctx.app.handle(new Request(`${TEST_ORIGIN}${path}`, { headers }));
  // Event streams stay open: their headers are what is checked.
  await res.body?.cancel().catch(() => undefined);
  return res;
}

const noStore = (res: Response) => (res.headers.get('cache-control') ?? '').split(',').map((d) => d.trim()).includes('no-store');

describe('every GET in the API document', () => {
  test('the document is read whole, and the public list names only operations it has', () => {
    expect(operations.length).toBeGreaterThan(60);
    for (const path of PUBLIC) expect(operations.map((o) => o.path)).toContain(path);
  });

  test('with its credential: no-store on every answer but the public ones, whatever the status', async () => {
    const missing: string[] = [];
    const statuses: Record<string, number> = {};
    for (const op of operations.filter((o) => !PUBLIC.includes(o.path))) {
      const res = await get(op, true);
      statuses[op.path] = res.status;
      if (!noStore(res)) missing.push(`GET ${op.path} -> ${res.status} cache-control: ${res.headers.get('cache-control')}`);
    }
    expect(missing).toEqual([]);
    // Not only refusals: the answers the issue named, and each kind of credential, were really served.
    for (const path of [
      '/api/auth/user',
      '/api/funding-sources',
      '/api/transactions',
      '/api/transactions/export.csv',
      '/api/notifications/stream',
      '/api/merchants/{id}/payment_intents',
      '/api/v1/payment_intents/{id}',
      '/api/v1/events/stream',
      '/api/checkout/payment_intents/{id}',
      '/api/admin/users',
      '/api/extension/funding-sources',
    ]) {
      expect(`${path} ${statuses[path]}`).toBe(`${path} 200`);
    }
    expect(Object.values(statuses).filter((s) => s === 200).length).toBeGreaterThan(40);
  }, 60_000);

  test('without a credential: the refusals are no-store too', async () => {
    const missing: string[] = [];
    for (const op of operations.filter((o) => !PUBLIC.includes(o.path))) {
      const res = await get(op, false);
      if (!noStore(res)) missing.push(`GET ${op.path} -> ${res.status} cache-control: ${res.headers.get('cache-control')}`);
    }
    expect(missing).toEqual([]);
  }, 60_000);

  test("the merchant API's Stripe-style /v1 twin answers no-store as /api/v1 does", async () => {
    const merchant = operations.filter((o) => o.path.startsWith('/api/v1/'));
    expect(merchant.length).toBeGreaterThan(5);
    for (const op of merchant) {
      const res = await get(op, true, concrete(op.path).replace(/^\/api\/v1\//, '/v1/'));
      expect(`${op.path} ${noStore(res)}`).toBe(`${op.path} true`);
    }
  });

  test('the public list is really public: answered 200 without any credential', async () => {
    for (const path of [...PUBLIC, ...DOCS]) {
      const res = await ctx.app.handle(new Request(`${TEST_ORIGIN}${path}`));
      expect(`${path} ${res.status}`).toBe(`${path} 200`);
      await res.body?.cancel().catch(() => undefined);
    }
  });
});

describe('beyond GET', () => {
  test('a sign-in answer (the account, a session cookie) and an unknown API path are no-store', async () => {
    const login = await call(ctx, '/api/auth/login', {
      method: 'POST',
      body: { email: world.consumer.email, password: world.consumer.password },
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('cache-control')).toBe('no-store');
    const unknown = await call(ctx, '/api/no-such-thing', { cookie: world.consumer.cookie });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });
});
