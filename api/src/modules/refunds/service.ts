import { and, asc, desc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import { schema, type DbOrTx, type RefundReason, type RefundStatus, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../errors';
import { newId, newToken } from '../../lib/ids';
import { allocate } from '../../lib/split';
import { createdCondition, type CreatedRange } from '../../lib/created-filter';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { holdKey } from '../bcards/saga';
import { remainderBack, spentFee } from '../bcards/remainder';
import { BankDebitPendingError, bankDebitsOf, refreshBankDebit } from '../bcards/bank-debits';
import { creditOwed } from '../funding-sources/bank-standing';
import { emitEvent } from '../events/emit';
import { returnedPart } from '../bcards/notices';
import { notify } from '../notifications/service';
import { accounts, postMovement } from '../ledger/service';
import { validateMetadata } from '../payment-intents/service';
import { chargeAndRefundsOf, refundAllocationsOf } from '../charges/service';
import type { RefundAllocation } from '../charges/allocations';

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
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;
type RefundRow = typeof schema.refunds.$inferSelect;
type PartRow = typeof schema.refundParts.$inferSelect;
type ShareRow = typeof schema.collectionShares.$inferSelect;

/** How long a refund's worker owns it without renewing: longer than any one processor call may take. */
export const REFUND_LEASE_MS = 60_000;

/** The processor's idempotency key for one source's part of one refund. */
export const refundPartKey = (refundId: string, shareId: string) => `refund:${refundId}:${shareId}`;

export const REFUND_TRANSITIONS: Record<RefundStatus, readonly RefundStatus[]> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

export interface RefundObject {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: RefundReason | null;
  payment_intent: string;
  metadata: Record<string, string>;
  created: number;
  failure_reason: string | null;
  /** How much went back to each funding share of the payment (charges/allocations.ts); they sum to amount. */
  allocations: RefundAllocation[];
}

export function toRefundObject(r: RefundRow, allocations: RefundAllocation[]): RefundObject {
  return {
    id: r.id,
    object: 'refund',
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    payment_intent: r.paymentIntentId,
    metadata: r.metadata,
    created: Math.floor(r.createdAt.getTime() / 1000),
    failure_reason: r.failureReason,
    allocations,
  };
}

/** Refund objects with their allocations (one statement for all of them). */
export async function toRefundObjects(db: DbOrTx, rows: RefundRow[]): Promise<RefundObject[]> {
  const allocations = await refundAllocationsOf(db, rows);
  return rows.map((r) => toRefundObject(r, allocations.get(r.id) ?? []));
}

export async function refundObject(db: DbOrTx, row: RefundRow): Promise<RefundObject> {
  return (await toRefundObjects(db, [row]))[0]!;
}

export interface CreateRefundInput {
  payment_intent: string;
  amount?: number;
  reason?: RefundReason | null;
  metadata?: Record<string, string>;
}

const money = (c: number) => `$${formatDecimal(c as Cents)}`;

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
  collection: { amountCents: number; feeCents: number },
  shares: ShareRow[],
): Promise<number[]> {
  // What the purchase left on the bcard went back pro rata with its part of the fee, exactly as settleRefund gives it.
  const back = remainderBack(collection, usedRemainder(bcard), shares.map((s) => s.amountCents)).parts;
  const earlier = await tx
    .select({ shareId: schema.refundParts.shareId, sum: sql<number>`sum(${schema.refundParts.amountCents})` })
    .from(schema.refundParts)
    .where(and(inArray(schema.refundParts.shareId, shares.map((s) => s.id)), ne(schema.refundParts.status, 'failed')))
    .groupBy(schema.refundParts.shareId);
  const taken = new Map(earlier.map((r) => [r.shareId, Number(r.sum)]));
  return shares.map((s, i) => Math.max(0, s.amountCents - (back[i] ?? 0) - (taken.get(s.id) ?? 0)));
}

async function intentOf(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<IntentRow> {
  const pi = await firstRow(
    deps.db,
    schema.paymentIntents,
    and(eq(schema.paymentIntents.id, id), eq(schema.paymentIntents.merchantId, merchant.id), eq(schema.paymentIntents.livemode, livemode)),
  );
  if (!pi) throw new AppError('resource_not_found', `No such payment_intent: '${id}'`, 'payment_intent');
  return pi;
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
  const bcard = pi.bcardId ? await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, pi.bcardId)) : undefined;
  if (!bcard) throw new Error(`succeeded payment intent ${pi.id} has no bcard`);
  const collection = await firstRow(deps.db, schema.collections, eq(schema.collections.id, bcard.collectionId));
  if (!collection) throw new Error(`bcard ${bcard.id} has no collection`);
  const shares = await deps.db
    .select()
    .from(schema.collectionShares)
    .where(eq(schema.collectionShares.collectionId, collection.id))
    .orderBy(asc(schema.collectionShares.position));

  const at = deps.clock.now();
  const owner = newToken();
  const id = newId('re');
  const refund = await deps.db.transaction(async (tx) => {
    // What is left is read under the write lock (this transaction's first statement is a read of the row the
    // reservation then moves), so "refund the rest" takes exactly what concurrent refunds left; the guarded UPDATE
    // and the CHECK on amount_refunded back it up.
    const current = await firstRow(tx, schema.paymentIntents, eq(schema.paymentIntents.id, pi.id));
    const amount = overRefund(current ?? pi, input.amount);
    const [reserved] = await tx
      .update(schema.paymentIntents)
      .set({ amountRefunded: sql`${schema.paymentIntents.amountRefunded} + ${amount}`, updatedAt: at })
      .where(
        and(
          eq(schema.paymentIntents.id, pi.id),
          eq(schema.paymentIntents.status, 'succeeded'),
          sql`${schema.paymentIntents.amountRefunded} + ${amount} <= ${schema.paymentIntents.amountReceived}`,
        ),
      )
      .returning();
    if (!reserved) {
      overRefund((await firstRow(tx, schema.paymentIntents, eq(schema.paymentIntents.id, pi.id))) ?? pi, amount);
      throw new Error(`refund of ${pi.id}: the reservation of ${amount} failed`);
    }

    // The fee follows the refund: its share of the fee now, the rest of it with the refund that completes the payment.
    let feeCents = 0;
    if (collection.kind !== 'sandbox' && collection.feeCents > 0) {
      const [prior] = await tx
        .select({ sum: sql<number>`coalesce(sum(${schema.refunds.feeCents}), 0)` })
        .from(schema.refunds)
        .where(and(eq(schema.refunds.paymentIntentId, pi.id), ne(schema.refunds.status, 'failed')));
      // The fee that stayed with what was spent: the remainder took its own part back (bcards/remainder.ts).
      const fee = spentFee(collection, usedRemainder(bcard));
      const feeLeft = fee - Number(prior?.sum ?? 0);
      const proportional = Math.floor((fee * amount) / reserved.amountReceived);
      feeCents = Math.max(0, reserved.amountRefunded === reserved.amountReceived ? feeLeft : Math.min(proportional, feeLeft));
    }

    const seq = sql<number>`(select coalesce(max(${schema.refunds.seq}), 0) + 1 from ${schema.refunds}
      where ${schema.refunds.merchantId} = ${merchant.id} and ${schema.refunds.livemode} = ${livemode})`;
    const [row] = await tx
      .insert(schema.refunds)
      .values({
        id,
        merchantId: merchant.id,
        paymentIntentId: pi.id,
        livemode,
        amount,
        feeCents,
        currency: pi.currency,
        status: 'pending',
        reason: input.reason ?? null,
        metadata,
        requestKey,
        leaseOwner: owner,
        leaseUntil: new Date(at.getTime() + REFUND_LEASE_MS),
        seq,
        createdAt: at,
        updatedAt: at,
      })
      .returning();

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
          status: 'pending' as const,
          updatedAt: at,
        }));
      if (values.length > 0) await tx.insert(schema.refundParts).values(values);
    }
    await emitEvent(tx, { merchantId: merchant.id, livemode, type: 'refund.created', object: { ...(await refundObject(tx, row!)) }, at });
    return row!;
  });
  return { refund, lease: { refundId: refund.id, owner } };
}

