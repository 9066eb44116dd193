import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { schema, type DbOrTx, type PaymentIntentStatus, firstRow, prepared } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../errors';
import { digitsOnly } from '../../lib/cards';
import { spendBcard } from '../bcards/service';
import { refundUnusedBcard } from '../bcards/refund';
import { noticeBcardDeclined } from '../bcards/notices';
import { countBadAttempt } from '../issuing/authorize';
import { accounts } from '../ledger/service';
import { assertIntentTransition, emitIntentEvent, getIntent, toIntentObject } from './service';
import { shownDescriptor } from './parameters';
import { setPlaceholder } from '../../lib/set-placeholder';

/*
 * Paying a payment intent: a payment claims it (one guarded statement), confirms it with a bcard (spent, or
 * authorized for a later capture), and a merchant captures or cancels it. Every move of its status goes through
 * transition(), checked against the state machine in service.ts.
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

/**
 * Moves an intent to `to` only if it is still in `from` (one statement: concurrent requests cannot both pass).
 * When `set` changes amount_received, the merchant's running total (merchants.amount_received_total) moves by the
 * difference in the same transaction; the guard then also requires the amount_received the difference was taken
 * from, so the total can never drift from the sum of its intents.
 */
async function transition(
  tx: DbOrTx,
  deps: AppDeps,
  pi: IntentRow,
  from: PaymentIntentStatus | PaymentIntentStatus[],
  to: PaymentIntentStatus,
  set: Partial<typeof schema.paymentIntents.$inferInsert> = {},
  /** Leaving processing under a claim: only while the intent is still that claim's (see IntentClaim). */
  claim?: IntentClaim,
): Promise<IntentRow> {
  const froms = Array.isArray(from) ? from : [from];
  for (const f of froms) assertIntentTransition(f, to);
  const received = set.amountReceived === undefined ? 0 : set.amountReceived - pi.amountReceived;
  const keys = (Object.keys(set) as Array<keyof typeof set>).filter((k) => set[k] !== undefined);
  const values: Record<string, unknown> = { id: pi.id, updatedAt: deps.clock.now() };
  for (const k of keys) values[`set_${k}`] = set[k];
  if (set.amountReceived !== undefined) values.amountReceivedBefore = pi.amountReceived;
  if (claim) Object.assign(values, { claimId: claim.intent.id, claimedAt: claim.intent.updatedAt.getTime() });
  const row = await transitionQuery(froms, to, keys, set.amountReceived !== undefined, !!claim)(tx).get(values);
  if (row && received !== 0) await addReceived(tx).run({ received, merchantId: pi.merchantId });
  if (!row) {
    const now = await firstRow(tx, schema.paymentIntents, eq(schema.paymentIntents.id, pi.id));
    throw new AppError(
      'payment_intent_unexpected_state',
      `This PaymentIntent's status is ${now?.status ?? pi.status}; it cannot become ${to}.`,
    );
  }
  return row;
}

/** The statuses a payment may start from: the intent has no payment yet. */
export const CLAIMABLE_STATUSES = ['requires_payment_method', 'requires_confirmation'] as const satisfies readonly PaymentIntentStatus[];
type ClaimableStatus = (typeof CLAIMABLE_STATUSES)[number];

export function isClaimable(status: PaymentIntentStatus): status is ClaimableStatus {
  return (CLAIMABLE_STATUSES as readonly PaymentIntentStatus[]).includes(status);
}

/**
 * A payment's hold on an intent: one guarded statement moved it to processing, so of many payments at once exactly
 * one holds it, before any money is taken (the checkout claims, then collects the consumer's split, then confirms).
 *
 * The claim's token is the processing row's updated_at: nothing writes the intent while it is processing except the
 * claim's own outcome, so "still processing since claimedAt" means "still this claim's". A claim that nobody finishes
 * (a crash) expires with the money sweep's recoverStuckIntents (processing untouched for 2 minutes goes back to
 * requires_payment_method); if its holder was only slow, the token no longer matches and it can neither confirm nor
 * put back an intent that a later payment has claimed meanwhile.
 *
 * Claiming emits no event and no webhook: processing is not announced (Stripe's payment_intent.processing is not in
 * the catalogue); merchants see it only by reading the intent, as during any confirm.
 */
