import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser, type TestMerchant } from '../../../test-support/world';
import { resetRateWindows } from './usage';

/*
 * Rolling a secret key with a grace period (POST /api/merchants/:id/roll-secret { expire_old_key_in }): the replaced
 * key keeps authenticating until its expiry on the injected clock, then answers 401 api_key_expired. One previous
 * key only: a roll during a grace replaces it. Concurrent rolls lose no key that was shown.
 */

let ctx: TestContext;
let owner: { cookie: string };

beforeAll(async () => {
  ctx = await makeTestApp();
  owner = { cookie: (await registerUser(ctx)).cookie };
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const HOUR = 3600_000;
const roll = (m: TestMerchant, body?: unknown) => call(ctx, `/api/merchants/${m.id}/roll-secret`, { method: 'POST', cookie: owner.cookie, body });
const works = async (key: string) => (await merchantCall(ctx, key, '/payment_intents?limit=1')).status === 200;
const codeFor = async (key: string) => (await merchantCall(ctx, key, '/payment_intents?limit=1')).body?.error?.code ?? 'ok';
const view = async (m: TestMerchant) => (await call(ctx, '/api/merchants', { cookie: owner.cookie })).body.find((x: { id: string }) => x.id === m.id);

describe('expire_old_key_in', () => {
  const periods: Array<[string, number]> = [
    ['1h', HOUR],
    ['24h', 24 * HOUR],
    ['7d', 7 * 24 * HOUR],
  ];
  for (const [period, ms] of periods) {
    test(`${period}: the old key works until ${period} after the roll, then 401 api_key_expired`, async () => {
      const m = await createMerchant(ctx, owner.cookie, period === '7d' ? 'production' : 'sandbox');
      const mode = m.environment === 'production' ? 'live' : 'test';
      const rolledAt = ctx.clock.now().getTime();
      const rolled = await roll(m, { expire_old_key_in: period });
      expect(rolled.status).toBe(200);
      const fresh: string = rolled.body.secretApiKey;
      const until = new Date(rolledAt + ms).toISOString();
      expect(rolled.body).toMatchObject({ previousSecretKeyHint: `sk_${mode}_••••${m.secretKey.slice(-4)}`, previousSecretKeyExpiresAt: until });
      expect(await view(m)).toMatchObject({ previousSecretKeyHint: `sk_${mode}_••••${m.secretKey.slice(-4)}`, previousSecretKeyExpiresAt: until });

      expect(await works(m.secretKey)).toBe(true);
      expect(await works(fresh)).toBe(true);
      ctx.clock.advance(ms - 1000);
      expect(await works(m.secretKey)).toBe(true);
      ctx.clock.advance(1000);
      const late = await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1');
      expect({ status: late.status, code: late.body.error.code, type: late.body.error.type }).toEqual({
        status: 401,
        code: 'api_key_expired',
        type: 'authentication_error',
      });
      expect(late.body.error.message).toContain(until);
      expect(late.text).not.toContain(m.secretKey);
      expect(await works(fresh)).toBe(true);
      expect(await view(m)).toMatchObject({ previousSecretKeyHint: null, previousSecretKeyExpiresAt: null });
    });
  }

  test('left out (or now): the old key stops at once and nothing is shown as previous', async () => {
    for (const body of [undefined, {}, { expire_old_key_in: 'now' }]) {
      const m = await createMerchant(ctx, owner.cookie);
      const rolled = await roll(m, body);
      expect(rolled.status).toBe(200);
      expect(rolled.body).toMatchObject({ previousSecretKeyHint: null, previousSecretKeyExpiresAt: null });
      expect(await codeFor(m.secretKey)).toBe('api_key_expired');
      expect(await works(rolled.body.secretApiKey)).toBe(true);
    }
  });

  test('a value outside now, 1h, 24h, 7d -> 400 naming expire_old_key_in; the key is not rolled', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    for (const bad of ['forever', '2h', 24, null]) {
      const res = await roll(m, { expire_old_key_in: bad });
      expect({ status: res.status, code: res.body.error.code, param: res.body.error.param }).toEqual({
        status: 400,
        code: 'validation_error',
        param: 'expire_old_key_in',
      });
      expect(res.body.error.message).toBe('expire_old_key_in must be one of now, 1h, 24h, 7d.');
    }
    expect(await works(m.secretKey)).toBe(true);
    expect((await view(m)).secretKeyRolledAt).toBeNull();
  });
});

describe('one previous key', () => {
  test('rolling again during a grace replaces the previous key: it stops at once (api_key_expired, saying when), the key just replaced takes the grace', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const firstRollAt = ctx.clock.now().toISOString();
    const first = (await roll(m, { expire_old_key_in: '7d' })).body.secretApiKey as string;
    ctx.clock.advance(HOUR);
    const secondRollAt = ctx.clock.now().toISOString();
    const second = await roll(m, { expire_old_key_in: '24h' });
    const latest: string = second.body.secretApiKey;
    // Not a generic invalid key: the answer says it was replaced by a roll, and when it stopped (the second roll).
    const old = await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1');
    expect({ status: old.status, code: old.body.error.code }).toEqual({ status: 401, code: 'api_key_expired' });
    expect(old.body.error.message).toBe(
      `Expired API key provided: sk_test_••••${m.secretKey.slice(-4)}. It was replaced by a roll at ${firstRollAt} and stopped working at ${secondRollAt}; use the current secret key.`,
    );
    // A key that was never anyone's is still just invalid.
    expect(await codeFor(`sk_test_${'Q'.repeat(32)}`)).toBe('invalid_api_key');
    expect(await works(first)).toBe(true);
    expect(await works(latest)).toBe(true);
    expect(second.body).toMatchObject({
      previousSecretKeyHint: `sk_test_••••${first.slice(-4)}`,
      previousSecretKeyExpiresAt: new Date(ctx.clock.now().getTime() + 24 * HOUR).toISOString(),
    });
  });

  test('10 rolls at once: every key shown is different; the current and the previous are two of them; the rest are refused', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const answers = await Promise.all(Array.from({ length: 10 }, () => roll(m, { expire_old_key_in: '24h' })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const keys = answers.map((a) => a.body.secretApiKey as string);
    expect(new Set(keys).size).toBe(10);
    const working: string[] = [];
    for (const k of [m.secretKey, ...keys]) {
      resetRateWindows();
      if (await works(k)) working.push(k);
    }
    expect(working).toHaveLength(2);
    const now = await view(m);
    const current = working.find((k) => now.secretKeyHint === `sk_test_••••${k.slice(-4)}`);
    const previous = working.find((k) => now.previousSecretKeyHint === `sk_test_••••${k.slice(-4)}`);
    expect(current).toBeDefined();
    expect(previous).toBeDefined();
    expect(current).not.toBe(previous);
    // The previous key is one a roll showed (the roll before the last), never the key the rolls started from.
    expect(keys).toContain(previous!);
    // Every other key was replaced by one of the rolls: each answers api_key_expired, none a generic invalid key.
    for (const k of [m.secretKey, ...keys].filter((k) => !working.includes(k))) {
      resetRateWindows();
      expect(await codeFor(k)).toBe('api_key_expired');
    }
  });
});

describe('Idempotency-Key', () => {
  test('a roll sent again with its key (the answer was lost) rolls once: the old key keeps its grace, the new key works, the replay shows no key', async () => {
    const m = await createMerchant(ctx, owner.cookie);
    const send = () => call(ctx, `/api/merchants/${m.id}/roll-secret`, { method: 'POST', cookie: owner.cookie, body: { expire_old_key_in: '24h' }, headers: { 'idempotency-key': 'roll-1' } });
    const first = await send();
    const second = await send();
    expect(first.status).toBe(200);
    expect(first.body.secretApiKey).toMatch(/^sk_test_/);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.secretApiKey).toBeUndefined();
    expect(second.body.previousSecretKeyHint).toBe(first.body.previousSecretKeyHint);
    expect(await works(m.secretKey)).toBe(true);
    expect(await works(first.body.secretApiKey)).toBe(true);
    // The stored answer never holds the key.
    const { rows } = await ctx.handle.client.execute("SELECT response_body AS b FROM idempotency_keys WHERE key = 'roll-1'");
    expect(String(rows[0]!.b)).not.toContain(first.body.secretApiKey);
    // The same key with another period is another request: refused, nothing rolled.
    const other = await call(ctx, `/api/merchants/${m.id}/roll-secret`, { method: 'POST', cookie: owner.cookie, body: { expire_old_key_in: '7d' }, headers: { 'idempotency-key': 'roll-1' } });
    expect(other.status).toBe(400);
    expect(await works(first.body.secretApiKey)).toBe(true);
  });
});