interface RefundLease {
  refundId: string;
  owner: string;
}

class RefundLeaseLost extends Error {}

async function renewRefundLease(deps: AppDeps, lease: RefundLease): Promise<void> {
  const at = deps.clock.now();
  const res = await deps.db
    .update(schema.refunds)
    .set({ leaseUntil: new Date(at.getTime() + REFUND_LEASE_MS) })
    .where(and(eq(schema.refunds.id, lease.refundId), eq(schema.refunds.leaseOwner, lease.owner), eq(schema.refunds.status, 'pending')));
  if (res.rowsAffected !== 1) throw new RefundLeaseLost(`refund ${lease.refundId} is no longer this worker's`);
}

/** Moves a pending refund to `to` only while this worker holds it. */
async function finish(tx: DbOrTx, deps: AppDeps, lease: RefundLease, to: 'succeeded' | 'failed', set: Partial<RefundRow> = {}) {
  if (!REFUND_TRANSITIONS.pending?.includes(to)) throw new Error(`a refund cannot go from pending to ${to}`);
  const [row] = await tx
    .update(schema.refunds)
    .set({ ...set, status: to, updatedAt: deps.clock.now() })
    .where(and(eq(schema.refunds.id, lease.refundId), eq(schema.refunds.leaseOwner, lease.owner), eq(schema.refunds.status, 'pending')))
    .returning();
  if (!row) throw new RefundLeaseLost(`refund ${lease.refundId} is no longer this worker's`);
  return row;
}

