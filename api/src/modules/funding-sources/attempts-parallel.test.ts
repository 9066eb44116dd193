import { afterEach, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { luhnCheckDigit } from '../../lib/cards';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { cardBody, makePremium, registerUser } from '../../../test-support/world';
import { VendorUnavailableError } from '../../vendors/types';
import { CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR, DECLINE_WEIGHT, DECLINES_BEFORE_LOCK, DEFAULT_CARD_ATTEMPT_LIMITS } from './attempts';

/*
 * Card attempts sent at once (attempts.ts): whether a card is declined is known only after the processor has seen
 * it, so each attempt is counted as a decline until the processor answers, and one refused only because others are
 * still with the processor waits for their answers. A burst must get exactly what the same cards one after another
 * get. (Counted at 1 until the answer, 20 declined cards at once had the processor decline 10, twice the 5 that lock.)
 * Production numbers; the clock does not move.
 */

const FS = '/api/funding-sources';
const DECLINED = '4000000000000002';
const HOME = '198.51.100.10';

const open: TestContext[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function app(opts: Parameters<typeof makeTestApp>[0] = {}): Promise<TestContext> {
  const ctx = await makeTestApp({ cardAttemptLimits: DEFAULT_CARD_ATTEMPT_LIMITS, ...opts });
  open.push(ctx);
  return ctx;
}

let serial = 0;
/** A fresh Luhn-valid Visa number the simulator accepts. */
function goodCard(): string {
  const body = `43${String(++serial).padStart(6, '0')}${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
  return `${body}${luhnCheckDigit(body)}`;
}

const addCard = (ctx: TestContext, cookie: string, number: string) =>
  call(ctx, FS, { method: 'POST', body: cardBody(number), cookie, ip: HOME });

async function premiumUser(ctx: TestContext) {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  return u;
}

/** Answers by status and code: `{ '402 card_declined': 5, '429 card_adding_locked': 15 }`. */
function tally(res: CallResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of res) {
    const k = r.status < 300 ? String(r.status) : `${r.status} ${r.body?.error?.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** The lock's own record, not a refusal: so a test can tell it from the hour's allowance being used. */
async function locked(ctx: TestContext, userId: string): Promise<boolean> {
  const t = schema.throttleEvents;
  const rows = await ctx.handle.db.select({ id: t.id }).from(t).where(and(eq(t.scope, 'card_lock:account'), eq(t.key, userId)));
  return rows.length > 0;
}

describe('card attempts sent at once get exactly what the same attempts one after another get', () => {
  test(`20 declined cards at once: the processor declines ${DECLINES_BEFORE_LOCK}, the lock follows, the other 15 are 429 card_adding_locked, as one after another`, async () => {
    const ctx = await app();
    const oneByOne = await premiumUser(ctx);
    const sequential: CallResult[] = [];
    for (let i = 0; i < 20; i++) sequential.push(await addCard(ctx, oneByOne.cookie, DECLINED));

    const atOnce = await premiumUser(ctx);
    const parallel = await Promise.all(Array.from({ length: 20 }, () => addCard(ctx, atOnce.cookie, DECLINED)));

    const expected = { '402 card_declined': DECLINES_BEFORE_LOCK, '429 card_adding_locked': 20 - DECLINES_BEFORE_LOCK };
    expect(tally(sequential)).toEqual(expected);
    expect(tally(parallel)).toEqual(expected);
    expect(await locked(ctx, atOnce.user.id)).toBe(true);
    expect((await addCard(ctx, atOnce.cookie, goodCard())).body.error.code).toBe('card_adding_locked');
  }, 30_000);

  test(`good and declined cards mixed at once: at most ${DECLINES_BEFORE_LOCK} declines reach the processor, and the hour's allowance is used up (or the lock set), never more`, async () => {
    const ctx = await app();
    // Every 2nd, 3rd, 5th or 10th card good; which of them the processor sees first differs from run to run.
    for (const every of [2, 3, 5, 10]) {
      const u = await premiumUser(ctx);
      const cards = Array.from({ length: 20 }, (_, i) => (i % every === 0 ? goodCard() : DECLINED));
      const res = tally(await Promise.all(cards.map((n) => addCard(ctx, u.cookie, n))));
      const accepted = res['201'] ?? 0;
      const declined = res['402 card_declined'] ?? 0;
      const refused = (res['429 card_attempts_exceeded'] ?? 0) + (res['429 card_adding_locked'] ?? 0);
      expect(accepted + declined + refused).toBe(20);
      expect(declined).toBeLessThanOrEqual(DECLINES_BEFORE_LOCK);
      const weight = accepted + DECLINE_WEIGHT * declined;
      // One after another, an attempt goes through while 1 more fits, so the last may take the hour one past it.
      expect(weight).toBeLessThanOrEqual(CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR + DECLINE_WEIGHT - 1);
      // Nothing was refused that would have fitted: either the lock stopped the rest, or no attempt fitted any more.
      if (declined < DECLINES_BEFORE_LOCK) expect(weight).toBeGreaterThanOrEqual(CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR);
      expect(await locked(ctx, u.user.id)).toBe(declined === DECLINES_BEFORE_LOCK);
    }
  }, 60_000);

  test('a decline reserved for an attempt that is then accepted does not count towards the lock', async () => {
    const ctx = await app();
    const u = await premiumUser(ctx);
    for (let i = 0; i < DECLINES_BEFORE_LOCK - 2; i++) expect((await addCard(ctx, u.cookie, DECLINED)).status).toBe(402);
    // One more decline and a good card at once: while both are with the processor, the declines rule holds 5.
    const [bad, good] = await Promise.all([addCard(ctx, u.cookie, DECLINED), addCard(ctx, u.cookie, goodCard())]);
    expect([bad!.status, good!.status]).toEqual([402, 201]);
    expect(await locked(ctx, u.user.id)).toBe(false);
    // 4 declines and a good card: 4 × 2 + 1 = 9 of 10, room for one more.
    expect((await addCard(ctx, u.cookie, goodCard())).status).toBe(201);
  }, 30_000);

  test(`${CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR + 5} cards at once while the processor is down: none counts; then ${CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR} at once all go through`, async () => {
    let down = true;
    const ctx = await app({
      wrapVendor: (v) => ({
        ...v,
        name: v.name,
        verifyCard: (...a) => (down ? Promise.reject(new VendorUnavailableError('down')) : v.verifyCard(...a)),
      }),
    });
    const u = await premiumUser(ctx);
    const during = await Promise.all(Array.from({ length: CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR + 5 }, () => addCard(ctx, u.cookie, goodCard())));
    expect(tally(during)).toEqual({ '503 vendor_unavailable': CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR + 5 });
    down = false;
    const after = await Promise.all(Array.from({ length: CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR + 2 }, () => addCard(ctx, u.cookie, goodCard())));
    expect(tally(after)).toEqual({ '201': CARD_ATTEMPTS_PER_ACCOUNT_PER_HOUR, '429 card_attempts_exceeded': 2 });
  }, 30_000);

  test(`two servers on one database, 10 declined cards at once split between them: ${DECLINES_BEFORE_LOCK} declines in all, then both see the lock`, async () => {
    const first = await app();
    // A second server: its own handle, lock and app on the same file (closed without removing the shared directory).
    const second = await makeTestApp({ dir: first.dir, clock: first.clock, cardAttemptLimits: DEFAULT_CARD_ATTEMPT_LIMITS });
    try {
      const u = await premiumUser(first);
      const res = await Promise.all(Array.from({ length: 10 }, (_, i) => addCard(i % 2 ? second : first, u.cookie, DECLINED)));
      expect(tally(res)).toEqual({ '402 card_declined': DECLINES_BEFORE_LOCK, '429 card_adding_locked': 10 - DECLINES_BEFORE_LOCK });
      for (const server of [first, second]) expect((await addCard(server, u.cookie, goodCard())).body.error.code).toBe('card_adding_locked');
    } finally {
      second.handle.close();
    }
  }, 30_000);
});
