import { eq } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow, slotValues } from '@bpay/db';
import type { Clock } from '../lib/clock';
import { brandOf, luhnCheckDigit } from '../lib/cards';
import { constantTimeEqual as timingSafeEqualStr, hmacHex, sha256Hex } from '../lib/crypto';
import { newId } from '../lib/ids';
import { simulatedBankMethods } from './simulated-bank';
import {
  captureHold,
  cardByToken,
  cardsByToken,
  creditBankAccount,
  creditCard,
  deactivateIssued,
  debitCard,
  holdById,
  holdByKey,
  insertHold,
  insertIssued,
  insertSimRefund,
  issuedById,
  refundFromHold,
  refundSubject,
  voidHeld,
} from './simulated-statements';
import {
  VendorDeclineError,
  type CardDetails,
  type CardFunding,
  type DeclineCode,
  type IssueCardInput,
  type IssuedCard,
  type PaymentVendor,
  type PreparedHold,
  type RevealedCard,
  type TokenizedCard,
  type VerifyCardResult,
} from './types';

/** Every new card starts with $10,000.00 available. */
export const SIM_STARTING_BALANCE_CENTS = 1_000_000;
export const VERIFICATION_HOLD_CENTS = 100;
/** Issued bcards come from this test range (a Visa test BIN, never a real issuer's). */
export const SIM_ISSUED_PREFIX = '4000009';

type Behavior =
  | 'normal'
  | 'declined'
  | 'insufficient_funds'
  | 'expired'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'requires_3ds'
  | 'declined_after_attach'
  /*
   * Sandbox only (SANDBOX_BEHAVIORS): a merchant's magic test sources (POST /v1/test_helpers/bcards `allocations`) get
   * these through addSandboxTestCard. verifyCard never gives them: no card number, a consumer's or Stripe's test
   * numbers, leads to them.
   */
  | SandboxBehavior;

/** The behaviours only a sandbox test source has (see addSandboxTestCard). */
export type SandboxBehavior = 'authentication_required' | 'capture_fails' | 'refund_refused';

/**
 * Stripe's documented test numbers behave as Stripe documents them; every other Luhn-valid number is a normal
 * card with $10,000.00. The table is in README.md ("Test cards").
 */
export const TEST_CARD_BEHAVIOR: Record<string, Behavior> = {
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
  '4000002760003184': 'requires_3ds',
  // Attaches and verifies, then every charge is declined (Stripe: "attaching succeeds, charges fail").
  '4000000000000341': 'declined_after_attach',
};

/**
 * How the simulator funds a card, by BIN (the number's first 6 digits), after Stripe's own test cards: 4000 0566 5566
 * 5556 is a Visa debit, 5200 8282 8282 8210 a Mastercard debit, 5105 1051 0510 5100 a Mastercard prepaid. Every other
 * number is a credit card. The table is in README.md ("Test cards").
 */
export const TEST_CARD_FUNDING_BINS: Record<string, Exclude<CardFunding, 'credit' | 'unknown'>> = {
  '400005': 'debit',
  '520082': 'debit',
  '510510': 'prepaid',
};

export function simulatedFundingOf(number: string): CardFunding {
  return TEST_CARD_FUNDING_BINS[number.slice(0, 6)] ?? 'credit';
}

const DECLINES: Record<Exclude<Behavior, 'normal' | 'requires_3ds' | 'declined_after_attach' | SandboxBehavior>, [DeclineCode, string]> = {
  declined: ['card_declined', 'Your card was declined.'],
  insufficient_funds: ['insufficient_funds', 'Your card has insufficient funds.'],
  expired: ['expired_card', 'Your card has expired.'],
  incorrect_cvc: ['incorrect_cvc', "Your card's security code is incorrect."],
  processing_error: ['processing_error', 'An error occurred while processing your card. Try again in a little bit.'],
};

/**
 * A refund that a merchant makes of a payment (a Refund object, `re_...`) is keyed `refund:re_...:<share>`
 * (refunds/settle.ts refundPartKey). A `refund_refused` test source refuses those; what a bcard gives back by itself
 * (its unspent remainder, an unused bcard at expiry: `refund:<share>`) still goes back, so no sandbox collection is
 * left refunding for ever.
 */
const MERCHANT_REFUND_KEY = /^refund:re_/;

/**
 * Records a sandbox test source at the simulated processor (inside the caller's transaction): a card with
 * `behavior` and `availableCents`, never made from a card number. Answers its token (`sim_tok_...`).
 */
