import { describe, expect, test } from 'bun:test';
import { STORAGE } from './src/lib/config';
import { createSession, type KeyValueStore } from './src/lib/session';

/*
 * The background's dealings with bpay (src/lib/session.ts) over a stub fetch: the token is stored by the pairing
 * exchange and goes only as a Bearer header to the origin it belongs to, never with a cookie; a 401
 * extension_token_invalid forgets it and says the browser was disconnected; no answer at all is status 0 (the same
 * attempt may be resent under its Idempotency-Key).
 */

const ORIGIN = 'http://localhost:3100';
const TOKEN = `bpx_${'a'.repeat(43)}`;

function memoryStore(initial: Record<string, unknown> = {}): KeyValueStore & { data: Map<string, unknown> } {
  const data = new Map(Object.entries(initial));
  const keysOf = (k: string | string[]) => (Array.isArray(k) ? k : [k]);
  return {
    data,
    async get(keys) {
      return Object.fromEntries(keysOf(keys).filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))]));
    },
    async set(items) {
      for (const [k, v] of Object.entries(items)) data.set(k, structuredClone(v));
    },
    async remove(keys) {
      for (const k of keysOf(keys)) data.delete(k);
    },
  };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function stubFetch(answer: (req: Request) => Response | Promise<Response>) {
  const requests: Request[] = [];
  return {
    requests,
    fetch: async (req: Request) => {
      requests.push(req.clone());
      return answer(req);
    },
  };
}

const paired = { token: TOKEN, id: 'ext_1', label: 'Chrome on Linux', expiresAt: '2027-01-01T00:00:00.000Z', origin: ORIGIN };