interface LoadedRefund {
  refund: RefundRow;
  parts: Array<PartRow & { share: ShareRow; source: { name: string; type: string; brand: string; last4: string; userId: string } }>;
  /** Parts whose bank debit came back unpaid: nothing goes to the bank; the part reduces what the consumer owes. */
  returned: Set<string>;
  vendor: PaymentVendor | null;
}

async function loadRefund(deps: AppDeps, refundId: string): Promise<LoadedRefund> {
  const refund = await firstRow(deps.db, schema.refunds, eq(schema.refunds.id, refundId));
  if (!refund) throw new Error(`no refund ${refundId}`);
  const rows = await deps.db
    .select({
      part: schema.refundParts,
      share: schema.collectionShares,
      vendor: schema.collections.vendor,
      source: {
        name: schema.fundingSources.name,
        type: schema.fundingSources.type,
        brand: schema.fundingSources.brand,
        last4: schema.fundingSources.last4,
        userId: schema.fundingSources.userId,
      },
    })
    .from(schema.refundParts)
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.id, schema.refundParts.shareId))
    .innerJoin(schema.collections, eq(schema.collections.id, schema.collectionShares.collectionId))
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.refundParts.fundingSourceId))
    .where(eq(schema.refundParts.refundId, refundId))
    .orderBy(asc(schema.collectionShares.position));
  const vendorName = rows[0]?.vendor;
  // A bank share's debit must have settled before money goes back to it (it may never arrive): until then the refund
  // stays pending and the sweep comes back. One that came back unpaid offsets what the consumer owes instead.
  const debits = await bankDebitsOf(deps.db, rows.map((r) => r.share.id));
  const returned = new Set<string>();
  for (const r of rows) {
    const debit = debits.get(r.share.id);
    if (!debit) continue;
    const status = await refreshBankDebit(deps, debit);
    if (status === 'pending') throw new BankDebitPendingError(r.share.id);
    if (status === 'returned') returned.add(r.part.id);
  }
  return {
    returned,
    refund,
    parts: rows.map((r) => ({ ...r.part, share: r.share, source: r.source })),
    vendor: vendorName ? deps.vendorFor(vendorName) : null,
  };
}

