/*
 * The dashboard composes the money features; their types are theirs. Re-exported here so the dashboard's own
 * modules (demo data, stats) have one place to import from.
 */
export type { Bcard } from '../bcards/types';
export type { FundingSource } from '../funding-sources/api';
export type {
  KnownTransactionStatus,
  Transaction,
  TransactionDetail,
  TransactionFilter,
  TransactionRefund,
  TransactionRefundPart,
  TransactionShare,
} from '../transactions/types';

/** GET /api/subscription/benefits. maxFundingSources -1 means unlimited. */
export interface SubscriptionBenefits {
  currentTier: string;
  benefits: {
    maxFundingSources: number;
    nameVerificationRequired: boolean;
    isKycVerified: boolean;
    features: string[];
    feePercentage: number;
  };
}
