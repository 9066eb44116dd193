import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, login, registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { DEMO_INTENTS_PER_HOUR, DEMO_MERCHANT_ID, DEMO_MERCHANT_USER_ID } from './service';

/*
 * The checkout demos' real path (issue 12): a signed-in consumer gets a sandbox intent of the built-in demo merchant
 * TechStore and pays it through the checkout widget's own endpoint, so nothing is charged.
 */

let ctx: TestContext;
let consumer: { cookie: string; id: string };
let sources: { a: string; b: string };

beforeAll(async () => {
  ctx = await makeTestApp();
  const c = await registerUser(ctx);
  consumer = { cookie: c.cookie, id: c.user.id };
  sources = { a: (await addCard(ctx, c.cookie, CARDS_OK[0])).id, b: (await addCard(ctx, c.cookie, CARDS_OK[1])).id };
});
afterAll(() => ctx.close());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const start = (cookie: string | null = consumer.cookie, body: unknown = {}) =>
  call(ctx, '/api/demo/checkout-intent', { method: 'POST', body, cookie });
const available = async (userId: string) =>
  (
    await q('SELECT s.available_cents AS c FROM funding_sources f JOIN sim_cards s ON s.token = f.vendor_token WHERE f.user_id = ? ORDER BY f.id', [
      userId,
    ])
  ).map((r) => Number(r.c));

