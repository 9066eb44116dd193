import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { AppError } from '../../errors';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../../../test-support/world';
import { resetRateWindows } from '../merchants/usage';
import { openEventStream } from './stream';

/*
 * An open event stream (GET /api/v1/events/stream) lives no longer than its key (hostile review of issue 15): the key
 * is checked again before each batch of events and every recheckMs while idle; once a new request with it would be
 * refused (rolled "now", a grace that ran out, rolled again, the merchant deactivated), the stream sends one
 * `event: error` whose data is that request's error, and ends. A roll's grace is honoured: the old key's stream
 * goes on until the grace ends.
 */

let ctx: TestContext;
let owner: { cookie: string };
const HOUR = 3600_000;

beforeAll(async () => {
  ctx = await makeTestApp({ eventStream: { pollMs: 20 } });
  owner = { cookie: (await registerUser(ctx)).cookie };
});
afterAll(() => ctx.close());
// Polls every 20 ms. No idle check during a test unless it asks for one (a stream reads recheckMs when it opens): so
// a test of the check before each batch cannot pass because an idle check got there first.
beforeEach(() => {
  ctx.deps.eventStream.recheckMs = 60_000;
});
const idleChecksEvery = (ms: number) => {
  ctx.deps.eventStream.recheckMs = ms;
};

interface Stream {
  state: { text: string; done: boolean };
  stop(): Promise<void>;
  until(check: () => boolean, what: string): Promise<void>;
}

async function openStream(key: string): Promise<Stream> {
  resetRateWindows();
  const abort = new AbortController();
  const res = await ctx.app.handle(
    new Request('http://localhost:3000/api/v1/events/stream', { headers: { authorization: `Bearer ${key}` }, signal: abort.signal }),
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const state = { text: '', done: false };
  const reading = (async () => {
    const dec = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      state.text += dec.decode(value, { stream: true });
    }
    state.done = true;
  })();
  return {
    state,
    async stop() {
      abort.abort();
      await reader.cancel().catch(() => undefined);
      await reading;
    },
    async until(check, what) {
      const end = Date.now() + 3000;
      while (!check()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stream so far: ${JSON.stringify(state.text)}`);
        await Bun.sleep(5);
      }
    },
  };
}

/** The `event: error` message's data, parsed; undefined when the stream sent none. */
function errorFrame(text: string): { error: { type: string; code: string; message: string }; status: number } | undefined {
  const m = /event: error\ndata: (.*)\n\n/.exec(text);
  return m ? JSON.parse(m[1]!) : undefined;
}

const roll = (m: TestMerchant, grace: string) =>
  call(ctx, `/api/merchants/${m.id}/roll-secret`, { method: 'POST', cookie: owner.cookie, body: { expire_old_key_in: grace } });

const createIntent = async (key: string) => {
  resetRateWindows();
  const res = await merchantCall(ctx, key, '/payment_intents', { method: 'POST', body: { amount: 4200, currency: 'usd' } });
  expect(res.status).toBe(200);
  return res.body as { id: string; client_secret: string };
};

describe('a stream opened with a key that then stops working ends, saying why, and sends nothing more', () => {
  for (const [name, grace] of [
    ['rolled with a 1 h grace, after the grace ends', '1h'],
    ['rolled with "now"', 'now'],
  ] as const) {
    test(`the next event is not sent to it (${name})`, async () => {
      const m = await createMerchant(ctx, owner.cookie);
      const s = await openStream(m.secretKey);
      try {
        await s.until(() => s.state.text.includes(': connected'), 'the stream to open');
        const rolled = await roll(m, grace);
        expect(rolled.status).toBe(200);
        if (grace === '1h') ctx.clock.advance(HOUR + 1000);
        resetRateWindows();
        // The old key is refused everywhere else...
        expect((await merchantCall(ctx, m.secretKey, '/events?limit=1')).body.error.code).toBe('api_key_expired');
        // ...and the merchant's next payment intent, made with the new key, is not sent to the old key's stream.
        const pi = await createIntent(rolled.body.secretApiKey);
        await s.until(() => s.state.done, 'the stream to end');
        expect(s.state.text).not.toContain(pi.client_secret);
        expect(s.state.text).not.toContain(pi.id);
        expect(errorFrame(s.state.text)).toMatchObject({ error: { type: 'authentication_error', code: 'api_key_expired' } });
        expect(errorFrame(s.state.text)!.error.message).toContain('Expired API key provided: sk_test_••••');
        // The error is the stream's last message.
        expect(s.state.text.endsWith('\n\n')).toBe(true);
        expect(s.state.text.slice(s.state.text.indexOf('event: error'))).toMatch(/^event: error\ndata: [^\n]*\n\n$/);
      } finally {
        await s.stop();
      }
    });
  }

  test('while a roll\'s grace lasts the old key\'s stream goes on receiving; when it ends, an idle stream ends too', async () => {
    idleChecksEvery(30);
    const m = await createMerchant(ctx, owner.cookie);
    const s = await openStream(m.secretKey);
    try {
      await s.until(() => s.state.text.includes(': connected'), 'the stream to open');
      const rolled = await roll(m, '1h');
      ctx.clock.advance(HOUR - 1000);
      const pi = await createIntent(rolled.body.secretApiKey);
      await s.until(() => s.state.text.includes(pi.id), 'the event within the grace');
      await Bun.sleep(150); // several idle checks: still open
      expect(s.state.done).toBe(false);
      ctx.clock.advance(2000);
      // No event: the idle check ends it.
      await s.until(() => s.state.done, 'the stream to end');
      expect(errorFrame(s.state.text)?.error.code).toBe('api_key_expired');
    } finally {
      await s.stop();
    }
  });

  test('the merchant deactivated: an idle stream ends with merchant_inactive; reactivated, a new stream opens', async () => {
    idleChecksEvery(30);
    const m = await createMerchant(ctx, owner.cookie);
    const s = await openStream(m.secretKey);
    try {
      await s.until(() => s.state.text.includes(': connected'), 'the stream to open');
      const off = await call(ctx, `/api/merchants/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: { isActive: false } });
      expect(off.status).toBe(200);
      await s.until(() => s.state.done, 'the stream to end');
      expect(errorFrame(s.state.text)).toMatchObject({ error: { type: 'invalid_request_error', code: 'merchant_inactive' } });
    } finally {
      await s.stop();
    }
    expect((await call(ctx, `/api/merchants/${m.id}`, { method: 'PATCH', cookie: owner.cookie, body: { isActive: true } })).status).toBe(200);
    const again = await openStream(m.secretKey);
    await again.until(() => again.state.text.includes(': connected'), 'the new stream to open');
    await again.stop();
  });

  test('rolled twice: the first key answers api_key_expired (a later roll replaced it), with the status a request gets', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const s = await openStream(m.secretKey);
    try {
      await s.until(() => s.state.text.includes(': connected'), 'the stream to open');
      expect((await roll(m, '24h')).status).toBe(200);
      const second = await roll(m, '24h');
      expect(second.status).toBe(200);
      const pi = await createIntent(second.body.secretApiKey);
      await s.until(() => s.state.done, 'the stream to end');
      expect(s.state.text).not.toContain(pi.id);
      expect(errorFrame(s.state.text)).toMatchObject({ error: { code: 'api_key_expired' }, status: 401 });
    } finally {
      await s.stop();
    }
  });

  test('a stream whose key works stays open through many checks and receives every event', async () => {
    idleChecksEvery(30);
    const m = await createMerchant(ctx, owner.cookie);
    const s = await openStream(m.secretKey);
    try {
      await s.until(() => s.state.text.includes(': connected'), 'the stream to open');
      await Bun.sleep(150);
      const ids = [(await createIntent(m.secretKey)).id, (await createIntent(m.secretKey)).id];
      await s.until(() => ids.every((id) => s.state.text.includes(id)), 'both events');
      expect(s.state.done).toBe(false);
      expect(s.state.text).not.toContain('event: error');
    } finally {
      await s.stop();
    }
  });
});

