import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../../../test-support/world';
import { resetRateWindows } from '../merchants/usage';
import { schema } from '@bpay/db';

/* Customers (issue 28 §1): create, retrieve, update, list, delete, scoped to the merchant; every refusal by name. */

let ctx: TestContext;
let mine: TestMerchant;
let theirs: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  mine = await createMerchant(ctx, owner.cookie, 'sandbox');
  theirs = await createMerchant(ctx, (await registerUser(ctx)).cookie, 'sandbox');
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const api = (path: string, opts: { method?: string; body?: unknown } = {}, key = mine.secretKey) => merchantCall(ctx, key, path, opts);

describe('customers', () => {
  test('create answers the object; retrieve answers the same', async () => {
    const made = await api('/customers', { method: 'POST', body: { email: 'jenny@example.com', name: 'Jenny Rosen', phone: '+15555550123', description: 'VIP', metadata: { crm: '42' } } });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ object: 'customer', email: 'jenny@example.com', name: 'Jenny Rosen', phone: '+15555550123', description: 'VIP', metadata: { crm: '42' }, livemode: false });
    expect(made.body.id).toMatch(/^cus_/);
    expect(typeof made.body.created).toBe('number');
    expect((await api(`/customers/${made.body.id}`)).body).toEqual(made.body);
    expect((await api('/customers', { method: 'POST' })).body).toMatchObject({ object: 'customer', email: null, metadata: {} });
  });

  test('create: a metadata value "" is simply not stored (Stripe: "" means unset)', async () => {
    const made = await api('/customers', { method: 'POST', body: { name: 'Empty', metadata: { keep: '1', skip: '' } } });
    expect(made.status).toBe(200);
    expect(made.body.metadata).toEqual({ keep: '1' });
    expect((await api(`/customers/${made.body.id}`)).body.metadata).toEqual({ keep: '1' });
    const onlyEmpty = await api('/customers', { method: 'POST', body: { metadata: { skip: '' } } });
    expect(onlyEmpty.body.metadata).toEqual({});
  });

  test('update sets fields, clears with "" or null, merges metadata', async () => {
    const made = await api('/customers', { method: 'POST', body: { email: 'a@example.com', name: 'A', metadata: { keep: '1', drop: '2' } } });
    const up = await api(`/customers/${made.body.id}`, { method: 'POST', body: { name: '', phone: '+1555', metadata: { drop: '', add: '3' } } });
    expect(up.body).toMatchObject({ email: 'a@example.com', name: null, phone: '+1555', metadata: { keep: '1', add: '3' } });
    const cleared = await api(`/customers/${made.body.id}`, { method: 'POST', body: { metadata: '', email: null } });
    expect(cleared.body).toMatchObject({ email: null, metadata: {} });
  });

  test("another merchant's customer is not found (404), for retrieve, update and delete", async () => {
    const made = await api('/customers', { method: 'POST', body: { email: 'b@example.com' } });
    for (const [method, body] of [['GET', undefined], ['POST', { name: 'x' }], ['DELETE', undefined]] as const) {
      const res = await api(`/customers/${made.body.id}`, { method, body }, theirs.secretKey);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe(`No such customer: '${made.body.id}'.`);
    }
    expect((await api(`/customers/${made.body.id}`)).body.email).toBe('b@example.com');
  });

  test('delete answers { id, object, deleted: true }, erases the details, and retrieve answers the same afterwards; update is 404', async () => {
    const made = await api('/customers', { method: 'POST', body: { email: 'c@example.com', name: 'C' } });
    const del = await api(`/customers/${made.body.id}`, { method: 'DELETE' });
    expect(del.body).toEqual({ id: made.body.id, object: 'customer', deleted: true });
    expect((await api(`/customers/${made.body.id}`)).body).toEqual({ id: made.body.id, object: 'customer', deleted: true });
    expect((await api(`/customers/${made.body.id}`, { method: 'DELETE' })).body).toEqual({ id: made.body.id, object: 'customer', deleted: true });
    expect((await api(`/customers/${made.body.id}`, { method: 'POST', body: { name: 'back' } })).status).toBe(404);
    const row = await ctx.deps.db.query.customers.findFirst({ where: (c, { eq }) => eq(c.id, made.body.id) });
    expect(row).toMatchObject({ email: null, name: null, metadata: {} });
    expect((await api('/customers?limit=100')).body.data.map((c: { id: string }) => c.id)).not.toContain(made.body.id);
  });

  test('delete erases the details from the answers kept for Idempotency-Key replays too (hostile review 28-H)', async () => {
    const secret = { email: 'erase-me@example.com', name: 'Erase Me', phone: '+15550000001', description: 'VIP Erase' };
    const createKey = { 'idempotency-key': `cus-${crypto.randomUUID()}` };
    const made = await api('/customers', { method: 'POST', body: secret, headers: createKey } as never);
    expect(made.status).toBe(200);
    const updateKey = { 'idempotency-key': `cus-${crypto.randomUUID()}` };
    const changed = { name: 'Still Erase Me', metadata: { crm: 'erase-crm-42' } };
    expect((await api(`/customers/${made.body.id}`, { method: 'POST', body: changed, headers: updateKey } as never)).status).toBe(200);
    // Another customer's kept answer is left as it was.
    const other = await api('/customers', { method: 'POST', body: { email: 'keep-me@example.com' }, headers: { 'idempotency-key': `cus-${crypto.randomUUID()}` } } as never);
    expect((await api(`/customers/${made.body.id}`, { method: 'DELETE' })).status).toBe(200);

    const kept = JSON.stringify(await ctx.deps.db.select().from(schema.idempotencyKeys));
    for (const v of ['erase-me@example.com', 'Erase Me', '+15550000001', 'VIP Erase', 'erase-crm-42']) expect(kept).not.toContain(v);
    expect(kept).toContain('keep-me@example.com');
    // A replay answers the customer as it is now: deleted.
    const replay = await api('/customers', { method: 'POST', body: secret, headers: createKey } as never);
    expect(replay.body).toEqual({ id: made.body.id, object: 'customer', deleted: true });
    expect(other.status).toBe(200);
  });

  test('list: newest first, paginated with starting_after / ending_before, filtered by email, mine only', async () => {
    const owner = await registerUser(ctx);
    const fresh = await createMerchant(ctx, owner.cookie, 'sandbox');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api('/customers', { method: 'POST', body: { email: i % 2 ? 'odd@example.com' : 'even@example.com' } }, fresh.secretKey)).body.id);
    const page1 = await api('/customers?limit=2', {}, fresh.secretKey);
    expect(page1.body).toMatchObject({ object: 'list', url: '/api/v1/customers', has_more: true });
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    const page2 = await api(`/customers?limit=2&starting_after=${ids[3]}`, {}, fresh.secretKey);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const back = await api(`/customers?limit=2&ending_before=${ids[1]}`, {}, fresh.secretKey);
    expect(back.body.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[2]]);
    const odd = await api('/customers?email=odd@example.com', {}, fresh.secretKey);
    expect(odd.body.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[1]]);
    expect((await api('/customers?limit=100')).body.data.map((c: { id: string }) => c.id)).not.toContain(ids[0]);
  });

  const refusals: Array<{ name: string; method: 'POST' | 'GET'; path: string; body?: unknown; param: string }> = [
    { name: 'an e-mail that is not one', method: 'POST', path: '/customers', body: { email: 'not-an-address' }, param: 'email' },
    { name: 'a name over 256', method: 'POST', path: '/customers', body: { name: 'n'.repeat(257) }, param: 'name' },
    { name: 'a phone over 20', method: 'POST', path: '/customers', body: { phone: '1'.repeat(21) }, param: 'phone' },
    { name: 'metadata that is not strings', method: 'POST', path: '/customers', body: { metadata: { a: 1 } }, param: 'metadata.a' },
    { name: 'a metadata key over 40', method: 'POST', path: '/customers', body: { metadata: { ['k'.repeat(41)]: 'v' } }, param: `metadata[${'k'.repeat(41)}]` },
    { name: 'an unknown field', method: 'POST', path: '/customers', body: { address: { city: 'x' } }, param: 'address' },
    { name: 'a limit over 100', method: 'GET', path: '/customers?limit=101', param: 'limit' },
    { name: 'a cursor not mine', method: 'GET', path: '/customers?starting_after=cus_nothing', param: 'starting_after' },
  ];
  for (const r of refusals) {
    test(`refused by name: ${r.name}`, async () => {
      const res = await api(r.path, { method: r.method, body: r.body });
      expect({ status: res.status, param: res.body.error?.param }).toEqual({ status: 400, param: r.param });
    });
  }
});
