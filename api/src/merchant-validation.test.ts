import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { makeTestApp, merchantCall, type TestContext } from '../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../test-support/world';
import { resetRateWindows } from './modules/merchants/usage';

/*
 * Every field of every merchant route, sent a bad value: the answer is 400 validation_error whose param is the
 * field and whose message names the field and says what it accepts, never a validator's own words ("Expected
 * union value", "Expected string"). Query parameters and path parameters included, and form bodies (Stripe's
 * encoding) alike.
 */

let ctx: TestContext;
let m: TestMerchant;
let pi: string;
let we: string;
let evt: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  m = await createMerchant(ctx, owner.cookie, 'sandbox');
  pi = (await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: { amount: 100, currency: 'usd' } })).body.id;
  we = (await merchantCall(ctx, m.secretKey, '/webhook_endpoints', { method: 'POST', body: { url: 'https://shop.example/hook', enabled_events: ['*'] } })).body.id;
  evt = (await merchantCall(ctx, m.secretKey, '/events?limit=1')).body.data[0].id;
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

interface Row {
  route: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: () => string;
  body?: Record<string, unknown>;
  /** The param the answer must name (the field, as the message must name it too). */
  param: string;
  /** Stripe's code for a field the route does not take, or one left out; validation_error otherwise. */
  code?: 'parameter_unknown' | 'parameter_missing';
}

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' };
const pmd = (over: Record<string, unknown>) => ({ payment_method_data: { type: 'card', card: { ...card, ...over } } });
const createBody = (over: Record<string, unknown>) => ({ amount: 100, currency: 'usd', ...over });
const endpointBody = (over: Record<string, unknown>) => ({ url: 'https://shop.example/hook', enabled_events: ['*'], ...over });

