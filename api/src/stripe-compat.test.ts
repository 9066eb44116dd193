/**
 * Stripe's own Node library (the `stripe` package) against bpay's merchant API (issue 15): a merchant with Stripe
 * code switches by pointing host, port and protocol at bpay. The library calls `/v1/...` with form-encoded bodies
 * (`metadata[order]=42`, `payment_method_data[card][number]=…`); bpay serves the same routes there as at `/api/v1/...`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import Stripe from 'stripe';
import { setPeerAddress } from './lib/request-context';
import { signatureHeader } from './modules/webhooks/signature';
import { resetRateWindows } from './modules/merchants/usage';
import { makeTestApp, merchantCall, type TestContext } from '../test-support/app';
import { createMerchant, registerUser, testBcardCard, type TestMerchant } from '../test-support/world';

let ctx: TestContext;
let server: ReturnType<typeof Bun.serve>;
let merchant: TestMerchant;
let stripe: Stripe;
let base: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req, srv) => {
      const ip = srv.requestIP(req);
      if (ip) setPeerAddress(req, ip.address);
      return ctx.app.handle(req);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  const owner = await registerUser(ctx);
  merchant = await createMerchant(ctx, owner.cookie, 'sandbox');
  stripe = new Stripe(merchant.secretKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(async () => {
  await server.stop(true);
  ctx.close();
});
beforeEach(() => resetRateWindows());

/** A sandbox test bcard's details as Stripe's confirm takes raw card data (bpay's sandbox accepts them). */
async function cardData(amount: number) {
  const { card } = await testBcardCard(ctx, merchant.secretKey, amount);
  // Stripe's types allow only tokens here; bpay's confirm takes the card itself (payment_method_data.card).
  return { payment_method_data: { type: 'card', card } } as unknown as Stripe.PaymentIntentConfirmParams;
}

