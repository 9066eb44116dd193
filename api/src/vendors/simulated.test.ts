import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { luhnValid } from '../lib/cards';
import { makeTestApp, type TestContext } from '../../test-support/app';
import {
  createSimulatedVendor,
  SIM_3DS_FAIL_CODE,
  SIM_ISSUED_PREFIX,
  SIM_STARTING_BALANCE_CENTS,
  VERIFICATION_HOLD_CENTS,
} from './simulated';
import { VendorDeclineError, type CardDetails, type PaymentVendor, type TokenizedCard } from './types';

/*
 * The simulated processor and issuer on its own, against a migrated database: what each test card does, holds
 * guarded by the balance and keyed for idempotency, voids, captures and refunds, and the issued cards' numbers.
 */

let ctx: TestContext;
let vendor: PaymentVendor;
let n = 0;
const key = (what: string) => `${what}:${++n}`;

beforeAll(async () => {
  ctx = await makeTestApp();
  vendor = createSimulatedVendor(ctx.handle.db, ctx.clock, 'simulated-test-secret');
});
afterAll(() => {
  ctx.close();
});

const card = (number: string, over: Partial<CardDetails> = {}): CardDetails => ({
  number,
  expMonth: 12,
  expYear: 2030,
  cvc: '123',
  name: 'Ada Lovelace',
  ...over,
});

async function verified(number = '4242424242424242'): Promise<TokenizedCard> {
  const res = await vendor.verifyCard(card(number), { idempotencyKey: key('verify'), customerRef: 'usr_test' });
  if (res.status !== 'verified') throw new Error(`expected ${number} to verify, got ${res.status}`);
  return res.card;
}

async function declineOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof VendorDeclineError) return e.code;
    throw e;
  }
  throw new Error('expected a decline');
}

const available = async (token: string) => vendor.availableBalance(token);
const holdRow = async (id: string) => ctx.handle.db.query.simHolds.findFirst({ where: eq(schema.simHolds.id, id) });

describe('verifyCard and the test cards', () => {
  test('a normal card verifies with $10,000.00, brand and last 4, and only its $1.00 hold, released', async () => {
    const c = await verified('5555555555554444');
    expect(c).toEqual({ token: expect.stringMatching(/^sim_pm_/), brand: 'mastercard', funding: 'credit', last4: '4444', expMonth: 12, expYear: 2030 });
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
    expect(SIM_STARTING_BALANCE_CENTS).toBe(1_000_000);
    const holds = await ctx.handle.db.select().from(schema.simHolds).where(eq(schema.simHolds.token, c.token));
    expect(holds).toEqual([expect.objectContaining({ amountCents: VERIFICATION_HOLD_CENTS, status: 'voided' })]);
    expect(VERIFICATION_HOLD_CENTS).toBe(100);
    // The processor's record keeps no card number.
    const row = await ctx.handle.db.query.simCards.findFirst({ where: eq(schema.simCards.token, c.token) });
    expect(JSON.stringify(row)).not.toContain('5555555555554444');
  });

  const refused: Array<[string, string]> = [
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
  ];
  for (const [number, code] of refused) {
    test(`${number} is refused with ${code}, and nothing is kept`, async () => {
      const before = await ctx.handle.db.select().from(schema.simCards);
      expect(await declineOf(vendor.verifyCard(card(number), { idempotencyKey: key('verify'), customerRef: 'u' }))).toBe(code);
      expect(await ctx.handle.db.select().from(schema.simCards)).toHaveLength(before.length);
    });
  }

  test('any card past its expiry month is expired_card; the current month is fine', async () => {
    // The clock is on 2026-01-15.
    expect(await declineOf(vendor.verifyCard(card('4242424242424242', { expMonth: 12, expYear: 2025 }), { idempotencyKey: key('v'), customerRef: 'u' }))).toBe('expired_card');
    const ok = await vendor.verifyCard(card('4242424242424242', { expMonth: 1, expYear: 2026 }), { idempotencyKey: key('v'), customerRef: 'u' });
    expect(ok.status).toBe('verified');
  });

  test('4000000000000341 verifies, then every hold is card_declined', async () => {
    const c = await verified('4000000000000341');
    expect(c.last4).toBe('0341');
    expect(await declineOf(vendor.hold(c.token, 500, { idempotencyKey: key('hold'), description: 't' }))).toBe('card_declined');
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
  });

  test('the same idempotency key names the same token', async () => {
    const k = key('verify');
    const a = await vendor.verifyCard(card('4242424242424242'), { idempotencyKey: k, customerRef: 'u' });
    const b = await vendor.verifyCard(card('4242424242424242'), { idempotencyKey: k, customerRef: 'u' });
    expect(a.status === 'verified' && b.status === 'verified' && a.card.token === b.card.token).toBe(true);
    const other = await verified();
    expect(a.status === 'verified' && a.card.token).not.toBe(other.token);
  });
});