export async function addSandboxTestCard(
  db: DbOrTx,
  at: Date,
  card: { behavior: Exclude<Behavior, 'requires_3ds' | 'declined_after_attach'>; brand: 'visa' | 'mastercard'; funding: 'credit' | 'debit' | 'prepaid'; last4: string; availableCents: number },
): Promise<string> {
  const token = newId('sim_tok');
  await db.insert(schema.simCards).values({
    token,
    behavior: card.behavior,
    brand: card.brand,
    funding: card.funding,
    last4: card.last4,
    expMonth: 12,
    expYear: at.getUTCFullYear() + 3,
    availableCents: card.availableCents,
    createdAt: at,
  });
  return token;
}

/** The challenge answer that fails 3-D Secure (any other 6 digits pass), like Stripe's test page's Fail button. */
export const SIM_3DS_FAIL_CODE = '000000';

/**
 * The built-in simulated card processor and issuer. Its state lives in the sim_* tables so it survives restarts.
 * It stores no card number: a tokenized card keeps its behaviour, brand and last 4; an issued card's number and
 * CVC are derived from a keyed hash of its id whenever they are needed, and only an HMAC fingerprint is kept.
 */
/** Why a card's behaviour refuses a hold, or null (its balance is checked apart). */
function holdRefusal(card: typeof schema.simCards.$inferSelect): VendorDeclineError | null {
  if (card.behavior === 'declined_after_attach') return new VendorDeclineError('card_declined', 'Your card was declined.');
  if (card.behavior === 'authentication_required') {
    return new VendorDeclineError('authentication_required', 'This card requires authentication (3-D Secure) before it can be charged.');
  }
  if (card.behavior in DECLINES) {
    const [code, message] = DECLINES[card.behavior as keyof typeof DECLINES];
    return new VendorDeclineError(code, message);
  }
  return null;
}
const insufficient = () => new VendorDeclineError('insufficient_funds', 'Your card has insufficient funds.');

