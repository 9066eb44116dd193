import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { signatureHeader, verifySignature } from './signature';
import { AUTO_DISABLED_REASON } from './service';
import { attemptsOf, countRows, createIntent, deliveriesOf, HOUR, nowSeconds, setup, testBcard, v1 } from '../../../test-support/modules/webhooks';
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, backoffMs, deliverDueWebhooks, USER_AGENT } from './worker';

/*
 * The delivery worker against a real HTTP receiver that verifies signatures like a merchant's server: a payment
 * intent's events arrive signed, failures are retried with backoff for 3 days and recorded, and an endpoint failing
 * that long is disabled. (Restarts, racing workers and the outbox's transaction: outbox.test.ts.)
 */

const cleanup: Array<() => void> = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

describe('backoffMs', () => {
  test('about 30 s, 1 min, 2 min … doubling, capped at 6 hours; jitter only shortens, by at most 20 %', () => {
    const top = (n: number) => backoffMs(n, () => 1);
    expect([1, 2, 3, 4, 5].map(top)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
    expect(top(10)).toBe(BACKOFF_BASE_MS * 512);
    expect(top(11)).toBe(BACKOFF_CAP_MS);
    expect(top(40)).toBe(BACKOFF_CAP_MS);
    expect(backoffMs(1, () => 0)).toBe(24_000);
    for (let n = 1; n < 30; n++) {
      const b = backoffMs(n);
      expect(b).toBeGreaterThanOrEqual(top(n) * 0.8);
      expect(b).toBeLessThanOrEqual(top(n));
    }
  });
});

describe('a payment intent paid with a bcard, delivered to a test receiver', () => {
  let ctx: TestContext;
  let s: Awaited<ReturnType<typeof setup>>;
  let piId: string;

  beforeAll(async () => {
    ctx = await makeTestApp();
    s = await setup(ctx, ['payment_intent.created', 'payment_intent.succeeded', 'payment_intent.failed']);
    piId = await createIntent(ctx, s.merchant, 2500);
    const { card } = await testBcard(ctx, s.merchant, 2500);
    const wrong = await v1(ctx, s.merchant.key, `/payment_intents/${piId}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card: { ...card, cvc: card.cvc === '999' ? '998' : '999' } } },
    });
    expect(wrong.status).toBe(402);
    const ok = await v1(ctx, s.merchant.key, `/payment_intents/${piId}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('succeeded');
  });
  afterAll(() => {
    s.receiver.stop();
    ctx.close();
  });

  test('nothing is sent before the worker runs; one run sends created, failed and succeeded, each verified', async () => {
    expect(s.receiver.received).toHaveLength(0);
    const run = await deliverDueWebhooks(ctx.deps, { limit: 50 });
    expect(run).toEqual({ claimed: 3, succeeded: 3, retrying: 0, failed: 0 });
    expect(s.receiver.rejected).toHaveLength(0);
    expect(s.receiver.received.map((r) => r.event.type).sort()).toEqual([
      'payment_intent.created',
      'payment_intent.failed',
      'payment_intent.succeeded',
    ]);
    for (const r of s.receiver.received) {
      expect(r.verified).toBe(true);
      expect(r.contentType).toBe('application/json');
      expect(r.userAgent).toBe(USER_AGENT);
      expect(r.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(r.event.data.object.id).toBe(piId);
      // The body is exactly the event as GET /v1/events/:id shows it.
      const stored = await v1(ctx, s.merchant.key, `/events/${r.event.id}`);
      expect(r.rawBody).toBe(JSON.stringify(stored.body));
      expect(Object.keys(r.event).sort()).toEqual(['created', 'data', 'id', 'livemode', 'object', 'type']);
      expect(r.event).toMatchObject({ object: 'event', livemode: false });
    }
    const byType = Object.fromEntries(s.receiver.received.map((r) => [r.event.type, r.event.data.object]));
    expect(byType['payment_intent.created']).toMatchObject({ status: 'requires_payment_method', amount: 2500 });
    expect(byType['payment_intent.failed']).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { type: 'card_error', decline_code: 'incorrect_number' },
    });
    expect(byType['payment_intent.succeeded']).toMatchObject({ status: 'succeeded', amount_received: 2500 });

    const again = await deliverDueWebhooks(ctx.deps, { limit: 50 });
    expect(again.claimed).toBe(0);
    const dash = await call(ctx, `/api/merchants/${s.merchant.id}/webhook_deliveries?endpoint_id=${s.endpointId}`, { cookie: s.user.cookie });
    expect(dash.body.data).toHaveLength(3);
    for (const d of dash.body.data) {
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, next_attempt_at: null, last_attempt: { status_code: 200, response_snippet: 'ok', error: null } });
      expect(d.last_attempt.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  test('events are exactly the state changes: one per intent change, none for unsubscribed types', async () => {
    const events = await v1(ctx, s.merchant.key, '/events?limit=100');
    // A failure is recorded under both names, bpay's and Stripe's (events/emit.ts EVENT_TWINS); the endpoint
    // subscribed to payment_intent.failed only is sent that one.
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual([
      'payment_intent.succeeded',
      'payment_intent.payment_failed',
      'payment_intent.failed',
      'payment_intent.created',
    ]);
    expect(await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [s.endpointId])).toBe(3);
  });

  test('the receiver rejects a tampered body, a forged signature and a replay older than 5 minutes', async () => {
    const good = s.receiver.received.find((r) => r.event.type === 'payment_intent.succeeded')!;
    const post = (body: string, signature: string) =>
      fetch(s.receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'bpay-signature': signature }, body });
    const before = s.receiver.received.length;

    const tampered = good.rawBody.replace('"amount":2500', '"amount":1');
    expect(tampered).not.toBe(good.rawBody);
    expect((await post(tampered, good.signature!)).status).toBe(400);
    expect(verifySignature(tampered, good.signature, s.receiver.secret, 300, nowSeconds(ctx)())).toBe(false);

    const forged = signatureHeader('whsec_not_the_secret', good.rawBody, nowSeconds(ctx)());
    expect((await post(good.rawBody, forged)).status).toBe(400);

    // The genuine request, replayed 5 minutes and 1 second later.
    ctx.clock.advance(301_000);
    expect((await post(good.rawBody, good.signature!)).status).toBe(400);
    expect(verifySignature(good.rawBody, good.signature, s.receiver.secret, 300, nowSeconds(ctx)())).toBe(false);
    expect(s.receiver.received).toHaveLength(before);
    expect(s.receiver.rejected).toHaveLength(3);
  });

  test('resend queues a new delivery of the same event, signed afresh; to one endpoint or to every subscriber', async () => {
    const succeeded = s.receiver.received.find((r) => r.event.type === 'payment_intent.succeeded')!;
    const res = await v1(ctx, s.merchant.key, `/events/${succeeded.event.id}/resend`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      object: 'webhook_delivery',
      event: succeeded.event.id,
      event_type: 'payment_intent.succeeded',
      webhook_endpoint: s.endpointId,
      status: 'pending',
      attempts: 0,
      last_attempt: null,
    });
    ctx.clock.advance(5000);
    expect((await deliverDueWebhooks(ctx.deps)).succeeded).toBe(1);
    const last = s.receiver.received.at(-1)!;
    expect(last.event.id).toBe(succeeded.event.id);
    expect(last.rawBody).toBe(succeeded.rawBody);
    expect(last.signature).not.toBe(succeeded.signature);

    // A second endpoint that does not subscribe to the type: "every subscriber" leaves it out; naming it sends it.
    const other = await v1(ctx, s.merchant.key, '/webhook_endpoints', {
      method: 'POST',
      body: { url: s.receiver.url, enabled_events: ['payment_intent.canceled'] },
    });
    const all = await v1(ctx, s.merchant.key, `/events/${succeeded.event.id}/resend`, { method: 'POST' });
    expect(all.body.data.map((d: { webhook_endpoint: string }) => d.webhook_endpoint)).toEqual([s.endpointId]);
    const one = await v1(ctx, s.merchant.key, `/events/${succeeded.event.id}/resend`, { method: 'POST', body: { endpoint_id: other.body.id } });
    expect(one.body.data.map((d: { webhook_endpoint: string }) => d.webhook_endpoint)).toEqual([other.body.id]);
    s.receiver.secret = other.body.secret;
    await deliverDueWebhooks(ctx.deps);
    // The first endpoint's copy was signed with the first secret, so this receiver (now holding the other's) refuses it.
    expect(s.receiver.rejected.length).toBe(4);
    expect(s.receiver.received.at(-1)!.event.id).toBe(succeeded.event.id);
  });
});