describe('payment intents through stripe-node', () => {
  test('create answers a bpay intent with metadata sent in bracket notation and the amount as an integer', async () => {
    const intent = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', description: 'Order 42', metadata: { order: '42' } });
    expect(intent.id).toStartWith('pi_');
    expect(intent.amount).toBe(2000);
    expect(intent.currency).toBe('usd');
    expect(intent.metadata).toEqual({ order: '42' });
    expect(intent.lastResponse.statusCode).toBe(200);
    expect(intent.lastResponse.requestId).toStartWith('req_');
  });

  test('an Idempotency-Key given to stripe-node replays the first answer', async () => {
    const key = `stripe-compat-${crypto.randomUUID()}`;
    const first = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' }, { idempotencyKey: key });
    const again = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
  });

  test('retrieve answers the same intent', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const got = await stripe.paymentIntents.retrieve(made.id);
    expect(got.id).toBe(made.id);
    expect(got.status).toBe(made.status);
  });

  test('confirm with a sandbox test bcard (card data nested three levels in the form) succeeds', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const confirmed = await stripe.paymentIntents.confirm(made.id, await cardData(2000));
    expect(confirmed.status).toBe('succeeded');
  });

  test('a manual-capture intent confirmed, then captured', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', capture_method: 'manual' });
    const held = await stripe.paymentIntents.confirm(made.id, await cardData(2000));
    expect(held.status).toBe('requires_capture');
    const captured = await stripe.paymentIntents.capture(made.id);
    expect(captured.status).toBe('succeeded');
  });

  test('cancel an open intent', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const canceled = await stripe.paymentIntents.cancel(made.id);
    expect(canceled.status).toBe('canceled');
  });

  test('list auto-pagination walks every intent once, newest first, across pages', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await stripe.paymentIntents.create({ amount: 1000 + i, currency: 'usd' })).id);
    const seen: string[] = [];
    for await (const intent of stripe.paymentIntents.list({ limit: 2 })) seen.push(intent.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 5)).toEqual(made.toReversed());
    const firstPage = await stripe.paymentIntents.list({ limit: 2 });
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.has_more).toBe(true);
  });

  test('update sets description and merges metadata (a key set to "" removes it), as Stripe does', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd', metadata: { order: '42', coupon: 'SPRING' } });
    const updated = await stripe.paymentIntents.update(made.id, { description: 'Order 42 (gift)', metadata: { gift: 'yes', coupon: '' } });
    expect(updated.id).toBe(made.id);
    expect(updated.description).toBe('Order 42 (gift)');
    expect(updated.metadata).toEqual({ order: '42', gift: 'yes' });
    const cleared = await stripe.paymentIntents.update(made.id, { amount: 2600, metadata: '' });
    expect({ amount: cleared.amount, metadata: cleared.metadata }).toEqual({ amount: 2600, metadata: {} });
    expect((await stripe.paymentIntents.retrieve(made.id)).amount).toBe(2600);
  });

  test('update after the intent succeeded: StripeInvalidRequestError payment_intent_unexpected_state, naming the status', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    await stripe.paymentIntents.confirm(made.id, await cardData(2000));
    const error = await stripe.paymentIntents.update(made.id, { description: 'late' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const e = error as Stripe.errors.StripeInvalidRequestError;
    expect(e.code).toBe('payment_intent_unexpected_state');
    expect(e.message).toBe('This PaymentIntent has already succeeded; it can no longer be updated.');
    const again = (await stripe.paymentIntents.confirm(made.id, await cardData(2000)).catch((x: unknown) => x)) as Stripe.errors.StripeInvalidRequestError;
    expect(again.message).toBe('This PaymentIntent has already succeeded; it cannot be confirmed again.');
    expect(again.payment_intent?.status).toBe('succeeded');
  });

  test('list with created[gte] / created[lt] (sent in bracket notation)', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const page = await stripe.paymentIntents.list({ created: { gte: made.created, lt: made.created + 1 }, limit: 100 });
    expect(page.data.map((p) => p.id)).toContain(made.id);
    expect(page.data.every((p) => p.created === made.created)).toBe(true);
    expect((await stripe.paymentIntents.list({ created: { gt: made.created } })).data.map((p) => p.id)).not.toContain(made.id);
  });

  test('expand is refused, saying why (bpay has no Charge objects)', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const error = (await stripe.paymentIntents.retrieve(made.id, { expand: ['latest_charge'] }).catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error.param).toBe('expand[0]');
    expect(error.message).toStartWith('This property cannot be expanded (latest_charge): bpay has no Charge objects');
  });

  test('a 404 names the id and param, as Stripe does', async () => {
    const error = (await stripe.paymentIntents.retrieve('pi_doesnotexist').catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect({ status: error.statusCode, param: error.param, message: error.message }).toEqual({
      status: 404,
      param: 'intent',
      message: "No such payment_intent: 'pi_doesnotexist'.",
    });
  });

  test('a publishable key: StripePermissionError with Stripe\'s wording', async () => {
    const withPk = new Stripe(merchant.publishableKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 });
    const error = await withPk.paymentIntents.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect((error as Error).message).toStartWith('This API call cannot be made with a publishable API key');
  });

  test('a bad amount is refused with the same error as the JSON API gives, naming the field', async () => {
    const error = await stripe.paymentIntents.create({ amount: 10, currency: 'usd' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const e = error as Stripe.errors.StripeInvalidRequestError;
    const json = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 10, currency: 'usd' } });
    expect(json.status).toBe(400);
    expect(e.statusCode).toBe(400);
    const raw = e.raw as { type?: string; code?: string; param?: string; message?: string };
    const { type, code, param, message } = json.body.error;
    expect({ type: raw.type, code: raw.code, param: raw.param, message: raw.message }).toEqual({ type, code, param, message });
    expect({ code: e.code, param: e.param, message: e.message }).toEqual({ code: 'validation_error', param: 'amount', message });
  });

  test('an amount with a fraction or letters is refused by name, not truncated', async () => {
    for (const amount of ['20.5', '20x']) {
      const res = await fetch(`${base}/v1/payment_intents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `amount=${amount}&currency=usd`,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'validation_error', param: 'amount' });
    }
  });
});

describe('payment intent search through stripe-node', () => {
  // A merchant of its own, so the other tests' intents are not in its results.
  let searcher: Stripe;
  let paidOrder42: string[] = [];

  beforeAll(async () => {
    const owner = await registerUser(ctx);
    const shop = await createMerchant(ctx, owner.cookie, 'sandbox');
    searcher = new Stripe(shop.secretKey, { host: '127.0.0.1', port: server.port, protocol: 'http', maxNetworkRetries: 0 });
    const pay = async (metadata: Record<string, string>) => {
      const made = await searcher.paymentIntents.create({ amount: 1500, currency: 'usd', metadata });
      const { card } = await testBcardCard(ctx, shop.secretKey, 1500);
      const paid = await searcher.paymentIntents.confirm(made.id, { payment_method_data: { type: 'card', card } } as unknown as Stripe.PaymentIntentConfirmParams);
      expect(paid.status).toBe('succeeded');
      return paid.id;
    };
    for (let i = 0; i < 5; i++) {
      paidOrder42.push(await pay({ order: '42' }));
      if (i === 1) await pay({ order: '43' }); // succeeded, another order
      if (i === 3) await searcher.paymentIntents.create({ amount: 1500, currency: 'usd', metadata: { order: '42' } }); // order 42, unpaid
    }
    paidOrder42 = paidOrder42.toReversed(); // newest first
  });

  test("search({ query: \"status:'succeeded' AND metadata['order']:'42'\" }) answers Stripe's search_result", async () => {
    const page = await searcher.paymentIntents.search({ query: "status:'succeeded' AND metadata['order']:'42'", limit: 2 });
    expect(page.object).toBe('search_result');
    expect(page.url).toBe('/v1/payment_intents/search');
    expect(page.data.map((p) => p.id)).toEqual(paidOrder42.slice(0, 2));
    expect(page.has_more).toBe(true);
    expect(page.next_page).toBeString();
    const next = await searcher.paymentIntents.search({ query: "status:'succeeded' AND metadata['order']:'42'", limit: 2, page: page.next_page! });
    expect(next.data.map((p) => p.id)).toEqual(paidOrder42.slice(2, 4));
  });

  test('autoPagingToArray and autoPagingEach walk every page (next_page) once, newest first', async () => {
    const query = "status:'succeeded' AND metadata['order']:'42'";
    const all = await searcher.paymentIntents.search({ query, limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((p) => p.id)).toEqual(paidOrder42);
    const seen: string[] = [];
    await searcher.paymentIntents.search({ query, limit: 2 }).autoPagingEach((p) => {
      seen.push(p.id);
    });
    expect(seen).toEqual(paidOrder42);
  });

  test('a query bpay cannot read is StripeInvalidRequestError naming query, saying where', async () => {
    const error = (await searcher.paymentIntents
      .search({ query: "status:'succeeded' OR metadata['order']:'42' AND amount>10" })
      .catch((e: unknown) => e)) as Stripe.errors.StripeInvalidRequestError;
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect({ status: error.statusCode, param: error.param }).toEqual({ status: 400, param: 'query' });
    expect(error.message).toContain('at character 46 ("AND"): AND and OR cannot be mixed');
  });
});

describe('refunds through stripe-node', () => {
  /** An intent paid with a sandbox test bcard, all through stripe-node. */
  async function paidIntent(amount: number) {
    const made = await stripe.paymentIntents.create({ amount, currency: 'usd' });
    const paid = await stripe.paymentIntents.confirm(made.id, await cardData(amount));
    expect(paid.status).toBe('succeeded');
    return paid;
  }
  /** bpay's intent has amount_refunded (Stripe keeps it on the Charge, which bpay does not have). */
  const refundedOf = async (id: string) => ((await stripe.paymentIntents.retrieve(id)) as unknown as { amount_refunded: number }).amount_refunded;

  test('create a partial refund, then the rest with reason and metadata in bracket notation; retrieve', async () => {
    const pi = await paidIntent(2000);
    const part = await stripe.refunds.create({ payment_intent: pi.id, amount: 500 });
    expect(part).toMatchObject({ object: 'refund', amount: 500, currency: 'usd', status: 'succeeded', payment_intent: pi.id, reason: null });
    expect(part.id).toStartWith('re_');
    expect(part.lastResponse.requestId).toStartWith('req_');
    expect(await refundedOf(pi.id)).toBe(500);

    const rest = await stripe.refunds.create({ payment_intent: pi.id, reason: 'requested_by_customer', metadata: { order: '42', note: 'a b&c=d' } });
    expect(rest).toMatchObject({ amount: 1500, status: 'succeeded', reason: 'requested_by_customer', metadata: { order: '42', note: 'a b&c=d' } });
    expect(await refundedOf(pi.id)).toBe(2000);

    const got = await stripe.refunds.retrieve(part.id);
    expect({ ...got, lastResponse: undefined }).toEqual({ ...part, lastResponse: undefined });
  });

  test('list({ payment_intent }) auto-paginates over that intent only, newest first, each once', async () => {
    const pi = await paidIntent(1000);
    const other = await paidIntent(1000);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await stripe.refunds.create({ payment_intent: pi.id, amount: 100 })).id);
      if (i === 2) await stripe.refunds.create({ payment_intent: other.id, amount: 100 });
    }
    const seen: string[] = [];
    for await (const r of stripe.refunds.list({ payment_intent: pi.id, limit: 2 })) seen.push(r.id);
    expect(seen).toEqual(made.toReversed());
    const page = await stripe.refunds.list({ payment_intent: pi.id, limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
  });

  test('an Idempotency-Key replays the refund instead of refunding twice', async () => {
    const pi = await paidIntent(1000);
    const key = `refund-${crypto.randomUUID()}`;
    const first = await stripe.refunds.create({ payment_intent: pi.id, amount: 300 }, { idempotencyKey: key });
    const again = await stripe.refunds.create({ payment_intent: pi.id, amount: 300 }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(await refundedOf(pi.id)).toBe(300);
  });

  test('refunding more than is left is the JSON API error, naming amount; a refunded intent says so', async () => {
    const pi = await paidIntent(1000);
    await stripe.refunds.create({ payment_intent: pi.id, amount: 400 });
    const error = await stripe.refunds.create({ payment_intent: pi.id, amount: 601 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const e = error as Stripe.errors.StripeInvalidRequestError;
    const json = await merchantCall(ctx, merchant.secretKey, '/refunds', { method: 'POST', body: { payment_intent: pi.id, amount: 601 } });
    expect(json.status).toBe(400);
    expect({ status: e.statusCode, code: e.code, param: e.param, message: e.message }).toEqual({
      status: 400,
      code: 'validation_error',
      param: 'amount',
      message: json.body.error.message,
    });
    expect(e.message).toBe('Refund amount ($6.01) is greater than the amount not yet refunded on this PaymentIntent ($6.00).');

    await stripe.refunds.create({ payment_intent: pi.id });
    const done = await stripe.refunds.create({ payment_intent: pi.id }).catch((x: unknown) => x);
    expect(done).toMatchObject({ statusCode: 400, code: 'charge_already_refunded', param: 'payment_intent' });
  });

  test('a fractional amount, an unknown reason or a field bpay does not take (charge) is refused by name', async () => {
    const pi = await paidIntent(1000);
    const post = (body: string) =>
      fetch(`${base}/v1/refunds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    for (const [body, param] of [
      [`payment_intent=${pi.id}&amount=2.5`, 'amount'],
      [`payment_intent=${pi.id}&reason=changed_mind`, 'reason'],
      // bpay has no Charge objects: Stripe's `charge` parameter is refused by name, not ignored.
      [`payment_intent=${pi.id}&charge=ch_123`, 'charge'],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'validation_error', param });
    }
    expect(await refundedOf(pi.id)).toBe(0);
  });
});