const rows: Row[] = [
  // POST /payment_intents
  ...[{ amount: 'x' }, { amount: 49 }, { amount: 1.5 }, { amount: null }, { amount: undefined }].map((over) => ({
    route: 'create', method: 'POST' as const, path: () => '/payment_intents', body: createBody(over), param: 'amount',
  })),
  ...[{ currency: 5 }, { currency: 'eur' }, { currency: undefined }].map((over) => ({
    route: 'create', method: 'POST' as const, path: () => '/payment_intents', body: createBody(over), param: 'currency',
  })),
  ...[{ description: 5 }, { description: 'd'.repeat(1001) }, { description: ['a'] }].map((over) => ({
    route: 'create', method: 'POST' as const, path: () => '/payment_intents', body: createBody(over), param: 'description',
  })),
  ...[{ capture_method: 'later' }, { capture_method: 1 }, { capture_method: null }].map((over) => ({
    route: 'create', method: 'POST' as const, path: () => '/payment_intents', body: createBody(over), param: 'capture_method',
  })),
  ...[{ metadata: 'x' }, { metadata: ['a'] }, { metadata: 5 }].map((over) => ({
    route: 'create', method: 'POST' as const, path: () => '/payment_intents', body: createBody(over), param: 'metadata',
  })),
  { route: 'create', method: 'POST', path: () => '/payment_intents', body: createBody({ metadata: { a: 5 } }), param: 'metadata.a' },
  { route: 'create', method: 'POST', path: () => '/payment_intents', body: createBody({ metadata: { a: 'v'.repeat(501) } }), param: 'metadata.a' },
  { route: 'create', method: 'POST', path: () => '/payment_intents', body: createBody({ metadata: { a: { b: 'c' } } }), param: 'metadata.a' },
  { route: 'create', method: 'POST', path: () => '/payment_intents', body: createBody({ invoice: 'in_1' }), param: 'invoice', code: 'parameter_unknown' },
  { route: 'create', method: 'POST', path: () => '/payment_intents', body: createBody({ customer: 'cus_1' }), param: 'customer' },
  // POST /payment_intents/:id (update)
  ...[{ amount: 'x' }, { amount: 0 }].map((body) => ({ route: 'update', method: 'POST' as const, path: () => `/payment_intents/${pi}`, body, param: 'amount' })),
  { route: 'update', method: 'POST', path: () => `/payment_intents/${pi}`, body: { currency: 'gbp' }, param: 'currency' },
  { route: 'update', method: 'POST', path: () => `/payment_intents/${pi}`, body: { description: 7 }, param: 'description' },
  { route: 'update', method: 'POST', path: () => `/payment_intents/${pi}`, body: { metadata: { a: 7 } }, param: 'metadata' },
  { route: 'update', method: 'POST', path: () => `/payment_intents/${pi}`, body: { metadata: 'x' }, param: 'metadata' },
  { route: 'update', method: 'POST', path: () => `/payment_intents/${pi}`, body: { capture_method: 'x' }, param: 'capture_method' },
  // POST /payment_intents/:id/confirm
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: { payment_method: 5 }, param: 'payment_method' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: { payment_method: 'b'.repeat(65) }, param: 'payment_method' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: { payment_method_data: 'x' }, param: 'payment_method_data' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: { payment_method_data: { type: 'bank', card } }, param: 'payment_method_data.type' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: { payment_method_data: { type: 'card' } }, param: 'payment_method_data.card', code: 'parameter_missing' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: pmd({ number: '12' }), param: 'payment_method_data.card.number' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: pmd({ exp_month: 13 }), param: 'payment_method_data.card.exp_month' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: pmd({ exp_month: 'x' }), param: 'payment_method_data.card.exp_month' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: pmd({ exp_year: 'x' }), param: 'payment_method_data.card.exp_year' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: pmd({ cvc: '1' }), param: 'payment_method_data.card.cvc' },
  { route: 'confirm', method: 'POST', path: () => `/payment_intents/${pi}/confirm`, body: pmd({ extra: 1 }), param: 'payment_method_data.card.extra', code: 'parameter_unknown' },
  // capture and cancel
  ...[{ amount_to_capture: 'x' }, { amount_to_capture: 0 }, { amount_to_capture: 1.5 }].map((body) => ({
    route: 'capture', method: 'POST' as const, path: () => `/payment_intents/${pi}/capture`, body, param: 'amount_to_capture',
  })),
  ...[{ cancellation_reason: 'bored' }, { cancellation_reason: 5 }].map((body) => ({
    route: 'cancel', method: 'POST' as const, path: () => `/payment_intents/${pi}/cancel`, body, param: 'cancellation_reason',
  })),
  // list queries and path ids
  ...['limit=x', 'limit=0', 'limit=101', 'limit=1.5'].map((qs) => ({ route: 'list intents', method: 'GET' as const, path: () => `/payment_intents?${qs}`, param: 'limit' })),
  { route: 'list intents', method: 'GET', path: () => `/payment_intents?starting_after=${'x'.repeat(65)}`, param: 'starting_after' },
  { route: 'list intents', method: 'GET', path: () => `/payment_intents?ending_before=${'x'.repeat(65)}`, param: 'ending_before' },
  { route: 'list intents', method: 'GET', path: () => '/payment_intents?starting_after=pi_nope', param: 'starting_after' },
  { route: 'list intents', method: 'GET', path: () => '/payment_intents?foo=1', param: 'foo', code: 'parameter_unknown' },
  ...['created[gte]=x', 'created[gt]=1.5', 'created[lte]=-1', 'created[lt]=', 'created=yesterday', 'created[after]=1'].map((qs) => ({
    route: 'list intents', method: 'GET' as const, path: () => `/payment_intents?${qs}`, param: qs.slice(0, qs.indexOf('=')),
    ...(qs.startsWith('created[after]') ? { code: 'parameter_unknown' as const } : {}),
  })),
  { route: 'retrieve intent', method: 'GET', path: () => `/payment_intents/${'x'.repeat(65)}`, param: 'id' },
  ...['limit=x', 'limit=500'].map((qs) => ({ route: 'list events', method: 'GET' as const, path: () => `/events?${qs}`, param: 'limit' })),
  { route: 'list events', method: 'GET', path: () => '/events?type=payment_intent.nope', param: 'type' },
  { route: 'list events', method: 'GET', path: () => '/events?created[gte]=soon', param: 'created[gte]' },
  { route: 'list events', method: 'GET', path: () => '/events?starting_after=evt_nope', param: 'starting_after' },
  { route: 'resend event', method: 'POST', path: () => `/events/${evt}/resend`, body: { endpoint_id: 5 }, param: 'endpoint_id' },
  { route: 'resend event', method: 'POST', path: () => `/events/${evt}/resend`, body: { endpoint_id: 'we_nope' }, param: 'endpoint_id' },
  // webhook endpoints
  ...[{ url: 5 }, { url: '' }, { url: undefined }].map((over) => ({
    route: 'create endpoint', method: 'POST' as const, path: () => '/webhook_endpoints', body: endpointBody(over), param: 'url',
  })),
  { route: 'create endpoint', method: 'POST', path: () => '/webhook_endpoints', body: endpointBody({ enabled_events: [5] }), param: 'enabled_events.0' },
  ...[{ enabled_events: 'x' }, { enabled_events: [] }].map((over) => ({
    route: 'create endpoint', method: 'POST' as const, path: () => '/webhook_endpoints', body: endpointBody(over), param: 'enabled_events',
  })),
  { route: 'create endpoint', method: 'POST', path: () => '/webhook_endpoints', body: endpointBody({ enabled_events: ['nope'] }), param: 'enabled_events.0' },
  { route: 'create endpoint', method: 'POST', path: () => '/webhook_endpoints', body: endpointBody({ description: 5 }), param: 'description' },
  { route: 'update endpoint', method: 'PATCH', path: () => `/webhook_endpoints/${we}`, body: { disabled: 'yes' }, param: 'disabled' },
  { route: 'update endpoint', method: 'PATCH', path: () => `/webhook_endpoints/${we}`, body: { url: 7 }, param: 'url' },
  { route: 'list endpoints', method: 'GET', path: () => '/webhook_endpoints?limit=x', param: 'limit' },
  { route: 'list endpoints', method: 'GET', path: () => '/webhook_endpoints?starting_after=we_nope', param: 'starting_after' },
  // test helpers
  ...[{ amount: 'x' }, { amount: 10 }].map((body) => ({ route: 'test bcard', method: 'POST' as const, path: () => '/test_helpers/bcards', body, param: 'amount' })),
  { route: 'test bcard', method: 'POST', path: () => '/test_helpers/bcards', body: { amount: 100, currency: 'eur' }, param: 'currency' },
];