export function createSimulatedVendor(db: DbOrTx, clock: Clock, secret: string): PaymentVendor {
  const keyed = (purpose: string, value: string) => hmacHex(secret, `sim:${purpose}:${value}`);

  function issuedNumber(cardId: string, nonce: number): { number: string; cvc: string } {
    const h = keyed('pan', `${cardId}:${nonce}`);
    // 8 decimal digits from the hash, after the 7-digit test prefix, then the Luhn check digit: 16 digits.
    const body = `${SIM_ISSUED_PREFIX}${(BigInt(`0x${h.slice(0, 15)}`) % 100_000_000n).toString().padStart(8, '0')}`;
    const cvc = (BigInt(`0x${keyed('cvc', cardId).slice(0, 12)}`) % 1000n).toString().padStart(3, '0');
    return { number: `${body}${luhnCheckDigit(body)}`, cvc };
  }

  async function getCard(token: string, on: DbOrTx = db) {
    const card = await cardByToken(on).get({ token });
    if (!card) throw new VendorDeclineError('card_declined', 'No such payment method.');
    return card;
  }

  function toTokenized(c: typeof schema.simCards.$inferSelect): TokenizedCard {
    return {
      token: c.token,
      brand: c.brand as TokenizedCard['brand'],
      // A card tokenized before the simulator kept its funding was always taken as credit.
      funding: (c.funding as CardFunding | null) ?? 'credit',
      last4: c.last4,
      expMonth: c.expMonth,
      expYear: c.expYear,
    };
  }

  /**
   * The $1.00 verification: a hold placed and released at once. It is part of attaching the card, so it skips the
   * charge-time refusal of 4000000000000341 ("attaching succeeds, charges fail"); cards refused outright never get
   * this far (verifyCard throws first).
   */
  async function verificationHold(token: string, key: string): Promise<void> {
    const holdId = await placeHold(token, VERIFICATION_HOLD_CENTS, `${key}:verify`);
    if (!holdId) throw new VendorDeclineError('insufficient_funds', 'Your card has insufficient funds.');
    await vendor.voidHold(holdId);
  }

  /**
   * Debits the card and records the hold, in one guarded statement; null when the card has too little. A hold
   * already placed under the key is answered as it is; otherwise `refuse` may decline the card first.
   */
  async function placeHold(
    token: string,
    amountCents: number,
    idempotencyKey: string,
    refuse?: (card: typeof schema.simCards.$inferSelect) => void,
  ): Promise<string | null> {
    const id = newId('sim_hold');
    // The balance check and the debit are one guarded statement: concurrent holds can never overdraw.
    return db.transaction(async (tx) => {
      const again = await holdByKey(tx).get({ key: idempotencyKey });
      if (again) return again.id;
      refuse?.(await getCard(token, tx));
      const debit = await debitCard(tx).run({ amount: amountCents, token });
      if (debit.rowsAffected !== 1) return null;
      await insertHold(tx).run({ id, idempotencyKey, token, amountCents, createdAt: clock.now() });
      return id;
    });
  }

  const bank = simulatedBankMethods(db, clock);

  const vendor: PaymentVendor = {
    name: 'simulated',

    within: (tx) => createSimulatedVendor(tx, clock, secret),

    async verifyCard(card: CardDetails, opts): Promise<VerifyCardResult> {
      const behavior: Behavior = TEST_CARD_BEHAVIOR[card.number] ?? 'normal';
      if (behavior in DECLINES) {
        const [code, message] = DECLINES[behavior as keyof typeof DECLINES];
        throw new VendorDeclineError(code, message);
      }
      const now = clock.now();
      const endOfExpiryMonth = Date.UTC(card.expYear, card.expMonth, 1);
      if (endOfExpiryMonth <= now.getTime()) throw new VendorDeclineError('expired_card', 'Your card has expired.');
      // The same idempotency key always names the same token.
      const token = `sim_pm_${sha256Hex(`${opts.idempotencyKey}`).slice(0, 24)}`;
      await db
        .insert(schema.simCards)
        .values({
          token,
          behavior,
          brand: brandOf(card.number),
          funding: simulatedFundingOf(card.number),
          last4: card.number.slice(-4),
          expMonth: card.expMonth,
          expYear: card.expYear,
          availableCents: SIM_STARTING_BALANCE_CENTS,
          createdAt: now,
        })
        .onConflictDoNothing();
      if (behavior === 'requires_3ds') {
        const challengeId = `sim_3ds_${sha256Hex(`3ds:${opts.idempotencyKey}`).slice(0, 24)}`;
        await db
          .insert(schema.simChallenges)
          .values({ id: challengeId, token, status: 'pending', createdAt: now })
          .onConflictDoNothing();
        return { status: 'requires_action', challengeId };
      }
      await verificationHold(token, opts.idempotencyKey);
      return { status: 'verified', card: toTokenized(await getCard(token)) };
    },

    async completeChallenge(challengeId: string, code: string): Promise<TokenizedCard> {
      const ch = await firstRow(db, schema.simChallenges, eq(schema.simChallenges.id, challengeId));
      if (!ch || ch.status === 'failed') {
        throw new VendorDeclineError('authentication_failed', 'The 3-D Secure challenge is no longer valid.');
      }
      if (ch.status === 'pending') {
        if (!/^\d{6}$/.test(code) || code === SIM_3DS_FAIL_CODE) {
          await db.update(schema.simChallenges).set({ status: 'failed' }).where(eq(schema.simChallenges.id, challengeId));
          throw new VendorDeclineError('authentication_failed', 'The card issuer could not authenticate this card.');
        }
        await db.update(schema.simChallenges).set({ status: 'succeeded' }).where(eq(schema.simChallenges.id, challengeId));
      }
      await verificationHold(ch.token, challengeId);
      return toTokenized(await getCard(ch.token));
    },

    async availableBalance(token: string): Promise<number | null> {
      const card = await db.query.simCards.findFirst({
        where: eq(schema.simCards.token, token),
        columns: { availableCents: true },
      });
      if (card) return card.availableCents;
      return bank.bankBalance(token);
    },

    addBankAccount: (account, opts) => bank.addBankAccount(account, opts),
    verifyMicrodeposits: (ref, amounts) => bank.verifyMicrodeposits(ref, amounts),
    debitBank: (token, amountCents, opts) => bank.debitBank(token, amountCents, opts),
    getBankDebit: (debitId) => bank.getBankDebit(debitId),

    async hold(token, amountCents, opts) {
      if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError('hold amount must be positive cents');
      const placed = await placeHold(token, amountCents, opts.idempotencyKey, (card) => {
        const refusal = holdRefusal(card);
        if (refusal) throw refusal;
      });
      if (!placed) throw insufficient();
      return { holdId: placed };
    },

    async prepareHolds(holds) {
      for (const h of holds) {
        if (!Number.isSafeInteger(h.amountCents) || h.amountCents <= 0) throw new RangeError('hold amount must be positive cents');
      }
      if (holds.length === 0) return [];
      // One read of the cards. A hold already placed under its key (a collection resumed after a crash) is not looked
      // for: its insert fails on the key's UNIQUE index, the unit with it, and the caller holds call by call.
      const cards = new Map((await cardsByToken(db, holds.length).all(slotValues('t', holds.map((h) => h.token)))).map((c) => [c.token, c]));
      return holds.map((h): PreparedHold => {
        const card = cards.get(h.token);
        if (!card) return { decline: new VendorDeclineError('card_declined', 'No such payment method.') };
        const refusal = holdRefusal(card) ?? (card.availableCents < h.amountCents ? insufficient() : null);
        if (refusal) return { decline: refusal };
        const holdId = newId('sim_hold');
        return {
          holdId,
          // The debit guarded as hold()'s is (never below zero), then the hold: the same two writes, in the caller's unit.
          async record(unit, short) {
            await debitCard(unit.tx).run({ amount: h.amountCents, token: h.token });
            unit.expectChanges(1, short);
            await insertHold(unit.tx).run({ id: holdId, idempotencyKey: h.idempotencyKey, token: h.token, amountCents: h.amountCents, createdAt: clock.now() });
          },
        };
      });
    },

    async findHold(idempotencyKey) {
      const h = await holdByKey(db).get({ key: idempotencyKey });
      return h ? { holdId: h.id, status: h.status } : null;
    },

    async getHold(holdId) {
      const h = await holdById(db).get({ id: holdId });
      return h ? { holdId: h.id, status: h.status } : null;
    },

    async capture(holdId) {
      // A sandbox tok_captureFail card's hold is never captured: the guard is part of the one UPDATE.
      const res = await captureHold(db).run({ holdId });
      if (res.rowsAffected === 1) return;
      const [card] = await db
        .select({ behavior: schema.simCards.behavior })
        .from(schema.simHolds)
        .innerJoin(schema.simCards, eq(schema.simCards.token, schema.simHolds.token))
        .where(eq(schema.simHolds.id, holdId));
      if (card?.behavior === 'capture_fails') throw new VendorDeclineError('processing_error', 'The processor could not capture this authorization.');
      throw new Error(`simulated processor: hold ${holdId} cannot be captured`);
    },

    async voidHold(holdId) {
      await db.transaction(async (tx) => {
        const h = await holdById(tx).get({ id: holdId });
        if (!h) throw new Error(`simulated processor: no hold ${holdId}`);
        if (h.status === 'voided') return;
        if (h.status === 'captured') throw new Error(`simulated processor: hold ${holdId} is captured; refund it`);
        await voidHeld(tx).run({ id: holdId });
        await creditCard(tx).run({ token: h.token, amount: h.amountCents });
      });
    },

    async refund(holdId, amountCents, opts) {
      // The refund's id follows from its key, so a repeated refund answers the first one's id.
      const refundId = `sim_re_${sha256Hex(`refund:${opts.idempotencyKey}`).slice(0, 24)}`;
      await db.transaction(async (tx) => {
        // The hold, its card's behaviour (a bank debit's token names no sim card: null) and the refund already made
        // under this key, if any, in one read (statements built once: db/prepared.ts).
        const found = await refundSubject(tx).get({ holdId, key: opts.idempotencyKey });
        // (Without the hold, the key alone is looked up: a repeated refund answers even so, as before.)
        if (found ? found.done !== null : await firstRow(tx, schema.simRefunds, eq(schema.simRefunds.idempotencyKey, opts.idempotencyKey))) return;
        const h = found?.hold;
        if (!h || h.status !== 'captured') throw new Error(`simulated processor: hold ${holdId} is not captured`);
        if (found.behavior === 'refund_refused' && MERCHANT_REFUND_KEY.test(opts.idempotencyKey)) {
          throw new VendorDeclineError('card_declined', "The card's issuer refused the refund.");
        }
        const res = await refundFromHold(tx).run({ holdId, amount: amountCents });
        if (res.rowsAffected !== 1) throw new Error(`simulated processor: refund exceeds hold ${holdId}`);
        // Back to the card the hold is on, or (a refund of a bank debit) to the bank account its token names.
        await (found.behavior === null ? creditBankAccount : creditCard)(tx).run({ token: h.token, amount: amountCents });
        await insertSimRefund(tx).run({ idempotencyKey: opts.idempotencyKey, holdId, amountCents, createdAt: clock.now() });
      });
      return { refundId };
    },

    async prepareCapture(holdIds, input) {
      // Nothing read: the card gets its first derived number. A card already issued under the key (a collection
      // resumed after a crash), or a number another card has, fails the insert's guard, and the caller captures and
      // issues call by call, as issueCard() finds the card or the next number.
      const id = `sim_ic_${sha256Hex(`issue:${input.idempotencyKey}`).slice(0, 24)}`;
      const now = clock.now();
      const exp = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), 1));
      const { number } = issuedNumber(id, 0);
      const card: IssuedCard = { cardId: id, brand: 'visa', last4: number.slice(-4), expMonth: exp.getUTCMonth() + 1, expYear: exp.getUTCFullYear() };
      return {
        card,
        async record(unit, failed) {
          // capture()'s guarded statement per hold (a capture_fails card's hold is never captured), then the card.
          for (const holdId of holdIds) {
            await captureHold(unit.tx).run({ holdId });
            unit.expectChanges(1, failed);
          }
          await insertIssued(unit.tx).run(issuedValues(id, input, 0, number, exp, now));
          unit.expectChanges(1, failed);
        },
      };
    },

    async issueCard(input: IssueCardInput): Promise<IssuedCard> {
      const id = `sim_ic_${sha256Hex(`issue:${input.idempotencyKey}`).slice(0, 24)}`;
      const existing = await issuedById(db).get({ id });
      if (existing) return toIssued(existing);
      const now = clock.now();
      // Card expiry a year out; the bcard's short session is enforced by its own expiresAt.
      const exp = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), 1));
      for (let nonce = 0; nonce < 20; nonce++) {
        const { number } = issuedNumber(id, nonce);
        const inserted = await insertIssued(db).all(issuedValues(id, input, nonce, number, exp, now));
        if (inserted[0]) return toIssued(inserted[0]);
        const raced = await firstRow(db, schema.simIssuedCards, eq(schema.simIssuedCards.id, id));
        if (raced) return toIssued(raced);
        // Otherwise the derived number collided with another card's: derive the next one.
      }
      throw new Error('simulated issuer: could not derive a unique card number');
    },

    async findIssuedCard(card) {
      const c = await firstRow(db, schema.simIssuedCards, eq(schema.simIssuedCards.numberFingerprint, keyed('fingerprint', card.number)));
      if (!c) return null;
      const { cvc } = issuedNumber(c.id, c.numberNonce);
      const ok = c.expMonth === card.expMonth && c.expYear === card.expYear && timingSafeEqualStr(cvc, card.cvc);
      return ok ? { cardId: c.id } : null;
    },

    async checkIssuedCard(card) {
      const c = await firstRow(db, schema.simIssuedCards, eq(schema.simIssuedCards.numberFingerprint, keyed('fingerprint', card.number)));
      if (!c) return null;
      const { cvc } = issuedNumber(c.id, c.numberNonce);
      return {
        cardId: c.id,
        expiry: c.expMonth === card.expMonth && c.expYear === card.expYear ? 'match' : 'mismatch',
        cvc: timingSafeEqualStr(cvc, card.cvc) ? 'match' : 'mismatch',
      };
    },

    async deactivateCard(cardId) {
      await deactivateIssued(db).run({ id: cardId });
    },

    async revealCard(cardId): Promise<RevealedCard> {
      const c = await firstRow(db, schema.simIssuedCards, eq(schema.simIssuedCards.id, cardId));
      if (!c) throw new Error(`simulated issuer: no card ${cardId}`);
      const { number, cvc } = issuedNumber(c.id, c.numberNonce);
      return { number, expMonth: c.expMonth, expYear: c.expYear, cvc };
    },
  };

  /** An issued card's row: its number kept only as a keyed fingerprint and the nonce that derives it again. */
  function issuedValues(id: string, input: IssueCardInput, nonce: number, number: string, exp: Date, now: Date) {
    return {
      id,
      idempotencyKey: input.idempotencyKey,
      numberFingerprint: keyed('fingerprint', number),
      numberNonce: nonce,
      last4: number.slice(-4),
      expMonth: exp.getUTCMonth() + 1,
      expYear: exp.getUTCFullYear(),
      limitCents: input.limitCents,
      expiresAt: input.expiresAt,
      createdAt: now,
    };
  }

  function toIssued(c: typeof schema.simIssuedCards.$inferSelect): IssuedCard {
    return { cardId: c.id, brand: 'visa', last4: c.last4, expMonth: c.expMonth, expYear: c.expYear };
  }

  return vendor;
}
