import type { FundingSourceType } from '@bpay/db';
import { allocate } from '../../lib/split';
import { remainderBack } from '../bcards/remainder';

/*
 * How a payment and its refunds divide among the funding shares of the bcard that paid, in the merchant's cents.
 *
 * A share's part of a payment is what it captured less what the purchase's unspent remainder gave back to it
 * (bcards/remainder.ts, as refunds/service.ts refundableByShare reads it). Those parts include the consumer's bpay fee,
 * which is between bpay and the consumer: the merchant's allocations are the payment's amount divided over them by
 * largest remainder, so they sum exactly to what the merchant was paid and keep each share's proportion.
 *
 * A refund's parts (refund_parts) likewise carry the fee that followed the refund: its allocations divide the refund's
 * amount over the parts that went (or are going) back, and a part the processor refused shows the purchase's part of
 * it, failed. Each refund's division is capped by what each share still has room for (its charge allocation less what
 * earlier refunds gave it, in refund order: refundsAllocations), so that the two roundings (the payment's over the
 * shares, each refund's over its parts) never show a share more refunded than it was allocated, and a full refund
 * leaves every share's amount_refunded equal to its amount.
 */

export type Funding = 'credit' | 'debit' | 'prepaid' | 'bank_account';
export type AllocationStatus = 'succeeded' | 'pending' | 'failed';

/** What a merchant may see of a funding source: its funding type, brand and last 4 digits. */
export interface Face {
  funding: Funding;
  brand: string | null;
  last4: string;
}

export interface Allocation extends Face {
  amount: number;
  amount_refunded: number;
  status: AllocationStatus;
}

export interface RefundAllocation extends Face {
  amount: number;
  status: 'pending' | 'succeeded' | 'failed';
}

/**
 * The face of a sandbox test bcard funded from the one test pool (`sandbox:test_funds`, no shares): Stripe's test Visa.
 * A sandbox bcard collected from test sources (shares) shows those instead.
 */
export const TEST_POOL_FACE: Face = { funding: 'credit', brand: 'visa', last4: '4242' };

const FUNDING_OF: Record<FundingSourceType, Funding> = {
  credit_card: 'credit',
  debit_card: 'debit',
  prepaid_card: 'prepaid',
  bank_account: 'bank_account',
};

export function faceOf(source: { type: FundingSourceType; brand: string; last4: string }): Face {
  const funding = FUNDING_OF[source.type] ?? 'credit';
  return { funding, brand: funding === 'bank_account' ? null : source.brand, last4: source.last4.slice(-4) };
}

export interface ShareFunding {
  shareId: string;
  /** What the share captured (its part of the bcard's amount plus fee). */
  amountCents: number;
  face: Face;
  /** The share's bank debit, if it is a bank share: pending until it settles, returned when the bank sent it back. */
  debitStatus: 'pending' | 'settled' | 'returned' | null;
  /** The share's own status (returned: a bank debit that came back). */
  shareStatus: string;
}

function shareStatus(s: ShareFunding): AllocationStatus {
  if (s.debitStatus === 'pending') return 'pending';
  if (s.debitStatus === 'returned' || s.shareStatus === 'returned') return 'failed';
  return 'succeeded';
}

/** What a payment's allocations are computed from (charges/service.ts chargeInput). */
export interface ChargeInput {
  total: number;
  collection: { amountCents: number; feeCents: number };
  remainderCents: number;
  shares: ShareFunding[];
}

/** Each share's allocation of the payment (by share id; shares that captured nothing have none). */
export function chargeAmounts(input: ChargeInput): Map<string, number> {
  const shares = input.shares.filter((s) => s.amountCents > 0);
  if (shares.length === 0) return new Map();
  const back = remainderBack(input.collection, input.remainderCents, shares.map((s) => s.amountCents)).parts;
  const net = shares.map((s, i) => Math.max(0, s.amountCents - (back[i] ?? 0)));
  const weights = net.some((n) => n > 0) ? net : shares.map((s) => s.amountCents);
  const parts = allocate(input.total, weights);
  return new Map(shares.map((s, i) => [s.shareId, parts[i] ?? 0]));
}

/**
 * The allocations of a payment: `total` (what was captured, or the amount authorized) over the shares' parts of what
 * the bcard spent. `remainderCents` is what the purchase left on a used bcard (0 before it is used); `refunded` is each
 * share's refunded cents; `poolRefunded` what a sandbox test bcard without shares had refunded.
 */
export function chargeAllocations(input: ChargeInput & { refunded: ReadonlyMap<string, number>; poolRefunded: number }): Allocation[] {
  const shares = input.shares.filter((s) => s.amountCents > 0);
  if (shares.length === 0) return [{ amount: input.total, amount_refunded: input.poolRefunded, ...TEST_POOL_FACE, status: 'succeeded' }];
  const amounts = chargeAmounts(input);
  return shares.map((s) => ({
    amount: amounts.get(s.shareId) ?? 0,
    amount_refunded: input.refunded.get(s.shareId) ?? 0,
    ...s.face,
    status: shareStatus(s),
  }));
}

