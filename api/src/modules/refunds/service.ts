import { and, eq, ne, sql } from 'drizzle-orm';
import { setPlaceholder } from '../../lib/set-placeholder';
import { schema, type DbOrTx, type RefundReason, prepared, preparedPerCount } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../errors';
import { newId, newToken } from '../../lib/ids';
import { allocate } from '../../lib/split';
import { remainderBack, spentFee } from '../bcards/remainder';
import { emitEvent } from '../events/emit';
import { validateMetadata } from '../payment-intents/service';
import { intentById, intentOf, money, refundObject, type RefundObject } from './objects';
import { REFUND_LEASE_MS, takeOver } from './lease';
import { settleOrLeave } from './settle';

/*
 * A merchant's refunds of a succeeded payment intent, Stripe-shaped, on top of the money engine.
 *
 * The money goes back the way it came: a bcard-paid intent's refund returns to the consumer's funding sources in the
 * proportions the bcard was funded (largest remainder, over what each share can still give back), with the matching
 * part of the consumer's bpay fee (docs/DECISIONS.md: the fee follows the refund, all of it when the payment is
 * refunded in full; "all of it" is the fee that stayed with what the bcard spent, since its unspent remainder took
 * its own pro-rata part back: bcards/remainder.ts). A sandbox intent's refund returns to `sandbox:test_funds`; no consumer money is touched.
 *
 * The saga: (1) one transaction reserves the amount on the intent (amount_refunded, guarded so concurrent refunds
 * never pass amount_received), writes the refund (pending, under a lease) and each source's part, and emits
 * refund.created; (2) each part is refunded at the processor under a key derived from the refund and the share;
 * (3) one transaction records the processor's ids, the ledger movement, the refund's success and the events
 * refund.updated and charge.refunded. With the simulator, (2) runs inside (3): one commit. A crash between them
 * leaves a pending refund whose lease runs out; the money sweep (recoverRefunds) repeats (2) and (3) with the same
 * keys, so no part is ever refunded twice.
 *
 * Here: transaction (1) and createRefund. settle.ts: (2), (3) and the sweep; lease.ts: who holds a pending refund;
 * objects.ts: the Refund object, getRefund and listRefunds.
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;
type ShareRow = typeof schema.collectionShares.$inferSelect;

export interface CreateRefundInput {
  payment_intent: string;
  amount?: number;
  reason?: RefundReason | null;
  metadata?: Record<string, string>;
}

/*
 * The statements of transaction 1 and the reads before it, built once (db/prepared.ts): only their values change from
 * one refund to the next. The mode in the seq's subquery is bound raw (no column to encode it): 0 or 1, as stored.
 */
