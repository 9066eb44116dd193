import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boot } from './boot';
import { parseEnv } from './env';
import { luhnCheckDigit } from './lib/cards';
import { DEFAULT_REGISTRATION_LIMIT, SIGN_IN_PER_ACCOUNT_ADDRESS } from './modules/auth/rate-limit';
import { DEFAULT_CARD_ATTEMPT_LIMITS } from './modules/funding-sources/attempts';
import { REQUESTS_PER_SECOND, resetRateWindows } from './modules/merchants/usage';
import { CONSUMER_REQUESTS_PER_SESSION, DEFAULT_CONSUMER_RATE_LIMIT } from './plugins/consumer-rate-limit';
import { call, memoryLogger, makeTestApp, merchantCall, type CallResult, type TestContext } from '../test-support/app';
import { cardBody, createMerchant, login, makePremium, registerUser } from '../test-support/world';

/*
 * BPAY_RATE_LIMITS=off (AppDeps.rateLimits false): one address may load the server past every request-rate limit
 * (consumer API per session and address, merchant API per second, registrations per address, card attempts per
 * account and address); with it on, the same traffic is refused where it always was. Production numbers throughout.
 * Sign-in throttling stays on either way. (parseEnv's loopback-only rule is in env.test.ts.)
 */

const HOME = '198.51.100.10';
const PASSWORD = 'correct horse battery';

let ctx: TestContext;
beforeEach(() => resetRateWindows());
afterEach(() => ctx?.close());

const app = async (rateLimits: boolean) => {
  ctx = await makeTestApp({
    rateLimits,
    consumerRateLimit: DEFAULT_CONSUMER_RATE_LIMIT,
    cardAttemptLimits: DEFAULT_CARD_ATTEMPT_LIMITS,
    registrationLimit: DEFAULT_REGISTRATION_LIMIT,
  });
  return ctx;
};

const statuses = (answers: CallResult[]) => {
  const out: Record<number, number> = {};
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1;
  return out;
};

/** A Luhn-valid Visa number of its own for every i (the simulator treats unknown numbers as normal cards). */
const cardNumber = (i: number) => {
  const body = `424242${String(i).padStart(9, '0')}`;
  return `${body}${luhnCheckDigit(body)}`;
};

const LIMITED = [
  { name: 'on (unset)', rateLimits: true },
  { name: 'off', rateLimits: false },
] as const;

for (const { name, rateLimits } of LIMITED) {
  describe(`BPAY_RATE_LIMITS ${name}`, () => {
    test(`${CONSUMER_REQUESTS_PER_SESSION + 80} consumer GETs at once from one address`, async () => {
      await app(rateLimits);
      const n = CONSUMER_REQUESTS_PER_SESSION + 80;
      const answers = await Promise.all(Array.from({ length: n }, () => call(ctx, '/api/subscription/tiers', { ip: HOME })));
      expect(statuses(answers)).toEqual(rateLimits ? { 200: CONSUMER_REQUESTS_PER_SESSION, 429: 80 } : { 200: n });
    });

    test(`${REQUESTS_PER_SECOND + 10} merchant API requests in one instant`, async () => {
      await app(rateLimits);
      const owner = await registerUser(ctx);
      await makePremium(ctx, owner.user.id);
      const m = await createMerchant(ctx, owner.cookie);
      const answers: CallResult[] = [];
      for (let i = 0; i < REQUESTS_PER_SECOND + 10; i++) answers.push(await merchantCall(ctx, m.secretKey, '/payment_intents?limit=1'));
      expect(statuses(answers)).toEqual(rateLimits ? { 200: REQUESTS_PER_SECOND, 429: 10 } : { 200: REQUESTS_PER_SECOND + 10 });
    });

    test(`${DEFAULT_REGISTRATION_LIMIT.perAddressPerHour + 3} registrations from one address`, async () => {
      await app(rateLimits);
      const n = DEFAULT_REGISTRATION_LIMIT.perAddressPerHour + 3;
      const answers: CallResult[] = [];
      for (let i = 0; i < n; i++) {
        answers.push(await call(ctx, '/api/auth/register', { method: 'POST', ip: HOME, body: { email: `load-${i}@example.com`, password: PASSWORD } }));
      }
      expect(statuses(answers)).toEqual(rateLimits ? { 201: DEFAULT_REGISTRATION_LIMIT.perAddressPerHour, 429: 3 } : { 201: n });
    });

    test(`${DEFAULT_CARD_ATTEMPT_LIMITS.perAccountPerHour + 2} cards added by one account`, async () => {
      await app(rateLimits);
      const user = await registerUser(ctx);
      await makePremium(ctx, user.user.id);
      const n = DEFAULT_CARD_ATTEMPT_LIMITS.perAccountPerHour + 2;
      const answers: CallResult[] = [];
      for (let i = 0; i < n; i++) {
        answers.push(await call(ctx, '/api/funding-sources', { method: 'POST', ip: HOME, cookie: user.cookie, body: cardBody(cardNumber(i)) }));
      }
      expect(statuses(answers)).toEqual(rateLimits ? { 201: DEFAULT_CARD_ATTEMPT_LIMITS.perAccountPerHour, 429: 2 } : { 201: n });
    });

    test(`wrong passwords from one address are still throttled`, async () => {
      await app(rateLimits);
      const user = await registerUser(ctx);
      const answers: CallResult[] = [];
      const free = SIGN_IN_PER_ACCOUNT_ADDRESS.limit;
      for (let i = 0; i < free + 2; i++) answers.push(await login(ctx, user.email, `wrong password ${i}`, { ip: HOME }));
      expect(statuses(answers)).toEqual({ 401: free, 429: 2 });
    });
  });
}

test('boot passes the setting on and warns at every start while the limits are off', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-rate-limits-'));
  const envFor = (limits: 'on' | 'off' | undefined) =>
    parseEnv({
      BPAY_DATABASE_URL: `file:${join(dir, 'bpay.db')}`,
      BPAY_SESSION_SECRET: 'test-session-secret-test-session-secret',
      BPAY_UPLOADS_DIR: join(dir, 'uploads'),
      BPAY_PUBLIC_URL: 'http://127.0.0.1:4100',
      BPAY_WEBHOOK_WORKER: 'off',
      BPAY_RATE_LIMITS: limits,
      BPAY_ADMIN_USERNAME: 'root',
      BPAY_ADMIN_PASSWORD: 'a long admin password',
      BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    });
  const warned = (log: ReturnType<typeof memoryLogger>) => log.lines.some((l) => l.level === 'warn' && l.msg.startsWith('BPAY_RATE_LIMITS=off'));
  try {
    const offLog = memoryLogger();
    const off = await boot(envFor('off'), offLog);
    expect({ rateLimits: off.deps.rateLimits, registrationLimit: off.deps.registrationLimit, warned: warned(offLog) }).toEqual({
      rateLimits: false,
      registrationLimit: null,
      warned: true,
    });
    off.stop();
    const onLog = memoryLogger();
    const on = await boot(envFor(undefined), onLog);
    expect({ rateLimits: on.deps.rateLimits, warned: warned(onLog) }).toEqual({ rateLimits: true, warned: false });
    on.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
