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

/** GET /api/transactions/{id}. */
export interface TransactionDetail extends Transaction {
  shares: TransactionShare[];
}

export const TRANSACTION_FILTERS = ['all', 'completed', 'pending', 'failed'] as const;
export type TransactionFilter = (typeof TRANSACTION_FILTERS)[number];

export interface TransactionPage {
  items: Transaction[];
  /** From the Bpay-Next-Cursor header; null on the last page. */
  nextCursor: string | null;
}