/** The refund id recorded for a part that reduced what the consumer owes (its bank debit was returned). */
const OFFSET_OWED = 'offset:owed';

/** One part's answer from the processor: its refund id, or why it refused (for good). */
type PartOutcome = { ok: true; refundId: string } | { ok: false; reason: string };

/**
 * Transactions 2 and 3 of the saga: every part refunded at the processor, then the refund recorded with its ledger
 * movement and events.
 * - The processor refuses the first part: nothing has gone back, so the refund fails and its reservation on the
 *   intent is given back (a part refunded before a crash would replay, not refuse).
 * - It refuses a later part for good: the other parts still go back, and the refund succeeds for what did (its
 *   amount and fee become what went back, the rest of the reservation is given back, failure_reason names the
 *   source): no state is left that nothing will ever finish.
 * - It does not answer: the refund stays pending for the sweep, which repeats every call with its key.
 */
async function settle(deps: AppDeps, lease: RefundLease): Promise<RefundRow> {
  const loaded = await loadRefund(deps, lease.refundId);
  const { refund, parts, vendor, returned } = loaded;
  const refundAll = async (v: PaymentVendor, beforeCall: () => Promise<void>) => {
    const outcomes: PartOutcome[] = [];
    for (const part of parts) {
      if (returned.has(part.id)) {
        outcomes.push({ ok: true, refundId: OFFSET_OWED });
        continue;
      }
      await beforeCall();
      const holdId = part.share.vendorHoldId ?? (await v.findHold(holdKey(part.share.id)))?.holdId;
      if (!holdId) throw new Error(`share ${part.share.id} of a completed collection has no hold`);
      try {
        const { refundId } = await v.refund(holdId, part.amountCents, { idempotencyKey: refundPartKey(refund.id, part.share.id) });
        outcomes.push({ ok: true, refundId });
      } catch (e) {
        if (!(e instanceof VendorDeclineError)) throw e;
        if (outcomes.length === 0) throw new FirstPartRefused(e);
        outcomes.push({ ok: false, reason: e.message });
      }
    }
    return outcomes;
  };
  const record = (tx: DbOrTx, outcomes: PartOutcome[]) => recordOutcome(tx, deps, lease, loaded, outcomes);
  try {
    if (!vendor || parts.length === 0) return await deps.db.transaction((tx) => record(tx, []));
    if (vendor.within) {
      const local = vendor.within.bind(vendor);
      return await deps.db.transaction(async (tx) => record(tx, await refundAll(local(tx), async () => undefined)));
    }
    const outcomes = await refundAll(vendor, () => renewRefundLease(deps, lease));
    return await deps.db.transaction((tx) => record(tx, outcomes));
  } catch (e) {
    if (!(e instanceof FirstPartRefused)) throw e;
    return deps.db.transaction(async (tx) => {
      const row = await finish(tx, deps, lease, 'failed', { failureReason: e.reason });
      await tx.update(schema.refundParts).set({ status: 'failed', updatedAt: deps.clock.now() }).where(eq(schema.refundParts.refundId, refund.id));
      await releaseReservation(tx, deps, refund, refund.amount);
      await emitEvent(tx, { merchantId: refund.merchantId, livemode: refund.livemode, type: 'refund.updated', object: { ...(await refundObject(tx, row)) }, at: deps.clock.now() });
      return row;
    });
  }
}

/** Gives `amount` of a refund's reservation back to its intent: that much can be refunded again. */
async function releaseReservation(tx: DbOrTx, deps: AppDeps, refund: RefundRow, amount: number): Promise<void> {
  if (amount <= 0) return;
  await tx
    .update(schema.paymentIntents)
    .set({ amountRefunded: sql`${schema.paymentIntents.amountRefunded} - ${amount}`, updatedAt: deps.clock.now() })
    .where(eq(schema.paymentIntents.id, refund.paymentIntentId));
}

