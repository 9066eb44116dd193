import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  Bpay,
  BpayAuthenticationError,
  BpayCardError,
  BpayError,
  BpayIdempotencyError,
  BpayInvalidRequestError,
  type PaymentIntent,
  type Refund,
} from './index';
import { newMerchantAccount, startLiveServer, type LiveServer } from '../test-support/live-server';

/*
 * The merchant client against the real API on a real port: every resource, pagination across pages, automatic
 * Idempotency-Keys, and the typed errors the API's error catalogue turns into.
 */

let live: LiveServer;
let bpay: Bpay;
let secretKey: string;

beforeAll(async () => {
  live = await startLiveServer();
  secretKey = (await newMerchantAccount(live.ctx)).secretKey;
  bpay = new Bpay(secretKey, { baseUrl: live.baseUrl });
});
afterAll(() => live.close());

/** A client for a merchant of its own, so counts and lists see only what the test made. */
async function freshClient(): Promise<Bpay> {
  return new Bpay((await newMerchantAccount(live.ctx)).secretKey, { baseUrl: live.baseUrl });
}

describe('payment intents', () => {
  test('create, retrieve, confirm with a sandbox test bcard, list', async () => {
    const pi = await bpay.paymentIntents.create({ amount: 2500, currency: 'usd', description: 'Order 42', metadata: { order: '42' } });
    expect(pi).toMatchObject({ object: 'payment_intent', amount: 2500, currency: 'usd', status: 'requires_payment_method', metadata: { order: '42' } });
    expect(pi.id).toMatch(/^pi_/);
    expect(await bpay.paymentIntents.retrieve(pi.id)).toEqual(pi);

    const card = await bpay.testHelpers.bcards.create({ amount: 2500 });
    expect(card).toMatchObject({ object: 'test_bcard', limit: 2500, currency: 'usd', livemode: false });
    const paid = await bpay.paymentIntents.confirm(pi.id, { payment_method: card.id });
    expect(paid).toMatchObject({ id: pi.id, status: 'succeeded', amount_received: 2500, payment_method: card.id });

    const page = await bpay.paymentIntents.list({ limit: 5 }).firstPage();
    expect(page.object).toBe('list');
    expect(page.data[0]).toEqual(paid);
  });

  test('update before paying: amount, description and a metadata merge; after paying it is refused with the status', async () => {
    const pi = await bpay.paymentIntents.create({ amount: 2500, currency: 'usd', metadata: { order: '42', coupon: 'X' } });
    const updated = await bpay.paymentIntents.update(pi.id, { amount: 3100, description: 'Order 42 + gift wrap', metadata: { coupon: '', wrap: 'yes' } });
    expect(updated).toMatchObject({ id: pi.id, amount: 3100, description: 'Order 42 + gift wrap', metadata: { order: '42', wrap: 'yes' } });
    const card = await bpay.testHelpers.bcards.create({ amount: 3100 });
    await bpay.paymentIntents.confirm(pi.id, { payment_method: card.id });
    const refused = await bpay.paymentIntents.update(pi.id, { amount: 100 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BpayInvalidRequestError);
    expect(refused).toMatchObject({ code: 'payment_intent_unexpected_state', statusCode: 400 });
  });

  test('list with a created range', async () => {
    const client = await freshClient();
    const pi = await client.paymentIntents.create({ amount: 100, currency: 'usd' });
    const page = await client.paymentIntents.list({ 'created[gte]': pi.created, 'created[lte]': pi.created }).firstPage();
    expect(page.data.map((x) => x.id)).toEqual([pi.id]);
    expect((await client.paymentIntents.list({ 'created[gt]': pi.created }).firstPage()).data).toEqual([]);
  });

  test('manual capture with card details, partial capture; cancel', async () => {
    const pi = await bpay.paymentIntents.create({ amount: 3000, currency: 'usd', capture_method: 'manual' });
    const card = await bpay.testHelpers.bcards.create({ amount: 3000 });
    const authorized = await bpay.paymentIntents.confirm(pi.id, {
      payment_method_data: { type: 'card', card: { number: card.number, exp_month: Number(card.exp_month), exp_year: Number(card.exp_year), cvc: card.cvc } },
    });
    expect(authorized).toMatchObject({ status: 'requires_capture', amount_capturable: 3000 });
    const captured = await bpay.paymentIntents.capture(pi.id, { amount_to_capture: 2000 });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 2000 });

    const other = await bpay.paymentIntents.create({ amount: 500, currency: 'usd' });
    expect(await bpay.paymentIntents.cancel(other.id, { cancellation_reason: 'abandoned' })).toMatchObject({
      status: 'canceled',
      cancellation_reason: 'abandoned',
    });
  });

  test('every POST carries an Idempotency-Key (generated, or the one given); GETs carry none', async () => {
    const from = live.requests.length;
    await bpay.paymentIntents.create({ amount: 100, currency: 'usd' });
    const mine = await bpay.paymentIntents.create({ amount: 100, currency: 'usd' }, { idempotencyKey: 'order-7-attempt-1' });
    const again = await bpay.paymentIntents.create({ amount: 100, currency: 'usd' }, { idempotencyKey: 'order-7-attempt-1' });
    expect(again.id).toBe(mine.id);
    await bpay.paymentIntents.retrieve(mine.id);
    const seen = live.requests.slice(from);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST', 'POST', 'GET']);
    expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(seen[1]!.idempotencyKey).toBe('order-7-attempt-1');
    expect(seen[3]!.idempotencyKey).toBeNull();
  });

  test('pagination: for await walks 250 intents across pages, newest first, each once', async () => {
    const client = await freshClient();
    const created: string[] = [];
    for (let i = 0; i < 250; i++) created.push((await client.paymentIntents.create({ amount: 100 + i, currency: 'usd' })).id);

    const from = live.requests.length;
    const seen: PaymentIntent[] = [];
    for await (const pi of client.paymentIntents.list({ limit: 100 })) seen.push(pi);
    expect(seen).toHaveLength(250);
    expect(new Set(seen.map((p) => p.id)).size).toBe(250);
    expect(seen.map((p) => p.id)).toEqual([...created].reverse());
    // Three pages of 100, 100 and 50, the later ones asked for with starting_after.
    expect(live.requests.slice(from).map((r) => r.path)).toEqual(Array(3).fill('/api/v1/payment_intents'));

    const first = await client.paymentIntents.list({ limit: 100 }).firstPage();
    expect(first.data).toHaveLength(100);
    expect(first.has_more).toBe(true);
    expect(await client.paymentIntents.list({ limit: 7 }).toArray(10)).toHaveLength(10);
    // Breaking out early stops asking for pages.
    const before = live.requests.length;
    let n = 0;
    for await (const _ of client.paymentIntents.list({ limit: 10 })) if (++n === 3) break;
    expect(live.requests.length - before).toBe(1);
  }, 30_000); // 250 real creates: about 1.5 s alone, more on a loaded machine

  test('ending_before walks towards newer intents', async () => {
    const client = await freshClient();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.paymentIntents.create({ amount: 100, currency: 'usd' })).id);
    const newer = await client.paymentIntents.list({ limit: 2, ending_before: ids[0] }).toArray();
    expect(new Set(newer.map((p) => p.id))).toEqual(new Set(ids.slice(1)));
  });
});