describe('3-D Secure (4000002760003184)', () => {
  const start = async () => {
    const res = await vendor.verifyCard(card('4000002760003184'), { idempotencyKey: key('3ds'), customerRef: 'u' });
    expect(res.status).toBe('requires_action');
    if (res.status !== 'requires_action') throw new Error('unreachable');
    return res.challengeId;
  };

  test('needs a challenge; any 6 digits but 000000 complete it, with the $1.00 hold released once', async () => {
    const challenge = await start();
    const c = await vendor.completeChallenge(challenge, '123456');
    expect(c).toMatchObject({ brand: 'visa', last4: '3184' });
    const again = await vendor.completeChallenge(challenge, '654321');
    expect(again.token).toBe(c.token);
    const holds = await ctx.handle.db.select().from(schema.simHolds).where(eq(schema.simHolds.token, c.token));
    expect(holds).toEqual([expect.objectContaining({ amountCents: 100, status: 'voided' })]);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
    // Once verified, its holds succeed.
    const h = await vendor.hold(c.token, 1000, { idempotencyKey: key('hold'), description: 't' });
    expect((await holdRow(h.holdId))!.status).toBe('held');
  });

  for (const bad of [SIM_3DS_FAIL_CODE, '12345', 'abcdef']) {
    test(`'${bad}' fails with authentication_failed, and the challenge stays failed`, async () => {
      const challenge = await start();
      expect(await declineOf(vendor.completeChallenge(challenge, bad))).toBe('authentication_failed');
      expect(await declineOf(vendor.completeChallenge(challenge, '123456'))).toBe('authentication_failed');
    });
  }

  test('an unknown challenge is authentication_failed', async () => {
    expect(await declineOf(vendor.completeChallenge('sim_3ds_nope', '123456'))).toBe('authentication_failed');
  });
});

describe('holds, captures, voids and refunds', () => {
  test('a hold is guarded by the balance: more than available is insufficient_funds and takes nothing', async () => {
    const c = await verified();
    const big = await vendor.hold(c.token, 990_000, { idempotencyKey: key('hold'), description: 't' });
    expect(await available(c.token)).toBe(10_000);
    expect(await declineOf(vendor.hold(c.token, 10_001, { idempotencyKey: key('hold'), description: 't' }))).toBe('insufficient_funds');
    expect(await available(c.token)).toBe(10_000);
    // Exactly what is left is fine.
    await vendor.hold(c.token, 10_000, { idempotencyKey: key('hold'), description: 't' });
    expect(await available(c.token)).toBe(0);
    expect(await declineOf(vendor.hold(c.token, 1, { idempotencyKey: key('hold'), description: 't' }))).toBe('insufficient_funds');
    await vendor.voidHold(big.holdId);
    expect(await available(c.token)).toBe(990_000);
  });

  test('concurrent holds never overdraw', async () => {
    const c = await verified();
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () => vendor.hold(c.token, 50_000, { idempotencyKey: key('hold'), description: 't' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(20);
    expect(await available(c.token)).toBe(0);
  });

  test('the same key gives the same hold, debited once', async () => {
    const c = await verified();
    const k = key('hold');
    const a = await vendor.hold(c.token, 2500, { idempotencyKey: k, description: 't' });
    const b = await vendor.hold(c.token, 2500, { idempotencyKey: k, description: 't' });
    expect(b.holdId).toBe(a.holdId);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS - 2500);
    expect(await vendor.findHold(k)).toEqual({ holdId: a.holdId, status: 'held' });
    expect(await vendor.findHold(key('never'))).toBeNull();
    expect(await vendor.getHold(a.holdId)).toEqual({ holdId: a.holdId, status: 'held' });
    await vendor.capture(a.holdId);
    expect(await vendor.getHold(a.holdId)).toEqual({ holdId: a.holdId, status: 'captured' });
    expect(await vendor.getHold('hold_missing')).toBeNull();
  });

  test('a hold must be positive whole cents; an unknown token is declined', async () => {
    const c = await verified();
    await expect(vendor.hold(c.token, 0, { idempotencyKey: key('hold'), description: 't' })).rejects.toThrow(RangeError);
    await expect(vendor.hold(c.token, 1.5, { idempotencyKey: key('hold'), description: 't' })).rejects.toThrow(RangeError);
    expect(await declineOf(vendor.hold('sim_pm_nope', 100, { idempotencyKey: key('hold'), description: 't' }))).toBe('card_declined');
    expect(await available('sim_pm_nope')).toBeNull();
  });

  test('void restores the money, and voiding again is a no-op', async () => {
    const c = await verified();
    const h = await vendor.hold(c.token, 7000, { idempotencyKey: key('hold'), description: 't' });
    await vendor.voidHold(h.holdId);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
    await vendor.voidHold(h.holdId);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
    expect((await holdRow(h.holdId))!.status).toBe('voided');
    await expect(vendor.capture(h.holdId)).rejects.toThrow();
  });

  test('capture keeps the money; a captured hold cannot be voided', async () => {
    const c = await verified();
    const h = await vendor.hold(c.token, 4000, { idempotencyKey: key('hold'), description: 't' });
    await vendor.capture(h.holdId);
    await vendor.capture(h.holdId);
    await expect(vendor.voidHold(h.holdId)).rejects.toThrow(/captured/);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS - 4000);
    expect((await holdRow(h.holdId))!.status).toBe('captured');
  });

  test('refunds are idempotent per key and never exceed the hold', async () => {
    const c = await verified();
    const h = await vendor.hold(c.token, 5000, { idempotencyKey: key('hold'), description: 't' });
    // Nothing to refund before a capture.
    await expect(vendor.refund(h.holdId, 100, { idempotencyKey: key('refund') })).rejects.toThrow();
    await vendor.capture(h.holdId);
    const k = key('refund');
    await vendor.refund(h.holdId, 3000, { idempotencyKey: k });
    await vendor.refund(h.holdId, 3000, { idempotencyKey: k });
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS - 2000);
    await expect(vendor.refund(h.holdId, 2001, { idempotencyKey: key('refund') })).rejects.toThrow(/exceeds/);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS - 2000);
    await vendor.refund(h.holdId, 2000, { idempotencyKey: key('refund') });
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
    await expect(vendor.refund(h.holdId, 1, { idempotencyKey: key('refund') })).rejects.toThrow();
    expect((await holdRow(h.holdId))!.refundedCents).toBe(5000);
    expect(await available(c.token)).toBe(SIM_STARTING_BALANCE_CENTS);
  });
});