const refundByRequestKey = prepared((db) =>
  db
    .select()
    .from(schema.refunds)
    .where(and(eq(schema.refunds.merchantId, sql.placeholder('merchantId')), eq(schema.refunds.requestKey, sql.placeholder('requestKey'))))
    .limit(1)
    .prepare(),
);
/** The bcard that paid, its collection and the collection's shares (none for a one-pool sandbox test bcard): one read. */
const paidWith = prepared((db) =>
  db
    .select({ bcard: schema.bcards, collection: schema.collections, share: schema.collectionShares })
    .from(schema.bcards)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.bcards.collectionId))
    .leftJoin(schema.collectionShares, eq(schema.collectionShares.collectionId, schema.collections.id))
    .where(eq(schema.bcards.id, sql.placeholder('bcardId')))
    .prepare(),
);
const reserveOnIntent = prepared((db) =>
  db
    .update(schema.paymentIntents)
    .set({ amountRefunded: sql`${schema.paymentIntents.amountRefunded} + ${sql.placeholder('amount')}`, updatedAt: setPlaceholder<Date>('at') })
    .where(
      and(
        eq(schema.paymentIntents.id, sql.placeholder('id')),
        eq(schema.paymentIntents.status, 'succeeded'),
        sql`${schema.paymentIntents.amountRefunded} + ${sql.placeholder('amount')} <= ${schema.paymentIntents.amountReceived}`,
      ),
    )
    .returning()
    .prepare(),
);
const feeRefunded = prepared((db) =>
  db
    .select({ sum: sql<number>`coalesce(sum(${schema.refunds.feeCents}), 0)` })
    .from(schema.refunds)
    .where(and(eq(schema.refunds.paymentIntentId, sql.placeholder('paymentIntentId')), ne(schema.refunds.status, 'failed')))
    .prepare(),
);
const insertRefund = prepared((db) => {
  const seq = sql<number>`(select coalesce(max(${schema.refunds.seq}), 0) + 1 from ${schema.refunds}
    where ${schema.refunds.merchantId} = ${sql.placeholder('merchantId')} and ${schema.refunds.livemode} = ${sql.placeholder('livemodeRaw')})`;
  return db
    .insert(schema.refunds)
    .values({
      id: sql.placeholder('id'),
      merchantId: sql.placeholder('merchantId'),
      paymentIntentId: sql.placeholder('paymentIntentId'),
      livemode: sql.placeholder('livemode'),
      amount: sql.placeholder('amount'),
      feeCents: sql.placeholder('feeCents'),
      currency: sql.placeholder('currency'),
      status: 'pending',
      reason: sql.placeholder('reason'),
      metadata: sql.placeholder('metadata'),
      failureReason: null,
      requestKey: sql.placeholder('requestKey'),
      leaseOwner: sql.placeholder('leaseOwner'),
      leaseUntil: sql.placeholder('leaseUntil'),
      seq,
      createdAt: sql.placeholder('at'),
      updatedAt: sql.placeholder('at'),
    })
    .returning()
    .prepare();
});
/**
 * A refund's parts (one per share that gives back, 1–5) in one multi-row insert, built once for each number of rows
 * (db/prepared.ts preparedPerCount): row i's placeholders are `<column>i`.
 */
type PartValues = Array<{ id: string; refundId: string; shareId: string; fundingSourceId: string; amountCents: number; updatedAt: Date }>;
const insertParts = preparedPerCount((db, n) =>
  db
    .insert(schema.refundParts)
    .values(
      Array.from({ length: n }, (_, i) => ({
        id: sql.placeholder(`id${i}`),
        refundId: sql.placeholder(`refundId${i}`),
        shareId: sql.placeholder(`shareId${i}`),
        fundingSourceId: sql.placeholder(`fundingSourceId${i}`),
        amountCents: sql.placeholder(`amountCents${i}`),
        status: 'pending' as const,
        vendorRefundId: null,
        updatedAt: sql.placeholder(`updatedAt${i}`),
      })),
    )
    .prepare(),
);
function partValues(rows: PartValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  rows.forEach((r, i) => {
    for (const [k, v] of Object.entries(r)) out[`${k}${i}`] = v;
  });
  return out;
}

/** What earlier refunds (not failed) took from each share of a collection. */
const takenByShare = prepared((db) =>
  db
    .select({ shareId: schema.refundParts.shareId, sum: sql<number>`sum(${schema.refundParts.amountCents})` })
    .from(schema.refundParts)
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.id, schema.refundParts.shareId))
    .where(and(eq(schema.collectionShares.collectionId, sql.placeholder('collectionId')), ne(schema.refundParts.status, 'failed')))
    .groupBy(schema.refundParts.shareId)
    .prepare(),
);

/**
 * The amount a refund takes: `requested`, or all that is left. Fails with: charge_already_refunded (nothing left),
 * amount_too_large on amount (more than is left, also when concurrent refunds took it first; Stripe's code).
 */