describe('refunds', () => {
  /** A sandbox intent of `amount` cents, paid with a fresh test bcard. */
  async function paidIntent(client: Bpay, amount: number): Promise<PaymentIntent> {
    const pi = await client.paymentIntents.create({ amount, currency: 'usd' });
    const card = await client.testHelpers.bcards.create({ amount });
    return client.paymentIntents.confirm(pi.id, { payment_method: card.id });
  }

  test('create (partial, then the rest), retrieve, list by payment intent; the intent counts amount_refunded', async () => {
    const client = await freshClient();
    const pi = await paidIntent(client, 3000);
    const other = await paidIntent(client, 500);

    const partial = await client.refunds.create({ payment_intent: pi.id, amount: 1200, reason: 'requested_by_customer', metadata: { ticket: 'T-7' } });
    expect(partial).toMatchObject({
      object: 'refund',
      amount: 1200,
      currency: 'usd',
      status: 'succeeded',
      reason: 'requested_by_customer',
      payment_intent: pi.id,
      metadata: { ticket: 'T-7' },
      failure_reason: null,
    });
    expect(partial.id).toMatch(/^re_/);
    expect(await client.refunds.retrieve(partial.id)).toEqual(partial);
    expect((await client.paymentIntents.retrieve(pi.id)).amount_refunded).toBe(1200);

    // No amount: what is left.
    const rest = await client.refunds.create({ payment_intent: pi.id });
    expect(rest).toMatchObject({ amount: 1800, status: 'succeeded', reason: null, payment_intent: pi.id });
    expect((await client.paymentIntents.retrieve(pi.id)).amount_refunded).toBe(3000);
    const otherRefund = await client.refunds.create({ payment_intent: other.id, reason: 'duplicate' });

    expect((await client.refunds.list({ payment_intent: pi.id }).toArray()).map((r) => r.id)).toEqual([rest.id, partial.id]);
    expect((await client.refunds.list().toArray()).map((r) => r.id)).toEqual([otherRefund.id, rest.id, partial.id]);
    const page = await client.refunds.list({ limit: 1 }).firstPage();
    expect(page).toMatchObject({ object: 'list', has_more: true });
    expect(page.data.map((r) => r.id)).toEqual([otherRefund.id]);
  });

  test('for await walks every refund across pages, newest first, each once', async () => {
    const client = await freshClient();
    const pi = await paidIntent(client, 2500);
    const other = await paidIntent(client, 300);
    const made: string[] = [];
    for (let i = 0; i < 25; i++) {
      made.push((await client.refunds.create({ payment_intent: pi.id, amount: 100 })).id);
      // Another intent's refunds in between: the filter must hold on every page, not only the first.
      if (i % 10 === 5) await client.refunds.create({ payment_intent: other.id, amount: 100 });
    }

    const from = live.requests.length;
    const seen: Refund[] = [];
    for await (const r of client.refunds.list({ payment_intent: pi.id, limit: 10 })) seen.push(r);
    expect(seen.map((r) => r.id)).toEqual([...made].reverse());
    // Pages of 10, 10 and 5.
    const pages = live.requests.slice(from);
    expect(pages.map((r) => r.path)).toEqual(Array(3).fill('/api/v1/refunds'));
    expect((await client.paymentIntents.retrieve(pi.id)).amount_refunded).toBe(2500);
    expect(await client.refunds.list({ limit: 100 }).toArray()).toHaveLength(27);

    const older = await client.refunds.list({ payment_intent: pi.id, limit: 4, ending_before: made[0] }).toArray();
    expect(new Set(older.map((r) => r.id))).toEqual(new Set(made.slice(1)));
  });

  test('a retried create under the same Idempotency-Key refunds once', async () => {
    const client = await freshClient();
    const pi = await paidIntent(client, 1000);
    const first = await client.refunds.create({ payment_intent: pi.id, amount: 400 }, { idempotencyKey: 'refund-order-9' });
    const again = await client.refunds.create({ payment_intent: pi.id, amount: 400 }, { idempotencyKey: 'refund-order-9' });
    expect(again).toEqual(first);
    expect((await client.paymentIntents.retrieve(pi.id)).amount_refunded).toBe(400);
    expect(await client.refunds.list({ payment_intent: pi.id }).toArray()).toHaveLength(1);
    // Without a key of its own each create gets a fresh generated one: two creates are two refunds.
    await client.refunds.create({ payment_intent: pi.id, amount: 100 });
    await client.refunds.create({ payment_intent: pi.id, amount: 100 });
    expect((await client.paymentIntents.retrieve(pi.id)).amount_refunded).toBe(600);
  });

  test('typed errors: more than is left, an intent refunded in full, an unpaid intent, an unknown refund', async () => {
    const client = await freshClient();
    const pi = await paidIntent(client, 1000);
    await client.refunds.create({ payment_intent: pi.id, amount: 600 });

    const over = await client.refunds.create({ payment_intent: pi.id, amount: 401 }).catch((e: unknown) => e);
    expect(over).toBeInstanceOf(BpayInvalidRequestError);
    expect(over).toMatchObject({
      code: 'amount_too_large',
      param: 'amount',
      statusCode: 400,
      message: 'Refund amount ($4.01) is greater than the amount not yet refunded on this PaymentIntent ($4.00).',
    });

    await client.refunds.create({ payment_intent: pi.id });
    const done = await client.refunds.create({ payment_intent: pi.id }).catch((e: unknown) => e);
    expect(done).toBeInstanceOf(BpayInvalidRequestError);
    expect(done).toMatchObject({ code: 'charge_already_refunded', param: 'payment_intent', statusCode: 400 });

    const open = await client.paymentIntents.create({ amount: 700, currency: 'usd' });
    const unpaid = await client.refunds.create({ payment_intent: open.id }).catch((e: unknown) => e);
    expect(unpaid).toMatchObject({ code: 'payment_intent_unexpected_state', param: 'payment_intent', statusCode: 400 });

    const missing = await client.refunds.retrieve('re_000000000000000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(BpayInvalidRequestError);
    expect(missing).toMatchObject({ code: 'resource_missing', statusCode: 404 });
  });
});

describe('webhook endpoints, events and usage', () => {
  test('webhook endpoints: create (with secret), retrieve, list, update, roll the secret, delete', async () => {
    const client = await freshClient();
    const ep = await client.webhookEndpoints.create({ url: 'http://localhost:4242/hooks', enabled_events: ['payment_intent.succeeded'], description: 'orders' });
    expect(ep).toMatchObject({ object: 'webhook_endpoint', status: 'enabled', enabled_events: ['payment_intent.succeeded'] });
    expect(ep.secret).toMatch(/^whsec_/);
    const { secret: _secret, ...shown } = ep;
    expect(await client.webhookEndpoints.retrieve(ep.id)).toEqual(shown);
    expect((await client.webhookEndpoints.list().toArray()).map((e) => e.id)).toEqual([ep.id]);

    const disabled = await client.webhookEndpoints.update(ep.id, { disabled: true, enabled_events: ['*'] });
    expect(disabled).toMatchObject({ status: 'disabled', enabled_events: ['*'] });
    const rolled = await client.webhookEndpoints.rollSecret(ep.id);
    expect(rolled.secret).toMatch(/^whsec_/);
    expect(rolled.secret).not.toBe(ep.secret);
    expect(await client.webhookEndpoints.delete(ep.id)).toEqual({ id: ep.id, object: 'webhook_endpoint', deleted: true });
    expect(await client.webhookEndpoints.list().toArray()).toEqual([]);
  });

  test('events: list (filtered), retrieve, resend; usage counts the requests', async () => {
    const client = await freshClient();
    const ep = await client.webhookEndpoints.create({ url: 'http://localhost:4242/hooks', enabled_events: ['*'] });
    const pi = await client.paymentIntents.create({ amount: 700, currency: 'usd' });
    const events = await client.events.list({ type: 'payment_intent.created' }).toArray();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ object: 'event', type: 'payment_intent.created', data: { object: { id: pi.id } } });
    expect(await client.events.retrieve(events[0]!.id)).toEqual(events[0]!);
    const resent = await client.events.resend(events[0]!.id, { endpoint_id: ep.id });
    expect(resent.data).toHaveLength(1);
    expect(resent.data[0]).toMatchObject({ object: 'webhook_delivery', event: events[0]!.id, webhook_endpoint: ep.id, status: 'pending' });

    const usage = await client.usage.retrieve();
    expect(usage.object).toBe('usage');
    // create endpoint, create intent, list events, retrieve, resend, and this call.
    expect(usage.totalRequestsToday).toBe(6);
  });
});

