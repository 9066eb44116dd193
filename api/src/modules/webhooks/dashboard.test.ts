import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { countRows, fakeDns, newMerchant, Receiver, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { deliverDueWebhooks } from './worker';

/*
 * The Merchant Dashboard's webhooks tab: /api/merchants/:id/… with the owner's session cookie, the same services as
 * /api/v1. Another user's merchant, or another merchant's endpoint, is "not found".
 */

let ctx: TestContext;
let ada: { cookie: string };
let eve: { cookie: string };
let shop: Merchant; // Ada's sandbox merchant
let live: Merchant; // Ada's production merchant
let evesShop: Merchant;
let receiver: Receiver;
const ids: Record<string, string> = {};

beforeAll(async () => {
  ctx = await makeTestApp();
  ctx.deps.webhooks.resolveHost = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
  receiver = new Receiver(() => Math.floor(ctx.clock.now().getTime() / 1000));
  ada = await registerUser(ctx);
  eve = await registerUser(ctx, { firstName: 'Eve' });
  shop = await newMerchant(ctx, ada.cookie, 'sandbox');
  live = await newMerchant(ctx, ada.cookie, 'production');
  evesShop = await newMerchant(ctx, eve.cookie, 'sandbox');
  const made = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints`, {
    method: 'POST',
    cookie: ada.cookie,
    body: { url: receiver.url, enabled_events: ['payment_intent.succeeded'], description: 'Orders' },
  });
  expect(made.status).toBe(201);
  receiver.secret = made.body.secret;
  ids.ep = made.body.id;
  ids.star = (await v1(ctx, shop.key, '/webhook_endpoints', { method: 'POST', body: { url: 'http://127.0.0.1:9/all', enabled_events: ['*'] } })).body.id;
  ids.evesEp = (await v1(ctx, evesShop.key, '/webhook_endpoints', { method: 'POST', body: { url: 'http://127.0.0.1:9/e', enabled_events: ['*'] } })).body.id;
  ids.liveEp = (await v1(ctx, live.key, '/webhook_endpoints', { method: 'POST', body: { url: 'https://hooks.example.com/x', enabled_events: ['*'] } })).body.id;
  await v1(ctx, shop.key, '/payment_intents', { method: 'POST', body: { amount: 900, currency: 'usd' } });
  // payment_intent.created went to the '*' endpoint: a delivery and its event to open and resend.
  const queued = await call(ctx, `/api/merchants/${shop.id}/webhook_deliveries?endpoint_id=${ids.star}`, { cookie: ada.cookie });
  ids.delivery = queued.body.data[0].id;
  ids.event = queued.body.data[0].event;
  await v1(ctx, evesShop.key, '/payment_intents', { method: 'POST', body: { amount: 900, currency: 'usd' } });
  const evesQueued = await call(ctx, `/api/merchants/${evesShop.id}/webhook_deliveries`, { cookie: eve.cookie });
  ids.evesDelivery = evesQueued.body.data[0].id;
  ids.evesEvent = evesQueued.body.data[0].event;
});
afterAll(() => {
  receiver.stop();
  ctx.close();
});

interface Case {
  name: string;
  as: 'ada' | 'eve' | 'nobody' | 'key';
  method?: string;
  path: () => string;
  body?: () => unknown;
  origin?: string;
  expectStatus: number;
  expectCode?: string;
  expectParam?: string;
}

const valid = () => ({ url: 'http://127.0.0.1:9/new', enabled_events: ['*'] });
const CASES: Case[] = [
  { name: 'list', as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, expectStatus: 200 },
  { name: "list: another user's merchant", as: 'eve', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'list: signed out', as: 'nobody', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'list: a secret key is no session', as: 'key', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'list: limit 0', as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_endpoints?limit=0`, expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: 'create', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, body: valid, expectStatus: 201 },
  { name: 'create: no enabled_events', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, body: () => ({ url: 'http://127.0.0.1:9/' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'enabled_events' },
  { name: 'create: production URL rules', as: 'ada', method: 'POST', path: () => `/api/merchants/${live.id}/webhook_endpoints`, body: valid, expectStatus: 400, expectCode: 'url_not_allowed', expectParam: 'url' },
  { name: "create: another user's merchant", as: 'eve', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, body: valid, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'create: from another site', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, body: valid, origin: 'https://evil.example', expectStatus: 403, expectCode: 'cross_site_request' },
  { name: 'create: signed out', as: 'nobody', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints`, body: valid, expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'update', as: 'ada', method: 'PATCH', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}`, body: () => ({ description: 'All' }), expectStatus: 200 },
  { name: "update: another merchant's endpoint under mine", as: 'ada', method: 'PATCH', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.liveEp}`, body: () => ({ description: 'x' }), expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "update: another user's endpoint", as: 'ada', method: 'PATCH', path: () => `/api/merchants/${evesShop.id}/webhook_endpoints/${ids.evesEp}`, body: () => ({ description: 'x' }), expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "delete: another user's merchant", as: 'eve', method: 'DELETE', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "delete: another user's endpoint under my merchant", as: 'ada', method: 'DELETE', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.evesEp}`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'delete: from another site', as: 'ada', method: 'DELETE', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}`, origin: 'https://evil.example', expectStatus: 403, expectCode: 'cross_site_request' },
  { name: 'roll', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}/roll_secret`, expectStatus: 200 },
  { name: "roll: another user's", as: 'eve', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}/roll_secret`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "test: another user's", as: 'eve', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'test: unknown endpoint', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints/we_nope/test`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'test: signed out', as: 'nobody', method: 'POST', path: () => `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`, expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'deliveries', as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_deliveries`, expectStatus: 200 },
  { name: 'deliveries: of one endpoint', as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_deliveries?endpoint_id=${ids.star}&limit=5`, expectStatus: 200 },
  { name: "deliveries: another merchant's endpoint", as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_deliveries?endpoint_id=${ids.evesEp}`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'deliveries: limit 101', as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_deliveries?limit=101`, expectStatus: 400, expectCode: 'validation_error', expectParam: 'limit' },
  { name: "deliveries: another user's merchant", as: 'eve', path: () => `/api/merchants/${shop.id}/webhook_deliveries`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'delivery: unknown id', as: 'ada', path: () => `/api/merchants/${shop.id}/webhook_deliveries/whd_nope`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "delivery: another user's merchant", as: 'eve', path: () => `/api/merchants/${shop.id}/webhook_deliveries/${ids.delivery}`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "delivery: another merchant's, under mine", as: 'ada', path: () => `/api/merchants/${live.id}/webhook_deliveries/${ids.delivery}`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "delivery: another user's, under their merchant", as: 'ada', path: () => `/api/merchants/${evesShop.id}/webhook_deliveries/${ids.evesDelivery}`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'delivery: signed out', as: 'nobody', path: () => `/api/merchants/${shop.id}/webhook_deliveries/${ids.delivery}`, expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'delivery: a secret key is no session', as: 'key', path: () => `/api/merchants/${shop.id}/webhook_deliveries/${ids.delivery}`, expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'resend', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/events/${ids.event}/resend`, body: () => ({ endpoint_id: ids.ep }), expectStatus: 200 },
  { name: 'resend: unknown event', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/events/evt_nope/resend`, body: () => ({}), expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "resend: another user's merchant", as: 'eve', method: 'POST', path: () => `/api/merchants/${shop.id}/events/${ids.event}/resend`, body: () => ({}), expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "resend: another merchant's event, under mine", as: 'ada', method: 'POST', path: () => `/api/merchants/${live.id}/events/${ids.event}/resend`, body: () => ({}), expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "resend: another user's event, under their merchant", as: 'ada', method: 'POST', path: () => `/api/merchants/${evesShop.id}/events/${ids.evesEvent}/resend`, body: () => ({}), expectStatus: 404, expectCode: 'resource_not_found' },
  { name: "resend: to another user's endpoint", as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/events/${ids.event}/resend`, body: () => ({ endpoint_id: ids.evesEp }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'endpoint_id' },
  { name: 'resend: unknown field', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/events/${ids.event}/resend`, body: () => ({ endpoint: ids.ep }), expectStatus: 400, expectCode: 'validation_error' },
  { name: 'resend: signed out', as: 'nobody', method: 'POST', path: () => `/api/merchants/${shop.id}/events/${ids.event}/resend`, body: () => ({}), expectStatus: 401, expectCode: 'unauthenticated' },
  { name: 'resend: from another site', as: 'ada', method: 'POST', path: () => `/api/merchants/${shop.id}/events/${ids.event}/resend`, body: () => ({}), origin: 'https://evil.example', expectStatus: 403, expectCode: 'cross_site_request' },
  { name: 'events', as: 'ada', path: () => `/api/merchants/${shop.id}/events`, expectStatus: 200 },
  { name: 'events: unknown type', as: 'ada', path: () => `/api/merchants/${shop.id}/events?type=nope`, expectStatus: 400, expectCode: 'validation_error', expectParam: 'type' },
  { name: "events: another user's merchant", as: 'eve', path: () => `/api/merchants/${shop.id}/events`, expectStatus: 404, expectCode: 'resource_not_found' },
  { name: 'events: signed out', as: 'nobody', path: () => `/api/merchants/${shop.id}/events`, expectStatus: 401, expectCode: 'unauthenticated' },
];

