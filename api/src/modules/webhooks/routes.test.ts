import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { unseal } from '../../lib/crypto';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { SUBSCRIBABLE_EVENT_TYPES } from '../events/emit';
import { MAX_ENDPOINTS } from './service';
import { countRows, fakeDns, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';

/*
 * /api/v1/webhook_endpoints and /api/v1/events: every route and its errors, as a table, then the behaviour behind
 * them. Merchant B never sees merchant A's endpoints or events; the sandbox merchant never sees production ones.
 */

let ctx: TestContext;
let A: Merchant; // sandbox
let B: Merchant; // sandbox, another user
let P: Merchant; // production, A's owner
const ids: Record<string, string> = {};

const LOCAL = 'http://127.0.0.1:9/hooks';

async function endpoint(m: Merchant, url = LOCAL, enabled_events: string[] = ['*']): Promise<string> {
  const res = await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url, enabled_events } });
  if (res.status !== 200) throw new Error(`endpoint: ${res.status} ${res.text}`);
  return res.body.id;
}

async function intent(m: Merchant, amount = 1000): Promise<string> {
  const res = await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount, currency: 'usd' } });
  if (res.status !== 200) throw new Error(`intent: ${res.status} ${res.text}`);
  return res.body.id;
}

async function latestEvent(m: Merchant): Promise<string> {
  const res = await v1(ctx, m.key, '/events?limit=1');
  return res.body.data[0].id;
}

beforeAll(async () => {
  ctx = await makeTestApp();
  ctx.deps.webhooks.resolveHost = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
  const ada = await registerUser(ctx);
  const bob = await registerUser(ctx, { firstName: 'Bob' });
  A = await newMerchant(ctx, ada.cookie, 'sandbox');
  B = await newMerchant(ctx, bob.cookie, 'sandbox');
  P = await newMerchant(ctx, ada.cookie, 'production');
  ids.epA = await endpoint(A);
  ids.epB = await endpoint(B);
  ids.epP = await endpoint(P, 'https://hooks.example.com/hooks');
  ids.epAoff = await endpoint(A);
  ids.epAgone = await endpoint(A);
  expect((await v1(ctx, A.key, `/webhook_endpoints/${ids.epAoff}`, { method: 'PATCH', body: { disabled: true } })).status).toBe(200);
  await intent(A);
  ids.evtA = await latestEvent(A);
  await intent(B);
  ids.evtB = await latestEvent(B);
  await intent(P);
  ids.evtP = await latestEvent(P);
  ids.cookieA = ada.cookie;
});
afterAll(() => ctx.close());

type Who = 'A' | 'B' | 'P' | 'bad' | 'none' | 'cookie';
interface Case {
  name: string;
  who: Who;
  method?: string;
  path: () => string;
  /** A function when it names ids made in beforeAll. */
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  expectStatus: number;
  expectCode?: string;
  expectParam?: string;
}

const create = (body: unknown, who: Who = 'A'): Omit<Case, 'name' | 'expectStatus'> => ({ who, method: 'POST', path: () => '/webhook_endpoints', body });
const valid = { url: LOCAL, enabled_events: ['payment_intent.succeeded'] };