describe('typed errors', () => {
  test('a bad key -> BpayAuthenticationError with code, status and the request id', async () => {
    const err = await new Bpay('sk_test_notarealkeynotarealkey0000', { baseUrl: live.baseUrl }).paymentIntents
      .list()
      .firstPage()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayAuthenticationError);
    expect(err).toBeInstanceOf(BpayError);
    const e = err as BpayAuthenticationError;
    expect({ type: e.type, code: e.code, statusCode: e.statusCode, name: e.name }).toEqual({
      type: 'authentication_error',
      code: 'invalid_api_key',
      statusCode: 401,
      name: 'BpayAuthenticationError',
    });
    expect(e.requestId).toMatch(/^req_[0-9a-f]{20}$/);
    expect(e.raw).toMatchObject({ error: { code: 'invalid_api_key', request_id: e.requestId } });
  });

  test('a declined card -> BpayCardError with declineCode; the intent can be paid again', async () => {
    const pi = await bpay.paymentIntents.create({ amount: 1000, currency: 'usd' });
    const small = await bpay.testHelpers.bcards.create({ amount: 500 });
    const err = await bpay.paymentIntents.confirm(pi.id, { payment_method: small.id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayCardError);
    expect(err).toMatchObject({ type: 'card_error', code: 'card_declined', declineCode: 'insufficient_funds', statusCode: 402 });
    expect((err as BpayCardError).requestId).toMatch(/^req_/);
    expect((await bpay.paymentIntents.retrieve(pi.id)).status).toBe('requires_payment_method');
  });

  test('a bad parameter -> BpayInvalidRequestError naming the param', async () => {
    const err = await bpay.paymentIntents.create({ amount: -5, currency: 'usd' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayInvalidRequestError);
    expect(err).toMatchObject({ code: 'validation_error', param: 'amount', statusCode: 400 });

    const missing = await bpay.paymentIntents.retrieve('pi_000000000000000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(BpayInvalidRequestError);
    expect(missing).toMatchObject({ code: 'resource_missing', statusCode: 404 });
  });

  test('the same Idempotency-Key with another body -> BpayIdempotencyError (not retried)', async () => {
    await bpay.paymentIntents.create({ amount: 100, currency: 'usd' }, { idempotencyKey: 'key-reused-1' });
    const from = live.requests.length;
    const err = await bpay.paymentIntents.create({ amount: 200, currency: 'usd' }, { idempotencyKey: 'key-reused-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayIdempotencyError);
    expect(err).toMatchObject({ type: 'idempotency_error', statusCode: 400 });
    expect(live.requests.length - from).toBe(1);
  });

  test('a live key cannot make test bcards -> test_mode_only', async () => {
    const liveKey = (await newMerchantAccount(live.ctx, 'production')).secretKey;
    const err = await new Bpay(liveKey, { baseUrl: live.baseUrl }).testHelpers.bcards.create({ amount: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayInvalidRequestError);
    expect(err).toMatchObject({ code: 'test_mode_only', statusCode: 400 });
  });
});
