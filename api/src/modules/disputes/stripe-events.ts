import { and, eq } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { applyDisputeFact, type DisputeOutcome } from './service';

/*
 * Stripe's dispute events (charge.dispute.created / updated / closed / funds_withdrawn / funds_reinstated), through
 * the Stripe webhook (issuing/stripe-webhook.ts verifies the signature and the shape, then hands them here). Every one
 * carries the dispute as it is now; its status says where the money is, so each event is applied as that fact
 * (service.ts), whatever its type and in whatever order the events arrive:
 *
 *   needs_response, under_review, appeal_*  the money was withdrawn: open
 *   won, prevented                          it came back to bpay: won (prevented: never withdrawn: won too, if seen open)
 *   lost                                    the card keeps it: lost
 *   warning_needs_response, warning_under_review, warning_closed
 *                                           an inquiry: the issuer asks, no money moves, nothing is restricted; an
 *                                           inquiry that escalates shows the chargeback statuses above
 *
 * The share is found by the dispute's PaymentIntent (a card share's hold is one: vendors/stripe/holds.ts), or by the
 * charge when Stripe expanded it. A dispute of a charge that is not a bpay share is logged and answered 200, nothing
 * written (Stripe stops sending it). Applied once per event id: stripe_events is written in the transaction of the
 * effect, and a replay answers duplicate.
 */

export const DISPUTE_EVENT_PREFIX = 'charge.dispute.';

const OUTCOMES: Record<string, DisputeOutcome | null> = {
  needs_response: 'open',
  under_review: 'open',
  appeal_needs_response: 'open',
  appeal_under_review: 'open',
  won: 'won',
  prevented: 'won',
  lost: 'lost',
  warning_needs_response: null,
  warning_under_review: null,
  warning_closed: null,
};

/** A Stripe dispute status as bpay's fact (null: no money moves); unknown statuses move none either. */
export const outcomeOfStripeStatus = (status: string): DisputeOutcome | null => OUTCOMES[status] ?? null;

const idOf = (v: unknown): string | null =>
  typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : null;

const isRef = (v: unknown) => v === undefined || v === null || idOf(v) !== null;

/**
 * What bpay reads of a dispute, checked before it is read (a signed event of another shape is a clear 400, never a
 * 500): its id, amount, status, and where it points (payment_intent or charge, an id or an expanded object).
 */
export function disputeShapeProblem(type: string, o: Record<string, unknown>): string | null {
  if (!type.startsWith(DISPUTE_EVENT_PREFIX)) return null;
  if (typeof o.id !== 'string' || !o.id) return 'data.object.id must be the dispute id';
  if (typeof o.amount !== 'number' || !Number.isSafeInteger(o.amount) || o.amount < 0) return 'data.object.amount must be whole cents';
  if (typeof o.status !== 'string') return 'data.object.status must be a dispute status';
  if (o.reason !== undefined && o.reason !== null && typeof o.reason !== 'string') return 'data.object.reason must be a reason code';
  if (!isRef(o.payment_intent)) return 'data.object.payment_intent must be a PaymentIntent id';
  if (!isRef(o.charge)) return 'data.object.charge must be a charge id';
  if (idOf(o.payment_intent) === null && idOf(o.charge) === null) return 'a dispute needs data.object.payment_intent or data.object.charge';
  return null;
}

/** The PaymentIntent a dispute is about: its own field, or an expanded charge's. */
function paymentIntentOf(o: Record<string, unknown>): string | null {
  const direct = idOf(o.payment_intent);
  if (direct) return direct;
  const charge = o.charge;
  return charge && typeof charge === 'object' ? idOf((charge as { payment_intent?: unknown }).payment_intent) : null;
}

async function shareOfPaymentIntent(deps: AppDeps, paymentIntent: string) {
  const [row] = await deps.db
    .select({ id: schema.collectionShares.id })
    .from(schema.collectionShares)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.collectionShares.collectionId))
    .where(and(eq(schema.collectionShares.vendorHoldId, paymentIntent), eq(schema.collections.vendor, 'stripe')))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Applies one verified charge.dispute.* event (the shape checked by disputeShapeProblem). `markApplied` records the
 * event id in the effect's transaction and throws when it was applied before; the caller turns that into a
 * duplicate answer. Answers 'applied', or 'ignored' when the dispute is not of a bpay share (nothing written).
 */
export async function receiveStripeDispute(
  deps: AppDeps,
  event: { id: string; type: string },
  o: Record<string, unknown>,
  markApplied: (tx: DbOrTx) => Promise<void>,
): Promise<'applied' | 'ignored'> {
  const disputeId = o.id as string;
  const paymentIntent = paymentIntentOf(o);
  const shareId = paymentIntent ? await shareOfPaymentIntent(deps, paymentIntent) : null;
  if (!shareId) {
    deps.log.warn('a Stripe dispute of a charge that is not a bpay funding share: answered, nothing recorded', {
      eventId: event.id,
      disputeId,
      paymentIntent,
      charge: idOf(o.charge),
    });
    return 'ignored';
  }
  const status = o.status as string;
  const outcome = outcomeOfStripeStatus(status);
  if (!(status in OUTCOMES)) deps.log.warn('a Stripe dispute status bpay does not know: recorded, no money moved', { disputeId, status });
  await applyDisputeFact(
    deps,
    {
      vendor: 'stripe',
      vendorDisputeId: disputeId,
      shareId,
      amountCents: o.amount as number,
      reason: typeof o.reason === 'string' && o.reason ? o.reason : 'general',
      vendorStatus: status,
      outcome,
    },
    markApplied,
  );
  return 'applied';
}
