import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser } from '../../../test-support/world';
import { resetRateWindows } from './usage';

/*
 * The merchant account routes (session cookie): POST/GET/PATCH /api/merchants, roll-secret, the dashboard's usage
 * and payment list. Keys by environment, the secret shown only at creation and on roll, stored only as a hash.
 */

const M = '/api/merchants';

/** toMatchObject on a copy: Bun 1.3's toMatchObject writes its asymmetric matchers into the object it checks. */
const matches = (value: unknown, shape: Record<string, unknown>) => expect(structuredClone(value)).toMatchObject(shape);

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  expect(typeof res.body.error.message).toBe('string');
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

let ctx: TestContext;
let owner: { cookie: string; id: string };
let other: { cookie: string; id: string };

beforeAll(async () => {
  ctx = await makeTestApp();
  const a = await registerUser(ctx);
  const b = await registerUser(ctx);
  owner = { cookie: a.cookie, id: a.user.id };
  other = { cookie: b.cookie, id: b.user.id };
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const valid = { businessName: 'Acme Shop', businessEmail: 'shop@example.com', platformType: 'shopify', environment: 'sandbox' };

interface Row {
  name: string;
  request: { body?: unknown; rawBody?: string; headers?: Record<string, string>; auth?: boolean; origin?: string };
  expectStatus: number;
  expectCode: ErrorCode;
  expectParam?: string;
}

describe('POST /api/merchants: validation', () => {
  const body = (over: Record<string, unknown>) => ({ body: { ...valid, ...over }, auth: true });
  const rows: Row[] = [
    { name: 'businessName missing', request: body({ businessName: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'businessName' },
    { name: 'businessName empty', request: body({ businessName: '' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'businessName' },
    { name: 'businessName blank', request: body({ businessName: '    ' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'businessName' },
    { name: 'businessName of 121 characters', request: body({ businessName: 'A'.repeat(121) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'businessName' },
    { name: 'businessEmail without @', request: body({ businessEmail: 'shop.example.com' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'businessEmail' },
    { name: 'businessEmail missing', request: body({ businessEmail: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'businessEmail' },
    { name: "platformType 'magento'", request: body({ platformType: 'magento' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'platformType' },
    { name: "environment 'staging'", request: body({ environment: 'staging' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'environment' },
    { name: "environment 'live'", request: body({ environment: 'live' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'environment' },
    { name: 'website with an ftp: scheme', request: body({ website: 'ftp://shop.example' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'website' },
    { name: 'unknown field', request: body({ secretApiKey: 'sk_test_mine' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'secretApiKey' },
    { name: 'body is not JSON', request: { rawBody: '{"businessName":', headers: { 'content-type': 'application/json' }, auth: true }, expectStatus: 400, expectCode: 'invalid_json' },
    { name: 'text/plain body', request: { rawBody: JSON.stringify(valid), headers: { 'content-type': 'text/plain' }, auth: true }, expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'no session cookie', request: { body: valid }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'a forged session cookie', request: { body: valid, headers: { cookie: 'bpay_session=forged' } }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'cross-site Origin', request: { body: valid, auth: true, origin: 'https://evil.example' }, expectStatus: 403, expectCode: 'cross_site_request' },
  ];

  for (const row of rows) {
    test(`${row.name} -> ${row.expectStatus} ${row.expectCode}`, async () => {
      const res = await call(ctx, M, {
        method: 'POST',
        body: row.request.body,
        rawBody: row.request.rawBody,
        headers: row.request.headers,
        cookie: row.request.auth ? owner.cookie : null,
        origin: row.request.origin,
      });
      expectError(res, row.expectStatus, row.expectCode, row.expectParam);
    });
  }

  test('none of the refused requests made a merchant', async () => {
    const res = await call(ctx, M, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    const [row] = (await ctx.handle.client.execute('SELECT count(*) AS n FROM merchants')).rows;
    expect(Number(row!.n)).toBe(0);
  });
});

describe('keys', () => {
  test('sandbox: pk_test_/sk_test_, production: pk_live_/sk_live_; the secret is shown once with a hint of its last 4', async () => {
    for (const [environment, mode] of [
      ['sandbox', 'test'],
      ['production', 'live'],
    ] as const) {
      const res = await call(ctx, M, { method: 'POST', cookie: owner.cookie, body: { ...valid, environment, website: 'https://shop.example' } });
      expect(res.status).toBe(201);
      matches(res.body, {
        id: expect.stringMatching(/^mer_/),
        businessName: 'Acme Shop',
        businessEmail: 'shop@example.com',
        website: 'https://shop.example/',
        platformType: 'shopify',
        environment,
        isActive: true,
        totalVolume: '0.00',
        apiKey: expect.stringMatching(new RegExp(`^pk_${mode}_[A-Za-z0-9]{24,}$`)),
        secretApiKey: expect.stringMatching(new RegExp(`^sk_${mode}_[A-Za-z0-9]{24,}$`)),
        secretKeyRolledAt: null,
      });
      expect(res.body.publicApiKey).toBe(res.body.apiKey);
      const secret: string = res.body.secretApiKey;
      expect(res.body.secretKeyHint).toBe(`sk_${mode}_••••${secret.slice(-4)}`);
      // The key works for its own merchant.
      const usage = await merchantCall(ctx, secret, '/merchant/usage');
      expect(usage.status).toBe(200);

      // Never again: not in the list.
      const list = await call(ctx, M, { cookie: owner.cookie });
      const listed = list.body.find((m: { id: string }) => m.id === res.body.id);
      expect(listed).toMatchObject({ id: res.body.id, secretKeyHint: res.body.secretKeyHint, apiKey: res.body.apiKey });
      expect(listed).not.toHaveProperty('secretApiKey');
      expect(list.text).not.toContain(secret);
    }
  });

  test('left out, platformType is custom and environment sandbox (not the first value of their enums)', async () => {
    const res = await call(ctx, M, { method: 'POST', cookie: owner.cookie, body: { businessName: 'Plain', businessEmail: 'plain@example.com' } });
    expect(res.status).toBe(201);
    expect({ platformType: res.body.platformType, environment: res.body.environment, website: res.body.website }).toEqual({
      platformType: 'custom',
      environment: 'sandbox',
      website: null,
    });
    expect(res.body.secretApiKey).toMatch(/^sk_test_/);
  });

  test('the secret is stored only as a hash: no table holds it, the merchants table holds no sk_ string', async () => {
    const made = await call(ctx, M, { method: 'POST', cookie: owner.cookie, body: valid });
    expect(made.status).toBe(201);
    const secret: string = made.body.secretApiKey;
    const rows = (await ctx.handle.client.execute('SELECT * FROM merchants')).rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (typeof value === 'string') expect(value).not.toContain('sk_');
      }
    }
    const mine = rows.find((r) => r.id === made.body.id)!;
    expect(mine.secret_key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(mine.secret_key_last4).toBe(secret.slice(-4));
    // Nor anywhere else in the database.
    const tables = (await ctx.handle.client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")).rows;
    for (const { name } of tables) {
      const all = (await ctx.handle.client.execute(`SELECT * FROM "${String(name)}"`)).rows;
      expect(JSON.stringify(all)).not.toContain(secret);
    }
  });

  test('GET /api/merchants lists only the caller’s merchants', async () => {
    const mine = await createMerchant(ctx, owner.cookie);
    const theirs = await createMerchant(ctx, other.cookie);
    const a = await call(ctx, M, { cookie: owner.cookie });
    const b = await call(ctx, M, { cookie: other.cookie });
    const ids = (r: CallResult) => r.body.map((m: { id: string }) => m.id);
    expect(ids(a)).toContain(mine.id);
    expect(ids(a)).not.toContain(theirs.id);
    expect(ids(b)).toEqual([theirs.id]);
    expectError(await call(ctx, M), 401, 'unauthenticated');
  });
});

describe('PATCH /api/merchants/:id', () => {
  test('edits the business details', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const res = await call(ctx, `${M}/${m.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { businessName: '  Acme Goods ', businessEmail: 'sales@example.com', website: 'https://goods.example', platformType: 'woocommerce' },
    });
    expect(res.status).toBe(200);
    matches(res.body, {
      id: m.id,
      businessName: 'Acme Goods',
      businessEmail: 'sales@example.com',
      website: 'https://goods.example/',
      platformType: 'woocommerce',
      environment: 'sandbox',
    });
    expect(res.body).not.toHaveProperty('secretApiKey');
    const list = await call(ctx, M, { cookie: owner.cookie });
    expect(list.body.find((x: { id: string }) => x.id === m.id)).toMatchObject({ businessName: 'Acme Goods', platformType: 'woocommerce' });
  });

  test('a field left out keeps its value', async () => {
    const m = await createMerchant(ctx, owner.cookie, 'sandbox', { platformType: 'wordpress', website: 'https://blog.example' });
    const res = await call(ctx, `${M}/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: { businessName: 'Renamed' } });
    expect(res.status).toBe(200);
    expect({ businessName: res.body.businessName, platformType: res.body.platformType, website: res.body.website, isActive: res.body.isActive }).toEqual({
      businessName: 'Renamed',
      platformType: 'wordpress',
      website: 'https://blog.example/',
      isActive: true,
    });
    const cleared = await call(ctx, `${M}/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: { website: null } });
    expect({ website: cleared.body.website, platformType: cleared.body.platformType }).toEqual({ website: null, platformType: 'wordpress' });
  });

  const rows: Array<{ name: string; body: unknown; expectParam: string }> = [
    { name: 'environment cannot change', body: { environment: 'production' }, expectParam: 'environment' },
    { name: 'blank businessName', body: { businessName: '   ' }, expectParam: 'businessName' },
    { name: 'businessName of 121 characters', body: { businessName: 'A'.repeat(121) }, expectParam: 'businessName' },
    { name: 'bad businessEmail', body: { businessEmail: 'nope' }, expectParam: 'businessEmail' },
    { name: 'platformType outside the enum', body: { platformType: 'magento' }, expectParam: 'platformType' },
    { name: 'isActive as a string', body: { isActive: 'false' }, expectParam: 'isActive' },
    { name: 'unknown field', body: { secretKeyHash: 'x' }, expectParam: 'secretKeyHash' },
  ];
  for (const row of rows) {
    test(`${row.name} -> 400 validation_error (${row.expectParam})`, async () => {
      const m = await createMerchant(ctx, owner.cookie);
      const res = await call(ctx, `${M}/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: row.body });
      expectError(res, 400, 'validation_error', row.expectParam);
      const list = await call(ctx, M, { cookie: owner.cookie });
      expect(list.body.find((x: { id: string }) => x.id === m.id)).toMatchObject({ businessName: 'Acme Shop', environment: 'sandbox', isActive: true });
    });
  }

  test("another user's merchant -> 404 and unchanged; no cookie -> 401; cross-site -> 403", async () => {
    const theirs = await createMerchant(ctx, other.cookie);
    expectError(await call(ctx, `${M}/${theirs.id}`, { method: 'PATCH', cookie: owner.cookie, body: { businessName: 'Mine now' } }), 404, 'resource_not_found');
    expectError(await call(ctx, `${M}/${theirs.id}`, { method: 'PATCH', cookie: owner.cookie, body: { isActive: false } }), 404, 'resource_not_found');
    expectError(await call(ctx, `${M}/mer_nope`, { method: 'PATCH', cookie: owner.cookie, body: { businessName: 'x' } }), 404, 'resource_not_found');
    expectError(await call(ctx, `${M}/${theirs.id}`, { method: 'PATCH', body: { businessName: 'x' } }), 401, 'unauthenticated');
    expectError(
      await call(ctx, `${M}/${theirs.id}`, { method: 'PATCH', cookie: other.cookie, body: { businessName: 'x' }, origin: 'https://evil.example' }),
      403,
      'cross_site_request',
    );
    const list = await call(ctx, M, { cookie: other.cookie });
    expect(list.body.find((x: { id: string }) => x.id === theirs.id)).toMatchObject({ businessName: 'Acme Shop', isActive: true });
    expect((await merchantCall(ctx, theirs.secretKey, '/merchant/usage')).status).toBe(200);
  });

  test('isActive false shuts the API off (403 merchant_inactive); true turns it back on', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    expect((await call(ctx, `${M}/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: { isActive: false } })).body.isActive).toBe(false);
    expectError(await merchantCall(ctx, m.secretKey, '/payment_intents'), 403, 'merchant_inactive');
    expect((await call(ctx, `${M}/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: { isActive: true } })).body.isActive).toBe(true);
    expect((await merchantCall(ctx, m.secretKey, '/payment_intents')).status).toBe(200);
  });
});

describe('POST /api/merchants/:id/roll-secret', () => {
  test('without a grace period the old key stops working at once (api_key_expired), the new one works and is shown this once', async () => {
    for (const environment of ['sandbox', 'production'] as const) {
      const m = await createMerchant(ctx, owner.cookie, environment);
      const mode = environment === 'production' ? 'live' : 'test';
      expect((await merchantCall(ctx, m.secretKey, '/payment_intents')).status).toBe(200);
      const rolled = await call(ctx, `${M}/${m.id}/roll-secret`, { method: 'POST', cookie: owner.cookie });
      expect(rolled.status).toBe(200);
      const fresh: string = rolled.body.secretApiKey;
      expect(fresh).toMatch(new RegExp(`^sk_${mode}_[A-Za-z0-9]{24,}$`));
      expect(fresh).not.toBe(m.secretKey);
      matches(rolled.body, {
        id: m.id,
        apiKey: m.publishableKey,
        secretKeyHint: `sk_${mode}_••••${fresh.slice(-4)}`,
        secretKeyRolledAt: ctx.clock.now().toISOString(),
      });

      const old = await merchantCall(ctx, m.secretKey, '/payment_intents');
      expectError(old, 401, 'api_key_expired');
      expect(old.body.error.type).toBe('authentication_error');
      expect((await merchantCall(ctx, fresh, '/payment_intents')).status).toBe(200);

      const list = await call(ctx, M, { cookie: owner.cookie });
      expect(list.text).not.toContain(fresh);
      expect(list.body.find((x: { id: string }) => x.id === m.id).secretKeyHint).toBe(`sk_${mode}_••••${fresh.slice(-4)}`);
    }
  });

  test("another user's merchant -> 404 and its key keeps working; no cookie -> 401", async () => {
    const theirs = await createMerchant(ctx, other.cookie);
    expectError(await call(ctx, `${M}/${theirs.id}/roll-secret`, { method: 'POST', cookie: owner.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `${M}/${theirs.id}/roll-secret`, { method: 'POST' }), 401, 'unauthenticated');
    expectError(
      await call(ctx, `${M}/${theirs.id}/roll-secret`, { method: 'POST', cookie: other.cookie, origin: 'https://evil.example' }),
      403,
      'cross_site_request',
    );
    expect((await merchantCall(ctx, theirs.secretKey, '/payment_intents')).status).toBe(200);
  });
});

describe('dashboard reads', () => {
  test('GET /:id/usage and /:id/payment_intents: the owner only, and reading usage is not an API request', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const made = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } });
    expect(made.status).toBe(200);
    const usage = await call(ctx, `${M}/${m.id}/usage`, { cookie: owner.cookie });
    expect(usage.body).toEqual({ object: 'usage', totalRequests: 1, totalRequestsToday: 1, totalRequestsThisMonth: 1 });
    expect((await call(ctx, `${M}/${m.id}/usage`, { cookie: owner.cookie })).body.totalRequests).toBe(1);
    const list = await call(ctx, `${M}/${m.id}/payment_intents`, { cookie: owner.cookie });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([made.body.id]);

    expectError(await call(ctx, `${M}/${m.id}/usage`, { cookie: other.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `${M}/${m.id}/payment_intents`, { cookie: other.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `${M}/${m.id}/usage`), 401, 'unauthenticated');
  });
});

describe("the dashboard's payment intent count (include[]=total_count)", () => {
  test('counts every intent of the account in its mode, not the page; only when asked', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const mine = await createMerchant(ctx, owner.cookie, 'production');
    const theirs = await createMerchant(ctx, other.cookie);
    for (let i = 0; i < 13; i++) {
      resetRateWindows();
      expect((await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000 + i, currency: 'usd' } })).status).toBe(200);
    }
    resetRateWindows();
    await merchantCall(ctx, theirs.secretKey, '/payment_intents', { method: 'POST', body: { amount: 700, currency: 'usd' } });

    const page = await call(ctx, `${M}/${m.id}/payment_intents?limit=5&include[]=total_count`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(5);
    expect(page.body).toMatchObject({ has_more: true, total_count: 13 });
    // The next page counts the same total.
    const next = await call(ctx, `${M}/${m.id}/payment_intents?limit=5&starting_after=${page.body.data[4].id}&include[]=total_count`, {
      cookie: owner.cookie,
    });
    expect(next.body.total_count).toBe(13);
    // The form with several values, as Stripe's libraries send it.
    const twice = await call(ctx, `${M}/${m.id}/payment_intents?limit=1&include[]=total_count&include[]=total_count`, { cookie: owner.cookie });
    expect(twice.body.total_count).toBe(13);
    // Without include[] there is no count (the list stays the API's list).
    const plain = await call(ctx, `${M}/${m.id}/payment_intents?limit=5`, { cookie: owner.cookie });
    expect('total_count' in plain.body).toBe(false);
    // Another account of the same owner, in the other mode, and one with none.
    expect((await call(ctx, `${M}/${mine.id}/payment_intents?include[]=total_count`, { cookie: owner.cookie })).body.total_count).toBe(0);
    expectError(await call(ctx, `${M}/${m.id}/payment_intents?include[]=total_count`, { cookie: other.cookie }), 404, 'resource_not_found');
  });

  test('include[] takes only total_count', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const res = await call(ctx, `${M}/${m.id}/payment_intents?include[]=everything`, { cookie: owner.cookie });
    expectError(res, 400, 'validation_error', 'include[]');
    expect(res.body.error.message).toBe('include[] may only be total_count.');
  });
});