/**
 * A share as the merchant may see it (as the Charge's allocations show it): brand or "bank account" and the last
 * four. failure_reason goes to the merchant, so never the consumer's own name for the source.
 */
function merchantFace(source: { type: string; brand: string; last4: string }): string {
  const kind = source.type === 'bank_account' ? 'bank account' : source.brand ? source.brand[0]!.toUpperCase() + source.brand.slice(1) : 'card';
  return `${kind} •••• ${source.last4.slice(-4)}`;
}

class FirstPartRefused extends Error {
  readonly reason: string;
  constructor(override readonly cause: VendorDeclineError) {
    super(cause.message);
    this.reason = `The processor refused to refund the consumer's funding source: ${cause.message}`;
  }
}

/**
 * Of `moved` cents that went back (purchase and fee together, in the refund's proportions), the purchase's part and
 * the fee's part: never more fee than the refund carried, and at least a cent of purchase.
 */
export function splitMoved(moved: number, amount: number, fee: number): { amount: number; fee: number } {
  let feePart = Math.min(fee, Math.max(0, moved - Math.round((amount * moved) / (amount + fee))));
  let amountPart = moved - feePart;
  if (amountPart > amount) {
    amountPart = amount;
    feePart = moved - amount;
  }
  if (amountPart < 1) {
    amountPart = 1;
    feePart = moved - 1;
  }
  return { amount: amountPart, fee: feePart };
}

async function recordOutcome(tx: DbOrTx, deps: AppDeps, lease: RefundLease, loaded: LoadedRefund, outcomes: PartOutcome[]): Promise<RefundRow> {
  const { refund, parts } = loaded;
  const at = deps.clock.now();
  const went = parts.filter((_, i) => outcomes[i]?.ok);
  const refused = parts.map((p, i) => ({ p, o: outcomes[i] })).filter((x) => x.o && !x.o.ok);
  let settled = { amount: refund.amount, fee: refund.feeCents };
  let failureReason: string | null = null;
  if (refused.length > 0) {
    settled = splitMoved(went.reduce((a, p) => a + p.amountCents, 0), refund.amount, refund.feeCents);
    failureReason = refused
      .map(({ p, o }) => `The processor refused to refund share ${p.share.position + 1} (${merchantFace(p.source)}) ${money(p.amountCents)}: ${o && !o.ok ? o.reason : ''}`)
      .concat('The refund covers what went back to the other sources.')
      .join(' ');
    deps.log.error('a refund went back only in part: the processor refused a source', { refundId: refund.id, refused: refused.map((r) => r.p.id) });
  }
  const row = await finish(tx, deps, lease, 'succeeded', refused.length > 0 ? { amount: settled.amount, feeCents: settled.fee, failureReason } : {});
  for (const [i, part] of parts.entries()) {
    const o = outcomes[i];
    await tx
      .update(schema.refundParts)
      .set(o && !o.ok ? { status: 'failed', updatedAt: at } : { status: 'succeeded', vendorRefundId: o?.ok ? o.refundId : null, updatedAt: at })
      .where(eq(schema.refundParts.id, part.id));
  }
  await releaseReservation(tx, deps, refund, refund.amount - settled.amount);
  const merchant = accounts.merchant(refund.merchantId);
  await postMovement(tx, {
    kind: 'refund.succeeded',
    referenceId: refund.id,
    at,
    postings:
      parts.length === 0
        ? [
            { account: merchant, amountCents: -refund.amount },
            { account: accounts.sandboxTestFunds, amountCents: refund.amount },
          ]
        : await creditOwed(tx, parts[0]!.source.userId, [
            { account: merchant, amountCents: -settled.amount },
            { account: accounts.fees, amountCents: -settled.fee },
            ...went.map((p) => ({
              account: loaded.returned.has(p.id) ? accounts.receivable(p.source.userId) : accounts.fundingSource(p.fundingSourceId),
              amountCents: p.amountCents,
            })),
          ]),
  });
  await noticeMerchantRefund(tx, deps, loaded, went, at);
  const pi = await firstRow(tx, schema.paymentIntents, eq(schema.paymentIntents.id, refund.paymentIntentId));
  const owner = { merchantId: refund.merchantId, livemode: refund.livemode, at };
  // The refund with its allocations, and (as Stripe's charge.refunded) the Charge, with each share's amount_refunded:
  // both read together (charges/service.ts chargeAndRefundsOf, two statements), as this transaction leaves them.
  const { charge, refunds } = pi ? await chargeAndRefundsOf(tx, pi) : { charge: null, refunds: new Map<string, RefundAllocation[]>() };
  const allocations = refunds.get(row.id);
  await emitEvent(tx, { ...owner, type: 'refund.updated', object: { ...(allocations ? toRefundObject(row, allocations) : await refundObject(tx, row)) } });
  if (charge) await emitEvent(tx, { ...owner, type: 'charge.refunded', object: { ...charge } });
  return row;
}

