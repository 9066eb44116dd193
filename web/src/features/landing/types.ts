/** A plan as `GET /api/subscription/tiers` returns it (spec §3). Money is in dollars and the fee is a fraction. */
export interface TierLimits {
  /** -1 (or a missing value) means unlimited. */
  fundingSources: number | null;
  monthlyTransactions: number | null;
  bcardGenerationLimit: number | null;
  apiCallsPerMonth: number | null;
}

export interface SubscriptionTier {
  id: string;
  /** starter | free | pro | premium, or an admin-made name. */
  name: string;
  displayName: string;
  monthlyPrice: number;
  transactionFeeRate: number;
  limits: TierLimits;
  features: string[];
}

export interface TiersResponse {
  tiers: SubscriptionTier[];
}
