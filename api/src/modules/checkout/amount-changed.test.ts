import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { resetRateWindows } from '../merchants/usage';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser, type TestMerchant } from '../../../test-support/world';

/*
 * A merchant may update an intent's amount until a payment starts (POST /api/v1/payment_intents/{id}). The checkout
 * must never charge the consumer an amount they were not shown: it sends the amount it showed, and the claimed row,
 * not an earlier read, is what gets collected. (Found in a hostile review of issue 15.)
 */

let ctx: TestContext;
let consumer: { cookie: string };
let sources: { a: string; b: string };
let live: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  const c = await registerUser(ctx);
  consumer = { cookie: c.cookie };
  await makePremium(ctx, c.user.id);
  sources = { a: (await addCard(ctx, c.cookie, CARDS_OK[0])).id, b: (await addCard(ctx, c.cookie, CARDS_OK[1])).id };
  live = await createMerchant(ctx, owner.cookie, 'production');
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const createIntent = async (amount: number) => (await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount, currency: 'usd' } })).body as { id: string; client_secret: string };
const update = (id: string, body: unknown) => merchantCall(ctx, live.secretKey, `/payment_intents/${id}`, { method: 'POST', body });
const pay = (id: string, secret: string, amount?: number) =>
  call(ctx, `/api/checkout/payment_intents/${id}/pay`, {
    method: 'POST',
    cookie: consumer.cookie,
    body: { client_secret: secret, ...(amount === undefined ? {} : { amount }), splits: [{ fundingSourceId: sources.a, percentage: 60 }, { fundingSourceId: sources.b, percentage: 40 }] },
  });
const collectionsCount = async () => Number((await q("SELECT count(*) AS n FROM collections WHERE kind = 'purchase'"))[0]!.n);

describe('the checkout pays only the amount it showed', () => {
  test('the merchant raises the amount after the page showed it: 409 amount_changed, nothing collected, payable again', async () => {
    const pi = await createIntent(3000);
    expect((await update(pi.id, { amount: 300_000 })).status).toBe(200);
    const before = await collectionsCount();
    const res = await pay(pi.id, pi.client_secret, 3000);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'amount_changed', param: 'amount' });
    expect(res.body.error.message).toBe('The amount of this payment changed from $30.00 to $3000.00. Check it and pay again.');
    expect(await collectionsCount()).toBe(before);
    // The claim was given back: the consumer, now shown $3,000.00, can pay it.
    const again = await pay(pi.id, pi.client_secret, 300_000);
    expect(again.status).toBe(200);
    expect(again.body.paymentIntent).toMatchObject({ status: 'succeeded', amount: 300_000 });
  });

  test('an update between the checkout read and its claim: the claimed amount is collected, no false decline', async () => {
    const pi = await createIntent(3000);
    const client = ctx.handle.client as unknown as { execute: (...a: unknown[]) => Promise<unknown> };
    const original = client.execute.bind(client);
    let fired = false;
    client.execute = async (...a: unknown[]) => {
      const stmt = a[0] as { sql?: string; args?: unknown[] } | string;
      const sql = typeof stmt === 'string' ? stmt : (stmt.sql ?? '');
      const args = typeof stmt === 'string' ? [] : (stmt.args ?? []);
      if (!fired && /^update "payment_intents" set "status"/i.test(sql) && args.includes('processing')) {
        fired = true;
        expect((await update(pi.id, { amount: 4000 })).status).toBe(200);
      }
      return original(...a);
    };
    let res;
    try {
      // A client that does not send the amount accepts the intent's amount at the moment it pays.
      res = await pay(pi.id, pi.client_secret);
    } finally {
      client.execute = original;
    }
    expect(fired).toBe(true);
    expect(res.status).toBe(200);
    expect(res.body.paymentIntent).toMatchObject({ status: 'succeeded', amount: 4000 });
    const [row] = await q('SELECT b.limit_cents AS c FROM payment_intents p JOIN bcards b ON b.id = p.bcard_id WHERE p.id = ?', [pi.id]);
    expect(Number(row!.c)).toBe(4000);
    const types = (await q("SELECT type FROM events WHERE json_extract(data, '$.id') = ? ORDER BY seq", [pi.id])).map((r) => String(r.type));
    expect(types).not.toContain('payment_intent.failed');
  });
});