export interface RefundPartFunding {
  shareId: string;
  amountCents: number;
  status: 'pending' | 'succeeded' | 'failed';
  face: Face;
}

/**
 * A refund's allocations, in the shares' order, each with its share's id (for the charge's per-share amount_refunded;
 * strip it before answering). A refund without parts (a sandbox test bcard from the test pool) is one allocation.
 *
 * `room`, when given, is what each share may still be allocated (its charge allocation less what earlier refunds gave
 * it): a counted refund's division is capped by it, the cents over a share's room moved to this refund's other counted
 * parts that have room (largest part first, then position), and the room is taken down by what this refund gives.
 * Without room enough on this refund's parts (only if a share was left out of it), the rest stays on its largest part,
 * so that the allocations still sum to the refund's amount.
 */
export function refundAllocations(
  refund: { amount: number; feeCents: number; status: 'pending' | 'succeeded' | 'failed' },
  parts: RefundPartFunding[],
  room?: Map<string, number>,
): Array<RefundAllocation & { shareId: string | null }> {
  if (parts.length === 0) return [{ amount: refund.amount, ...TEST_POOL_FACE, status: refund.status, shareId: null }];
  // A refund that failed outright kept its amount, and every part failed: the amount over all of them.
  const counted = refund.status === 'failed' ? parts : parts.filter((p) => p.status !== 'failed');
  let over = counted.length > 0 && counted.some((p) => p.amountCents > 0) ? allocate(refund.amount, counted.map((p) => p.amountCents)) : [];
  if (room && refund.status !== 'failed' && over.length > 0) {
    over = capped(over, counted.map((p) => Math.max(0, room.get(p.shareId) ?? 0)), counted.map((p) => p.amountCents));
    counted.forEach((p, i) => room.set(p.shareId, (room.get(p.shareId) ?? 0) - (over[i] ?? 0)));
  }
  const amountOf = new Map(counted.map((p, i) => [p, over[i] ?? 0]));
  const gross = refund.amount + refund.feeCents;
  return parts.map((p) => ({
    // A part refused while others went back (the refund's amount is then what went back): the purchase's part of it.
    amount: amountOf.get(p) ?? (gross > 0 ? Math.round((p.amountCents * refund.amount) / gross) : p.amountCents),
    ...p.face,
    status: p.status,
    shareId: p.shareId,
  }));
}

/** `amounts` capped at `room` each, the excess given to the places with room left, largest weight then position first. */
function capped(amounts: number[], room: number[], weights: number[]): number[] {
  const out = amounts.map((a, i) => Math.min(a, room[i] ?? 0));
  let excess = amounts.reduce((s, a) => s + a, 0) - out.reduce((s, a) => s + a, 0);
  if (excess === 0) return out;
  const order = weights.map((w, i) => ({ w, i })).sort((a, b) => b.w - a.w || a.i - b.i).map((x) => x.i);
  for (const i of order) {
    const give = Math.min(excess, (room[i] ?? 0) - out[i]!);
    if (give <= 0) continue;
    out[i]! += give;
    excess -= give;
    if (excess === 0) return out;
  }
  out[order[0]!]! += excess;
  return out;
}

/**
 * The allocations of each of a payment's refunds, by refund id, `refunds` in their order (seq): each counted refund
 * (pending or succeeded) is capped by its shares' room left (refundAllocations), starting from the charge's allocations.
 */
export function refundsAllocations(
  charge: ChargeInput,
  refunds: Array<{ refund: { id: string; amount: number; feeCents: number; status: 'pending' | 'succeeded' | 'failed' }; parts: RefundPartFunding[] }>,
): Map<string, Array<RefundAllocation & { shareId: string | null }>> {
  const room = chargeAmounts(charge);
  return new Map(refunds.map(({ refund, parts }) => [refund.id, refundAllocations(refund, parts, room)]));
}

/** Each share's refunded cents over refunds that did not fail (pending ones count, as amount_refunded counts them). */
export function refundedByShare(all: Array<Array<RefundAllocation & { shareId: string | null }>>): { byShare: Map<string, number>; pool: number } {
  const byShare = new Map<string, number>();
  let pool = 0;
  for (const allocations of all) {
    for (const a of allocations) {
      if (a.status === 'failed') continue;
      if (a.shareId === null) pool += a.amount;
      else byShare.set(a.shareId, (byShare.get(a.shareId) ?? 0) + a.amount);
    }
  }
  return { byShare, pool };
}

export const publicRefundAllocation = ({ shareId: _, ...a }: RefundAllocation & { shareId: string | null }): RefundAllocation => a;