/**
 * The consumer hears of a merchant's refund in the transaction that records it succeeded (finish() is guarded by the
 * lease and the pending status, so a retried request or the sweep finishing it cannot tell it twice). `amount` is all
 * the refund gave back, the fee's part included; `parts` what reached each source (a part that went to what the
 * consumer owes, its bank debit returned, is in the amount and not a source's). A sandbox refund has no consumer.
 */
async function noticeMerchantRefund(tx: DbOrTx, deps: AppDeps, loaded: LoadedRefund, went: LoadedRefund['parts'], at: Date): Promise<void> {
  const first = loaded.parts[0];
  // A sandbox payment's bcard is the merchant's own test bcard (payment.ts takes no other): nobody to tell.
  if (!first || went.length === 0 || !loaded.refund.livemode) return;
  const merchant = await firstRow(tx, schema.merchants, eq(schema.merchants.id, loaded.refund.merchantId));
  const toSources = went.filter((p) => !loaded.returned.has(p.id));
  await notify(
    tx,
    deps,
    first.source.userId,
    'merchant_refund',
    {
      merchant: merchant?.businessName ?? '',
      amount: formatDecimal(went.reduce((a, p) => a + p.amountCents, 0) as Cents),
      parts: toSources.map((p) => returnedPart(p.source, p.amountCents)),
      transactionId: first.share.collectionId,
    },
    at,
  );
}

/** Takes over a pending refund whose worker is gone (its lease ran out); null when it is not (or no longer) one. */
async function takeOver(deps: AppDeps, id: string): Promise<RefundLease | null> {
  const at = deps.clock.now();
  const owner = newToken();
  const taken = await deps.db
    .update(schema.refunds)
    .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + REFUND_LEASE_MS) })
    .where(and(eq(schema.refunds.id, id), eq(schema.refunds.status, 'pending'), lt(schema.refunds.leaseUntil, at)));
  return taken.rowsAffected === 1 ? { refundId: id, owner } : null;
}

/** settle(), whose failure leaves the refund pending for the sweep (it is committed: never to be made again). */
async function settleOrLeave(deps: AppDeps, lease: RefundLease): Promise<RefundObject> {
  try {
    return await refundObject(deps.db, await settle(deps, lease));
  } catch (error) {
    const expected = error instanceof VendorUnavailableError || error instanceof VendorDeclineError || error instanceof RefundLeaseLost;
    deps.log[expected ? 'warn' : 'error']('a refund could not be settled now; the money sweep will finish it', { refundId: lease.refundId, error });
    const now = await firstRow(deps.db, schema.refunds, eq(schema.refunds.id, lease.refundId));
    if (!now) throw error;
    return refundObject(deps.db, now);
  }
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
      : firstRow(deps.db, schema.refunds, and(eq(schema.refunds.merchantId, merchant.id), eq(schema.refunds.requestKey, requestKey)));
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
  return settleOrLeave(deps, started.lease);
}