describe('route table', () => {
  test.each(CASES)('$name -> $expectStatus $expectCode', async (c) => {
    const res = await call(ctx, c.path(), {
      method: c.method ?? 'GET',
      body: c.body?.(),
      cookie: c.as === 'ada' ? ada.cookie : c.as === 'eve' ? eve.cookie : null,
      headers: c.as === 'key' ? { authorization: `Bearer ${shop.key}` } : {},
      ...(c.origin ? { origin: c.origin } : {}),
    });
    expect(res.status).toBe(c.expectStatus);
    if (c.expectCode) expect(res.body.error.code).toBe(c.expectCode);
    if (c.expectParam) expect(res.body.error.param).toBe(c.expectParam);
  });
});

describe('the webhooks tab', () => {
  test('lists the endpoints as the API does, without secrets', async () => {
    const dash = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints`, { cookie: ada.cookie });
    const api = await v1(ctx, shop.key, '/webhook_endpoints?limit=100');
    expect(dash.body.data).toEqual(api.body.data);
    expect(dash.text).not.toContain('whsec_');
    expect(dash.body.data.find((e: { id: string }) => e.id === ids.ep)).toMatchObject({ url: receiver.url, description: 'Orders', status: 'enabled' });
  });

  test('"send a test event" reaches that endpoint only, as a signed webhook_endpoint.test event', async () => {
    const before = await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [ids.star!]);
    const res = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`, { method: 'POST', cookie: ada.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'webhook_delivery', event_type: 'webhook_endpoint.test', webhook_endpoint: ids.ep, status: 'pending', attempts: 0 });
    // The '*' endpoint does not get it.
    expect(await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [ids.star!])).toBe(before);
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    const got = receiver.received.find((r) => r.event.type === 'webhook_endpoint.test');
    expect(got?.verified).toBe(true);
    expect(got!.event.id).toBe(res.body.event);
    expect(got!.event.data.object).toMatchObject({ id: ids.ep, object: 'webhook_endpoint', url: receiver.url });
    expect(got!.rawBody).not.toContain('whsec_');

    const deliveries = await call(ctx, `/api/merchants/${shop.id}/webhook_deliveries?endpoint_id=${ids.ep}`, { cookie: ada.cookie });
    expect(deliveries.body.data[0]).toMatchObject({
      id: res.body.id,
      event_type: 'webhook_endpoint.test',
      status: 'succeeded',
      attempts: 1,
      next_attempt_at: null,
      last_attempt: { status_code: 200, response_snippet: 'ok', error: null },
    });
    // It is an event like any other in the lists.
    const events = await call(ctx, `/api/merchants/${shop.id}/events?type=webhook_endpoint.test`, { cookie: ada.cookie });
    expect(events.body.data.map((e: { id: string }) => e.id)).toEqual([res.body.event]);
  });

  test('"send a test event" with an Idempotency-Key sends one event however often it is clicked', async () => {
    const headers = { 'idempotency-key': 'test-click-1' };
    const path = `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`;
    const before = await countRows(ctx, 'events', 'merchant_id = ?', [shop.id]);
    const first = await call(ctx, path, { method: 'POST', cookie: ada.cookie, headers });
    const second = await call(ctx, path, { method: 'POST', cookie: ada.cookie, headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    expect(await countRows(ctx, 'events', 'merchant_id = ?', [shop.id])).toBe(before + 1);
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
  });

  test('a failing delivery shows its status code, duration, snippet and next attempt', async () => {
    receiver.answer = () => 503;
    const res = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`, { method: 'POST', cookie: ada.cookie });
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    receiver.answer = () => 200;
    const list = await call(ctx, `/api/merchants/${shop.id}/webhook_deliveries?endpoint_id=${ids.ep}&limit=1`, { cookie: ada.cookie });
    expect(list.body.has_more).toBe(true);
    const d = list.body.data[0];
    expect(d.id).toBe(res.body.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_attempt: { status_code: 503, error: null } });
    expect(d.last_attempt.response_snippet).toHaveLength(500);
    expect(d.next_attempt_at).toBeGreaterThan(Math.floor(ctx.clock.now().getTime() / 1000));
  });

  test('the events list is the API list, only this merchant and mode', async () => {
    const dash = await call(ctx, `/api/merchants/${shop.id}/events?limit=100`, { cookie: ada.cookie });
    const api = await v1(ctx, shop.key, '/events?limit=100');
    expect(dash.body).toEqual(api.body);
    const liveEvents = await call(ctx, `/api/merchants/${live.id}/events`, { cookie: ada.cookie });
    expect(liveEvents.body.data).toEqual([]);
  });

  test('disable and enable again; a disabled endpoint cannot be sent a test event; delete', async () => {
    const off = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}`, { method: 'PATCH', cookie: ada.cookie, body: { disabled: true } });
    expect(off.body).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by the merchant' });
    const test1 = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}/test`, { method: 'POST', cookie: ada.cookie });
    expect(test1.status).toBe(400);
    expect(test1.body.error.code).toBe('webhook_endpoint_disabled');
    const on = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}`, { method: 'PATCH', cookie: ada.cookie, body: { disabled: false } });
    expect(on.body.status).toBe('enabled');
    const del = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.star}`, { method: 'DELETE', cookie: ada.cookie });
    expect(del.body).toEqual({ id: ids.star, object: 'webhook_endpoint', deleted: true });
    expect((await v1(ctx, shop.key, `/webhook_endpoints/${ids.star}`)).status).toBe(404);
  });

  test('create answers the secret once; an Idempotency-Key replays it', async () => {
    const headers = { 'idempotency-key': 'dash-create-1' };
    const body = { url: 'http://localhost:4000/hooks', enabled_events: ['payment_intent.succeeded'] };
    const first = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints`, { method: 'POST', cookie: ada.cookie, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const again = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints`, { method: 'POST', cookie: ada.cookie, body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });
});

describe('a delivery opened, and an event sent again', () => {
  test('the request body is the exact bytes the receiver got; every attempt is listed, oldest first, with the next retry', async () => {
    let failNext = 1;
    receiver.answer = () => (failNext-- > 0 ? 503 : 200);
    const sent = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`, { method: 'POST', cookie: ada.cookie });
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    const path = `/api/merchants/${shop.id}/webhook_deliveries/${sent.body.id}`;
    const pending = await call(ctx, path, { cookie: ada.cookie });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ id: sent.body.id, status: 'pending', attempts: 1, event_type: 'webhook_endpoint.test' });
    expect(pending.body.attempt_history).toHaveLength(1);
    expect(pending.body.attempt_history[0]).toMatchObject({ status_code: 503, error: null });
    expect(pending.body.next_attempt_at).toBeGreaterThan(pending.body.attempt_history[0].at);

    // The retry, once due, succeeds.
    ctx.clock.advance(3600_000);
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    const done = await call(ctx, path, { cookie: ada.cookie });
    expect(done.body).toMatchObject({ status: 'succeeded', attempts: 2, next_attempt_at: null, last_attempt: { status_code: 200 } });
    expect(done.body.attempt_history.map((a: { status_code: number }) => a.status_code)).toEqual([503, 200]);
    expect(done.body.attempt_history[0].at).toBeLessThan(done.body.attempt_history[1].at);
    expect(done.body.attempt_history[1].response_snippet).toBe('ok');
    expect(done.body.attempt_history[0].response_snippet).toStartWith('boom ');

    // Both attempts carried the same bytes (verified against the signature), and the detail shows exactly them.
    const got = receiver.received.filter((r) => r.event.id === sent.body.event);
    expect(got.map((r) => r.rawBody)).toEqual([got[0]!.rawBody, got[0]!.rawBody]);
    expect(done.body.request).toEqual({ url: receiver.url, content_type: 'application/json', user_agent: 'bpay-webhooks/1', body: got[0]!.rawBody });
    // Nothing secret in it.
    expect(done.text).not.toContain('whsec_');
    receiver.answer = () => 200;
  });

  test('resend queues a new delivery of the same event to that endpoint, which the worker sends; a retried click queues no more', async () => {
    const sent = await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}/test`, { method: 'POST', cookie: ada.cookie });
    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    const eventId: string = sent.body.event;
    const before = await countRows(ctx, 'webhook_deliveries', 'event_id = ?', [eventId]);
    const headers = { 'idempotency-key': `resend-${eventId}` };
    const path = `/api/merchants/${shop.id}/events/${eventId}/resend`;
    const first = await call(ctx, path, { method: 'POST', cookie: ada.cookie, headers, body: { endpoint_id: ids.ep } });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0]).toMatchObject({ event: eventId, webhook_endpoint: ids.ep, status: 'pending', attempts: 0 });
    expect(first.body.data[0].id).not.toBe(sent.body.id);
    const again = await call(ctx, path, { method: 'POST', cookie: ada.cookie, headers, body: { endpoint_id: ids.ep } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countRows(ctx, 'webhook_deliveries', 'event_id = ?', [eventId])).toBe(before + 1);

    await deliverDueWebhooks(ctx.deps, { limit: 50 });
    // Received twice: the test delivery and the resend.
    expect(receiver.received.filter((r) => r.event.id === eventId)).toHaveLength(2);
    const resent = await call(ctx, `/api/merchants/${shop.id}/webhook_deliveries/${first.body.data[0].id}`, { cookie: ada.cookie });
    expect(resent.body).toMatchObject({ status: 'succeeded', attempts: 1 });
    // The same event, so the same bytes as the first delivery.
    const original = await call(ctx, `/api/merchants/${shop.id}/webhook_deliveries/${sent.body.id}`, { cookie: ada.cookie });
    expect(resent.body.request.body).toBe(original.body.request.body);
  });

  test('a resend to a disabled endpoint is refused in words', async () => {
    await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}`, { method: 'PATCH', cookie: ada.cookie, body: { disabled: true } });
    const res = await call(ctx, `/api/merchants/${shop.id}/events/${ids.event}/resend`, { method: 'POST', cookie: ada.cookie, body: { endpoint_id: ids.ep } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'webhook_endpoint_disabled', param: 'endpoint_id' });
    await call(ctx, `/api/merchants/${shop.id}/webhook_endpoints/${ids.ep}`, { method: 'PATCH', cookie: ada.cookie, body: { disabled: false } });
  });
});