export interface IntentClaim {
  /** The intent as claimed (status processing; updatedAt is the claim's token). */
  intent: IntentRow;
  /** Where a claim that comes to nothing puts the intent back. */
  previous: ClaimableStatus;
}

function stillClaimed(claim: IntentClaim) {
  return and(
    eq(schema.paymentIntents.id, claim.intent.id),
    eq(schema.paymentIntents.status, 'processing'),
    eq(schema.paymentIntents.updatedAt, claim.intent.updatedAt),
  );
}

/**
 * transition()'s guarded UPDATE, built once per shape (db/prepared.ts): the statuses it moves from and to, the columns
 * it sets (each a placeholder), whether it guards amount_received and whether a claim guards it. A claim is still
 * its holder's while the intent is processing since the claim's updated_at (compared as stored, in ms: a placeholder
 * in a condition has no column encoder).
 */
type IntentSet = Partial<typeof schema.paymentIntents.$inferInsert>;
const transitionQueries = new Map<string, ReturnType<typeof buildTransition>>();
function buildTransition(froms: PaymentIntentStatus[], to: PaymentIntentStatus, keys: Array<keyof IntentSet>, guardReceived: boolean, claimed: boolean) {
  const p = sql.placeholder;
  return prepared((db) =>
    db
      .update(schema.paymentIntents)
      .set({ ...Object.fromEntries(keys.map((k) => [k, setPlaceholder(`set_${k}`)])), status: to, updatedAt: setPlaceholder<Date>('updatedAt') })
      .where(
        and(
          eq(schema.paymentIntents.id, p('id')),
          inArray(schema.paymentIntents.status, froms),
          guardReceived ? eq(schema.paymentIntents.amountReceived, p('amountReceivedBefore')) : undefined,
          claimed
            ? and(
                eq(schema.paymentIntents.id, p('claimId')),
                eq(schema.paymentIntents.status, 'processing'),
                sql`${schema.paymentIntents.updatedAt} = ${p('claimedAt')}`,
              )
            : undefined,
        ),
      )
      .returning()
      .prepare(),
  );
}
function transitionQuery(froms: PaymentIntentStatus[], to: PaymentIntentStatus, keys: Array<keyof IntentSet>, guardReceived: boolean, claimed: boolean) {
  const shape = `${froms.join(',')}>${to}|${keys.join(',')}|${guardReceived}|${claimed}`;
  let query = transitionQueries.get(shape);
  if (!query) transitionQueries.set(shape, (query = buildTransition(froms, to, keys, guardReceived, claimed)));
  return query;
}
const addReceived = prepared((db) =>
  db
    .update(schema.merchants)
    .set({ amountReceivedTotal: sql`${schema.merchants.amountReceivedTotal} + ${sql.placeholder('received')}` })
    .where(eq(schema.merchants.id, sql.placeholder('merchantId')))
    .prepare(),
);
const bcardById = prepared((db) => db.select().from(schema.bcards).where(eq(schema.bcards.id, sql.placeholder('id'))).limit(1).prepare());

/**
 * Moves an intent from the status it was read in to processing, in one guarded statement.
 * Fails with: payment_intent_unexpected_state (it is not payable, or another payment claimed it first).
 */
export async function claimIntent(deps: AppDeps, pi: IntentRow): Promise<IntentClaim> {
  if (!isClaimable(pi.status)) throw cannotConfirm(pi.id, pi.status);
  try {
    const intent = await transition(deps.db, deps, pi, pi.status, 'processing');
    return { intent, previous: pi.status };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'payment_intent_unexpected_state') throw e;
    // Another request moved it between the read and the guarded update: say what it is now.
    const now = await firstRow(deps.db, schema.paymentIntents, eq(schema.paymentIntents.id, pi.id));
    throw cannotConfirm(pi.id, now?.status ?? 'processing');
  }
}

