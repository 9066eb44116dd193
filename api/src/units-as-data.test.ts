import { afterAll, beforeAll, expect, test } from 'bun:test';
import { call, makeTestApp, merchantCall, type TestContext } from '../test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../test-support/world';

/*
 * Issue 30 §2: a unit of work as data builds the rows it writes instead of reading them back (an intent's row, a
 * collection's, its shares', the bcard's: rowAsInserted and friends). What a create answers must be what the database
 * then holds: each first answer equals the same object read back afterwards.
 */

let ctx: TestContext;
let cookie: string;
let sources: string[];

beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx);
  cookie = u.cookie;
  await makePremium(ctx, u.user.id);
  sources = [];
  for (const number of CARDS_OK.slice(0, 3)) sources.push((await addCard(ctx, cookie, number)).id);
});
afterAll(() => ctx.close());

test('a bcard as its create answers it is the bcard as listed afterwards', async () => {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    headers: { 'idempotency-key': 'rows-bcard' },
    body: { name: 'Rows', balance: '42.10', fundingSources: sources.map((id, i) => ({ fundingSourceId: id, percentage: [50, 30, 20][i] })) },
  });
  expect(made.status).toBe(201);
  const listed = await call(ctx, '/api/virtual-cards', { cookie });
  expect(listed.body.find((b: { id: string }) => b.id === made.body.id)).toEqual(made.body);
  // And its replay (the stored first answer) is the same.
  const again = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    headers: { 'idempotency-key': 'rows-bcard' },
    body: { name: 'Rows', balance: '42.10', fundingSources: sources.map((id, i) => ({ fundingSourceId: id, percentage: [50, 30, 20][i] })) },
  });
  expect(again.body).toEqual(made.body);
});

test('a payment intent as its create answers it is the intent as read back, with and without a key', async () => {
  const m = await createMerchant(ctx, cookie);
  for (const headers of [{ 'idempotency-key': 'rows-intent' }, {}] as Array<Record<string, string>>) {
    const made = await merchantCall(ctx, m.secretKey, '/payment_intents', {
      method: 'POST',
      headers,
      body: { amount: 1999, currency: 'usd', description: 'Rows', metadata: { order: '7', empty: '' }, capture_method: 'manual', receipt_email: 'r@example.com', automatic_payment_methods: { enabled: true } },
    });
    expect(made.status).toBe(200);
    const read = await merchantCall(ctx, m.secretKey, `/payment_intents/${made.body.id}`);
    expect(read.body).toEqual(made.body);
  }
});
