import { afterEach, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { THROTTLE_RETENTION_MS } from '../../boot';
import { luhnCheckDigit } from '../../lib/cards';
import { pruneThrottle } from '../../lib/throttle';
import { VendorUnavailableError } from '../../vendors/types';
import { call, makeTestApp, type CallResult, type TestAppOptions, type TestContext } from '../../../test-support/app';
import { cardBody, makePremium, registerUser } from '../../../test-support/world';
import {
  CARD_ATTEMPT_WINDOW_MS,
  CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR,
  CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR,
  CARD_LOCK_MS,
  DECLINES_BEFORE_LOCK,
  DEFAULT_CARD_ATTEMPT_LIMITS,
} from './attempts';

/*
 * Card testing (issue 11 §5): attempts to add a card are limited per account and per address per hour, a decline
 * counts double, and repeated declines lock adding cards. These tests run the production numbers. The clock starts
 * on 2026-01-15 12:00 UTC and moves only when a test moves it.
 */

const FS = '/api/funding-sources';
const DECLINED = '4000000000000002';
const THREE_DS = '4000002760003184';
const HOME = '198.51.100.10';
const ELSEWHERE = '198.51.100.99';

let ctx: TestContext;
afterEach(() => ctx?.close());

const app = async (opts: TestAppOptions = {}) => {
  ctx = await makeTestApp({ cardAttemptLimits: DEFAULT_CARD_ATTEMPT_LIMITS, ...opts });
  return ctx;
};

let serial = 0;
/** A fresh Luhn-valid Visa number the simulator treats as a good card (what a card-testing bot generates). */
function randomCard(): string {
  const body = `42${String(++serial).padStart(6, '0')}${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  return `${body}${luhnCheckDigit(body)}`;
}

const addCard = (cookie: string, number: string, ip = HOME, headers?: Record<string, string>) =>
  call(ctx, FS, { method: 'POST', body: cardBody(number), cookie, ip, headers });
const complete = (cookie: string, id: string, code: string, ip = HOME) =>
  call(ctx, `${FS}/verifications/${id}`, { method: 'POST', body: { code }, cookie, ip });

/** A premium user (no plan limit on sources: only the attempt limits stand in the way). */
async function premiumUser() {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  return u;
}

function expectRateLimited(res: CallResult, code: ErrorCode): number {
  expect({ status: res.status, code: res.body?.error?.code, type: res.body?.error?.type }).toEqual({
    status: 429,
    code,
    type: CATALOGUE[code].type,
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  return retryAfter;
}

const count = (statuses: number[], s: number) => statuses.filter((x) => x === s).length;
const processorCards = async () => Number((await ctx.handle.db.select({ n: sql<number>`count(*)` }).from(schema.simCards))[0]!.n);

describe('card attempts per hour', () => {
  test(`a burst of 30 cards at once on one account: exactly ${CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR} reach the processor, the rest are 429 with Retry-After`, async () => {
    await app();
    const u = await premiumUser();
    const answers = await Promise.all(Array.from({ length: 30 }, () => addCard(u.cookie, randomCard())));
    const statuses = answers.map((a) => a.status);
    expect(count(statuses, 201)).toBe(CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR);
    expect(count(statuses, 429)).toBe(30 - CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(expectRateLimited(a, 'card_attempts_exceeded')).toBeLessThanOrEqual(CARD_ATTEMPT_WINDOW_MS / 1000);
      expect(a.body.error.message).toContain('Try again in 60 minutes');
    }
    expect(await processorCards()).toBe(CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR);

    // Another account elsewhere is not affected; the first account can add again once the hour has passed.
    const other = await premiumUser();
    expect((await addCard(other.cookie, randomCard(), ELSEWHERE)).status).toBe(201);
    expectRateLimited(await addCard(u.cookie, randomCard()), 'card_attempts_exceeded');
    ctx.clock.advance(CARD_ATTEMPT_WINDOW_MS);
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
  }, 30_000);

  test(`per address: 6 accounts sending 9 cards each at once from one address get exactly ${CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR} through; another address is unaffected`, async () => {
    await app();
    const users = [];
    for (let i = 0; i < 6; i++) users.push(await premiumUser());
    const answers = await Promise.all(users.flatMap((u) => Array.from({ length: 9 }, () => addCard(u.cookie, randomCard()))));
    const statuses = answers.map((a) => a.status);
    expect(count(statuses, 201)).toBe(CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR);
    expect(count(statuses, 429)).toBe(6 * 9 - CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR);
    for (const a of answers.filter((x) => x.status === 429)) expectRateLimited(a, 'card_attempts_exceeded');

    // A fresh account at that address is refused too; the same kind of account at another address is not.
    const late = await premiumUser();
    expectRateLimited(await addCard(late.cookie, randomCard()), 'card_attempts_exceeded');
    expect((await addCard(late.cookie, randomCard(), ELSEWHERE)).status).toBe(201);
  }, 30_000);

  test('the card-testing run of the issue: 100 cards, half declined, each good one deleted, reaches the processor at most 10 times', async () => {
    await app();
    const u = await registerUser(ctx); // free plan: the bot deletes each card to stay under its limit
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const good = await addCard(u.cookie, randomCard());
      statuses.push(good.status);
      if (good.status === 201) expect((await call(ctx, `${FS}/${good.body.id}`, { method: 'DELETE', cookie: u.cookie, ip: HOME })).status).toBe(200);
      statuses.push((await addCard(u.cookie, DECLINED)).status);
    }
    // Good, declined, good, declined...: 1 + 2 per pair, so 3 pairs and a good card fill the hour's 10.
    expect(count(statuses, 201)).toBe(4);
    expect(count(statuses, 402)).toBe(3);
    expect(count(statuses, 429)).toBe(100 - 7);
    expect(statuses.slice(0, 7)).toEqual([201, 402, 201, 402, 201, 402, 201]);
  }, 30_000);

  test('a decline counts double: after 4 declines only 2 good cards fit in the hour', async () => {
    await app();
    const u = await premiumUser();
    for (let i = 0; i < 4; i++) expect((await addCard(u.cookie, DECLINED)).status).toBe(402);
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
    // 4 × 2 + 2 = 10: the hour's allowance is used (with declines counting 1 this card would pass). Not a lock.
    expectRateLimited(await addCard(u.cookie, randomCard()), 'card_attempts_exceeded');
  }, 30_000);

  test('a card the processor never answered about does not count', async () => {
    let down = true;
    await app({
      wrapVendor: (v) => ({
        ...v,
        name: v.name,
        verifyCard: (...a) => (down ? Promise.reject(new VendorUnavailableError('down')) : v.verifyCard(...a)),
      }),
    });
    const u = await premiumUser();
    for (let i = 0; i < CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR + 2; i++) expect((await addCard(u.cookie, randomCard())).status).toBe(503);
    down = false;
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
  }, 30_000);

  test('refusals before the processor (validation, the plan, the name) do not count', async () => {
    await app();
    const u = await registerUser(ctx);
    for (let i = 0; i < 12; i++) {
      expect((await call(ctx, FS, { method: 'POST', body: cardBody('4242424242424241'), cookie: u.cookie, ip: HOME })).status).toBe(400);
      expect((await call(ctx, FS, { method: 'POST', body: cardBody(randomCard(), { name: 'Someone Else' }), cookie: u.cookie, ip: HOME })).status).toBe(400);
    }
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
  }, 30_000);
});

describe('the lock after repeated declines', () => {
  test(`${DECLINES_BEFORE_LOCK} declines within an hour lock adding cards for 24 h: even a good card is refused, saying until when and why; it lifts after`, async () => {
    await app();
    const u = await premiumUser();
    for (let i = 0; i < DECLINES_BEFORE_LOCK; i++) expect((await addCard(u.cookie, DECLINED)).status).toBe(402);

    const card = randomCard();
    const locked = await addCard(u.cookie, card, HOME, { 'idempotency-key': 'after-the-lock' });
    expect(expectRateLimited(locked, 'card_adding_locked')).toBe(CARD_LOCK_MS / 1000);
    expect(locked.body.error.message).toContain('locked until 2026-01-16 12:00 UTC');
    expect(locked.body.error.message).toContain(`${DECLINES_BEFORE_LOCK} cards were declined`);
    // From another address too: the lock is the account's.
    expectRateLimited(await addCard(u.cookie, randomCard(), ELSEWHERE), 'card_adding_locked');
    expect(await processorCards()).toBe(0);

    // Other accounts at the same address are not locked.
    const neighbour = await premiumUser();
    expect((await addCard(neighbour.cookie, randomCard())).status).toBe(201);

    ctx.clock.advance(CARD_LOCK_MS - 60_000);
    // The housekeeping prune keeps what a lock needs.
    await pruneThrottle(ctx.handle.db, ctx.clock, THROTTLE_RETENTION_MS);
    expect(expectRateLimited(await addCard(u.cookie, randomCard()), 'card_adding_locked')).toBe(60);
    ctx.clock.advance(60_000);
    // The refused request's Idempotency-Key was not kept: the retry Retry-After asked for adds the card.
    const retried = await addCard(u.cookie, card, HOME, { 'idempotency-key': 'after-the-lock' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  }, 30_000);

  test('declines more than an hour apart do not lock', async () => {
    await app();
    const u = await premiumUser();
    for (let i = 0; i < DECLINES_BEFORE_LOCK - 1; i++) expect((await addCard(u.cookie, DECLINED)).status).toBe(402);
    ctx.clock.advance(CARD_ATTEMPT_WINDOW_MS);
    expect((await addCard(u.cookie, DECLINED)).status).toBe(402);
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
  }, 30_000);

  test('a failed 3-D Secure completion is a decline: it can set off the lock, and a locked account cannot complete one', async () => {
    // More attempts per hour than production, only so that two verifications and five declines fit in one hour.
    await app({ cardAttemptLimits: { ...DEFAULT_CARD_ATTEMPT_LIMITS, perAccountPerHour: 20 } });
    const u = await premiumUser();
    const first = await addCard(u.cookie, THREE_DS);
    const second = await addCard(u.cookie, THREE_DS);
    expect([first.status, second.status]).toEqual([202, 202]);
    for (let i = 0; i < DECLINES_BEFORE_LOCK - 1; i++) expect((await addCard(u.cookie, DECLINED)).status).toBe(402);
    expect((await complete(u.cookie, first.body.verificationId, '000000')).status).toBe(402);

    const refused = await complete(u.cookie, second.body.verificationId, '123456');
    expectRateLimited(refused, 'card_adding_locked');
    expect(refused.body.error.message).toContain('locked until');
    ctx.clock.advance(CARD_LOCK_MS);
    // By now the verification itself has expired: the card has to be added again, and can be.
    expect((await complete(u.cookie, second.body.verificationId, '123456')).status).toBe(409);
    expect((await addCard(u.cookie, randomCard())).status).toBe(201);
  }, 30_000);
});
