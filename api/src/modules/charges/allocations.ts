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
 * it, failed.
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

/**
 * The allocations of a payment: `total` (what was captured, or the amount authorized) over the shares' parts of what
 * the bcard spent. `remainderCents` is what the purchase left on a used bcard (0 before it is used); `refunded` is each
 * share's refunded cents; `poolRefunded` what a sandbox test bcard without shares had refunded.
 */
export function chargeAllocations(input: {
  total: number;
  collection: { amountCents: number; feeCents: number };
  remainderCents: number;
  shares: ShareFunding[];
  refunded: ReadonlyMap<string, number>;
  poolRefunded: number;
}): Allocation[] {
  const shares = input.shares.filter((s) => s.amountCents > 0);
  if (shares.length === 0) return [{ amount: input.total, amount_refunded: input.poolRefunded, ...TEST_POOL_FACE, status: 'succeeded' }];
  const back = remainderBack(input.collection, input.remainderCents, shares.map((s) => s.amountCents)).parts;
  const net = shares.map((s, i) => Math.max(0, s.amountCents - (back[i] ?? 0)));
  const weights = net.some((n) => n > 0) ? net : shares.map((s) => s.amountCents);
  const parts = allocate(input.total, weights);
  return shares.map((s, i) => ({
    amount: parts[i] ?? 0,
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
 */
export function refundAllocations(
  refund: { amount: number; feeCents: number; status: 'pending' | 'succeeded' | 'failed' },
  parts: RefundPartFunding[],
): Array<RefundAllocation & { shareId: string | null }> {
  if (parts.length === 0) return [{ amount: refund.amount, ...TEST_POOL_FACE, status: refund.status, shareId: null }];
  // A refund that failed outright kept its amount, and every part failed: the amount over all of them.
  const counted = refund.status === 'failed' ? parts : parts.filter((p) => p.status !== 'failed');
  const over = counted.length > 0 && counted.some((p) => p.amountCents > 0) ? allocate(refund.amount, counted.map((p) => p.amountCents)) : [];
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
