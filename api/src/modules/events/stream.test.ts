import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { openDb } from '@bpay/db';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { resetRateWindows, settleApiLeases } from '../merchants/usage';
import { createIntent, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { broadcastListenerCount, pruneBroadcasts } from './broadcast';
import { StreamReader } from '../../../test-support/sse';

/*
 * GET /api/v1/events/stream: server-sent events of the merchant's new events (and resends), per merchant and mode,
 * filtered by type, fed by a table that every process sharing the database polls.
 */

let ctx: TestContext;
let a: Merchant;
let aLive: Merchant;
let b: Merchant;

async function open(ctxIn: TestContext, key: string | null, query = '', lastEventId?: string): Promise<StreamReader | Response> {
  resetRateWindows();
  const abort = new AbortController();
  const req = new Request(`http://localhost:3000/api/v1/events/stream${query}`, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: abort.signal,
  });
  const res = await ctxIn.app.handle(req);
  if (res.status !== 200) return res;
  return new StreamReader(res, abort);
}

async function stream(key: string, query = '', lastEventId?: string): Promise<StreamReader> {
  const s = await open(ctx, key, query, lastEventId);
  if (!(s instanceof StreamReader)) throw new Error(`stream: ${s.status} ${await s.text()}`);
  await s.until(() => s.frames.some((f) => f.comment === 'connected'));
  return s;
}

/** A sandbox test bcard for the merchant, then an intent paid with it: created + succeeded. */
async function payWithTestBcard(m: Merchant, amount = 1500): Promise<string> {
  const card = await v1(ctx, m.key, '/test_helpers/bcards', { method: 'POST', body: { amount } });
  if (card.status !== 200) throw new Error(`test bcard: ${card.status} ${card.text}`);
  const pi = await createIntent(ctx, m, amount);
  const res = await v1(ctx, m.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method: card.body.id } });
  if (res.status !== 200 || res.body.status !== 'succeeded') throw new Error(`confirm: ${res.status} ${res.text}`);
  return pi;
}

beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  a = await newMerchant(ctx, owner.cookie, 'sandbox');
  aLive = await newMerchant(ctx, owner.cookie, 'production');
  b = await newMerchant(ctx, (await registerUser(ctx)).cookie, 'sandbox');
});
afterAll(() => ctx.close());