function overRefund(pi: Pick<IntentRow, 'id' | 'amountReceived' | 'amountRefunded'>, requested: number | undefined): number {
  const left = pi.amountReceived - pi.amountRefunded;
  if (left <= 0) throw new AppError('charge_already_refunded', `PaymentIntent ${pi.id} has already been refunded in full.`, 'payment_intent');
  if (requested !== undefined && requested > left) {
    throw new AppError(
      'amount_too_large',
      `Refund amount (${money(requested)}) is greater than the amount not yet refunded on this PaymentIntent (${money(left)}).`,
      'amount',
    );
  }
  return requested ?? left;
}

/** What a used bcard's purchase left on it (and so went back with its part of the fee); 0 before it is used. */
const usedRemainder = (bcard: typeof schema.bcards.$inferSelect) => (bcard.status === 'used' ? bcard.limitCents - bcard.spentCents : 0);

/** What each share can still give back: its captured amount, less what a purchase's remainder and earlier refunds took. */
async function refundableByShare(
  tx: DbOrTx,
  bcard: typeof schema.bcards.$inferSelect,
  collection: { id: string; amountCents: number; feeCents: number },
  shares: ShareRow[],
): Promise<number[]> {
  // What the purchase left on the bcard went back pro rata with its part of the fee, exactly as settleRefund gives it.
  const back = remainderBack(collection, usedRemainder(bcard), shares.map((s) => s.amountCents)).parts;
  const earlier = await takenByShare(tx).all({ collectionId: collection.id });
  const taken = new Map(earlier.map((r) => [r.shareId, Number(r.sum)]));
  return shares.map((s, i) => Math.max(0, s.amountCents - (back[i] ?? 0) - (taken.get(s.id) ?? 0)));
}

/**
 * Starts a refund (transaction 1 of the saga) and returns it with its lease. Fails with: resource_not_found
 * (payment_intent), payment_intent_unexpected_state (not succeeded), charge_already_refunded, amount_too_large
 * (amount above what is left to refund, also when a concurrent refund took it first).
 */
