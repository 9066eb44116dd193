/** POST /api/demo/checkout-intent: a fresh sandbox payment intent of the built-in demo merchant TechStore. */
export interface DemoIntent {
  id: string;
  clientSecret: string;
  /** In cents. */
  amount: number;
  currency: string;
  livemode: boolean;
  merchant: string;
  description: string | null;
}

/** GET /api/checkout/payment_intents/:id?client_secret=… (public fields only). */
export interface PublicIntent {
  id: string;
  amount: number;
  currency: string;
  status: string;
  livemode: boolean;
  description: string | null;
  merchant: { businessName: string; website: string | null };
}

/** What the demos need of a funding source (GET /api/funding-sources). */
export interface DemoFundingSource {
  id: string;
  name: string;
  last4: string;
  brand: string;
  defaultSplitPercentage: number;
  isActive: boolean;
  /** What the source can cover, decimal string; null when the processor cannot tell. */
  balance: string | null;
}

export interface DemoBenefits {
  benefits: { feePercentage?: number | null };
}

/** The /pay body's splits: percentage mode or fixed amounts (decimal strings). */
export type PaySplit = { fundingSourceId: string; percentage: number } | { fundingSourceId: string; fixedAmount: string };

export interface PayBody {
  client_secret: string;
  splits: PaySplit[];
}

/** The bcard that paid (masked: the full number and CVV never come to this page). */
export interface PaidBcard {
  id: string;
  cardholderName: string;
  cardNumber: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  amount: string;
  fee: string;
  totalCharged: string;
}

export interface PayAnswer {
  paymentIntent: { id: string; status: string; amount: number };
  bcard: PaidBcard;
  /** A sandbox intent: a sandbox test bcard paid it and the consumer's sources were not charged. */
  testMode: boolean;
}

/** The details an insufficient_funds error carries (spec §3). */
export interface InsufficientDetails {
  totalRequired: string;
  totalAvailable: string;
  insufficientSources: { fundingSourceId?: string; name: string; requiredAmount: string; availableBalance: string | null }[];
}