describe('POST /api/demo/checkout-intent', () => {
  test('needs a session', async () => {
    const res = await start(null);
    expect(res.status).toBe(401);
  });

  test('refuses fields it does not know, and an amount out of bounds', async () => {
    const res = await start(consumer.cookie, { merchantId: 'mer_someone_else' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'merchantId' });
    for (const amount of [1, 49, 100_000_000, 12.5]) {
      const bad = await start(consumer.cookie, { amount });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    }
  });

  test("the payment demo's order: its amount, the typed merchant only a label; paid, TechStore's sandbox gets it and no card is charged", async () => {
    const before = await available(consumer.id);
    const bcardsBefore = Number((await q('SELECT count(*) AS n FROM bcards WHERE user_id = ?', [consumer.id]))[0]!.n);
    const res = await start(consumer.cookie, { amount: 5000, label: '  Corner Coffee ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: 5000, livemode: false, merchant: 'TechStore', description: 'Test payment: Corner Coffee' });
    const { id, clientSecret } = res.body as { id: string; clientSecret: string };
    const [row] = await q('SELECT merchant_id, livemode, metadata FROM payment_intents WHERE id = ?', [id]);
    expect({ merchant: row!.merchant_id, livemode: Number(row!.livemode) }).toEqual({ merchant: DEMO_MERCHANT_ID, livemode: 0 });
    expect(JSON.parse(String(row!.metadata))).toEqual({ source: 'bpay payment demo', label: 'Corner Coffee' });

    // $50.00 + 2.9 % = $51.45, split 60/40 as the demo sends it.
    const paid = await call(ctx, `/api/checkout/payment_intents/${id}/pay`, {
      method: 'POST',
      cookie: consumer.cookie,
      body: { client_secret: clientSecret, amount: 5000, splits: [{ fundingSourceId: sources.a, percentage: 60 }, { fundingSourceId: sources.b, percentage: 40 }] },
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ testMode: true, paymentIntent: { id, status: 'succeeded', amount: 5000 } });
    // The consumer's cards hold what they held, no bcard of theirs was made, and no transaction names the label.
    expect(await available(consumer.id)).toEqual(before);
    expect(Number((await q('SELECT count(*) AS n FROM bcards WHERE user_id = ?', [consumer.id]))[0]!.n)).toBe(bcardsBefore);
    const txs = await call(ctx, '/api/transactions', { cookie: consumer.cookie });
    expect((txs.body as Array<{ merchant: string }>).some((t) => t.merchant === 'Corner Coffee')).toBe(false);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('a label of two lines or over 120 characters is refused naming it', async () => {
    for (const label of ['Corner\nCoffee', 'x'.repeat(121)]) {
      const res = await start(consumer.cookie, { amount: 5000, label });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'label' });
    }
  });

  test('answers a sandbox intent of TechStore for $145.77 that the widget endpoint can read and pay, charging nothing', async () => {
    const before = await available(consumer.id);
    const res = await start();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: 14577, currency: 'usd', livemode: false, merchant: 'TechStore', description: 'Premium Laptop Stand' });
    const { id, clientSecret } = res.body as { id: string; clientSecret: string };

    const shown = await call(ctx, `/api/checkout/payment_intents/${id}?client_secret=${encodeURIComponent(clientSecret)}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ status: 'requires_payment_method', livemode: false, merchant: { businessName: 'TechStore' } });

    // Fixed amounts work on the widget endpoint too: 145.77 + 2.9 % fee (4.23) = 150.00.
    const paid = await call(ctx, `/api/checkout/payment_intents/${id}/pay`, {
      method: 'POST',
      cookie: consumer.cookie,
      body: {
        client_secret: clientSecret,
        splits: [
          { fundingSourceId: sources.a, fixedAmount: '100.00' },
          { fundingSourceId: sources.b, fixedAmount: '50.00' },
        ],
      },
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ testMode: true, paymentIntent: { id, status: 'succeeded', amount: 14577 } });
    expect(await available(consumer.id)).toEqual(before);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });

  test('a split entry with both a percentage and a fixed amount is refused, not half read', async () => {
    const { id, clientSecret } = (await start()).body as { id: string; clientSecret: string };
    const res = await call(ctx, `/api/checkout/payment_intents/${id}/pay`, {
      method: 'POST',
      cookie: consumer.cookie,
      body: {
        client_secret: clientSecret,
        splits: [
          { fundingSourceId: sources.a, percentage: 10, fixedAmount: '150.00' },
          { fundingSourceId: sources.b, fixedAmount: '0' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_splits', param: 'splits.0' });
  });

  test('a retried start with the same Idempotency-Key answers the same intent', async () => {
    const headers = { 'idempotency-key': `demo-${crypto.randomUUID()}` };
    const first = await call(ctx, '/api/demo/checkout-intent', { method: 'POST', body: {}, cookie: consumer.cookie, headers });
    const again = await call(ctx, '/api/demo/checkout-intent', { method: 'POST', body: {}, cookie: consumer.cookie, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });

  test('a fixed split that misses the total is refused with the spec text, nothing collected', async () => {
    const { id, clientSecret } = (await start()).body as { id: string; clientSecret: string };
    const res = await call(ctx, `/api/checkout/payment_intents/${id}/pay`, {
      method: 'POST',
      cookie: consumer.cookie,
      body: { client_secret: clientSecret, splits: [{ fundingSourceId: sources.a, fixedAmount: '149.98' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_splits');
    expect(res.body.error.message).toBe('Total fixed amounts ($149.98) must equal the total payment amount ($150.00) including fees.');
  });

  test('concurrent first uses create one merchant and one system account, which nobody can sign in to', async () => {
    const fresh = await makeTestApp();
    try {
      const u = await registerUser(fresh);
      const answers = await Promise.all(Array.from({ length: 8 }, () => call(fresh, '/api/demo/checkout-intent', { method: 'POST', body: {}, cookie: u.cookie })));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
      const rows = await fresh.handle.client.execute({ sql: 'SELECT count(*) AS n FROM merchants WHERE id = ?', args: [DEMO_MERCHANT_ID] });
      expect(Number(rows.rows[0]!.n)).toBe(1);
      const intents = await fresh.handle.client.execute({ sql: 'SELECT count(DISTINCT seq) AS n FROM payment_intents WHERE merchant_id = ?', args: [DEMO_MERCHANT_ID] });
      expect(Number(intents.rows[0]!.n)).toBe(8);
      // No .invalid address is accepted by the sign-in form at all; and the stored hash is of random bytes.
      const signIn = await login(fresh, 'demo-merchant@system.bpay.invalid', 'correct horse battery');
      expect(signIn.status).toBe(400);
      const hash = await fresh.handle.client.execute({ sql: 'SELECT password_hash AS h FROM users WHERE id = ?', args: [DEMO_MERCHANT_USER_ID] });
      expect(String(hash.rows[0]!.h)).toStartWith('$argon2id$');
      // Nobody can register the address, in any case.
      const register = await call(fresh, '/api/auth/register', {
        method: 'POST',
        body: { email: 'Demo-Merchant@System.bpay.INVALID', password: 'correct horse battery staple', firstName: 'A', lastName: 'B' },
      });
      expect(register.status).toBe(400);
    } finally {
      fresh.close();
    }
  });

  test('no address under .invalid can be registered or moved to before the demo merchant exists, so it cannot be blocked', async () => {
    const fresh = await makeTestApp();
    try {
      for (const email of ['demo-merchant@system.bpay.invalid', 'Demo-Merchant@System.Bpay.Invalid', 'x@y.INVALID']) {
        const res = await call(fresh, '/api/auth/register', {
          method: 'POST',
          body: { email, password: 'correct horse battery staple', firstName: 'A', lastName: 'B' },
        });
        expect({ email, status: res.status, code: res.body.error?.code }).toEqual({ email, status: 400, code: 'validation_error' });
      }
      const u = await registerUser(fresh);
      const moved = await call(fresh, '/api/auth/user', {
        method: 'PATCH',
        cookie: u.cookie,
        body: { email: 'demo-merchant@system.bpay.invalid', currentPassword: u.password },
      });
      expect(moved.status).toBe(400);
      expect((await call(fresh, '/api/demo/checkout-intent', { method: 'POST', body: {}, cookie: u.cookie })).status).toBe(201);
    } finally {
      fresh.close();
    }
  });

  test(`at most ${DEMO_INTENTS_PER_HOUR.limit} an hour per user, even when asked all at once`, async () => {
    const u = await registerUser(ctx);
    const answers = await Promise.all(Array.from({ length: DEMO_INTENTS_PER_HOUR.limit + 10 }, () => start(u.cookie)));
    const ok = answers.filter((a) => a.status === 201).length;
    expect(ok).toBe(DEMO_INTENTS_PER_HOUR.limit);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(10);
    expect(refused[0]!.body.error.code).toBe('demo_rate_limited');
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another user is not affected.
    expect((await start()).status).toBe(201);
  });
});

describe('GET /api/site/contact', () => {
  test('public, the configured investor contact', async () => {
    const res = await call(ctx, '/api/site/contact', { origin: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ investorEmail: 'investors@bpay.example', investorPhone: '+1 (555) 010-2025' });
  });
});
