import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type CallResult, type TestContext } from '../../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../../test-support/world';
import { resetRateWindows } from '../modules/merchants/usage';

/*
 * How the merchant API takes a secret key (issue 15): Bearer, or HTTP Basic with the key as the user name
 * (`curl -u sk_test_…:`), alike on every secret-key route; what each wrong credential is told; a publishable key
 * is answered 403 secret_key_required (Stripe's wording: this call cannot be made with a publishable key).
 */

let ctx: TestContext;
let merchant: TestMerchant;
let live: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  merchant = await createMerchant(ctx, owner.cookie, 'sandbox');
  live = await createMerchant(ctx, owner.cookie, 'production');
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Every secret-key route, with a request it answers 200 (or 4xx past authentication) for. */
const routes: Array<{ name: string; method: string; path: string; body?: unknown; ok: number }> = [
  { name: 'POST /payment_intents', method: 'POST', path: '/payment_intents', body: { amount: 2500, currency: 'usd' }, ok: 200 },
  { name: 'GET /payment_intents', method: 'GET', path: '/payment_intents', ok: 200 },
  { name: 'GET /payment_intents/:id (missing)', method: 'GET', path: '/payment_intents/pi_missing', ok: 404 },
  { name: 'POST /payment_intents/:id (missing)', method: 'POST', path: '/payment_intents/pi_missing', body: { description: 'x' }, ok: 404 },
  { name: 'POST …/confirm (missing)', method: 'POST', path: '/payment_intents/pi_missing/confirm', body: { payment_method: 'bc_1' }, ok: 404 },
  { name: 'POST …/capture (missing)', method: 'POST', path: '/payment_intents/pi_missing/capture', body: {}, ok: 404 },
  { name: 'POST …/cancel (missing)', method: 'POST', path: '/payment_intents/pi_missing/cancel', body: {}, ok: 404 },
  { name: 'GET /events', method: 'GET', path: '/events', ok: 200 },
  { name: 'GET /events/:id (missing)', method: 'GET', path: '/events/evt_missing', ok: 404 },
  { name: 'GET /webhook_endpoints', method: 'GET', path: '/webhook_endpoints', ok: 200 },
  { name: 'DELETE /webhook_endpoints/:id (missing)', method: 'DELETE', path: '/webhook_endpoints/we_missing', ok: 404 },
  { name: 'POST /test_helpers/bcards', method: 'POST', path: '/test_helpers/bcards', body: { amount: 500 }, ok: 200 },
  { name: 'GET /merchant/usage', method: 'GET', path: '/merchant/usage', ok: 200 },
];

const send = (r: (typeof routes)[number], authorization: string | null, prefix = '/api/v1'): Promise<CallResult> =>
  call(ctx, `${prefix}${r.path}`, {
    method: r.method,
    body: r.body,
    headers: authorization === null ? {} : { authorization },
    origin: null,
  });

describe('HTTP Basic with the key as the user name authenticates as Bearer does', () => {
  for (const r of routes) {
    test(`${r.name}: Basic answers what Bearer answers (${r.ok})`, async () => {
      const bearer = await send(r, `Bearer ${merchant.secretKey}`);
      const viaBasic = await send(r, basic(merchant.secretKey));
      expect(bearer.status).toBe(r.ok);
      expect(viaBasic.status).toBe(r.ok);
      if (r.ok !== 200) expect(viaBasic.body.error.code).toBe(bearer.body.error.code);
    });
  }

  test('at /v1 too (curl -u sk_test_…: https://host/v1/payment_intents)', async () => {
    expect((await send(routes[1]!, basic(merchant.secretKey), '/v1')).status).toBe(200);
  });

  test('the password is ignored, as Stripe ignores it; the scheme name is case-insensitive', async () => {
    expect((await send(routes[1]!, basic(merchant.secretKey, 'anything'))).status).toBe(200);
    expect((await send(routes[1]!, basic(merchant.secretKey).replace('Basic', 'basic'))).status).toBe(200);
  });
});