describe('webhook endpoints and events through stripe-node', () => {
  test('create, list and delete a webhook endpoint (enabled_events sent as a list)', async () => {
    const endpoint = await stripe.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['payment_intent.succeeded', 'payment_intent.canceled'] });
    expect(endpoint.id).toBeTruthy();
    expect(endpoint.enabled_events).toEqual(['payment_intent.succeeded', 'payment_intent.canceled']);
    const listed = await stripe.webhookEndpoints.list();
    expect(listed.data.map((e) => e.id)).toContain(endpoint.id);
    const deleted = await stripe.webhookEndpoints.del(endpoint.id);
    expect(deleted).toMatchObject({ id: endpoint.id, deleted: true });
    expect((await stripe.webhookEndpoints.list()).data.map((e) => e.id)).not.toContain(endpoint.id);
  });

  test('events list answers what happened to the intents', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    await stripe.paymentIntents.cancel(made.id);
    const events = await stripe.events.list({ limit: 100 });
    expect(events.data.length).toBeGreaterThan(0);
    const objectIds = events.data.map((e) => (e.data.object as { id?: string }).id);
    expect(objectIds).toContain(made.id);
  });
});

describe('webhook signatures and stripe-node', () => {
  // Bpay-Signature has Stripe-Signature's scheme (t=…,v1=HMAC-SHA256(whsec_…, "t.body")), so Stripe's verifier accepts
  // its value. Under Bun stripe-node uses Web Crypto: only the async form works (the sync one throws).
  const secret = `whsec_${'s'.repeat(32)}`;
  const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } });

  test("constructEventAsync verifies a Bpay-Signature header's value and refuses a tampered body", async () => {
    const header = signatureHeader(secret, payload, Math.floor(Date.now() / 1000));
    expect((await stripe.webhooks.constructEventAsync(payload, header, secret)).id).toBe('evt_1');
    const tampered = await stripe.webhooks.constructEventAsync(payload.replace('pi_1', 'pi_2'), header, secret).catch((e: unknown) => e);
    expect(tampered).toBeInstanceOf(Stripe.errors.StripeSignatureVerificationError);
  });
});

