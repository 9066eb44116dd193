import { afterEach, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { interceptVendor, makeTestApp, type TestContext, type VendorMethod } from '../../../test-support/app';
import { LEASE_MS } from '../bcards/saga';
import { countRows, createIntent, HOUR, nowSeconds, Receiver, setup, testBcard, v1 } from '../../../test-support/modules/webhooks';
import { deliverDueWebhooks, lockMs, startWebhookWorker } from './worker';

/*
 * Issue 27: the process dies right after a state change commits and before the webhook worker sends its event. The
 * event was written in the change's transaction (the outbox), so a new process over the same database delivers it:
 * once per endpoint, with the id the event is stored under. A process that dies after an endpoint answered 2xx but
 * before bpay recorded the delivery sends it again after restart, with the SAME event id and body (at-least-once;
 * receivers deduplicate by event id, as with Stripe).
 */

const cleanup: Array<() => void> = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

class CrashError extends Error {
  override name = 'CrashError';
}

const rows = async (ctx: TestContext, sql: string, args: Array<string | number> = []) =>
  (await ctx.handle.client.execute({ sql, args })).rows.map((r) => Object.fromEntries(Object.entries(r)));

/** Every stored event of the merchant (the ids and bodies the endpoints must get), oldest first. */
async function storedEvents(ctx: TestContext, merchantId: string) {
  const all = await rows(ctx, 'SELECT id, type FROM events WHERE merchant_id = ? ORDER BY seq', [merchantId]);
  return all.map((e) => ({ id: String(e.id), type: String(e.type) }));
}

/** Runs the real worker (its timer) on `ctx` until no delivery is pending, then stops it. */
async function runWorkerUntilQuiet(ctx: TestContext) {
  const worker = startWebhookWorker(ctx.deps, { intervalMs: 5 });
  try {
    for (let i = 0; i < 400; i++) {
      if ((await countRows(ctx, 'webhook_deliveries', "status = 'pending'")) === 0) return;
      await Bun.sleep(10);
    }
    throw new Error('the worker did not empty the outbox');
  } finally {
    worker.stop();
  }
}

/** A user, a sandbox merchant and two endpoints (each its own receiver), both subscribed to every event. */
async function twoEndpoints(ctx: TestContext) {
  const s = await setup(ctx, ['*']);
  const second = new Receiver(nowSeconds(ctx));
  const ep = await v1(ctx, s.merchant.key, '/webhook_endpoints', { method: 'POST', body: { url: second.url, enabled_events: ['*'] } });
  if (ep.status !== 200) throw new Error(`endpoint: ${ep.status} ${ep.text}`);
  second.secret = ep.body.secret;
  cleanup.push(() => s.receiver.stop(), () => second.stop());
  return { ...s, receivers: [s.receiver, second] };
}

describe('a crash after the state change, before the worker runs', () => {
  test("intents (created, failed, succeeded, canceled, authorized) and refunds: each event reaches each endpoint once after restart, under its stored id", async () => {
    const clock = new TestClock();
    // makeTestApp starts no worker: nothing is sent while this process lives.
    const first = await makeTestApp({ clock });
    const s = await twoEndpoints(first);
    const m = s.merchant;

    // An intent that fails once (wrong CVC), then succeeds, then is refunded in part.
    const paid = await createIntent(first, m, 2500);
    const { card } = await testBcard(first, m, 2500);
    const wrong = await v1(first, m.key, `/payment_intents/${paid}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card: { ...card, cvc: card.cvc === '999' ? '998' : '999' } } },
    });
    expect(wrong.status).toBe(402);
    const ok = await v1(first, m.key, `/payment_intents/${paid}/confirm`, { method: 'POST', body: { payment_method_data: { type: 'card', card } } });
    expect(ok.body.status).toBe('succeeded');
    const refund = await v1(first, m.key, '/refunds', { method: 'POST', body: { payment_intent: paid, amount: 1000 }, headers: { 'idempotency-key': 'crash-refund' } });
    expect(refund.status, refund.text).toBe(200);
    // An intent canceled.
    const dropped = await createIntent(first, m, 700);
    expect((await v1(first, m.key, `/payment_intents/${dropped}/cancel`, { method: 'POST' })).body.status).toBe('canceled');
    // An authorization: a manual-capture intent confirmed (held, not captured).
    const held = await v1(first, m.key, '/payment_intents', { method: 'POST', body: { amount: 1200, currency: 'usd', capture_method: 'manual' } });
    expect(held.status, held.text).toBe(200);
    const heldCard = (await testBcard(first, m, 1200)).card;
    const auth = await v1(first, m.key, `/payment_intents/${held.body.id}/confirm`, { method: 'POST', body: { payment_method_data: { type: 'card', card: heldCard } } });
    expect(auth.body.status).toBe('requires_capture');

    const events = await storedEvents(first, m.id);
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'payment_intent.created',
        'payment_intent.failed',
        // Stripe's name for it, recorded beside it (events/emit.ts EVENT_TWINS).
        'payment_intent.payment_failed',
        'payment_intent.succeeded',
        'refund.created',
        'refund.updated',
        'charge.refunded',
        'payment_intent.canceled',
        'payment_intent.amount_capturable_updated',
      ]),
    );
    // Every change's event is queued for both endpoints in the change's own transaction.
    expect(await countRows(first, 'webhook_deliveries', "status = 'pending'")).toBe(2 * events.length);

    // The process dies: nothing was sent.
    first.handle.close();
    for (const r of s.receivers) expect(r.received).toHaveLength(0);

    // A new process over the same database, with its worker.
    const second = await makeTestApp({ dir: first.dir, clock });
    cleanup.push(() => second.close());
    await runWorkerUntilQuiet(second);

    const expected = events.map((e) => e.id).sort();
    for (const r of s.receivers) {
      expect(r.rejected).toHaveLength(0);
      // Exactly once each, under the id it is stored with, and the body GET /v1/events/:id shows.
      expect(r.eventIds().sort()).toEqual(expected);
      for (const got of r.received) {
        const stored = await v1(second, m.key, `/events/${got.event.id}`);
        expect(got.rawBody).toBe(JSON.stringify(stored.body));
      }
    }
    expect(await countRows(second, 'webhook_deliveries', "status = 'succeeded' AND attempts = 1")).toBe(2 * events.length);
    // Later runs send nothing more.
    clock.advance(HOUR);
    expect((await deliverDueWebhooks(second.deps, { limit: 100 })).claimed).toBe(0);
    for (const r of s.receivers) expect(r.received).toHaveLength(events.length);
  });
});

describe('a crash at the first processor call after a payment commits', () => {
  test("the intent's succeeded event, committed with the payment, reaches each endpoint once after restart and the sweep", async () => {
    const clock = new TestClock();
    const state = { armed: false, crashed: false, calls: [] as VendorMethod[] };
    let victim: TestContext | null = null;
    const first = await makeTestApp({
      clock,
      wrapVendor: (v) => ({
        ...interceptVendor(v, async <T,>(method: VendorMethod, _a: unknown[], run: () => Promise<T>): Promise<T> => {
          if (state.crashed) throw new CrashError('the process is gone');
          if (!state.armed) return run();
          state.calls.push(method);
          state.crashed = true;
          victim!.handle.close();
          throw new CrashError(`crashed before ${method}`);
        }),
        // A test bcard is found by its number through the simulator (no processor call).
        ...(v.checkIssuedCard ? { checkIssuedCard: v.checkIssuedCard.bind(v) } : {}),
      }),
    });
    victim = first;
    const s = await twoEndpoints(first);
    const pi = await createIntent(first, s.merchant, 2500);
    const { card } = await testBcard(first, s.merchant, 2500);
    state.armed = true;
    // The payment commits (the intent succeeded, its event queued); settling the used bcard at the processor comes
    // after, and the process dies there.
    await v1(first, s.merchant.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method_data: { type: 'card', card } } }).catch(
      () => null,
    );
    for (let i = 0; i < 200 && !state.crashed; i++) await Bun.sleep(10);
    expect(state.calls).toEqual(['deactivateCard']);
    for (const r of s.receivers) expect(r.received).toHaveLength(0);

    const second = await makeTestApp({ dir: first.dir, clock });
    cleanup.push(() => second.close());
    clock.advance(LEASE_MS + 1);
    for (let i = 0; i < 5; i++) if ((await sweepMoney(second.deps)).recovered === 0) break;
    await runWorkerUntilQuiet(second);

    const events = await storedEvents(second, s.merchant.id);
    expect(events.map((e) => e.type).sort()).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    for (const r of s.receivers) {
      expect(r.rejected).toHaveLength(0);
      expect(r.eventIds().sort()).toEqual(events.map((e) => e.id).sort());
    }
    const succeeded = s.receivers[0]!.received.find((r) => r.event.type === 'payment_intent.succeeded')!;
    expect(succeeded.event.data.object).toMatchObject({ id: pi, status: 'succeeded', amount_received: 2500 });
    clock.advance(HOUR);
    await sweepMoney(second.deps);
    expect((await deliverDueWebhooks(second.deps, { limit: 100 })).claimed).toBe(0);
  });
});

describe('a crash after the endpoint answered 2xx, before bpay recorded the delivery', () => {
  test('the delivery is sent again after restart with the same event id and body; the other endpoint gets it once', async () => {
    const clock = new TestClock();
    const first = await makeTestApp({ clock });
    const s = await twoEndpoints(first);
    const pi = await createIntent(first, s.merchant, 1500);
    const [event] = await storedEvents(first, s.merchant.id);
    expect(event).toMatchObject({ type: 'payment_intent.created' });

    // The first delivery reaches its endpoint, which answers 200; the process dies before recording it.
    const realFetch = first.deps.webhooks.fetch;
    let crashedAt: string | null = null;
    first.deps.webhooks.fetch = async (url, init) => {
      const res = await realFetch(url, init);
      if (crashedAt === null && res.ok) {
        crashedAt = url;
        first.handle.close();
        throw new CrashError('the process is gone');
      }
      return res;
    };
    // One delivery at a time, so the crash catches exactly one in flight.
    await deliverDueWebhooks(first.deps, { limit: 1 });
    expect(crashedAt).not.toBeNull();
    const crashed = s.receivers.find((r) => crashedAt!.startsWith(r.url.replace(/\/hooks$/, '')))!;
    const other = s.receivers.find((r) => r !== crashed)!;
    expect(crashed.eventIds()).toEqual([event!.id]);
    expect(other.received).toHaveLength(0);

    const second = await makeTestApp({ dir: first.dir, clock });
    cleanup.push(() => second.close());
    // The other endpoint's delivery goes at once; the dead worker's claim holds the first until it runs out.
    await deliverDueWebhooks(second.deps, { limit: 10 });
    expect(other.eventIds()).toEqual([event!.id]);
    expect(crashed.received).toHaveLength(1);
    clock.advance(lockMs(second.deps.webhooks.timeoutMs) + 1);
    await runWorkerUntilQuiet(second);

    // At least once, under a stable id: the same event, byte for byte, twice to the endpoint that answered before the crash.
    expect(crashed.eventIds()).toEqual([event!.id, event!.id]);
    expect(crashed.received[1]!.rawBody).toBe(crashed.received[0]!.rawBody);
    expect(crashed.received[0]!.event.data.object.id).toBe(pi);
    expect(other.eventIds()).toEqual([event!.id]);
    for (const r of s.receivers) expect(r.rejected).toHaveLength(0);
    expect(await countRows(second, 'webhook_deliveries', "status = 'succeeded'")).toBe(2);
    clock.advance(HOUR);
    expect((await deliverDueWebhooks(second.deps, { limit: 100 })).claimed).toBe(0);
  });
});