async function startRefund(deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: CreateRefundInput, requestKey: string | null) {
  const pi = await intentOf(deps, merchant, livemode, input.payment_intent);
  if (pi.status !== 'succeeded') {
    const hint = pi.status === 'requires_capture' ? ' To release an authorization, cancel the PaymentIntent.' : '';
    throw new AppError(
      'payment_intent_unexpected_state',
      `This PaymentIntent's status is ${pi.status}; only a succeeded PaymentIntent can be refunded.${hint}`,
      'payment_intent',
    );
  }
  if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount < 1)) {
    throw invalid('amount', 'amount must be a positive integer number of cents.');
  }
  const metadata = validateMetadata(input.metadata);
  // Checked again, under the write lock, in the transaction below: these are the early answers.
  overRefund(pi, input.amount);
  const paid = pi.bcardId ? await paidWith(deps.db).all({ bcardId: pi.bcardId }) : [];
  if (paid.length === 0) throw new Error(`succeeded payment intent ${pi.id} has no bcard with a collection`);
  const { bcard, collection } = paid[0]!;
  // A collection has 1–5 shares: ordered here, so the statement needs no sort.
  const shares = paid.flatMap((r) => (r.share ? [r.share] : [])).sort((a, b) => a.position - b.position);

  const at = deps.clock.now();
  const owner = newToken();
  const id = newId('re');
  const refund = await deps.db.transaction(async (tx) => {
    // What is left is read under the write lock (this transaction's first statement is a read of the row the
    // reservation then moves), so "refund the rest" takes exactly what concurrent refunds left; the guarded UPDATE
    // and the CHECK on amount_refunded back it up.
    const current = await intentById(tx).get({ id: pi.id });
    const amount = overRefund(current ?? pi, input.amount);
    const reserved = await reserveOnIntent(tx).get({ id: pi.id, amount, at });
    if (!reserved) {
      overRefund((await intentById(tx).get({ id: pi.id })) ?? pi, amount);
      throw new Error(`refund of ${pi.id}: the reservation of ${amount} failed`);
    }

    // The fee follows the refund: its share of the fee now, the rest of it with the refund that completes the payment.
    let feeCents = 0;
    if (collection.kind !== 'sandbox' && collection.feeCents > 0) {
      const prior = await feeRefunded(tx).get({ paymentIntentId: pi.id });
      // The fee that stayed with what was spent: the remainder took its own part back (bcards/remainder.ts).
      const fee = spentFee(collection, usedRemainder(bcard));
      const feeLeft = fee - Number(prior?.sum ?? 0);
      const proportional = Math.floor((fee * amount) / reserved.amountReceived);
      feeCents = Math.max(0, reserved.amountRefunded === reserved.amountReceived ? feeLeft : Math.min(proportional, feeLeft));
    }

    const row = await insertRefund(tx).get({
      id,
      merchantId: merchant.id,
      paymentIntentId: pi.id,
      livemode,
      livemodeRaw: livemode ? 1 : 0,
      amount,
      feeCents,
      currency: pi.currency,
      reason: input.reason ?? null,
      metadata,
      requestKey,
      leaseOwner: owner,
      leaseUntil: new Date(at.getTime() + REFUND_LEASE_MS),
      at,
    });

    // A consumer's bcard, or a split sandbox test bcard (test-helpers/split.ts): back through its shares. The one-pool
    // sandbox test bcard has none: its refund goes back to sandbox:test_funds (recordOutcome).
    if (shares.length > 0) {
      // Back through the split: proportional to what each share can still give back, which keeps the original
      // proportions and never asks a source's charge for more than it has left.
      const refundable = await refundableByShare(tx, bcard, collection, shares);
      const total = amount + feeCents;
      const sum = refundable.reduce((a, b) => a + b, 0);
      if (sum < total) throw new Error(`refund ${id}: the shares of ${collection.id} can give back ${sum}, not ${total}`);
      const parts = allocate(total, refundable);
      const values = shares
        .map((s, i) => ({ share: s, amountCents: parts[i] ?? 0 }))
        .filter((p) => p.amountCents > 0)
        .map((p) => ({
          id: newId('rp'),
          refundId: id,
          shareId: p.share.id,
          fundingSourceId: p.share.fundingSourceId,
          amountCents: p.amountCents,
          updatedAt: at,
        }));
      if (values.length > 0) await insertParts(tx, values.length).run(partValues(values));
    }
    if (!row) throw new Error(`refund ${id} was not written`);
    await emitEvent(tx, { merchantId: merchant.id, livemode, type: 'refund.created', object: { ...(await refundObject(tx, row)) }, at });
    return row;
  });
  return { refund, lease: { refundId: refund.id, owner } };
}

/**
 * Refunds a succeeded payment intent (all that is left, or `amount` of it). Answers the refund: succeeded, or pending
 * when the processor did not answer (the sweep finishes it), or failed when the processor refused it outright.
 * `requestKey` (the Idempotency-Key's record) finds the refund an earlier attempt of the same request made: a retry
 * that took over a dead request's key answers that refund (finishing it if its worker is gone), never a second one.
 */
export async function createRefund(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  input: CreateRefundInput,
  requestKey: string | null = null,
): Promise<RefundObject> {
  const earlier = async () =>
    requestKey === null
      ? undefined
      : refundByRequestKey(deps.db).get({ merchantId: merchant.id, requestKey });
  const found = await earlier();
  if (found) {
    const lease = found.status === 'pending' ? await takeOver(deps, found.id) : null;
    return lease ? settleOrLeave(deps, lease) : refundObject(deps.db, found);
  }
  let started: Awaited<ReturnType<typeof startRefund>>;
  try {
    started = await startRefund(deps, merchant, livemode, input, requestKey);
  } catch (e) {
    // Two attempts of one request at once (a takeover while the first was still starting): the first one's refund.
    const raced = await earlier();
    if (raced) return refundObject(deps.db, raced);
    throw e;
  }
  // The refund as transaction 1 wrote it, and the merchant's name for the consumer's notice: not read again.
  return settleOrLeave(deps, started.lease, { refund: started.refund, merchantName: merchant.businessName });
}