const CASES: Case[] = [
  // POST /webhook_endpoints
  { name: 'create: valid', ...create(valid), expectStatus: 200 },
  { name: 'create: no url', ...create({ enabled_events: ['*'] }), expectStatus: 400, expectCode: 'parameter_missing', expectParam: 'url' },
  { name: 'create: empty url', ...create({ url: '', enabled_events: ['*'] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'url' },
  { name: 'create: url not a string', ...create({ url: 42, enabled_events: ['*'] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'url' },
  { name: 'create: url not a URL', ...create({ url: 'hooks', enabled_events: ['*'] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'url' },
  { name: 'create: no enabled_events', ...create({ url: LOCAL }), expectStatus: 400, expectCode: 'parameter_missing', expectParam: 'enabled_events' },
  { name: 'create: enabled_events empty', ...create({ url: LOCAL, enabled_events: [] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'enabled_events' },
  { name: 'create: enabled_events not an array', ...create({ url: LOCAL, enabled_events: '*' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'enabled_events' },
  { name: 'create: unknown event type', ...create({ url: LOCAL, enabled_events: ['charge.succeeded'] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'enabled_events.0' },
  { name: 'create: the test type is not subscribable', ...create({ url: LOCAL, enabled_events: ['webhook_endpoint.test'] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'enabled_events.0' },
  { name: 'create: description too long', ...create({ ...valid, description: 'x'.repeat(1001) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'description' },
  { name: 'create: unknown field', ...create({ ...valid, secret: 'whsec_mine' }), expectStatus: 400, expectCode: 'parameter_unknown', expectParam: 'secret' },
  { name: 'create: invalid JSON', who: 'A', method: 'POST', path: () => '/webhook_endpoints', rawBody: '{"url":', contentType: 'application/json', expectStatus: 400, expectCode: 'invalid_json' },
  // Form bodies (Stripe's encoding) are taken since issue 15 and validated like JSON (stripe-compat.test.ts).
  { name: 'create: a form body with a bad url', who: 'A', method: 'POST', path: () => '/webhook_endpoints', rawBody: 'url=x&enabled_events[]=*', contentType: 'application/x-www-form-urlencoded', expectStatus: 400, expectCode: 'validation_error', expectParam: 'url' },
  { name: 'create: a text/plain body', who: 'A', method: 'POST', path: () => '/webhook_endpoints', rawBody: 'url=x', contentType: 'text/plain', expectStatus: 415, expectCode: 'unsupported_media_type' },
  { name: 'create: a bad key', ...create(valid, 'bad'), expectStatus: 401, expectCode: 'invalid_api_key' },
  { name: 'create: no key', ...create(valid, 'none'), expectStatus: 401, expectCode: 'invalid_api_key' },
  { name: 'create: a session cookie is no key', ...create(valid, 'cookie'), expectStatus: 401, expectCode: 'invalid_api_key' },
  // GET /webhook_endpoints
  { name: 'list', who: 'A', path: () => '/webhook_endpoints', expectStatus: 200 },
  { name: 'list: limit 0', who: 'A', path: () => '/webhook_endpoints?limit=0', expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: 'list: limit 101', who: 'A', path: () => '/webhook_endpoints?limit=101', expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: 'list: limit abc', who: 'A', path: () => '/webhook_endpoints?limit=abc', expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: "list: starting_after another merchant's endpoint", who: 'A', path: () => `/webhook_endpoints?starting_after=${ids.epB}`, expectStatus: 400, expectCode: 'validation_error', expectParam: 'starting_after' },
  { name: 'list: a bad key', who: 'bad', path: () => '/webhook_endpoints', expectStatus: 401, expectCode: 'invalid_api_key' },
  // GET /webhook_endpoints/:id
  { name: 'retrieve', who: 'A', path: () => `/webhook_endpoints/${ids.epA}`, expectStatus: 200 },
  { name: "retrieve: another merchant's endpoint", who: 'B', path: () => `/webhook_endpoints/${ids.epA}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'retrieve: a production endpoint with a sandbox key', who: 'A', path: () => `/webhook_endpoints/${ids.epP}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'retrieve: a sandbox endpoint with a production key', who: 'P', path: () => `/webhook_endpoints/${ids.epA}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'retrieve: unknown id', who: 'A', path: () => '/webhook_endpoints/we_nope', expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'retrieve: a bad key', who: 'bad', path: () => `/webhook_endpoints/${ids.epA}`, expectStatus: 401, expectCode: 'invalid_api_key' },
  // PATCH /webhook_endpoints/:id
  { name: 'update: description', who: 'A', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { description: 'Orders' }, expectStatus: 200 },
  { name: "update: another merchant's endpoint", who: 'B', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { description: 'mine' }, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'update: a production endpoint with a sandbox key', who: 'A', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epP}`, body: { disabled: true }, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'update: unknown event type', who: 'A', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { enabled_events: ['nope'] }, expectStatus: 400, expectCode: 'validation_error', expectParam: 'enabled_events.0' },
  { name: 'update: disabled not a boolean', who: 'A', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { disabled: 'yes' }, expectStatus: 400, expectCode: 'validation_error', expectParam: 'disabled' },
  { name: 'update: status is not writable', who: 'A', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { status: 'enabled' }, expectStatus: 400, expectCode: 'parameter_unknown', expectParam: 'status' },
  { name: 'update: a bad url', who: 'A', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { url: 'ftp://x' }, expectStatus: 400, expectCode: 'validation_error', expectParam: 'url' },
  { name: 'update: a bad key', who: 'bad', method: 'PATCH', path: () => `/webhook_endpoints/${ids.epA}`, body: { description: 'x' }, expectStatus: 401, expectCode: 'invalid_api_key' },
  // DELETE /webhook_endpoints/:id
  { name: "delete: another merchant's endpoint", who: 'B', method: 'DELETE', path: () => `/webhook_endpoints/${ids.epA}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'delete: a production endpoint with a sandbox key', who: 'A', method: 'DELETE', path: () => `/webhook_endpoints/${ids.epP}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'delete', who: 'A', method: 'DELETE', path: () => `/webhook_endpoints/${ids.epAgone}`, expectStatus: 200 },
  { name: 'delete: unknown id', who: 'A', method: 'DELETE', path: () => '/webhook_endpoints/we_nope', expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'delete: a bad key', who: 'bad', method: 'DELETE', path: () => `/webhook_endpoints/${ids.epA}`, expectStatus: 401, expectCode: 'invalid_api_key' },
  // POST /webhook_endpoints/:id/roll_secret
  { name: "roll: another merchant's endpoint", who: 'B', method: 'POST', path: () => `/webhook_endpoints/${ids.epA}/roll_secret`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'roll', who: 'A', method: 'POST', path: () => `/webhook_endpoints/${ids.epA}/roll_secret`, expectStatus: 200 },
  { name: 'roll: unknown id', who: 'A', method: 'POST', path: () => '/webhook_endpoints/we_nope/roll_secret', expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'roll: a bad key', who: 'bad', method: 'POST', path: () => `/webhook_endpoints/${ids.epA}/roll_secret`, expectStatus: 401, expectCode: 'invalid_api_key' },
  // GET /events
  { name: 'events', who: 'A', path: () => '/events', expectStatus: 200 },
  { name: 'events: type filter', who: 'A', path: () => '/events?type=payment_intent.created', expectStatus: 200 },
  { name: 'events: unknown type', who: 'A', path: () => '/events?type=charge.succeeded', expectStatus: 400, expectCode: 'validation_error', expectParam: 'type' },
  { name: 'events: limit 0', who: 'A', path: () => '/events?limit=0', expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: 'events: limit 101', who: 'A', path: () => '/events?limit=101', expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: "events: starting_after another merchant's event", who: 'A', path: () => `/events?starting_after=${ids.evtB}`, expectStatus: 400, expectCode: 'validation_error', expectParam: 'starting_after' },
  { name: 'events: a bad key', who: 'bad', path: () => '/events', expectStatus: 401, expectCode: 'invalid_api_key' },
  { name: 'events: no key', who: 'none', path: () => '/events', expectStatus: 401, expectCode: 'invalid_api_key' },
  // GET /events/:id
  { name: 'event', who: 'A', path: () => `/events/${ids.evtA}`, expectStatus: 200 },
  { name: "event: another merchant's", who: 'A', path: () => `/events/${ids.evtB}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'event: a production event with a sandbox key', who: 'A', path: () => `/events/${ids.evtP}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'event: a sandbox event with a production key', who: 'P', path: () => `/events/${ids.evtA}`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'event: unknown id', who: 'A', path: () => '/events/evt_nope', expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'event: a bad key', who: 'bad', path: () => `/events/${ids.evtA}`, expectStatus: 401, expectCode: 'invalid_api_key' },
  // POST /events/:id/resend
  { name: 'resend: to every subscribed endpoint', who: 'A', method: 'POST', path: () => `/events/${ids.evtA}/resend`, expectStatus: 200 },
  { name: 'resend: to one endpoint', who: 'A', method: 'POST', path: () => `/events/${ids.evtA}/resend`, body: () => ({ endpoint_id: ids.epA }), expectStatus: 200 },
  { name: "resend: another merchant's event", who: 'A', method: 'POST', path: () => `/events/${ids.evtB}/resend`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: 'resend: a production event with a sandbox key', who: 'A', method: 'POST', path: () => `/events/${ids.evtP}/resend`, expectStatus: 404, expectCode: 'resource_missing' },
  { name: "resend: to another merchant's endpoint", who: 'A', method: 'POST', path: () => `/events/${ids.evtA}/resend`, body: () => ({ endpoint_id: ids.epB }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'endpoint_id' },
  { name: 'resend: to a disabled endpoint', who: 'A', method: 'POST', path: () => `/events/${ids.evtA}/resend`, body: () => ({ endpoint_id: ids.epAoff }), expectStatus: 400, expectCode: 'webhook_endpoint_disabled', expectParam: 'endpoint_id' },
  { name: 'resend: unknown field', who: 'A', method: 'POST', path: () => `/events/${ids.evtA}/resend`, body: () => ({ endpoint: ids.epA }), expectStatus: 400, expectCode: 'parameter_unknown', expectParam: 'endpoint' },
  { name: 'resend: a bad key', who: 'bad', method: 'POST', path: () => `/events/${ids.evtA}/resend`, expectStatus: 401, expectCode: 'invalid_api_key' },
];

function keyOf(who: Who): string | null {
  if (who === 'A') return A.key;
  if (who === 'B') return B.key;
  if (who === 'P') return P.key;
  if (who === 'bad') return `sk_test_${'x'.repeat(32)}`;
  return null;
}

describe('route table', () => {
  test.each(CASES)('$name -> $expectStatus $expectCode', async (c) => {
    const headers: Record<string, string> = c.contentType ? { 'content-type': c.contentType } : {};
    const res = await v1(ctx, keyOf(c.who), c.path(), {
      method: c.method ?? 'GET',
      body: typeof c.body === 'function' ? c.body() : c.body,
      rawBody: c.rawBody,
      headers,
      cookie: c.who === 'cookie' ? ids.cookieA : undefined,
    });
    expect(res.status).toBe(c.expectStatus);
    if (c.expectCode) expect(res.body.error.code).toBe(c.expectCode);
    if (c.expectParam) expect(res.body.error.param).toBe(c.expectParam);
    if (c.expectStatus >= 400) {
      expect(res.body.error.request_id).toMatch(/^req_/);
      // An error never echoes a signing secret.
      expect(res.text).not.toContain('whsec_');
    }
  });
});

describe('webhook endpoints', () => {
  test('create answers the Stripe-like object with a whsec_ secret; the secret is stored only sealed', async () => {
    const res = await v1(ctx, A.key, '/webhook_endpoints', {
      method: 'POST',
      body: { url: 'http://127.0.0.1:9/x', enabled_events: ['payment_intent.succeeded', 'payment_intent.failed'], description: '  Orders  ' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^we_[0-9a-f]{24}$/),
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1:9/x',
      enabled_events: ['payment_intent.succeeded', 'payment_intent.failed'],
      description: 'Orders',
      status: 'enabled',
      disabled_reason: null,
      livemode: false,
      created: Math.floor(ctx.clock.now().getTime() / 1000),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const row = await ctx.handle.db.query.webhookEndpoints.findFirst({ where: eq(schema.webhookEndpoints.id, res.body.id) });
    expect(row!.secretSealed).not.toContain(res.body.secret);
    expect(row!.secretSealed).not.toContain(res.body.secret.slice(6));
    expect(unseal(ctx.deps.webhookKey, row!.secretSealed)).toBe(res.body.secret);
    const dump = await ctx.handle.client.execute('SELECT * FROM webhook_endpoints');
    expect(JSON.stringify(dump.rows)).not.toContain(res.body.secret.slice(6));
  });

  test("'*' stands alone and duplicates are dropped", async () => {
    const star = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: { url: LOCAL, enabled_events: ['payment_intent.created', '*'] } });
    expect(star.body.enabled_events).toEqual(['*']);
    const dup = await v1(ctx, A.key, '/webhook_endpoints', {
      method: 'POST',
      body: { url: LOCAL, enabled_events: ['payment_intent.created', 'payment_intent.created'] },
    });
    expect(dup.body.enabled_events).toEqual(['payment_intent.created']);
    for (const t of SUBSCRIBABLE_EVENT_TYPES) {
      const one = await v1(ctx, B.key, '/webhook_endpoints', { method: 'POST', body: { url: LOCAL, enabled_events: [t] } });
      expect(one.status).toBe(200);
      await v1(ctx, B.key, `/webhook_endpoints/${one.body.id}`, { method: 'DELETE' });
    }
  });

  test('retrieve, list and update never show the secret; roll_secret shows a new one once', async () => {
    const made = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid });
    const got = await v1(ctx, A.key, `/webhook_endpoints/${made.body.id}`);
    expect(got.body.secret).toBeUndefined();
    expect(got.text).not.toContain('whsec_');
    const list = await v1(ctx, A.key, '/webhook_endpoints?limit=100');
    expect(list.text).not.toContain('whsec_');
    const patched = await v1(ctx, A.key, `/webhook_endpoints/${made.body.id}`, { method: 'PATCH', body: { description: 'x' } });
    expect(patched.text).not.toContain('whsec_');

    const rolled = await v1(ctx, A.key, `/webhook_endpoints/${made.body.id}/roll_secret`, { method: 'POST' });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(made.body.secret);
    const row = await ctx.handle.db.query.webhookEndpoints.findFirst({ where: eq(schema.webhookEndpoints.id, made.body.id) });
    expect(unseal(ctx.deps.webhookKey, row!.secretSealed)).toBe(rolled.body.secret);
  });

  test('the list is newest first with cursor pagination, and holds only this merchant and mode', async () => {
    const m = await newMerchant(ctx, ids.cookieA!, 'sandbox');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: valid })).body.id);
      ctx.clock.advance(1000);
    }
    const page1 = await v1(ctx, m.key, '/webhook_endpoints?limit=2');
    expect(page1.body).toMatchObject({ object: 'list', url: '/api/v1/webhook_endpoints', has_more: true });
    expect(page1.body.data.map((e: { id: string }) => e.id)).toEqual([made[2], made[1]]);
    const page2 = await v1(ctx, m.key, `/webhook_endpoints?limit=2&starting_after=${made[1]}`);
    expect(page2.body.has_more).toBe(false);
    expect(page2.body.data.map((e: { id: string }) => e.id)).toEqual([made[0]]);
    const bList = await v1(ctx, B.key, '/webhook_endpoints?limit=100');
    for (const e of bList.body.data) expect([...made, ids.epA, ids.epP]).not.toContain(e.id);
    const pList = await v1(ctx, P.key, '/webhook_endpoints?limit=100');
    expect(pList.body.data.every((e: { livemode: boolean }) => e.livemode)).toBe(true);
  });

  test('disabling fails what was queued and stops new deliveries; enabling again clears the failure streak', async () => {
    const m = await newMerchant(ctx, ids.cookieA!, 'sandbox');
    const ep = (await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url: LOCAL, enabled_events: ['*'] } })).body;
    await ctx.handle.db.update(schema.webhookEndpoints).set({ failingSince: ctx.clock.now() }).where(eq(schema.webhookEndpoints.id, ep.id));
    await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 500, currency: 'usd' } });
    expect(await countRows(ctx, 'webhook_deliveries', "endpoint_id = ? AND status = 'pending'", [ep.id])).toBe(1);

    const off = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}`, { method: 'PATCH', body: { disabled: true } });
    expect(off.body).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by the merchant' });
    expect(await countRows(ctx, 'webhook_deliveries', "endpoint_id = ? AND status = 'pending'", [ep.id])).toBe(0);
    expect(await countRows(ctx, 'webhook_deliveries', "endpoint_id = ? AND status = 'failed'", [ep.id])).toBe(1);
    await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 500, currency: 'usd' } });
    expect(await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [ep.id])).toBe(1);

    const on = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}`, { method: 'PATCH', body: { disabled: false } });
    expect(on.body).toMatchObject({ status: 'enabled', disabled_reason: null });
    const row = await ctx.handle.db.query.webhookEndpoints.findFirst({ where: eq(schema.webhookEndpoints.id, ep.id) });
    expect(row!.failingSince).toBeNull();
    await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 500, currency: 'usd' } });
    expect(await countRows(ctx, 'webhook_deliveries', "endpoint_id = ? AND status = 'pending'", [ep.id])).toBe(1);
  });

  test('update changes url, events and description together', async () => {
    const ep = (await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid })).body;
    const res = await v1(ctx, A.key, `/webhook_endpoints/${ep.id}`, {
      method: 'PATCH',
      body: { url: 'http://localhost:4000/new', enabled_events: ['payment_intent.canceled'], description: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: 'http://localhost:4000/new', enabled_events: ['payment_intent.canceled'], description: null });
  });

  test('delete answers deleted: true, takes the deliveries with it, keeps the events; a second delete is 404', async () => {
    const m = await newMerchant(ctx, ids.cookieA!, 'sandbox');
    const ep = (await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url: LOCAL, enabled_events: ['*'] } })).body;
    await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 500, currency: 'usd' } });
    expect(await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [ep.id])).toBe(1);
    const del = await v1(ctx, m.key, `/webhook_endpoints/${ep.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: ep.id, object: 'webhook_endpoint', deleted: true });
    expect(await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [ep.id])).toBe(0);
    expect(await countRows(ctx, 'events', 'merchant_id = ?', [m.id])).toBe(1);
    expect((await v1(ctx, m.key, `/webhook_endpoints/${ep.id}`)).status).toBe(404);
    expect((await v1(ctx, m.key, `/webhook_endpoints/${ep.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  test(`a merchant has at most ${MAX_ENDPOINTS} endpoints`, async () => {
    const m = await newMerchant(ctx, ids.cookieA!, 'sandbox');
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      expect((await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: valid })).status).toBe(200);
    }
    const over = await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: valid });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('webhook_endpoint_limit_reached');
  });

  test("Idempotency-Key: a replay answers the first endpoint (and its secret); another body is an idempotency_error; keys are per merchant", async () => {
    const headers = { 'idempotency-key': 'create-hook-1' };
    const first = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid, headers });
    const again = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countRows(ctx, 'webhook_endpoints', 'id = ?', [first.body.id])).toBe(1);
    const other = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: { ...valid, url: 'http://127.0.0.1:9/other' }, headers });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_error');
    expect(other.body.error.param).toBe('url');
    // B using the same key string gets its own endpoint, not A's answer.
    const bFirst = await v1(ctx, B.key, '/webhook_endpoints', { method: 'POST', body: valid, headers });
    expect(bFirst.status).toBe(200);
    expect(bFirst.headers.get('idempotent-replayed')).toBeNull();
    expect(bFirst.body.id).not.toBe(first.body.id);

    const roll = { 'idempotency-key': 'roll-1' };
    const r1 = await v1(ctx, A.key, `/webhook_endpoints/${first.body.id}/roll_secret`, { method: 'POST', headers: roll });
    const r2 = await v1(ctx, A.key, `/webhook_endpoints/${first.body.id}/roll_secret`, { method: 'POST', headers: roll });
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(r2.body.secret).toBe(r1.body.secret);
  });

  test('Idempotency-Key records never hold a signing secret: stored without it, a replay unseals the current one', async () => {
    const stored = async (key: string) => {
      const rs = await ctx.handle.client.execute({ sql: 'SELECT response_body FROM idempotency_keys WHERE key = ?', args: [key] });
      return String(rs.rows[0]?.response_body);
    };
    const headers = { 'idempotency-key': 'create-hook-sealed' };
    const first = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid, headers });
    expect(first.status).toBe(200);
    expect(first.body.secret).toMatch(/^whsec_/);
    const record = await stored('create-hook-sealed');
    expect(record).not.toContain('whsec_');
    expect(record).not.toContain(first.body.secret);
    expect(JSON.parse(record)).toEqual(Object.fromEntries(Object.entries(first.body).filter(([k]) => k !== 'secret')));
    const replay = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    // Roll: the same. A replay shows the endpoint's secret as it is now (what signs deliveries), here the rolled one.
    const roll = { 'idempotency-key': 'roll-sealed' };
    const rolled = await v1(ctx, A.key, `/webhook_endpoints/${first.body.id}/roll_secret`, { method: 'POST', headers: roll });
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(first.body.secret);
    expect(await stored('roll-sealed')).not.toContain('whsec_');
    expect((await v1(ctx, A.key, `/webhook_endpoints/${first.body.id}/roll_secret`, { method: 'POST', headers: roll })).body).toEqual(rolled.body);
    expect((await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid, headers })).body.secret).toBe(rolled.body.secret);
    // Deleted since: the replay has no secret to show.
    expect((await v1(ctx, A.key, `/webhook_endpoints/${first.body.id}`, { method: 'DELETE' })).status).toBe(200);
    const gone = await v1(ctx, A.key, '/webhook_endpoints', { method: 'POST', body: valid, headers });
    expect(gone.status).toBe(200);
    expect(gone.body.id).toBe(first.body.id);
    expect(gone.body.secret).toBeUndefined();

    // The dashboard's create and roll store their answers the same way.
    const dash = { 'idempotency-key': 'dash-create-sealed' };
    const made = await call(ctx, `/api/merchants/${A.id}/webhook_endpoints`, { method: 'POST', cookie: ids.cookieA!, body: valid, headers: dash });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_/);
    expect(await stored('dash-create-sealed')).not.toContain('whsec_');
    const dashAgain = await call(ctx, `/api/merchants/${A.id}/webhook_endpoints`, { method: 'POST', cookie: ids.cookieA!, body: valid, headers: dash });
    expect(dashAgain.status).toBe(201);
    expect(dashAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(dashAgain.body).toEqual(made.body);
    const dashRoll = { 'idempotency-key': 'dash-roll-sealed' };
    const rolledDash = await call(ctx, `/api/merchants/${A.id}/webhook_endpoints/${made.body.id}/roll_secret`, { method: 'POST', cookie: ids.cookieA!, headers: dashRoll });
    expect(rolledDash.body.secret).toMatch(/^whsec_/);
    expect(await stored('dash-roll-sealed')).not.toContain('whsec_');
    const rolledAgain = await call(ctx, `/api/merchants/${A.id}/webhook_endpoints/${made.body.id}/roll_secret`, { method: 'POST', cookie: ids.cookieA!, headers: dashRoll });
    expect(rolledAgain.body).toEqual(rolledDash.body);

    // No idempotency record anywhere holds a signing secret.
    const all = await ctx.handle.client.execute("SELECT count(*) AS n FROM idempotency_keys WHERE response_body LIKE '%whsec%'");
    expect(Number(all.rows[0]!.n)).toBe(0);
  });
});

