import { and, desc, eq, ne, sql } from 'drizzle-orm';
import { schema, firstRow, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import { returnedDebit } from '../../vendors/stripe';
import { applyBankDebitOutcome, type BankDebitOutcome } from '../bcards/bank-debit-outcome';
import { accountBalance, accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import { DuplicateEvent, markApplied, wasApplied } from './stripe-returns';

/*
 * Stripe's events about bpay's own money (issue 26), through the webhook of stripe-webhook.ts (signed, applied once by
 * event id: the stripe_events row is written in the transaction of the effect):
 *
 * - An ACH bank debit's outcome. Stripe sends payment_intent.succeeded when the debit settles, and
 *   payment_intent.payment_failed with charge.failed when the bank returns it, also after it had succeeded (a
 *   late return: the charge moves from succeeded to failed). Both are applied as the sweep's poll applies what it
 *   learns (bcards/bank-debit-outcome.ts): settled, or returned with the NACHA code of the failed charge; a returned
 *   debit whose bcard is unused cancels the bcard. Guarded on the debit's status, so the two events of one return,
 *   or an event and a poll, apply it once. The PaymentIntents of card holds (every captured share sends
 *   payment_intent.succeeded) are answered and ignored.
 * - A refund to a funding share that failed after bpay made it (refund.failed, refund.updated or
 *   charge.refund.updated with status failed or canceled): the money did not reach the card. Its ledger credit is
 *   reversed into payable:<user> (bpay owes the consumer), the failure is kept (share_refund_failures, listed for
 *   admins) and the consumer is told, once per refund however many events tell of it.
 *
 * An event about a debit or refund bpay does not know is logged and answered 200 (Stripe stops sending it), and
 * nothing is written.
 */

type EventMeta = { id: string; type: string };
type Outcome = 'applied' | 'duplicate' | 'ignored';

export const BANK_DEBIT_EVENT_TYPES = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.failed'] as const;
export const REFUND_EVENT_TYPES = ['refund.failed', 'refund.updated', 'charge.refund.updated'] as const;

const isCents = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
/** A Stripe reference: an id, an expanded object with an id, or nothing. */
const isRef = (v: unknown) => optString(v) || (isObject(v) && typeof v.id === 'string');
const refId = (v: unknown): string | null => (typeof v === 'string' ? v : isObject(v) && typeof v.id === 'string' ? v.id : null);

/**
 * What bpay reads of these events' objects, checked before it is read: a signed event of another shape is a clear
 * 400, never a 500. Null when the shape is right (or the type is not one of these).
 */
export function moneyShapeProblem(type: string, o: Record<string, unknown>): string | null {
  if (type.startsWith('payment_intent.')) {
    if (typeof o.id !== 'string') return 'data.object.id must be the PaymentIntent id';
    if (typeof o.status !== 'string') return 'data.object.status must be a PaymentIntent status';
    if (o.metadata !== undefined && o.metadata !== null && !isObject(o.metadata)) return 'data.object.metadata must be an object';
    if (!isRef(o.latest_charge)) return 'data.object.latest_charge must be a charge id or a charge';
    const e = o.last_payment_error;
    if (e !== undefined && e !== null && (!isObject(e) || !optString(e.code) || !optString(e.message))) {
      return 'data.object.last_payment_error must be an error with a code';
    }
    if (isObject(o.latest_charge) && (!optString(o.latest_charge.failure_code) || !optString(o.latest_charge.failure_message))) {
      return 'data.object.latest_charge.failure_code must be a code';
    }
  }
  if (type === 'charge.failed') {
    if (typeof o.id !== 'string') return 'data.object.id must be the charge id';
    if (!isRef(o.payment_intent)) return 'data.object.payment_intent must be a PaymentIntent id';
    if (!optString(o.failure_code) || !optString(o.failure_message)) return 'data.object.failure_code must be a code';
  }
  if ((REFUND_EVENT_TYPES as readonly string[]).includes(type)) {
    if (typeof o.id !== 'string') return 'data.object.id must be the refund id';
    if (!isCents(o.amount) || (o.amount as number) <= 0) return 'data.object.amount must be whole cents above zero';
    if (typeof o.status !== 'string') return 'data.object.status must be a refund status';
    if (!isRef(o.payment_intent)) return 'data.object.payment_intent must be a PaymentIntent id';
    if (!optString(o.failure_reason)) return 'data.object.failure_reason must be a code';
    if (!optString(o.currency)) return 'data.object.currency must be a currency code';
    if (o.metadata !== undefined && o.metadata !== null && !isObject(o.metadata)) return 'data.object.metadata must be an object';
  }
  return null;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Bank debits
 * ------------------------------------------------------------------------------------------------------------- */

/** Applies one event of an ACH debit (its shape checked by moneyShapeProblem). */
export async function bankDebitEvent(deps: AppDeps, event: EventMeta, o: Record<string, unknown>): Promise<Outcome> {
  let piId: string | null;
  let state: BankDebitOutcome;
  /** Whether the object says it is a bank debit: one bpay does not know is then worth a log line. */
  let looksLikeDebit: boolean;
  if (event.type === 'charge.failed') {
    piId = refId(o.payment_intent);
    state = returnedDebit({ failure_code: o.failure_code as string | null, failure_message: o.failure_message as string | null }, null);
    looksLikeDebit = isObject(o.payment_method_details) && o.payment_method_details.type === 'us_bank_account';
  } else {
    piId = o.id as string;
    const charge = isObject(o.latest_charge) ? (o.latest_charge as { failure_code?: string | null; failure_message?: string | null }) : null;
    state = event.type === 'payment_intent.succeeded' ? { status: 'succeeded' } : returnedDebit(charge, o.last_payment_error as { code?: string | null } | null);
    looksLikeDebit = isObject(o.metadata) && o.metadata.bpay_purpose === 'bank_debit';
  }
  const debit = piId ? await firstRow(deps.db, schema.bankDebits, eq(schema.bankDebits.vendorDebitId, piId)) : undefined;
  if (!debit) {
    // A card hold's PaymentIntent (captured, or declined) is no debit: ignored without a word.
    if (looksLikeDebit) deps.log.warn('a Stripe event names a bank debit bpay does not know; nothing was recorded', { eventId: event.id, type: event.type, paymentIntent: piId });
    return 'ignored';
  }
  if (await wasApplied(deps.db, event.id)) return 'duplicate';
  try {
    const r = await applyBankDebitOutcome(deps, debit, state, (tx) => markApplied(tx, deps, event));
    if (!r.moved && state.status === 'succeeded' && r.status === 'returned') {
      deps.log.info('a Stripe event says a debit succeeded after bpay recorded it returned; the return stands', { eventId: event.id, shareId: debit.shareId });
    }
    return 'applied';
  } catch (e) {
    if (e instanceof DuplicateEvent) return 'duplicate';
    throw e;
  }
}

/* ---------------------------------------------------------------------------------------------------------------
 * Refunds that failed
 * ------------------------------------------------------------------------------------------------------------- */

/** Applies one refund event (its shape checked by moneyShapeProblem): a failed or canceled refund to a share. */
export async function refundEvent(deps: AppDeps, event: EventMeta, o: Record<string, unknown>): Promise<Outcome> {
  // Only a refund that did not reach the card matters here (refund.updated also tells of one that succeeded).
  if (o.status !== 'failed' && o.status !== 'canceled') return 'ignored';
  const refundId = o.id as string;
  const amount = o.amount as number;
  const reason = typeof o.failure_reason === 'string' && o.failure_reason ? o.failure_reason : o.status === 'canceled' ? 'canceled' : 'unknown';
  const piId = refId(o.payment_intent);
  const share = piId ? await firstRow(deps.db, schema.collectionShares, eq(schema.collectionShares.vendorHoldId, piId)) : undefined;
  const key = isObject(o.metadata) && typeof o.metadata.bpay_idempotency_key === 'string' ? o.metadata.bpay_idempotency_key : null;
  if (!share) {
    // A plan's refund, or a refund bpay did not make: logged for the team, nothing recorded.
    deps.log[key ? 'error' : 'warn']('a Stripe refund failed that refunded no funding share bpay knows; nothing was recorded', {
      eventId: event.id,
      refund: refundId,
      paymentIntent: piId,
      key,
      reason,
    });
    return 'ignored';
  }
  if (!(await creditedUnder(deps.db, key, share))) {
    // Not a refund bpay made and counted (no bpay key naming this share, or a share bpay never refunded, e.g. one
    // refunded by hand in Stripe's dashboard): there is no credit to reverse and bpay owes nothing (hostile review).
    deps.log.error('a Stripe refund of a funding share failed that bpay did not count as refunded; nothing was recorded', {
      eventId: event.id,
      refund: refundId,
      shareId: share.id,
      key,
      reason,
    });
    return 'ignored';
  }
  if (await wasApplied(deps.db, event.id)) return 'duplicate';
  if (await refusedPart(deps.db, key, share.id)) {
    // bpay never counted this refund as gone: nothing to reverse, nothing owed.
    deps.log.warn('a Stripe refund failed that bpay had recorded as refused; nothing to reverse', { eventId: event.id, refund: refundId, key });
    try {
      await deps.db.transaction((tx) => markApplied(tx, deps, event));
      return 'applied';
    } catch (e) {
      if (e instanceof DuplicateEvent) return 'duplicate';
      throw e;
    }
  }
  const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, share.fundingSourceId));
  const collection = await firstRow(deps.db, schema.collections, eq(schema.collections.id, share.collectionId));
  if (!source || !collection) throw new Error(`share ${share.id}: no funding source or collection`);
  const at = deps.clock.now();
  let recorded: boolean;
  try {
    recorded = await deps.db.transaction(async (tx) => {
      await markApplied(tx, deps, event);
      // Once per refund: refund.failed and charge.refund.updated both tell of the same failure.
      const [written] = await tx
        .insert(schema.shareRefundFailures)
        .values({
          id: newId('rfail'),
          vendorRefundId: refundId,
          shareId: share.id,
          collectionId: share.collectionId,
          userId: collection.userId,
          fundingSourceId: share.fundingSourceId,
          amountCents: amount,
          currency: typeof o.currency === 'string' && o.currency ? o.currency.toLowerCase() : 'usd',
          failureReason: reason,
          createdAt: at,
        })
        .onConflictDoNothing()
        .returning({ id: schema.shareRefundFailures.id });
      if (!written) return false;
      // Never more than the share could have been credited in all (a refund cannot exceed the captured share): an
      // event's amount past it is logged and clamped (hostile review of issue 26).
      const [before] = await tx
        .select({ sum: sql<number>`coalesce(sum(${schema.shareRefundFailures.amountCents}), 0)` })
        .from(schema.shareRefundFailures)
        .where(and(eq(schema.shareRefundFailures.shareId, share.id), ne(schema.shareRefundFailures.id, written.id)));
      const reversed = Math.min(amount, share.amountCents - Number(before?.sum ?? 0));
      if (reversed !== amount) {
        deps.log.error('a failed refund is larger than what is left of its share; reversing only that', { refund: refundId, shareId: share.id, amount, reversed });
        await tx.update(schema.shareRefundFailures).set({ amountCents: Math.max(reversed, 0) }).where(eq(schema.shareRefundFailures.id, written.id));
      }
      if (reversed <= 0) return false;
      // The refund's credit to the source is reversed: the money stayed with bpay, which owes it to the consumer.
      await postMovement(tx, {
        kind: 'refund.failed',
        referenceId: refundId,
        at,
        postings: [
          { account: accounts.fundingSource(share.fundingSourceId), amountCents: -reversed },
          { account: accounts.payable(collection.userId), amountCents: reversed },
        ],
      });
      await notify(
        tx,
        deps,
        collection.userId,
        'refund_failed',
        { sourceName: source.name, last4: source.last4, amount: formatDecimal(reversed as Cents), reason, transactionId: collection.id },
        at,
      );
      return true;
    });
  } catch (e) {
    if (e instanceof DuplicateEvent) return 'duplicate';
    throw e;
  }
  if (recorded) deps.log.error('a refund to a funding source failed at Stripe: bpay owes the consumer the amount (payable)', {
    refund: refundId,
    shareId: share.id,
    userId: collection.userId,
    amount,
    reason,
  });
  return 'applied';
}

/**
 * Whether bpay refunded this share under this key and counted the money as gone to its source, i.e. there is a credit
 * a failure reverses. bpay's refunds of a share carry its key in the refund's metadata: `refund:<share>` (an unused
 * bcard's or a remainder's refund: the share is then `refunded`), `refund:<refund>:<share>` (a merchant refund's
 * part: recorded in refund_parts) or `refund:<share>:iauth:<authorization>:<before>` (a card network's return).
 */
async function creditedUnder(db: DbOrTx, key: string | null, share: { id: string; status: string }): Promise<boolean> {
  const parts = key?.split(':') ?? [];
  if (parts[0] !== 'refund') return false;
  if (parts.length === 2) return parts[1] === share.id && share.status === 'refunded';
  if (parts.length === 3) {
    if (parts[2] !== share.id) return false;
    return Boolean(await firstRow(db, schema.refundParts, and(eq(schema.refundParts.refundId, parts[1]!), eq(schema.refundParts.shareId, share.id))));
  }
  return parts.length === 5 && parts[1] === share.id && parts[2] === 'iauth';
}

/**
 * Whether the refund under this key is a merchant refund's part that bpay recorded as refused (refunds/settle.ts:
 * the processor answered failed when asked, so the part is `failed` and nothing was credited to the source). Its
 * key is `refund:<refund>:<share>` (refundPartKey); the other refund keys name the share second and are not parts.
 */
async function refusedPart(db: DbOrTx, key: string | null, shareId: string): Promise<boolean> {
  const [prefix, refund, share, ...rest] = key?.split(':') ?? [];
  if (prefix !== 'refund' || !refund || share !== shareId || rest.length > 0) return false;
  const part = await firstRow(db, schema.refundParts, and(eq(schema.refundParts.refundId, refund), eq(schema.refundParts.shareId, shareId)));
  return part?.status === 'failed';
}

/* ---------------------------------------------------------------------------------------------------------------
 * For admins: the refunds that did not reach a card (what bpay owes consumers)
 * ------------------------------------------------------------------------------------------------------------- */

export interface RefundFailureView {
  id: string;
  refundId: string;
  user: { id: string; email: string | null };
  fundingSource: { id: string; name: string; last4: string };
  amount: string;
  currency: string;
  failureReason: string | null;
  transactionId: string;
  createdAt: string;
  /** What bpay owes this user in all now (payable:<user>), dollars. */
  owedToUser: string;
}

/** Failed refunds to funding shares, newest first (at most 100), of one user or of everyone. */
export async function listRefundFailures(db: DbOrTx, filter: { userId?: string | null }): Promise<RefundFailureView[]> {
  const rows = await db
    .select({ f: schema.shareRefundFailures, email: schema.users.email, name: schema.fundingSources.name, last4: schema.fundingSources.last4 })
    .from(schema.shareRefundFailures)
    .leftJoin(schema.users, eq(schema.users.id, schema.shareRefundFailures.userId))
    .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.shareRefundFailures.fundingSourceId))
    .where(filter.userId ? eq(schema.shareRefundFailures.userId, filter.userId) : undefined)
    .orderBy(desc(schema.shareRefundFailures.createdAt), desc(schema.shareRefundFailures.id))
    .limit(100);
  const owed = new Map<string, number>();
  for (const r of rows) if (!owed.has(r.f.userId)) owed.set(r.f.userId, await accountBalance(db, accounts.payable(r.f.userId)));
  return rows.map(({ f, email, name, last4 }) => ({
    id: f.id,
    refundId: f.vendorRefundId,
    user: { id: f.userId, email: email ?? null },
    fundingSource: { id: f.fundingSourceId, name: name ?? '', last4: last4 ?? '' },
    amount: formatDecimal(f.amountCents as Cents),
    currency: f.currency,
    failureReason: f.failureReason,
    transactionId: f.collectionId,
    createdAt: f.createdAt.toISOString(),
    owedToUser: formatDecimal((owed.get(f.userId) ?? 0) as Cents),
  }));
}