describe('issued cards', () => {
  const issue = (k = key('issue'), limitCents = 1000) =>
    vendor.issueCard({
      limitCents,
      expiresAt: new Date(ctx.clock.now().getTime() + 30 * 60_000),
      cardholderName: 'Ada Lovelace',
      singleUse: true,
      idempotencyKey: k,
    });

  test('numbers are 16 digits from the test range, pass Luhn, and are unique across 200 cards', async () => {
    const numbers = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const issued = await issue();
      const revealed = await vendor.revealCard(issued.cardId);
      expect(revealed.number).toMatch(/^\d{16}$/);
      expect(revealed.number.startsWith(SIM_ISSUED_PREFIX)).toBe(true);
      expect(SIM_ISSUED_PREFIX).toBe('4000009');
      expect(luhnValid(revealed.number)).toBe(true);
      expect(revealed.number.slice(-4)).toBe(issued.last4);
      expect(revealed.cvc).toMatch(/^\d{3}$/);
      numbers.add(revealed.number);
    }
    expect(numbers.size).toBe(200);
  });

  test('issuing with the same key gives the same card', async () => {
    const k = key('issue');
    const a = await issue(k);
    const b = await issue(k);
    expect(b).toEqual(a);
    const rows = await ctx.handle.db.select().from(schema.simIssuedCards).where(eq(schema.simIssuedCards.idempotencyKey, k));
    expect(rows).toHaveLength(1);
  });

  test('reveal gives the same number, expiry and CVC every time; nothing of them is stored', async () => {
    const issued = await issue(key('issue'), 4200);
    const a = await vendor.revealCard(issued.cardId);
    const b = await vendor.revealCard(issued.cardId);
    expect(b).toEqual(a);
    expect({ expMonth: a.expMonth, expYear: a.expYear }).toEqual({ expMonth: issued.expMonth, expYear: issued.expYear });
    expect(issued.brand).toBe('visa');
    const row = await ctx.handle.db.query.simIssuedCards.findFirst({ where: eq(schema.simIssuedCards.id, issued.cardId) });
    expect(row).toMatchObject({ limitCents: 4200, singleUse: true, status: 'active' });
    expect(JSON.stringify(row)).not.toContain(a.number);
    // A vendor with another secret derives other numbers: they come from the secret, not from stored data.
    const other = createSimulatedVendor(ctx.handle.db, ctx.clock, 'another-secret');
    expect((await other.revealCard(issued.cardId)).number).not.toBe(a.number);
    await expect(vendor.revealCard('sim_ic_nope')).rejects.toThrow();
  });

  test('deactivate marks the card inactive', async () => {
    const issued = await issue();
    await vendor.deactivateCard(issued.cardId);
    const row = await ctx.handle.db.query.simIssuedCards.findFirst({ where: eq(schema.simIssuedCards.id, issued.cardId) });
    expect(row!.status).toBe('inactive');
    await vendor.deactivateCard(issued.cardId);
    expect((await ctx.handle.db.query.simIssuedCards.findFirst({ where: eq(schema.simIssuedCards.id, issued.cardId) }))!.status).toBe('inactive');
  });
});