/**
 * Why an intent in `status` cannot be confirmed, in words, with its id and status in the error (as Stripe's error
 * carries its payment_intent), so a client that retried a confirm learns the outcome without another request.
 */
export function cannotConfirm(id: string, status: PaymentIntentStatus): AppError {
  const reason: Record<PaymentIntentStatus, string> = {
    succeeded: 'This PaymentIntent has already succeeded; it cannot be confirmed again.',
    canceled: 'This PaymentIntent has been canceled; it cannot be confirmed. Create a new PaymentIntent to take this payment.',
    requires_capture:
      'This PaymentIntent is already confirmed and its amount authorized (status requires_capture); capture or cancel it instead of confirming it again.',
    processing: 'This PaymentIntent is being confirmed by another request (status processing); retrieve it to see the outcome.',
    // A claim that came to nothing gave it back between the two reads: confirming again may well work.
    requires_payment_method: 'Another request was confirming this PaymentIntent at the same moment and did not complete; try again.',
    requires_confirmation: 'Another request was confirming this PaymentIntent at the same moment and did not complete; try again.',
    requires_action: "This PaymentIntent's status is requires_action; it cannot be confirmed now.",
  };
  return new AppError('payment_intent_unexpected_state', reason[status], undefined, undefined, { payment_intent: { id, status } });
}

/**
 * Undoes a claim that took no money (the payment failed before confirming), so the intent can be paid again at once.
 * Not a transition of the state machine (nothing happened to the payment) and no event. Does nothing if the claim
 * is no longer this one's (the sweep expired it, or the intent moved on). Returns whether it put the intent back.
 */
export async function releaseClaim(deps: AppDeps, claim: IntentClaim): Promise<boolean> {
  const res = await deps.db
    .update(schema.paymentIntents)
    .set({ status: claim.previous, updatedAt: deps.clock.now() })
    .where(stillClaimed(claim));
  return res.rowsAffected === 1;
}

export type PaymentMethodInput =
  | { kind: 'bcard'; bcardId: string }
  | { kind: 'card'; number: string; expMonth: number; expYear: number; cvc: string };

class CardDecline extends Error {
  constructor(
    readonly code: 'card_declined' | 'expired_card',
    readonly declineCode: string,
    message: string,
    /** The bcard refused, when the card details led to one (its owner is told): a wrong CVC's too. */
    readonly bcard: BcardRow | null = null,
    /** What the owner's notice calls the reason, when not the decline code's word (a wrong CVC behind incorrect_number). */
    readonly noticeReason: string | null = null,
  ) {
    super(message);
  }
}

/**
 * The owner's word for a merchant's decline: the issuer's (issuing/decide.ts DECLINE_REASONS), as the card network's
 * declines say it, so one vocabulary reaches the notices. `now` is the bcard as it is in the decline's transaction.
 */
function declineNoticeReason(e: CardDecline, now: BcardRow | undefined): string {
  if (e.noticeReason) return e.noticeReason;
  switch (e.declineCode) {
    case 'expired_card':
      return 'expired';
    case 'merchant_not_allowed':
      return 'merchant_mismatch';
    case 'card_not_active':
      if (now?.status === 'used' || now?.status === 'authorized') return 'already_used';
      if (now?.status === 'expired' || now?.status === 'expiring') return 'expired';
      return 'card_inactive';
    default:
      // insufficient_funds is the same word; test_mode_live_card has none in the issuer's list.
      return e.declineCode;
  }
}

/**
 * Whether a bcard id can be a payment method of this merchant's at all (a bcard issued for it), before anything is
 * created for it (a create with confirm: true). Fails with: validation_error naming payment_method.
 */
export async function assertPaymentMethodId(deps: AppDeps, merchant: MerchantRow, bcardId: string): Promise<void> {
  const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, bcardId));
  if (!bcard || bcard.lockedMerchantId !== merchant.id) throw invalid('payment_method', `No such payment method: '${bcardId}'.`);
}