describe('events', () => {
  test('an event is Stripe-like: id, object, type, created, livemode, data.object', async () => {
    const res = await v1(ctx, A.key, `/events/${ids.evtA}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: ids.evtA,
      object: 'event',
      type: 'payment_intent.created',
      created: expect.any(Number),
      livemode: false,
      data: { object: expect.objectContaining({ object: 'payment_intent', status: 'requires_payment_method', amount: 1000 }) },
    });
  });

  test('the list is newest first by sequence, paginates, filters by type, and holds only this merchant and mode', async () => {
    const m = await newMerchant(ctx, ids.cookieA!, 'sandbox');
    const pis: string[] = [];
    for (let i = 0; i < 3; i++) pis.push((await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 600 + i, currency: 'usd' } })).body.id);
    await v1(ctx, m.key, `/payment_intents/${pis[0]}/cancel`, { method: 'POST' });

    const all = await v1(ctx, m.key, '/events?limit=100');
    expect(all.body).toMatchObject({ object: 'list', url: '/api/v1/events', has_more: false });
    expect(all.body.data.map((e: { type: string }) => e.type)).toEqual([
      'payment_intent.canceled',
      'payment_intent.created',
      'payment_intent.created',
      'payment_intent.created',
    ]);
    expect(all.body.data.map((e: { data: { object: { id: string } } }) => e.data.object.id)).toEqual([pis[0], pis[2], pis[1], pis[0]]);

    const page1 = await v1(ctx, m.key, '/events?limit=3');
    expect(page1.body.has_more).toBe(true);
    const page2 = await v1(ctx, m.key, `/events?limit=3&starting_after=${page1.body.data[2].id}`);
    expect(page2.body.has_more).toBe(false);
    expect([...page1.body.data, ...page2.body.data].map((e: { id: string }) => e.id)).toEqual(all.body.data.map((e: { id: string }) => e.id));

    const canceled = await v1(ctx, m.key, '/events?type=payment_intent.canceled');
    expect(canceled.body.data).toHaveLength(1);
    expect(canceled.body.data[0].data.object.status).toBe('canceled');

    // Nobody else's events, in either direction.
    const mine = new Set(all.body.data.map((e: { id: string }) => e.id));
    for (const other of [A, B, P]) {
      const list = await v1(ctx, other.key, '/events?limit=100');
      for (const e of list.body.data) expect(mine.has(e.id)).toBe(false);
    }
    const pList = await v1(ctx, P.key, '/events?limit=100');
    expect(pList.body.data.map((e: { id: string }) => e.id)).toEqual([ids.evtP]);
    expect(pList.body.data[0].livemode).toBe(true);
  });
});
