import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { makeTestApp, type TestContext } from '../test-support/app';
import { registerUser } from '../test-support/world';
import { createIntent, newMerchant, testBcard, v1, type Merchant } from '../test-support/modules/webhooks';

/*
 * A hostile merchant against issue 28 §4's small items (audit): form booleans take exactly true/false and
 * stripe-python's True/False, and nothing else turns into a boolean or leaves a string; a webhook secret roll refuses
 * every grace but now, 1h and 24h, by name, rolling nothing; a key that never existed is invalid, never "expired".
 */

let ctx: TestContext;
let m: Merchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  m = await newMerchant(ctx, owner.cookie, 'sandbox');
});
afterAll(() => ctx.close());

const q = async (sql: string, args: (string | number)[] = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const form = async (path: string, body: string) => {
  const res = await ctx.app.handle(
    new Request(`http://localhost/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }),
  );
  return { status: res.status, body: await res.json() };
};
const intents = async () => Number((await q('SELECT count(*) AS n FROM payment_intents'))[0]!.n);

describe('form booleans', () => {
  test.each(['TRUE', 'tRUE', '1', '0', 'true ', ' true', 'yes', 'on', ''])('confirm=%p -> 400 naming confirm; no intent is made', async (value) => {
    const before = await intents();
    const res = await form('/payment_intents', `amount=1000&currency=usd&confirm=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('confirm');
    expect(await intents()).toBe(before);
  });

  test('False (stripe-python) is false: the intent is made unconfirmed', async () => {
    const res = await form('/payment_intents', 'amount=1000&currency=usd&confirm=False');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('requires_payment_method');
  });

  test('True and False stay text where the parameter is text, and are no number', async () => {
    const res = await form('/payment_intents', 'amount=1000&currency=usd&description=True&metadata[flag]=False');
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('True');
    expect(res.body.metadata).toEqual({ flag: 'False' });
    const before = await intents();
    const bad = await form('/payment_intents', 'amount=True&currency=usd');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('amount');
    expect(await intents()).toBe(before);
  });
});

describe('roll_secret expire_old_secret_in', () => {
  test.each(([3600, '3600', '24H', '2h', 'now ', '', null, ['24h'], { in: '24h' }] as unknown[]).map((v) => [v]))('%p -> 400 naming it; the secret is not rolled', async (value) => {
    const ep = await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url: 'https://hooks.example/h', enabled_events: ['*'] } });
    expect(ep.status).toBe(200);
    const sealed = async () => (await q('SELECT secret_sealed, previous_secret_sealed FROM webhook_endpoints WHERE id = ?', [ep.body.id]))[0];
    const before = await sealed();
    const res = await v1(ctx, m.key, `/webhook_endpoints/${ep.body.id}/roll_secret`, { method: 'POST', body: { expire_old_secret_in: value } });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('expire_old_secret_in');
    expect(res.body.secret).toBeUndefined();
    expect(await sealed()).toEqual(before);
  });
});

describe('keys that never existed', () => {
  test.each(['sk_test_' + 'a'.repeat(40), 'sk_live_' + 'b'.repeat(40), 'sk_test_x'])('%p -> 401 invalid_api_key, not api_key_expired', async (key) => {
    const res = await v1(ctx, key, '/payment_intents?limit=1');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });
});

describe('"" on create means unset (Stripe libraries send "" for a parameter left empty), as update already reads it', () => {
  test('a PaymentIntent: description "" is null, so a consumer’s checkout transaction says "Checkout at …", not nothing; a metadata key with "" is not kept', async () => {
    const made = await form('/payment_intents', 'amount=1000&currency=usd&description=&metadata[keep]=1&metadata[skip]=');
    expect(made.status).toBe(200);
    expect(made.body.description).toBeNull();
    expect(made.body.metadata).toEqual({ keep: '1' });
    const read = await v1(ctx, m.key, `/payment_intents/${made.body.id}`);
    expect(read.body).toMatchObject({ description: null, metadata: { keep: '1' } });
    const json = await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd', description: '', metadata: { skip: '' } } });
    expect(json.body).toMatchObject({ description: null, metadata: {} });
  });

  test('a Refund: a metadata key with "" is not kept', async () => {
    const card = await testBcard(ctx, m, 1500);
    const pi = await createIntent(ctx, m, 1500);
    expect((await v1(ctx, m.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.id } })).body.status).toBe('succeeded');
    const refund = await form('/refunds', `payment_intent=${pi}&amount=500&metadata[keep]=1&metadata[skip]=`);
    expect(refund.status).toBe(200);
    expect(refund.body.metadata).toEqual({ keep: '1' });
  });
});