/** The bcard a payment method names, checked for this payment. Throws CardDecline when it cannot pay. */
async function resolveBcard(deps: AppDeps, merchant: MerchantRow, pi: IntentRow, pm: PaymentMethodInput): Promise<BcardRow> {
  let bcard: BcardRow | undefined;
  if (pm.kind === 'bcard') {
    bcard = await bcardById(deps.db).get({ id: pm.bcardId });
    // By id, only a bcard issued for this merchant (the checkout widget's): an id alone is no card credential.
    if (!bcard || bcard.lockedMerchantId !== merchant.id) {
      throw invalid('payment_method', `No such payment method: '${pm.bcardId}'.`);
    }
  } else {
    const number = digitsOnly(pm.number);
    const details = { number, expMonth: pm.expMonth, expYear: pm.expYear, cvc: pm.cvc };
    // The issuer's lookup by number alone (the simulator's), so a wrong CVC or expiry counts against that bcard as on
    // the card network (three close it), whichever door the guess comes through; the decline says no more than before.
    const checked = await deps.vendor.checkIssuedCard?.(details);
    let guessed: BcardRow | undefined;
    if (checked && (checked.cvc === 'mismatch' || checked.expiry === 'mismatch')) {
      guessed = await firstRow(deps.db, schema.bcards, eq(schema.bcards.vendorCardId, checked.cardId));
      if (guessed) await countBadAttempt(deps, guessed);
    }
    const found = checked ? (checked.cvc === 'match' && checked.expiry === 'match' ? { cardId: checked.cardId } : null) : await deps.vendor.findIssuedCard?.(details);
    if (found) bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.vendorCardId, found.cardId));
    if (!bcard && !pi.livemode && deps.vendor.name !== 'simulated') {
      // Sandbox test bcards always come from the built-in simulator, whichever processor issues consumers' cards.
      const sim = await deps.vendorFor('simulated').findIssuedCard?.(details);
      const candidate = sim ? await firstRow(deps.db, schema.bcards, eq(schema.bcards.vendorCardId, sim.cardId)) : undefined;
      if (candidate?.sandbox) bcard = candidate;
    }
    if (!bcard) {
      // The merchant learns no more than "incorrect"; the bcard's owner hears which detail was wrong.
      const wrong = checked?.expiry === 'mismatch' ? 'incorrect_expiry' : 'incorrect_cvc';
      throw new CardDecline('card_declined', 'incorrect_number', 'Your card number, expiry or security code is incorrect.', guessed ?? null, guessed ? wrong : null);
    }
  }
  const now = deps.clock.now();
  // Each mode takes only its own money, declined like any card before the bcard is touched (Stripe's decline codes).
  // Play money never pays a production intent (the merchant lock already implies it: a merchant has one mode) ...
  if (bcard.sandbox && pi.livemode) {
    throw new CardDecline('card_declined', 'live_mode_test_card', 'A production payment intent cannot be paid with a sandbox test bcard.', bcard);
  }
  // ... and a sandbox intent never takes real money from a consumer's bcard.
  if (!bcard.sandbox && !pi.livemode) {
    throw new CardDecline(
      'card_declined',
      'test_mode_live_card',
      'A sandbox payment intent takes only sandbox test bcards (POST /api/v1/test_helpers/bcards or `bpay trigger`), never a real bcard.',
      bcard,
    );
  }
  if (bcard.status !== 'active') throw new CardDecline('card_declined', 'card_not_active', 'This bcard has been used, canceled or has expired.', bcard);
  if (bcard.expiresAt <= now) throw new CardDecline('expired_card', 'expired_card', 'This bcard has expired.', bcard);
  // A bcard made for a site (the browser extension's) is spent only there, through the card network: never here.
  if (bcard.lockedDomain) throw new CardDecline('card_declined', 'merchant_not_allowed', 'This bcard can only be used with another merchant.', bcard);
  if (bcard.lockedMerchantId && bcard.lockedMerchantId !== merchant.id) {
    throw new CardDecline('card_declined', 'merchant_not_allowed', 'This bcard can only be used with another merchant.', bcard);
  }
  if (bcard.limitCents - bcard.spentCents < pi.amount) {
    throw new CardDecline('card_declined', 'insufficient_funds', 'The bcard holds less than this payment.', bcard);
  }
  return bcard;
}

