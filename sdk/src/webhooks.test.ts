import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { deliverDueWebhooks } from '../../api/src/modules/webhooks/worker';
import { Bpay, BpayWebhookSignatureError } from './index';
import { newMerchantAccount, startLiveServer, startReceiver, type LiveServer, type ReceivedDelivery } from '../test-support/live-server';

/*
 * constructEvent against a real delivery: an endpoint registered through the SDK to a local receiver, an event
 * caused through the SDK, the API's delivery worker sending it; then tampered bodies, stale timestamps, several
 * signatures and wrong secrets.
 */

let live: LiveServer;
let receiver: ReturnType<typeof startReceiver>;
let delivery: ReceivedDelivery;
let secret: string;
let intentId: string;

beforeAll(async () => {
  live = await startLiveServer();
  receiver = startReceiver();
  const bpay = new Bpay((await newMerchantAccount(live.ctx)).secretKey, { baseUrl: live.baseUrl });
  const ep = await bpay.webhookEndpoints.create({ url: receiver.url, enabled_events: ['payment_intent.created'] });
  secret = ep.secret!;
  intentId = (await bpay.paymentIntents.create({ amount: 1234, currency: 'usd' })).id;
  const run = await deliverDueWebhooks(live.ctx.deps, { limit: 10 });
  expect(run).toMatchObject({ succeeded: 1 });
  expect(receiver.received).toHaveLength(1);
  delivery = receiver.received[0]!;
});
afterAll(() => {
  receiver.stop();
  live.close();
});

const rejects = (f: () => unknown, message: RegExp) => {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(BpayWebhookSignatureError);
  expect((err as Error).message).toMatch(message);
};

describe('Bpay.webhooks.constructEvent', () => {
  test('accepts a real delivery (string or bytes) and answers the typed event', () => {
    expect(delivery.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const event = Bpay.webhooks.constructEvent(delivery.rawBody, delivery.signature!, secret);
    expect(event).toMatchObject({ object: 'event', type: 'payment_intent.created', livemode: false, data: { object: { id: intentId, amount: 1234 } } });
    expect(Bpay.webhooks.constructEvent(new TextEncoder().encode(delivery.rawBody), delivery.signature!, secret)).toEqual(event);
  });

  test('rejects a tampered body, a wrong secret, a missing or malformed header', () => {
    const tampered = delivery.rawBody.replace('"amount":1234', '"amount":1');
    expect(tampered).not.toBe(delivery.rawBody);
    rejects(() => Bpay.webhooks.constructEvent(tampered, delivery.signature!, secret), /No signature matches/);
    rejects(() => Bpay.webhooks.constructEvent(`${delivery.rawBody} `, delivery.signature!, secret), /No signature matches/);
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, delivery.signature!, 'whsec_wrong'), /No signature matches/);
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, '', secret), /No Bpay-Signature header/);
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, 'v1=abc', secret), /no timestamp/);
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, `t=${Math.floor(Date.now() / 1000)}`, secret), /no v1 signature/);
    // A signature of another length is compared without throwing (timingSafeEqual needs equal lengths).
    const t = /t=(\d+)/.exec(delivery.signature!)![1];
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, `t=${t},v1=abcd`, secret), /No signature matches/);
  });

  test('rejects a stale (or future) timestamp even when correctly signed; the tolerance is adjustable', () => {
    const old = Math.floor(Date.now() / 1000) - 301;
    const header = Bpay.webhooks.generateTestHeader({ payload: delivery.rawBody, secret, timestamp: old });
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, header, secret), /outside the tolerance/);
    expect(Bpay.webhooks.constructEvent(delivery.rawBody, header, secret, 600).type).toBe('payment_intent.created');
    const future = Bpay.webhooks.generateTestHeader({ payload: delivery.rawBody, secret, timestamp: old + 602 });
    rejects(() => Bpay.webhooks.constructEvent(delivery.rawBody, future, secret), /outside the tolerance/);
  });

  test('accepts when any of several v1 signatures matches (secret rotation)', () => {
    const t = Number(/t=(\d+)/.exec(delivery.signature!)![1]);
    const good = /v1=([0-9a-f]+)/.exec(delivery.signature!)![1];
    const wrong = /v1=([0-9a-f]+)/.exec(Bpay.webhooks.generateTestHeader({ payload: delivery.rawBody, secret: 'whsec_old', timestamp: t }))![1];
    expect(Bpay.webhooks.constructEvent(delivery.rawBody, `t=${t},v1=${wrong},v1=${good}`, secret).type).toBe('payment_intent.created');
    expect(Bpay.webhooks.constructEvent(delivery.rawBody, `t=${t}, v1=${good}, v0=ignored`, secret).type).toBe('payment_intent.created');
  });

  test('generateTestHeader makes headers constructEvent accepts; a signed non-event is refused', () => {
    const payload = JSON.stringify({ id: 'evt_test', object: 'event', type: 'payment_intent.succeeded', created: 1, livemode: false, data: { object: {} } });
    const header = Bpay.webhooks.generateTestHeader({ payload, secret: 'whsec_test' });
    expect(Bpay.webhooks.constructEvent(payload, header, 'whsec_test').id).toBe('evt_test');
    const notJson = 'hello';
    rejects(() => Bpay.webhooks.constructEvent(notJson, Bpay.webhooks.generateTestHeader({ payload: notJson, secret: 'whsec_test' }), 'whsec_test'), /not JSON/);
    // The instance exposes the same helpers.
    expect(new Bpay('sk_test_x').webhooks.constructEvent(payload, header, 'whsec_test').id).toBe('evt_test');
  });
});