describe('what each wrong credential is told (401 authentication_error, invalid_api_key)', () => {
  const rows: Array<{ name: string; header: () => string | null; says: RegExp }> = [
    { name: 'no Authorization header', header: () => null, says: /^No API key provided\. .*Bearer sk_test_.*curl -u sk_test_…:/ },
    { name: 'an empty Authorization header', header: () => '', says: /^No API key provided\./ },
    { name: 'the key without a scheme', header: () => merchant.secretKey, says: /must name its scheme \(Bearer or Basic\)/ },
    { name: 'an unsupported scheme', header: () => `Token ${merchant.secretKey}`, says: /The Authorization scheme Token is not supported/ },
    { name: 'Basic that is not base64', header: () => 'Basic %%%not-base64', says: /^Malformed HTTP Basic credentials: expected base64 of "<secret key>:"/ },
    { name: 'Basic without a colon', header: () => `Basic ${btoa(merchant.secretKey)}`, says: /^Malformed HTTP Basic credentials/ },
    { name: 'Basic with the key as the password', header: () => basic('', merchant.secretKey), says: /empty user name: give your secret key as the user name/ },
    { name: 'Basic with a wrong key', header: () => basic(`sk_test_${'x'.repeat(32)}`), says: /^Invalid API key provided: sk_test_••••xxxx\./ },
    { name: 'Bearer with a wrong key', header: () => `Bearer sk_live_${'y'.repeat(32)}`, says: /^Invalid API key provided: sk_live_••••yyyy\./ },
    { name: 'the test twin of a live key', header: () => `Bearer ${live.secretKey.replace('sk_live_', 'sk_test_')}`, says: /^Invalid API key provided: sk_test_••••/ },
    { name: 'something that is not a key', header: () => 'Bearer hello', says: /^Invalid API key provided: this key\./ },
    {
      name: 'Bearer with the key and something after it',
      header: () => `Bearer ${merchant.secretKey} extra`,
      says: /^The Authorization header must be Bearer <secret key> with nothing after the key\./,
    },
    {
      name: 'Basic with the credentials and something after them',
      header: () => `${basic(merchant.secretKey)} extra`,
      says: /^The Authorization header must be Basic <base64 of "<secret key>:"> with nothing after the key\./,
    },
    {
      name: 'Basic whose user name ends in control and bidi characters: escaped, never echoed raw',
      header: () => basic('sk_test_AAAA\u202e\u0007\n\u0000'),
      says: /^Invalid API key provided: sk_test_••••\\u202E\\u0007\\u000A\\u0000\. /,
    },
    {
      name: 'Basic whose user name ends in half an emoji: the lone surrogate is escaped',
      header: () => basic(`sk_test_AAAA${'\u{1F600}'}`),
      says: /^Invalid API key provided: sk_test_••••AA\\uD83D\\uDE00\. /,
    },
    { name: 'a publishable key no merchant has', header: () => `Bearer pk_test_${'z'.repeat(32)}`, says: /^Invalid API key provided: pk_test_••••zzzz\./ },
  ];
  for (const row of rows) {
    test(`${row.name}`, async () => {
      const res = await send(routes[1]!, row.header());
      expect({ status: res.status, type: res.body.error.type, code: res.body.error.code }).toEqual({
        status: 401,
        type: 'authentication_error',
        code: 'invalid_api_key',
      });
      expect(res.body.error.message).toMatch(row.says);
      // eslint-disable-next-line no-control-regex
      expect(res.body.error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/);
      expect(res.text).not.toContain(merchant.secretKey);
      expect(res.text).not.toContain(live.secretKey);
    });
  }
});

describe('a publishable key on a secret-key route', () => {
  for (const r of routes) {
    test(`${r.name} -> 403 permission_error secret_key_required, by Bearer and by Basic`, async () => {
      for (const header of [`Bearer ${merchant.publishableKey}`, basic(live.publishableKey)]) {
        const res = await send(r, header);
        expect({ status: res.status, type: res.body.error.type, code: res.body.error.code }).toEqual({
          status: 403,
          type: 'permission_error',
          code: 'secret_key_required',
        });
        expect(res.body.error.message).toStartWith('This API call cannot be made with a publishable API key (pk_…). Use your secret key');
      }
    });
  }
});