/**
 * Confirms an intent with a bcard. The intent moves to processing in one guarded statement (claimIntent), so of
 * many concurrent confirms exactly one proceeds; the bcard is spent (automatic capture) or authorized (manual) in the
 * same transaction as the intent's new status and its event. A decline returns the intent to
 * requires_payment_method with last_payment_error and emits payment_intent.failed.
 *
 * A caller that had to claim the intent before it had a bcard (the checkout: claim, collect, confirm) passes its
 * claim; every move out of processing is then guarded by it, so a claim the sweep expired cannot finish the payment.
 * Fails with: resource_not_found, payment_intent_unexpected_state, card_declined or expired_card (402 with decline_code).
 */
export async function confirmIntent(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  id: string,
  pm: PaymentMethodInput,
  claimed?: IntentClaim,
) {
  if (claimed && (claimed.intent.id !== id || claimed.intent.merchantId !== merchant.id || claimed.intent.livemode !== livemode)) {
    // A programming error, never a request's: a claim confirms only the intent it holds.
    throw new Error(`a claim on ${claimed.intent.id} cannot confirm ${id}`);
  }
  const claim = claimed ?? (await claimIntent(deps, await getIntent(deps, merchant, livemode, id)));
  const processing = claim.intent;
  let resolved: BcardRow | null = null;
  try {
    const bcard = await resolveBcard(deps, merchant, processing, pm);
    resolved = bcard;
    if (processing.captureMethod === 'manual') {
      const done = await deps.db.transaction(async (tx) => {
        const res = await tx
          .update(schema.bcards)
          .set({ status: 'authorized' })
          .where(and(eq(schema.bcards.id, bcard.id), eq(schema.bcards.status, 'active'), gt(schema.bcards.expiresAt, deps.clock.now())));
        if (res.rowsAffected !== 1) throw new CardDecline('card_declined', 'card_not_active', 'This bcard has been used, canceled or has expired.');
        const row = await transition(
          tx,
          deps,
          processing,
          'processing',
          'requires_capture',
          { bcardId: bcard.id, amountCapturable: processing.amount, lastPaymentError: null, authorizedAt: deps.clock.now() },
          claim,
        );
        await emitIntentEvent(tx, deps, row, 'payment_intent.amount_capturable_updated');
        return row;
      });
      return toIntentObject(done);
    }
    let done: IntentRow | undefined;
    await spendBcard(
      deps,
      bcard,
      processing.amount,
      // The consumer's transaction names the merchant as a card statement would: the intent's descriptor, if it has one.
      { merchant: shownDescriptor(merchant.businessName, processing), description: processing.description, account: accounts.merchant(merchant.id) },
      async (tx) => {
        done = await transition(
          tx,
          deps,
          processing,
          'processing',
          'succeeded',
          { bcardId: bcard.id, amountReceived: processing.amount, lastPaymentError: null },
          claim,
        );
        await emitIntentEvent(tx, deps, done, 'payment_intent.succeeded');
      },
    ).catch((e) => {
      if (e instanceof AppError && e.code === 'bcard_not_active') {
        throw new CardDecline('card_declined', 'card_not_active', 'This bcard has been used, canceled or has expired.');
      }
      throw e;
    });
    return toIntentObject(done!);
  } catch (e) {
    if (!(e instanceof CardDecline)) {
      // Not a decline (an invalid payment_method or an unexpected failure): put the intent back as it was.
      await releaseClaim(deps, claim);
      throw e;
    }
    const lastPaymentError = { type: 'card_error', code: e.code, decline_code: e.declineCode, message: e.message };
    const refused = e.bcard ?? resolved;
    await deps.db.transaction(async (tx) => {
      const row = await transition(tx, deps, processing, 'processing', 'requires_payment_method', { lastPaymentError }, claim);
      await emitIntentEvent(tx, deps, row, 'payment_intent.failed');
      // With the decline's record (this confirm's claim lets it happen once): its owner hears of it, at most once per
      // bcard and reason in a few minutes however often it is tried (noticeBcardDeclined).
      if (refused) {
        const now = await firstRow(tx, schema.bcards, eq(schema.bcards.id, refused.id));
        const reason = declineNoticeReason(e, now);
        await noticeBcardDeclined(tx, deps, now ?? refused, { merchant: merchant.businessName, amountCents: processing.amount, reason }, deps.clock.now());
      }
    });
    const err = new AppError(e.code, e.message, 'payment_method', undefined, {
      decline_code: e.declineCode,
      payment_intent: { id: processing.id, status: 'requires_payment_method' },
    });
    throw err;
  }
}

