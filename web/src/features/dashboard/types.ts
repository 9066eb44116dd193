/** A linked card, as the funding-sources API will answer it (spec §3). `balance` is a decimal string such as "1250.00". */
export interface FundingSource {
  id: string;
  name: string;
  type: 'credit_card';
  last4: string;
  brand: 'visa' | 'mastercard' | 'amex' | 'unknown';
  defaultSplitPercentage: number;
  isActive: boolean;
  balance: string;
}

/** Known statuses; the server may send others, which get a neutral style (spec §3). */
export type KnownTransactionStatus = 'completed' | 'pending' | 'failed';

/** A payment made with a bcard (spec §3). `amount` is a decimal string in dollars such as "42.50". */
export interface Transaction {
  id: string;
  createdAt: string;
  merchant: string;
  amount: string;
  status: KnownTransactionStatus | (string & {});
  virtualCardName: string;
  description: string;
}

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