describe('the check itself failing', () => {
  test('holds the events back without ending the stream; they go out, in order, once a check succeeds', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const { schema, firstRow } = await import('@bpay/db');
    const { eq } = await import('drizzle-orm');
    const row = (await firstRow(ctx.deps.db, schema.merchants, eq(schema.merchants.id, m.id)))!;
    let failing = true;
    let checks = 0;
    const abort = new AbortController();
    const res = await openEventStream(ctx.deps, row, false, {
      filter: null,
      signal: abort.signal,
      recheck: async () => {
        checks++;
        if (failing) throw new Error('database is locked');
        return null;
      },
    });
    const reader = res.body!.getReader();
    let text = '';
    const reading = (async () => {
      const dec = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) break;
        text += dec.decode(value, { stream: true });
      }
    })();
    try {
      const a = await createIntent(m.secretKey);
      const b = await createIntent(m.secretKey);
      const end = Date.now() + 3000;
      while (checks < 3 && Date.now() < end) await Bun.sleep(5);
      expect(checks).toBeGreaterThanOrEqual(3);
      expect(text).not.toContain(a.id);
      failing = false;
      while (!text.includes(b.id) && Date.now() < end) await Bun.sleep(5);
      expect(text.indexOf(a.id)).toBeGreaterThan(0);
      expect(text.indexOf(b.id)).toBeGreaterThan(text.indexOf(a.id));
      expect(text).not.toContain('event: error');
    } finally {
      abort.abort();
      await reader.cancel().catch(() => undefined);
      await reading;
    }
  });

  test('a refusal from the check is sent as the API would answer it', async () => {
    idleChecksEvery(30);
    const m = await createMerchant(ctx, owner.cookie);
    const { schema, firstRow } = await import('@bpay/db');
    const { eq } = await import('drizzle-orm');
    const row = (await firstRow(ctx.deps.db, schema.merchants, eq(schema.merchants.id, m.id)))!;
    const abort = new AbortController();
    const res = await openEventStream(ctx.deps, row, false, {
      filter: null,
      signal: abort.signal,
      recheck: async () => new AppError('merchant_inactive'),
    });
    const text = await res.text();
    expect(text).toBe(': connected\n\nevent: error\ndata: {"error":{"type":"invalid_request_error","code":"merchant_inactive","message":"This merchant account is not active."},"status":403}\n\n');
  });
});