/** Captures an authorized intent (all, or `amountToCapture` of it; the rest goes back to the consumer). */
export async function captureIntent(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string, amountToCapture?: number) {
  const pi = await getIntent(deps, merchant, livemode, id);
  if (pi.status !== 'requires_capture') {
    throw new AppError('payment_intent_unexpected_state', `This PaymentIntent's status is ${pi.status}; only requires_capture can be captured.`);
  }
  const amount = amountToCapture ?? pi.amountCapturable;
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > pi.amountCapturable) {
    throw invalid('amount_to_capture', `amount_to_capture must be between 1 and ${pi.amountCapturable}.`);
  }
  const processing = await transition(deps.db, deps, pi, 'requires_capture', 'processing');
  const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, processing.bcardId ?? ''));
  if (!bcard) throw new Error(`payment intent ${pi.id} has no authorized bcard`);
  let done: IntentRow | undefined;
  try {
    await spendBcard(
      deps,
      bcard,
      amount,
      { merchant: shownDescriptor(merchant.businessName, processing), description: processing.description, account: accounts.merchant(merchant.id) },
      async (tx) => {
        done = await transition(tx, deps, processing, 'processing', 'succeeded', { amountReceived: amount, amountCapturable: 0 });
        await emitIntentEvent(tx, deps, done, 'payment_intent.succeeded');
      },
    );
  } catch (e) {
    await deps.db
      .update(schema.paymentIntents)
      .set({ status: 'requires_capture', updatedAt: deps.clock.now() })
      .where(and(eq(schema.paymentIntents.id, pi.id), eq(schema.paymentIntents.status, 'processing')));
    throw e;
  }
  return toIntentObject(done!);
}

/** What a merchant may give; `automatic` is set by bpay alone (an authorization left uncaptured for 7 days). */
export const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;

/** Cancels an intent that has not succeeded; an authorized bcard is refunded to its sources. */
export async function cancelIntent(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  id: string,
  reason: string | null,
) {
  const pi = await getIntent(deps, merchant, livemode, id);
  return toIntentObject(await cancelIntentRow(deps, pi, reason));
}

export async function cancelIntentRow(deps: AppDeps, pi: IntentRow, reason: string | null): Promise<IntentRow> {
  const set = { cancellationReason: reason, canceledAt: deps.clock.now(), amountCapturable: 0 };
  if (pi.status === 'requires_capture' && pi.bcardId) {
    const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, pi.bcardId));
    let done: IntentRow | undefined;
    // The intent's cancel is the one thing that may release an authorized bcard (the consumer's cancel may not).
    await refundUnusedBcard(
      deps,
      bcard!,
      'canceled',
      async (tx) => {
        done = await transition(tx, deps, pi, 'requires_capture', 'canceled', set);
        await emitIntentEvent(tx, deps, done, 'payment_intent.canceled');
      },
      'authorized',
    );
    return done!;
  }
  return deps.db.transaction(async (tx) => {
    const row = await transition(tx, deps, pi, ['requires_payment_method', 'requires_confirmation', 'requires_action'], 'canceled', set);
    await emitIntentEvent(tx, deps, row, 'payment_intent.canceled');
    return row;
  });
}