describe('every field error names its field and what it accepts', () => {
  for (const row of rows) {
    const sent = row.body ? JSON.stringify(row.body).slice(0, 70) : row.path.toString().replace(/^.*?`|`.*$/g, '').slice(0, 70);
    test(`${row.route} ${row.method} ${sent} -> 400 (${row.param})`, async () => {
      const res = await merchantCall(ctx, m.secretKey, row.path(), { method: row.method, body: row.body });
      // A field sent as undefined is left out of the JSON: Stripe's parameter_missing.
      const leftOut = row.body !== undefined && row.param in row.body && row.body[row.param] === undefined;
      expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
        status: 400,
        code: row.code ?? (leftOut ? 'parameter_missing' : 'validation_error'),
        param: row.param,
      });
      const message: string = res.body.error.message;
      expect(message).not.toMatch(/Expected|union value|\bExpected\b/);
      // The field is named: the param itself, or (for a metadata key or a list item) the field it belongs to.
      expect(message).toContain(row.param.replace(/\.\d+$/, '').replace(/^metadata\..*$/, 'metadata'));
    });
  }

  test('form bodies (Stripe\'s encoding) get the same words as JSON bodies', async () => {
    for (const [form, json] of [
      ['amount=abc&currency=usd', { amount: 'abc', currency: 'usd' }],
      ['amount=100&currency=usd&capture_method=later', { amount: 100, currency: 'usd', capture_method: 'later' }],
    ] as const) {
      const viaForm = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', rawBody: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      const viaJson = await merchantCall(ctx, m.secretKey, '/payment_intents', { method: 'POST', body: json });
      expect(viaForm.status).toBe(400);
      expect({ message: viaForm.body.error.message, param: viaForm.body.error.param }).toEqual({
        message: viaJson.body.error.message,
        param: viaJson.body.error.param,
      });
    }
  });
});

