import { allocate } from '../../lib/split';

/*
 * What a used bcard's unspent remainder gives back, in one place for everyone who needs to know it: settleRefund
 * (which moves it), a merchant's refund and a Stripe Issuing return (which must not give the same money back twice),
 * and a returned bank debit (whose share's part of it is not owed).
 *
 * The fee follows the money as it does for a merchant's refund (refunds/service.ts, docs/DECISIONS.md): the consumer
 * paid the fee on the bcard's whole amount, so the unspent part takes its pro-rata part of the fee back with it,
 * floor(fee × remainder / amount) (all of it when nothing was spent), and the rest of the fee stays with what was
 * spent, to follow a merchant's refunds of it. Remainder and fee part go back together through the split by largest
 * remainder over the shares' amounts, so the parts sum exactly to what left the bcard and bpay:fees.
 */

export interface RemainderBack {
  /** The purchase's unspent part: what leaves the bcard's account. */
  remainderCents: number;
  /** Its pro-rata part of the fee: what leaves bpay:fees. */
  feeCents: number;
  /** remainderCents + feeCents. */
  totalCents: number;
  /** Each share's part of totalCents, in the shares' order (largest remainder over their amounts). */
  parts: number[];
}

/** The fee's part that goes back with `remainderCents` of a bcard of `amountCents` whose fee was `feeCents`. */
export function remainderFee(feeCents: number, amountCents: number, remainderCents: number): number {
  if (remainderCents <= 0 || amountCents <= 0 || feeCents <= 0) return 0;
  if (remainderCents >= amountCents) return feeCents;
  return Math.floor((feeCents * remainderCents) / amountCents);
}

/**
 * What a used bcard gives back to its shares when the purchase left `remainderCents` on it. `collection` is the
 * bcard's collection (amountCents = the bcard's limit, feeCents = the fee its shares paid on top).
 */
export function remainderBack(
  collection: { amountCents: number; feeCents: number },
  remainderCents: number,
  shareAmounts: readonly number[],
): RemainderBack {
  const remainder = Math.max(0, remainderCents);
  const fee = remainderFee(collection.feeCents, collection.amountCents, remainder);
  const total = remainder + fee;
  return {
    remainderCents: remainder,
    feeCents: fee,
    totalCents: total,
    parts: total > 0 ? allocate(total, [...shareAmounts]) : shareAmounts.map(() => 0),
  };
}

/** The fee that stays with what a used bcard spent: what its merchant's refunds (or a card network's returns) give back. */
export function spentFee(collection: { amountCents: number; feeCents: number }, remainderCents: number): number {
  return collection.feeCents - remainderFee(collection.feeCents, collection.amountCents, Math.max(0, remainderCents));
}