/** Finishes every pending refund whose worker is gone (its lease ran out). Returns how many it settled. */
export async function recoverRefunds(deps: AppDeps): Promise<number> {
  const stale = await deps.db
    .select({ id: schema.refunds.id })
    .from(schema.refunds)
    .where(and(eq(schema.refunds.status, 'pending'), lt(schema.refunds.leaseUntil, deps.clock.now())))
    .limit(100);
  let settled = 0;
  for (const { id } of stale) {
    const lease = await takeOver(deps, id);
    if (!lease) continue;
    try {
      await settle(deps, lease);
      settled++;
    } catch (error) {
      if (error instanceof BankDebitPendingError) deps.log.info('a refund waits for a bank debit to settle', { refundId: id });
      else deps.log.error('recovery of a refund failed; the next sweep tries again', { refundId: id, error });
    }
  }
  return settled;
}

export async function getRefund(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<RefundObject> {
  const row = await firstRow(
    deps.db,
    schema.refunds,
    and(eq(schema.refunds.id, id), eq(schema.refunds.merchantId, merchant.id), eq(schema.refunds.livemode, livemode)),
  );
  if (!row) throw new AppError('resource_not_found', `No such refund: '${id}'`, 'id');
  return refundObject(deps.db, row);
}

export interface ListRefundsInput {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  payment_intent?: string;
  /** Only refunds created in this range (lib/created-filter.ts). */
  created?: CreatedRange;
}

/** Newest first, Stripe's cursor pagination, optionally one payment intent's. Fails with: validation_error. */
export async function listRefunds(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: ListRefundsInput, url = '/api/v1/refunds') {
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
  if (q.starting_after && q.ending_before) throw invalid('ending_before', 'Give starting_after or ending_before, not both.');
  const r = schema.refunds;
  const anchorOf = async (param: 'starting_after' | 'ending_before', id: string) => {
    const a = await firstRow(deps.db, r, and(eq(r.id, id), eq(r.merchantId, merchant.id), eq(r.livemode, livemode)));
    if (!a) throw invalid(param, `${param} is not one of your refunds: '${id}'.`);
    return a.seq;
  };
  const c = q.created ?? {};
  // One intent's refunds are read from its own index, once the intent is known to be this merchant's (and mode's):
  // never by walking the merchant's whole history for them.
  if (q.payment_intent) await intentOf(deps, merchant, livemode, q.payment_intent);
  const scope = and(
    q.payment_intent ? eq(r.paymentIntentId, q.payment_intent) : and(eq(r.merchantId, merchant.id), eq(r.livemode, livemode)),
    createdCondition(r.createdAt, c),
  );
  if (q.ending_before) {
    const seq = await anchorOf('ending_before', q.ending_before);
    let rows = (await deps.db.select().from(r).where(and(scope, gt(r.seq, seq))).orderBy(asc(r.seq)).limit(q.limit + 1)).reverse();
    const hasMore = rows.length > q.limit;
    if (hasMore) rows = rows.slice(1);
    return { object: 'list' as const, url, has_more: hasMore, data: await toRefundObjects(deps.db, rows) };
  }
  const after = q.starting_after ? await anchorOf('starting_after', q.starting_after) : null;
  const rows = await deps.db
    .select()
    .from(r)
    .where(and(scope, after === null ? undefined : lt(r.seq, after)))
    .orderBy(desc(r.seq))
    .limit(q.limit + 1);
  return { object: 'list' as const, url, has_more: rows.length > q.limit, data: await toRefundObjects(deps.db, rows.slice(0, q.limit)) };
}
