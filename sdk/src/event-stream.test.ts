import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Bpay, BpayAuthenticationError, BpayConnectionError, BpayInvalidRequestError, type BpayEvent } from './index';
import { parseSse, type SseMessage } from './sse';
import { newMerchantAccount, startLiveServer, type LiveServer } from '../test-support/live-server';

/* events.stream against the real server, and the SSE parser on awkward chunkings. */

let live: LiveServer;
let bpay: Bpay;

beforeAll(async () => {
  live = await startLiveServer();
  bpay = new Bpay((await newMerchantAccount(live.ctx)).secretKey, { baseUrl: live.baseUrl });
});
afterAll(() => live.close());

/** The next `n` events of a stream, failing after `ms`. */
async function take(stream: AsyncIterable<BpayEvent>, n: number, ms = 3000): Promise<BpayEvent[]> {
  const out: BpayEvent[] = [];
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${out.length} of ${n} events within ${ms} ms`)), ms));
  const reading = (async () => {
    for await (const e of stream) {
      out.push(e);
      if (out.length === n) break;
    }
    return out;
  })();
  return Promise.race([reading, timeout]);
}

describe('events.stream', () => {
  test('delivers events recorded after it opened, filtered by type, typed like events.retrieve', async () => {
    const stream = bpay.events.stream({ events: ['payment_intent.succeeded', 'payment_intent.canceled'] });
    await stream.opened();
    const a = await bpay.paymentIntents.create({ amount: 900, currency: 'usd' }); // created: filtered out
    await bpay.paymentIntents.cancel(a.id);
    const b = await bpay.paymentIntents.create({ amount: 800, currency: 'usd' });
    const card = await bpay.testHelpers.bcards.create({ amount: 800 });
    await bpay.paymentIntents.confirm(b.id, { payment_method: card.id });

    const got = await take(stream, 2);
    expect(got.map((e) => [e.type, e.data.object.id])).toEqual([
      ['payment_intent.canceled', a.id],
      ['payment_intent.succeeded', b.id],
    ]);
    expect(await bpay.events.retrieve(got[1]!.id)).toEqual(got[1]!);
    expect(stream.closed).toBe(true); // leaving the loop closed it
  });

  test('resend reaches an open stream; the signal ends the iteration quietly', async () => {
    const pi = await bpay.paymentIntents.create({ amount: 100, currency: 'usd' });
    const [created] = await bpay.events.list({ type: 'payment_intent.created', limit: 1 }).toArray(1);
    expect(created!.data.object.id).toBe(pi.id);

    const controller = new AbortController();
    const stream = bpay.events.stream({ signal: controller.signal });
    await stream.opened();
    await bpay.events.resend(created!.id);
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.id);
      controller.abort();
    }
    expect(seen).toEqual([created!.id]);
  });

  test('lastEventId: a new stream starts with what was broadcast after that event', async () => {
    const first = bpay.events.stream();
    await first.opened();
    const a = await bpay.paymentIntents.create({ amount: 300, currency: 'usd' });
    const [seen] = await take(first, 1);
    expect(seen!.data.object.id).toBe(a.id);
    // Nobody listens while this happens.
    const b = await bpay.paymentIntents.create({ amount: 400, currency: 'usd' });
    const resumed = bpay.events.stream({ lastEventId: seen!.id });
    const [missed] = await take(resumed, 1);
    expect([missed!.type, missed!.data.object.id]).toEqual(['payment_intent.created', b.id]);
  });

  test('a refused stream throws the typed error from opened() and from iteration', async () => {
    const bad = new Bpay('sk_test_notarealkeynotarealkey0000', { baseUrl: live.baseUrl });
    expect(await bad.events.stream().opened().catch((e: unknown) => e)).toBeInstanceOf(BpayAuthenticationError);
    const unknownType = bpay.events.stream({ events: ['payment_intent.exploded'] });
    const err = await take(unknownType, 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayInvalidRequestError);
    expect(err).toMatchObject({ param: 'events' });
  });

  test('a key rolled while its stream is open: iteration throws BpayAuthenticationError api_key_expired, sent nothing more', async () => {
    const account = await newMerchantAccount(live.ctx);
    const old = new Bpay(account.secretKey, { baseUrl: live.baseUrl });
    const stream = old.events.stream();
    await stream.opened();
    const rolled = await fetch(`${live.baseUrl}/api/merchants/${account.merchantId}/roll-secret`, {
      method: 'POST',
      headers: { cookie: account.cookie, 'content-type': 'application/json', origin: live.baseUrl },
      body: JSON.stringify({ expire_old_key_in: 'now' }),
    });
    expect(rolled.status).toBe(200);
    const fresh = new Bpay(((await rolled.json()) as { secretApiKey: string }).secretApiKey, { baseUrl: live.baseUrl });
    await fresh.paymentIntents.create({ amount: 700, currency: 'usd' });
    const err = await take(stream, 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayAuthenticationError);
    // The status a request with the key gets, not the 200 the stream was opened with.
    expect(err).toMatchObject({ code: 'api_key_expired', statusCode: 401 });
  });

  test('a connection that breaks mid-stream throws BpayConnectionError; a clean end ends the loop', async () => {
    const frames = (body: ReadableStream<Uint8Array>) =>
      new Bpay('sk_test_x', { baseUrl: live.baseUrl, maxRetries: 0, fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }) });
    const event = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.created', created: 1, livemode: false, data: { object: {} } });
    const enc = new TextEncoder();

    let pulls = 0;
    const breaking = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(enc.encode(`: connected\n\nid: evt_1\nevent: payment_intent.created\ndata: ${event}\n\n`));
        else controller.error(new Error('ECONNRESET'));
      },
    });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of frames(breaking).events.stream()) seen.push(e.id);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['evt_1']);
    expect(err).toBeInstanceOf(BpayConnectionError);
    expect((err as Error).message).toContain('ECONNRESET');

    const ending = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(enc.encode(`data: ${event}\n\n`));
        controller.close();
      },
    });
    const all: string[] = [];
    for await (const e of frames(ending).events.stream()) all.push(e.id);
    expect(all).toEqual(['evt_1']);
  });
});

describe('parseSse', () => {
  const enc = new TextEncoder();
  async function parse(chunks: Array<string | Uint8Array>): Promise<SseMessage[]> {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(typeof ch === 'string' ? enc.encode(ch) : ch);
        c.close();
      },
    });
    const out: SseMessage[] = [];
    for await (const m of parseSse(body)) out.push(m);
    return out;
  }
  const msg = (data: string, event = 'message', id?: string, retry?: number): SseMessage => ({ data, event, id, retry });

  test('one message in one chunk; comments and pings are skipped', async () => {
    expect(await parse([': connected\n\nid: evt_1\nevent: payment_intent.created\ndata: {"a":1}\n\n: ping\n\n'])).toEqual([
      msg('{"a":1}', 'payment_intent.created', 'evt_1'),
    ]);
  });

  test('the same stream split at every possible byte gives the same messages', async () => {
    const text = 'id: 1\nevent: x\ndata: {"é":"ü"}\n\n: ping\n\r\ndata: a\r\ndata: b\r\n\r\nid: 3\rdata:  two spaces\r\r';
    const expected = [msg('{"é":"ü"}', 'x', '1'), msg('a\nb'), msg(' two spaces', 'message', '3')];
    expect(await parse([text])).toEqual(expected);
    const bytes = enc.encode(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await parse([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(expected);
    }
    // One byte at a time.
    expect(await parse(Array.from(bytes, (b) => new Uint8Array([b])))).toEqual(expected);
  });

  test('multi-line data, fields without a value, retry, no data (not dispatched), unfinished last message (dropped)', async () => {
    expect(await parse(['data\ndata: x\n\nevent: only\n\nretry: 5000\ndata: r\n\ndata: unfinished'])).toEqual([msg('\nx'), msg('r', 'message', undefined, 5000)]);
  });
});
