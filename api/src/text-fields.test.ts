/**
 * Issue 11 §7: names, descriptions and metadata refuse NUL, other control characters and bidirectional overrides;
 * names are trimmed and may not be blank where one is required.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { findUnsafeText, unsafeCharacter } from './lib/text';
import { adminCall, adminToken, makeAdmin } from '../test-support/modules/admin';
import { call, merchantCall, type TestContext, makeTestApp } from '../test-support/app';
import { createMerchant, postCard, registerUser } from '../test-support/world';

let ctx: TestContext;
let cookie: string;
let secretKey: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  cookie = (await registerUser(ctx)).cookie;
  secretKey = (await createMerchant(ctx, cookie)).secretKey;
});
afterAll(() => ctx.close());

const HOSTILE = ['\u0000', '\u0007', '\u001b[31m', '\u007f', '\u0085', '\u200b', '\u2028', '\u2029', '\u202a', '\u202e', '\u2066', '\u2069', '\ufeff'];

describe('unsafe characters', () => {
  test('are found wherever they hide, and ordinary text of any script is not', () => {
    for (const c of HOSTILE) expect(unsafeCharacter(`Ada${c}Lovelace`)).not.toBeNull();
    expect(unsafeCharacter('\u202e')).toBe('U+202E');
    for (const ok of ['Ada Lovelace', 'أدا لوفليس', 'Zoë 山田', 'line one\nline two\ttab', '\u200f rtl mark', 'می\u200cخواهم', '👩\u200d💻']) {
      expect(unsafeCharacter(ok)).toBeNull();
    }
    expect(findUnsafeText({ a: [{ b: 'x' }, { c: 'y\u0000' }] })).toEqual({ path: 'a.1.c', code: 'U+0000' });
    expect(findUnsafeText({ metadata: { ['k\u202e']: 'v' } })).toEqual({ path: 'metadata.k\u202e', code: 'U+202E' });
  });

  const cases: Array<{ name: string; send: (bad: string) => Promise<{ status: number; body: any }>; param: string }> = [
    {
      name: 'register firstName',
      send: (bad) => call(ctx, '/api/auth/register', { method: 'POST', body: { email: `x${Math.random()}@example.com`, password: 'correct horse battery staple', firstName: `Ada${bad}` } }),
      param: 'firstName',
    },
    { name: 'profile lastName', send: (bad) => call(ctx, '/api/auth/user', { method: 'PATCH', cookie, body: { lastName: `L${bad}` } }), param: 'lastName' },
    { name: 'funding source name', send: (bad) => postCard(ctx, cookie, '4242424242424242', { name: `Ada${bad} Lovelace` }), param: 'name' },
    { name: 'merchant businessName', send: (bad) => call(ctx, '/api/merchants', { method: 'POST', cookie, body: { businessName: `Shop${bad}`, businessEmail: 's@example.com', platformType: 'custom', environment: 'sandbox' } }), param: 'businessName' },
    { name: 'payment intent description', send: (bad) => merchantCall(ctx, secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd', description: `d${bad}` } }), param: 'description' },
    { name: 'payment intent metadata value', send: (bad) => merchantCall(ctx, secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd', metadata: { order: `1${bad}` } } }), param: 'metadata.order' },
    { name: 'webhook endpoint description', send: (bad) => merchantCall(ctx, secretKey, '/webhook_endpoints', { method: 'POST', body: { url: 'https://example.com/hook', enabled_events: ['*'], description: `d${bad}` } }), param: 'description' },
  ];

  for (const c of cases) {
    test(`${c.name} refuses every one of them, naming the field`, async () => {
      for (const bad of HOSTILE) {
        const res = await c.send(bad);
        expect({ bad: escape(bad), status: res.status }).toEqual({ bad: escape(bad), status: 400 });
        expect(res.body.error).toMatchObject({ code: 'validation_error', param: c.param });
        expect(res.body.error.message).toContain('control or bidirectional-override character');
      }
    });
  }

  test('a metadata key with an override is refused too', async () => {
    const res = await merchantCall(ctx, secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd', metadata: { ['id\u202e']: '1' } } });
    expect(res.status).toBe(400);
    // Named, but never with the override itself: a message shown to a person must not be reordered by it.
    expect(res.body.error.param).toBe('metadata.id\\u202E');
    expect(res.body.error.message).toStartWith('metadata.id\\u202E contains');
  });

  test('query parameters obey the same rule', async () => {
    const res = await call(ctx, `/api/transactions?search=${encodeURIComponent('a\u0000b')}`, { cookie });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'search' });
  });
});

describe('names', () => {
  test('are trimmed', async () => {
    const reg = await call(ctx, '/api/auth/register', {
      method: 'POST',
      body: { email: `trim${Date.now()}@example.com`, password: 'correct horse battery staple', firstName: '  Grace ', lastName: ' Hopper  ' },
    });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
    const m = await call(ctx, '/api/merchants', { method: 'POST', cookie, body: { businessName: '  Corner Shop  ', businessEmail: 's@example.com', platformType: 'custom', environment: 'sandbox' } });
    expect(m.status).toBe(201);
    expect(m.body.businessName).toBe('Corner Shop');
    const hook = await merchantCall(ctx, secretKey, '/webhook_endpoints', { method: 'POST', body: { url: 'https://example.com/h', enabled_events: ['*'], description: '  orders  ' } });
    expect(hook.status).toBe(200);
    expect(hook.body.description).toBe('orders');
  });

  test('that are required refuse blanks and line breaks', async () => {
    for (const blank of ['', '   ', '\t', 'Corner\nShop']) {
      const m = await call(ctx, '/api/merchants', { method: 'POST', cookie, body: { businessName: blank, businessEmail: 's@example.com', platformType: 'custom', environment: 'sandbox' } });
      expect(m.status).toBe(400);
      expect(m.body.error).toMatchObject({ code: 'validation_error', param: 'businessName' });
      const card = await postCard(ctx, cookie, '4242424242424242', { name: blank });
      expect(card.status).toBe(400);
      expect(card.body.error.param).toBe('name');
    }
    await makeAdmin(ctx);
    const token = await adminToken(ctx);
    const tier = await adminCall(ctx, token, '/api/admin/subscription-tiers/tier_pro', { method: 'PATCH', body: { displayName: '   ' } });
    expect(tier.status).toBe(400);
    expect(tier.body.error.param).toBe('displayName');
  });
});