describe('the /v1 prefix', () => {
  const headers = () => ({ authorization: `Bearer ${merchant.secretKey}` });

  test('answers the same as /api/v1 for the same request', async () => {
    const made = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' });
    const a = await fetch(`${base}/v1/payment_intents/${made.id}`, { headers: headers() });
    const b = await fetch(`${base}/api/v1/payment_intents/${made.id}`, { headers: headers() });
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual(await b.json());
    expect(a.headers.get('request-id')).toStartWith('req_');
  });

  test('an unknown /v1 path is a JSON 404, never the web app', async () => {
    for (const path of ['/v1/nothing_here', '/v1']) {
      const res = await fetch(`${base}${path}`, { headers: headers() });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    }
  });

  test('Stripe-Version is accepted and ignored', async () => {
    const res = await fetch(`${base}/v1/payment_intents?limit=1`, { headers: { ...headers(), 'stripe-version': '2020-08-27' } });
    expect(res.status).toBe(200);
  });

  test('form bodies are taken at /api/v1 too, and refused (415) on cookie routes', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const ok = await fetch(`${base}/api/v1/payment_intents`, { method: 'POST', headers: { ...headers(), ...form }, body: 'amount=2000&currency=usd&metadata[a]=1' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { metadata: unknown }).metadata).toEqual({ a: '1' });
    const cookie = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: form, body: 'email=a%40b.c&password=x' });
    expect(cookie.status).toBe(415);
  });

  test('a form body breaking the JSON limits gets the JSON error', async () => {
    const deep = 'metadata' + '[a]'.repeat(40);
    const res = await fetch(`${base}/v1/payment_intents`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `amount=2000&currency=usd&${deep}=1`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('body_too_complex');
  });

  test('a form body over the merchant API limit (256 KB) is refused (413) as a JSON one is', async () => {
    const res = await fetch(`${base}/v1/payment_intents`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `amount=2000&currency=usd&description=${'d'.repeat(300 * 1024)}`,
      keepalive: false,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  test('a malformed form key is refused by name', async () => {
    const res = await fetch(`${base}/v1/payment_intents`, {
      method: 'POST',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=2000&currency=usd&metadata[a=1',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'validation_error', param: 'metadata[a' });
  });
});
