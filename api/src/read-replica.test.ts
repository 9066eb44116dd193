import { afterEach, beforeEach, expect, test } from 'bun:test';
import { join } from 'node:path';
import { schema, openDb, type DbHandle } from '@bpay/db';
import { createApp } from './app';
import { call, makeTestApp, type TestContext } from '../test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../test-support/modules/admin';

/*
 * Issue 30 §3: reads beside the primary. With a read handle (BPAY_DATABASE_READ_URL), lists, history and figures read
 * from it and may lag; money decisions and the answers of writes never do. The replica here is a copy of the database
 * taken at one moment (VACUUM INTO), the worst lag there is: what was written after it shows on the primary's routes
 * only. The read handle refuses writes, so a view that wrote would fail here instead of writing to a replica.
 */

let ctx: TestContext;
let replica: DbHandle;
/** The app with the replica as its read handle (the same primary, clock and vendors). */
let lagged: TestContext;

beforeEach(async () => {
  ctx = await makeTestApp();
});

afterEach(() => {
  replica?.close();
  ctx.close();
});

async function snapshot(): Promise<void> {
  const path = join(ctx.dir, 'replica.db');
  await ctx.handle.client.execute(`VACUUM INTO '${path}'`);
  replica = openDb({ url: `file:${path}`, readOnly: true });
  const deps = { ...ctx.deps, readDb: replica.db };
  lagged = { ...ctx, deps, app: createApp(deps) };
}

const bcardBody = (sources: string[], name: string) => ({ name, balance: '20.00', fundingSources: sources.map((id) => ({ fundingSourceId: id, percentage: 100 / sources.length })) });

test('lists read the replica and may lag; money decisions and GET by id read the primary', async () => {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const source = (await addCard(ctx, u.cookie, CARDS_OK[0]!)).id;
  expect((await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: u.cookie, body: bcardBody([source], 'Before') })).status).toBe(201);
  const m = await createMerchant(ctx, u.cookie);
  const key = { authorization: `Bearer ${m.secretKey}` };
  const first = await call(ctx, '/api/v1/payment_intents', { method: 'POST', origin: null, headers: key, body: { amount: 500, currency: 'usd' } });
  expect(first.status).toBe(200);
  await snapshot();

  // Written after the snapshot, through the app that reads the replica: the money path runs on the primary. A source
  // added after the snapshot pays (the replica has never heard of it).
  const later = (await addCard(lagged, u.cookie, CARDS_OK[1]!)).id;
  const made = await call(lagged, '/api/virtual-cards', { method: 'POST', cookie: u.cookie, body: bcardBody([source, later], 'After') });
  expect(made.status).toBe(201);
  const second = await call(lagged, '/api/v1/payment_intents', { method: 'POST', origin: null, headers: key, body: { amount: 700, currency: 'usd' } });
  expect(second.status).toBe(200);
  // GET by id is the primary's: what was just written is there.
  const byId = await call(lagged, `/api/v1/payment_intents/${second.body.id}`, { origin: null, headers: key });
  expect([byId.status, byId.text.slice(0, 200)]).toEqual([200, byId.text.slice(0, 200)]);
  const card = await call(lagged, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: u.cookie });
  expect([card.status, card.text.slice(0, 200)]).toEqual([200, card.text.slice(0, 200)]);

  // The lists lag: the replica's transactions and intents are the snapshot's.
  const names = (r: { body: Array<{ id: string }> }) => r.body.length;
  const onReplica = await call(lagged, '/api/transactions', { cookie: u.cookie });
  const onPrimary = await call(ctx, '/api/transactions', { cookie: u.cookie });
  expect(onReplica.status).toBe(200);
  expect(names(onPrimary)).toBeGreaterThan(names(onReplica));
  const intentsLagged = await call(lagged, '/api/v1/payment_intents', { origin: null, headers: key });
  expect(intentsLagged.body.data.map((pi: { id: string }) => pi.id)).toEqual([first.body.id]);
  const intentsNow = await call(ctx, '/api/v1/payment_intents', { origin: null, headers: key });
  expect(intentsNow.body.data.map((pi: { id: string }) => pi.id)).toEqual([second.body.id, first.body.id]);
});

test('every lagging route answers from the read handle without writing', async () => {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const m = await createMerchant(ctx, u.cookie);
  await makeAdmin(ctx);
  const token = await adminToken(ctx);
  await snapshot();
  const key = { authorization: `Bearer ${m.secretKey}` };
  const consumer = ['/api/transactions', '/api/transactions/export.csv', '/api/transactions/summary', '/api/analytics?months=12', '/api/analytics.csv?months=12'];
  for (const path of consumer) expect([path, (await call(lagged, path, { cookie: u.cookie })).status]).toEqual([path, 200]);
  const merchant = ['/api/v1/payment_intents', '/api/v1/payment_intents/search?query=status:%27succeeded%27', '/api/v1/charges', '/api/v1/refunds', '/api/v1/customers', '/api/v1/events'];
  for (const path of merchant) expect([path, (await call(lagged, path, { origin: null, headers: key })).status]).toEqual([path, 200]);
  for (const path of ['/api/admin/analytics', '/api/admin/subscription-analytics', '/api/admin/users']) {
    expect([path, (await adminCall(lagged, token, path)).status]).toEqual([path, 200]);
  }
  // And the read handle itself refuses to write.
  const refused = await replica.db.delete(schema.sessions).run().catch((e: Error) => e);
  expect(String((refused as Error & { cause?: Error }).cause?.message)).toMatch(/read-only database handle/);
  expect(await ctx.handle.client.execute('SELECT count(*) AS n FROM sessions').then((r) => Number(r.rows[0]?.n))).toBeGreaterThan(0);
  await expect(replica.client.execute('DELETE FROM users')).rejects.toThrow(/read-only database handle/);
});