describe('retries', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('a 500 is retried with backoff and every attempt is recorded; the endpoint recovers on success', async () => {
    const s = await setup(ctx);
    cleanup.push(() => s.receiver.stop());
    s.receiver.answer = (n) => (n <= 2 ? 500 : 200);
    await createIntent(ctx, s.merchant);
    const [d] = await deliveriesOf(ctx, s.endpointId);
    const t0 = ctx.clock.now().getTime();

    expect(await deliverDueWebhooks(ctx.deps)).toEqual({ claimed: 1, succeeded: 0, retrying: 1, failed: 0 });
    let row = (await deliveriesOf(ctx, s.endpointId))[0]!;
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lockedUntil: null });
    expect(row.nextAttemptAt.getTime() - t0).toBeGreaterThanOrEqual(24_000);
    expect(row.nextAttemptAt.getTime() - t0).toBeLessThanOrEqual(30_000);
    let ep = await ctx.handle.db.query.webhookEndpoints.findFirst({ where: eq(schema.webhookEndpoints.id, s.endpointId) });
    expect(ep!.failingSince?.getTime()).toBe(t0);

    // Not due yet.
    ctx.clock.advance(20_000);
    expect((await deliverDueWebhooks(ctx.deps)).claimed).toBe(0);
    ctx.clock.advance(10_000);
    expect((await deliverDueWebhooks(ctx.deps)).retrying).toBe(1);
    row = (await deliveriesOf(ctx, s.endpointId))[0]!;
    expect(row.attempts).toBe(2);
    const wait = row.nextAttemptAt.getTime() - ctx.clock.now().getTime();
    expect(wait).toBeGreaterThanOrEqual(48_000);
    expect(wait).toBeLessThanOrEqual(60_000);

    ctx.clock.advance(60_000);
    expect((await deliverDueWebhooks(ctx.deps)).succeeded).toBe(1);
    row = (await deliveriesOf(ctx, s.endpointId))[0]!;
    expect(row).toMatchObject({ status: 'succeeded', attempts: 3 });
    ep = await ctx.handle.db.query.webhookEndpoints.findFirst({ where: eq(schema.webhookEndpoints.id, s.endpointId) });
    expect(ep!.failingSince).toBeNull();

    const attempts = await attemptsOf(ctx, d!.id);
    expect(attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(attempts[0]!.responseSnippet).toHaveLength(500);
    expect(attempts[0]!.responseSnippet!.startsWith('boom')).toBe(true);
    expect(attempts[2]!.responseSnippet).toBe('ok');
    for (const a of attempts) expect(a.durationMs).toBeGreaterThanOrEqual(0);
    // The same event each time, each signed at its own moment.
    expect(new Set(s.receiver.eventIds()).size).toBe(1);
    expect(new Set(s.receiver.received.map((r) => r.signature)).size).toBe(3);
    expect(s.receiver.received.every((r) => r.verified)).toBe(true);
  });

  test('a timeout, a network error and a redirect are failures, recorded without a status or with the 3xx', async () => {
    const s = await setup(ctx);
    cleanup.push(() => s.receiver.stop());
    const realFetch = ctx.deps.webhooks.fetch;
    const realTimeout = ctx.deps.webhooks.timeoutMs;
    cleanup.push(() => {
      ctx.deps.webhooks.fetch = realFetch;
      ctx.deps.webhooks.timeoutMs = realTimeout;
    });
    const seen: RequestInit[] = [];

    // A receiver that never answers: given up after the timeout (kept short here), through the AbortSignal.
    ctx.deps.webhooks.timeoutMs = 50;
    ctx.deps.webhooks.fetch = (_url, init) => {
      seen.push(init);
      return new Promise((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)));
    };
    await createIntent(ctx, s.merchant);
    const [d] = await deliveriesOf(ctx, s.endpointId);
    const started = Date.now();
    expect((await deliverDueWebhooks(ctx.deps)).retrying).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen[0]).toMatchObject({ method: 'POST', redirect: 'manual' });
    let attempts = await attemptsOf(ctx, d!.id);
    expect(attempts.at(-1)).toMatchObject({ statusCode: null, error: 'Timed out after 50 ms.', responseSnippet: null });

    // A connection refused.
    ctx.deps.webhooks.fetch = async () => {
      throw new TypeError('Unable to connect. Is the computer able to access the url?');
    };
    ctx.clock.advance(BACKOFF_BASE_MS);
    expect((await deliverDueWebhooks(ctx.deps)).retrying).toBe(1);
    attempts = await attemptsOf(ctx, d!.id);
    expect(attempts.at(-1)).toMatchObject({ statusCode: null, error: expect.stringContaining('Unable to connect') });

    // A redirect is not followed and is not a success.
    ctx.deps.webhooks.fetch = realFetch;
    s.receiver.answer = () => 302;
    ctx.clock.advance(2 * BACKOFF_BASE_MS);
    expect((await deliverDueWebhooks(ctx.deps)).retrying).toBe(1);
    attempts = await attemptsOf(ctx, d!.id);
    expect(attempts.at(-1)).toMatchObject({ statusCode: 302, error: null });
    expect(s.receiver.received).toHaveLength(1);
    expect((await deliveriesOf(ctx, s.endpointId))[0]).toMatchObject({ status: 'pending', attempts: 3 });
  });

  test('after 3 days of failures the delivery is failed and the endpoint disabled; its queue is failed with it', async () => {
    const s = await setup(ctx);
    cleanup.push(() => s.receiver.stop());
    s.receiver.answer = () => 500;
    const t0 = ctx.clock.now().getTime();
    await createIntent(ctx, s.merchant);
    const [first] = await deliveriesOf(ctx, s.endpointId);

    let later: string | undefined;
    for (let i = 0; i < 40; i++) {
      await deliverDueWebhooks(ctx.deps);
      const row = await ctx.handle.db.query.webhookDeliveries.findFirst({ where: eq(schema.webhookDeliveries.id, first!.id) });
      if (row!.status !== 'pending') break;
      ctx.clock.advance(6 * HOUR);
      // Two days in, another event: it is still being retried when the endpoint is disabled.
      if (!later && ctx.clock.now().getTime() - t0 >= 48 * HOUR) later = await createIntent(ctx, s.merchant);
    }
    const [d1, d2] = await deliveriesOf(ctx, s.endpointId);
    expect(d1!.status).toBe('failed');
    const attempts = await attemptsOf(ctx, d1!.id);
    expect(attempts).toHaveLength(d1!.attempts);
    expect(attempts.length).toBeGreaterThanOrEqual(10);
    expect(attempts.every((a) => a.statusCode === 500)).toBe(true);
    expect(attempts.at(-1)!.at.getTime() - t0).toBeGreaterThanOrEqual(72 * HOUR);
    expect(attempts.at(-1)!.at.getTime() - t0).toBeLessThan(80 * HOUR);
    expect(later).toBeDefined();
    expect(d2!.status).toBe('failed');
    expect(d2!.attempts).toBeGreaterThan(0);

    const ep = await v1(ctx, s.merchant.key, `/webhook_endpoints/${s.endpointId}`);
    expect(ep.body).toMatchObject({ status: 'disabled', disabled_reason: AUTO_DISABLED_REASON });
    expect(AUTO_DISABLED_REASON).toBe('Disabled after failing for 3 days');
    const dash = await call(ctx, `/api/merchants/${s.merchant.id}/webhook_endpoints`, { cookie: s.user.cookie });
    expect(dash.body.data.find((e: { id: string }) => e.id === s.endpointId)).toMatchObject({ status: 'disabled', disabled_reason: AUTO_DISABLED_REASON });

    // Disabled: new events queue nothing for it, and nothing more is sent.
    const received = s.receiver.received.length;
    await createIntent(ctx, s.merchant);
    expect(await countRows(ctx, 'webhook_deliveries', "endpoint_id = ? AND status = 'pending'", [s.endpointId])).toBe(0);
    ctx.clock.advance(HOUR);
    await deliverDueWebhooks(ctx.deps);
    expect(s.receiver.received).toHaveLength(received);

    // The merchant fixes the receiver and enables the endpoint again: deliveries flow, and a failed one can be resent.
    s.receiver.answer = () => 200;
    const on = await v1(ctx, s.merchant.key, `/webhook_endpoints/${s.endpointId}`, { method: 'PATCH', body: { disabled: false } });
    expect(on.body).toMatchObject({ status: 'enabled', disabled_reason: null });
    await createIntent(ctx, s.merchant);
    await v1(ctx, s.merchant.key, `/events/${d1!.eventId}/resend`, { method: 'POST', body: { endpoint_id: s.endpointId } });
    expect(await deliverDueWebhooks(ctx.deps)).toMatchObject({ claimed: 2, succeeded: 2 });
  });
});