describe('session', () => {
  test('pairing exchanges the code and stores the token with its origin; the answer carries the label only', async () => {
    const store = memoryStore({ [STORAGE.disconnected]: true });
    const net = stubFetch(() => json(201, { token: TOKEN, id: 'ext_1', label: 'Chrome on Linux', expiresAt: paired.expiresAt }));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    const result = await s.pair('the-code');
    expect(result).toEqual({ ok: true, value: { label: 'Chrome on Linux' } });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    const req = net.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`${ORIGIN}/api/extension/tokens`);
    expect(await req.json()).toEqual({ code: 'the-code' });
    expect(req.headers.get('authorization')).toBeNull();
    expect(store.data.get(STORAGE.pairing)).toEqual(paired);
    expect(await s.connection()).toEqual({ origin: ORIGIN, paired: { label: 'Chrome on Linux', expiresAt: paired.expiresAt }, feePercentage: null, disconnected: false });
  });

  test('a used or unknown code is the server message, and nothing is stored', async () => {
    const store = memoryStore();
    const net = stubFetch(() => json(400, { error: { type: 'invalid_request_error', code: 'pairing_code_used', message: 'This pairing code was already used.' } }));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    expect(await s.pair('x')).toEqual({ ok: false, error: { status: 400, code: 'pairing_code_used', message: 'This pairing code was already used.' } });
    expect(store.data.has(STORAGE.pairing)).toBe(false);
  });

  test('calls carry the token as Bearer, without cookies, to the origin it belongs to', async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    const net = stubFetch(() => json(200, []));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    expect(await s.fundingSources()).toEqual({ ok: true, value: [] });
    const req = net.requests[0]!;
    expect(req.url).toBe(`${ORIGIN}/api/extension/funding-sources`);
    expect(req.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    // (The client builds each Request with credentials: 'omit'; Bun's Request does not keep that field, browsers do.)
    expect(req.headers.get('cookie')).toBeNull();
  });

  test('a token of another origin is never sent (the options page moved the extension)', async () => {
    const store = memoryStore({ [STORAGE.pairing]: { ...paired, origin: 'https://old.example' } });
    const net = stubFetch(() => json(200, []));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    const result = await s.fundingSources();
    expect(result.ok).toBe(false);
    expect(net.requests).toHaveLength(0);
    expect((await s.connection()).paired).toBeNull();
  });

  test('401 extension_token_invalid forgets the token and marks the browser disconnected', async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    const message = 'This browser was disconnected from bpay. Connect it again from the extension.';
    const net = stubFetch(() => json(401, { error: { type: 'authentication_error', code: 'extension_token_invalid', message } }));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    expect(await s.fundingSources()).toEqual({ ok: false, error: { status: 401, code: 'extension_token_invalid', message } });
    expect(store.data.has(STORAGE.pairing)).toBe(false);
    expect(await s.connection()).toEqual({ origin: ORIGIN, paired: null, feePercentage: null, disconnected: true });
  });

  test("a verified connection carries the plan's fee from GET /api/extension/me", async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    const net = stubFetch(() => json(200, { tokenId: 'ext_1', label: 'Chrome on Linux', expiresAt: paired.expiresAt, user: { email: 'a@b.c', name: 'Ada' }, feePercentage: 1.5 }));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    expect((await s.connection(true)).feePercentage).toBe(1.5);
    expect(net.requests[0]!.url).toBe(`${ORIGIN}/api/extension/me`);
  });

  test('another error (403 insufficient_scope, 500) keeps the token', async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    const net = stubFetch(() => json(403, { error: { type: 'permission_error', code: 'insufficient_scope', message: 'no' } }));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    expect((await s.fundingSources()).ok).toBe(false);
    expect(store.data.get(STORAGE.pairing)).toEqual(paired);
  });

  test('Create bcard goes with the caller Idempotency-Key; no answer is status 0 so the same key can be resent', async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    let down = true;
    const net = stubFetch(() => {
      if (down) throw new TypeError('Failed to fetch');
      return json(201, { id: 'vc_1', last4: '4242', balance: '42.50' });
    });
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    const body = { name: 'shop.example', balance: '42.50', fundingSources: [{ fundingSourceId: 'fs_1', percentage: 100 }], site: 'https://shop.example/checkout' };
    const first = await s.createBcard(body, 'key-1');
    expect(first).toEqual({ ok: false, error: { status: 0, code: null, message: 'Failed to fetch' } });
    down = false;
    const second = await s.createBcard(body, 'key-1');
    expect(second.ok).toBe(true);
    expect(net.requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['key-1', 'key-1']);
    expect(net.requests.map((r) => r.url)).toEqual([`${ORIGIN}/api/extension/bcards`, `${ORIGIN}/api/extension/bcards`]);
  });

  test('a silent network times out as unanswered (status 0) instead of waiting for ever', async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    const hang = (req: Request) =>
      new Promise<Response>((_, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason)));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: hang, timeouts: { call: 30, create: 60 } });
    const body = { name: 'shop.example', balance: '42.50', fundingSources: [{ fundingSourceId: 'fs_1', percentage: 100 }], site: 'https://shop.example/' };
    const started = Date.now();
    const [sources, created] = await Promise.all([s.fundingSources(), s.createBcard(body, 'key-2')]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(sources.ok || sources.error.status).toBe(0);
    expect(created.ok || created.error.status).toBe(0);
    expect(store.data.get(STORAGE.pairing)).toEqual(paired);
  });

  test('checkout details become the fill card, returned and never stored', async () => {
    const store = memoryStore({ [STORAGE.pairing]: paired });
    const net = stubFetch(() => json(200, { cardNumber: '4000056655665556', expiryMonth: 4, expiryYear: 2030, cvv: '321', cardholderName: 'Ada Lovelace' }));
    const s = createSession({ store, origin: async () => ORIGIN, fetch: net.fetch });
    const card = await s.checkoutCard('vc_1');
    expect(card).toEqual({ ok: true, value: { number: '4000056655665556', expMonth: 4, expYear: 2030, cvc: '321', name: 'Ada Lovelace' } });
    expect(net.requests[0]!.url).toBe(`${ORIGIN}/api/extension/bcards/vc_1/checkout-details`);
    expect(JSON.stringify([...store.data.values()])).not.toContain('4000056655665556');
  });
});