describe('GET /api/v1/events/stream', () => {
  test('text/event-stream, no cache; new events arrive as id/event/data with the JSON of GET /events/{id}; no backlog', async () => {
    const old = await createIntent(ctx, a, 700); // before the stream: never sent
    const s = await stream(a.key);
    expect(s.response.headers.get('content-type')).toStartWith('text/event-stream');
    expect(s.response.headers.get('cache-control')).toBe('no-store');
    const pi = await payWithTestBcard(a);
    await s.until(() => s.events().some((f) => f.event === 'payment_intent.succeeded'));
    const types = s.events().map((f) => f.event);
    expect(types).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    for (const f of s.events()) {
      const one = await v1(ctx, a.key, `/events/${f.id}`);
      expect(f.data).toBe(one.text);
      expect(JSON.parse(f.data!).data.object.id).toBe(pi);
    }
    expect(s.events().some((f) => f.data!.includes(old))).toBe(false);
    await s.cancel();
  });

  test('Last-Event-ID: a reconnecting listener first gets what it missed, once, and nothing of another merchant', async () => {
    const first = await stream(a.key);
    await createIntent(ctx, a, 800);
    await first.until(() => first.events().length === 1);
    const seen = first.events()[0]!.id!;
    await first.disconnect();

    // While nobody listens: two events of this merchant, one of another.
    const missed = await payWithTestBcard(a, 900);
    await createIntent(ctx, b, 950);

    const resumed = await stream(a.key, '', seen);
    await resumed.until(() => resumed.events().length === 2);
    expect(resumed.events().map((f) => f.event)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    expect(resumed.events().every((f) => JSON.parse(f.data!).data.object.id === missed)).toBe(true);
    // Then it is live as usual.
    await createIntent(ctx, a, 990);
    await resumed.until(() => resumed.events().length === 3);
    await resumed.quiet();
    expect(resumed.events()).toHaveLength(3);
    await resumed.cancel();

    // An id the stream cannot place (unknown, or another merchant's) means no backlog, as without the header.
    const bEvent = (await v1(ctx, b.key, '/events?limit=1')).body.data[0].id as string;
    for (const id of ['evt_unknown', bEvent]) {
      const fresh = await stream(a.key, '', id);
      await fresh.quiet();
      expect(fresh.events()).toEqual([]);
      await fresh.cancel();
    }
  });

  test('?events filters by type; * means all', async () => {
    const only = await stream(a.key, '?events=payment_intent.succeeded');
    const two = await stream(a.key, `?events=${encodeURIComponent('payment_intent.created, payment_intent.canceled')}`);
    const all = await stream(a.key, '?events=*');
    await payWithTestBcard(a);
    await all.until(() => all.events().length === 2);
    await only.until(() => only.events().length === 1);
    await two.until(() => two.events().length === 1);
    await only.quiet();
    expect(only.events().map((f) => f.event)).toEqual(['payment_intent.succeeded']);
    expect(two.events().map((f) => f.event)).toEqual(['payment_intent.created']);
    await Promise.all([only.cancel(), two.cancel(), all.cancel()]);
  });

  test.each([
    ['an unknown type', '?events=payment_intent.created,charge.succeeded'],
    ['a typo', '?events=payment_intent.succeded'],
  ])('%s is 400 validation_error on events', async (_n, query) => {
    const res = await open(ctx, a.key, query);
    expect(res).toBeInstanceOf(Response);
    const r = res as Response;
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'validation_error', param: 'events' } });
  });

  test('no key or a bad key is 401', async () => {
    expect(((await open(ctx, null)) as Response).status).toBe(401);
    expect(((await open(ctx, 'sk_test_nopenopenopenopenopenopenope')) as Response).status).toBe(401);
  });

  test("another merchant's events and the other mode's events never appear", async () => {
    const s = await stream(a.key);
    const live = await stream(aLive.key);
    await payWithTestBcard(b);
    await createIntent(ctx, aLive, 900);
    await live.until(() => live.events().length === 1);
    await createIntent(ctx, a, 800);
    await s.until(() => s.events().length === 1);
    await s.quiet();
    expect(s.events().map((f) => JSON.parse(f.data!).livemode)).toEqual([false]);
    expect(s.events().map((f) => JSON.parse(f.data!).data.object.amount)).toEqual([800]);
    expect(live.events().map((f) => JSON.parse(f.data!).data.object.amount)).toEqual([900]);
    await Promise.all([s.cancel(), live.cancel()]);
  });

  test('POST /events/{id}/resend reaches the stream, with no webhook endpoint at all (200, no deliveries)', async () => {
    const pi = await createIntent(ctx, a, 650);
    const [evt] = (await v1(ctx, a.key, '/events?limit=1')).body.data;
    expect(evt.data.object.id).toBe(pi);
    const s = await stream(a.key);
    const res = await v1(ctx, a.key, `/events/${evt.id}/resend`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', data: [] });
    await s.until(() => s.events().length === 1);
    expect(s.events()[0]).toMatchObject({ id: evt.id, event: 'payment_intent.created' });
    const rows = await ctx.handle.db
      .select()
      .from(schema.eventBroadcasts)
      .where(and(eq(schema.eventBroadcasts.eventId, evt.id), eq(schema.eventBroadcasts.reason, 'resend')));
    expect(rows).toHaveLength(1);

    // Naming an endpoint means that endpoint only: listeners are not sent it again.
    const ep = await v1(ctx, a.key, '/webhook_endpoints', { method: 'POST', body: { url: 'http://localhost:9/hooks', enabled_events: ['*'] } });
    expect(ep.status).toBe(200);
    const one = await v1(ctx, a.key, `/events/${evt.id}/resend`, { method: 'POST', body: { endpoint_id: ep.body.id } });
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    await s.quiet();
    expect(s.events()).toHaveLength(1);
    await v1(ctx, a.key, `/webhook_endpoints/${ep.body.id}`, { method: 'DELETE' });
    await s.cancel();
  });

  test('events written by another process (another connection, no in-process wake-up) arrive by polling', async () => {
    const s = await stream(a.key);
    const other = openDb({ url: `file:${ctx.dir}/test.db` });
    try {
      const at = ctx.clock.now().getTime();
      await other.client.batch(
        [
          {
            sql: "INSERT INTO events (id, merchant_id, livemode, type, data, seq, created_at) VALUES ('evt_elsewhere', ?, 0, 'payment_intent.canceled', '{\"id\":\"pi_elsewhere\"}', 100000, ?)",
            args: [a.id, at],
          },
          { sql: "INSERT INTO event_broadcasts (merchant_id, livemode, event_id, reason, at) VALUES (?, 0, 'evt_elsewhere', 'created', ?)", args: [a.id, at] },
        ],
        'write',
      );
    } finally {
      other.close();
    }
    await s.until(() => s.events().length === 1);
    expect(s.events()[0]).toMatchObject({ id: 'evt_elsewhere', event: 'payment_intent.canceled' });
    await s.cancel();
  });

  test('pings every pingMs; counts once against usage however often it polls; the client going away stops everything', async () => {
    const quick = await makeTestApp({ eventStream: { pollMs: 10, pingMs: 30 } });
    try {
      const owner = await registerUser(quick);
      const m = await newMerchant(quick, owner.cookie, 'sandbox');
      const usage = async () => (await settleApiLeases(quick.deps.db)) ?? (await quick.handle.db.select().from(schema.merchantUsage).where(eq(schema.merchantUsage.merchantId, m.id)))[0]?.requests ?? 0;
      const before = await usage();
      const listeners = broadcastListenerCount();
      const s = (await open(quick, m.key)) as StreamReader;
      expect(broadcastListenerCount()).toBe(listeners + 1);
      await s.until(() => s.frames.filter((f) => f.comment === 'ping').length >= 3);
      expect(await usage()).toBe(before + 1);
      await s.disconnect();
      expect(s.closed).toBe(true);
      expect(broadcastListenerCount()).toBe(listeners);
      const framesAtClose = s.frames.length;
      await Bun.sleep(80);
      expect(s.frames.length).toBe(framesAtClose);

      // The same through a real HTTP server: the client aborting its fetch closes the stream on the server.
      const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => quick.app.handle(req) });
      try {
        const abort = new AbortController();
        const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/events/stream?events=payment_intent.created`, {
          headers: { authorization: `Bearer ${m.key}` },
          signal: abort.signal,
        });
        expect(res.status).toBe(200);
        const reader = new StreamReader(res, abort);
        await reader.until(() => reader.frames.some((f) => f.comment === 'connected'));
        resetRateWindows();
        await v1(quick, m.key, '/payment_intents', { method: 'POST', body: { amount: 1234, currency: 'usd' } });
        await reader.until(() => reader.events().length === 1);
        expect(JSON.parse(reader.events()[0]!.data!).data.object.amount).toBe(1234);
        await reader.disconnect();
        const end = Date.now() + 2000;
        while (broadcastListenerCount() !== listeners && Date.now() < end) await Bun.sleep(5);
        expect(broadcastListenerCount()).toBe(listeners);
      } finally {
        server.stop(true);
      }
    } finally {
      quick.close();
    }
  });

  test('housekeeping prunes broadcasts older than the retention', async () => {
    const n = (await ctx.handle.db.select().from(schema.eventBroadcasts)).length;
    expect(n).toBeGreaterThan(0);
    expect(await pruneBroadcasts(ctx.handle.db, ctx.clock, 60 * 60_000)).toBe(0);
    ctx.clock.advance(61 * 60_000);
    expect(await pruneBroadcasts(ctx.handle.db, ctx.clock, 60 * 60_000)).toBe(n);
  });
});