describe('expand: bpay expands only latest_charge on retrieve, and says why for anything else', () => {
  const rows: Array<{ name: string; method: 'GET' | 'POST'; path: () => string; body?: unknown; says: RegExp }> = [
    { name: 'latest_charge on update (query expand[]=)', method: 'POST', path: () => `/payment_intents/${pi}?expand[]=latest_charge`, body: { description: 'x' }, says: /^This property cannot be expanded \(latest_charge\): latest_charge is expanded only when retrieving one payment intent/ },
    { name: 'data.latest_charge on a list (expand[0]=)', method: 'GET', path: () => '/payment_intents?expand[0]=data.latest_charge', says: /\(data\.latest_charge\): latest_charge is expanded only when retrieving one payment intent/ },
    { name: 'charges on retrieve', method: 'GET', path: () => `/payment_intents/${pi}?expand[]=charges`, says: /\(charges\): a payment intent has one charge, its latest_charge/ },
    { name: 'payment_method in a JSON body', method: 'POST', path: () => '/payment_intents', body: { amount: 100, currency: 'usd', expand: ['payment_method'] }, says: /\(payment_method\): payment_method is the id of the bcard that paid/ },
    { name: 'any other field', method: 'GET', path: () => '/events?expand[]=data.object', says: /\(data\.object\): bpay expands only latest_charge, on retrieving a payment intent/ },
    { name: 'expand not a list of names', method: 'POST', path: () => `/payment_intents/${pi}/cancel`, body: { expand: [5] }, says: /^expand must be a list of field names/ },
  ];
  for (const row of rows) {
    test(`${row.name} -> 400 validation_error (expand[0])`, async () => {
      const before = (await merchantCall(ctx, m.secretKey, `/payment_intents/${pi}`)).body;
      const res = await merchantCall(ctx, m.secretKey, row.path(), { method: row.method, body: row.body });
      expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status: 400, code: 'validation_error', param: 'expand[0]' });
      expect(res.body.error.message).toMatch(row.says);
      // Refused before anything ran: the cancel above did not cancel.
      expect((await merchantCall(ctx, m.secretKey, `/payment_intents/${pi}`)).body).toEqual(before);
    });
  }

  test('a form body expand[]=latest_charge (as stripe-node sends it) is refused alike', async () => {
    const res = await merchantCall(ctx, m.secretKey, `/payment_intents/${pi}`, {
      method: 'POST',
      rawBody: 'expand[]=latest_charge&description=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect({ status: res.status, param: res.body.error.param }).toEqual({ status: 400, param: 'expand[0]' });
    expect(res.body.error.message).toContain('latest_charge is expanded only when retrieving one payment intent');
  });
});

describe('a missing resource: 404 naming the id and the param it came in', () => {
  const rows: Array<{ name: string; method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown; what: string; id: string; param: string }> = [
    { name: 'retrieve an intent', method: 'GET', path: '/payment_intents/pi_gone', what: 'payment_intent', id: 'pi_gone', param: 'intent' },
    { name: 'update an intent', method: 'POST', path: '/payment_intents/pi_gone', body: { amount: 100 }, what: 'payment_intent', id: 'pi_gone', param: 'intent' },
    { name: 'confirm an intent', method: 'POST', path: '/payment_intents/pi_gone/confirm', body: { payment_method: 'bc_1' }, what: 'payment_intent', id: 'pi_gone', param: 'intent' },
    { name: 'capture an intent', method: 'POST', path: '/payment_intents/pi_gone/capture', body: {}, what: 'payment_intent', id: 'pi_gone', param: 'intent' },
    { name: 'cancel an intent', method: 'POST', path: '/payment_intents/pi_gone/cancel', body: {}, what: 'payment_intent', id: 'pi_gone', param: 'intent' },
    { name: 'retrieve an event', method: 'GET', path: '/events/evt_gone', what: 'event', id: 'evt_gone', param: 'id' },
    { name: 'resend an event', method: 'POST', path: '/events/evt_gone/resend', body: {}, what: 'event', id: 'evt_gone', param: 'id' },
    { name: 'retrieve an endpoint', method: 'GET', path: '/webhook_endpoints/we_gone', what: 'webhook_endpoint', id: 'we_gone', param: 'id' },
    { name: 'update an endpoint', method: 'PATCH', path: '/webhook_endpoints/we_gone', body: { disabled: true }, what: 'webhook_endpoint', id: 'we_gone', param: 'id' },
    { name: 'delete an endpoint', method: 'DELETE', path: '/webhook_endpoints/we_gone', what: 'webhook_endpoint', id: 'we_gone', param: 'id' },
    { name: "roll an endpoint's secret", method: 'POST', path: '/webhook_endpoints/we_gone/roll_secret', what: 'webhook_endpoint', id: 'we_gone', param: 'id' },
  ];
  for (const row of rows) {
    test(`${row.name}: No such ${row.what}: '${row.id}' (param ${row.param})`, async () => {
      const res = await merchantCall(ctx, m.secretKey, row.path, { method: row.method, body: row.body });
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such ${row.what}: '${row.id}'.`,
        param: row.param,
      });
      expect(res.status).toBe(404);
    });
  }
});
