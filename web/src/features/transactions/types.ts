import type { paths } from '../../../../sdk/src/schema';

/** Known statuses; the server may send others (refunded, ...), which get a neutral style (spec §3). */
export type KnownTransactionStatus = 'completed' | 'pending' | 'failed';

/** A payment made with a bcard, as GET /api/transactions answers it. Money is in decimal strings ("42.50"). */
export interface Transaction {
  id: string;
  createdAt: string;
  merchant: string;
  amount: string;
  fee: string;
  totalCharged: string;
  /** How much of it has been refunded (a canceled bcard refunds everything). */
  refunded?: string;
  status: KnownTransactionStatus | (string & {});
  virtualCardId: string | null;
  virtualCardName: string;
  description: string;
  failureMessage: string | null;
}

/** One funding source's part of a transaction. */
export interface TransactionShare {
  fundingSourceId: string;
  name: string;
  last4: string;
  brand: string;
  percentage: number;
  amount: string;
  status: string;
}

/** GET /api/transactions/{id}, exactly as the server answers it (sdk/src/schema.d.ts, generated from the routes). */
type DetailAnswer = paths['/api/transactions/{id}']['get']['responses'][200]['content']['application/json'];

/**
 * A merchant's refund of the purchase: the purchase amount refunded and the part of the bpay fee returned with it
 * (dollars), and what went back to which funding source (`parts`, which add up to amount + fee).
 */
export type TransactionRefund = DetailAnswer['refunds'][number];
export type TransactionRefundPart = TransactionRefund['parts'][number];

/** GET /api/transactions/{id}. */
export interface TransactionDetail extends Transaction {
  shares: TransactionShare[];
  /** Newest first; empty when the merchant has refunded nothing. */
  refunds: TransactionRefund[];
}

/* The hand-written detail must be what the server answers: a field the server renames or drops breaks the typecheck. */
type Fits<A, B> = [A] extends [B] ? true : false;
const detailMatchesApi: Fits<DetailAnswer, TransactionDetail> = true;
void detailMatchesApi;

export const TRANSACTION_FILTERS = ['all', 'completed', 'pending', 'failed'] as const;
export type TransactionFilter = (typeof TRANSACTION_FILTERS)[number];

export interface TransactionPage {
  items: Transaction[];
  /** From the Bpay-Next-Cursor header; null on the last page. */
  nextCursor: string | null;
}
