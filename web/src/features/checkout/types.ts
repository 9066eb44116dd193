/** GET /api/checkout/payment_intents/:id?client_secret=…: what anyone holding the client secret may see. */
export interface PublicIntent {
  id: string;
  /** In cents. */
  amount: number;
  currency: string;
  status: string;
  livemode: boolean;
  description: string | null;
  merchant: { businessName: string; website: string | null };
}

/** What the checkout needs of a funding source (GET /api/funding-sources). */
export interface CheckoutSource {
  id: string;
  name: string;
  last4: string;
  brand: string;
  /** 0–100. */
  defaultSplitPercentage: number;
  isActive: boolean;
  /** Decimal string; null when the processor cannot tell. */
  balance: string | null;
}

export interface CheckoutBenefits {
  benefits: { feePercentage: number };
}

export interface PayBody {
  client_secret: string;
  /** The amount (cents) the page showed: the server refuses the payment if the merchant changed it since. */
  amount: number;
  splits: { fundingSourceId: string; percentage: number }[];
}

export interface PayAnswer {
  paymentIntent: { id: string; status: string; amount: number };
  bcard: { id: string; totalCharged: string; amount: string; fee: string };
  /** A sandbox intent: paid with a sandbox test bcard, the consumer's cards were not charged. */
  testMode: boolean;
}

/** The details an insufficient_funds error carries (spec §3). */
export interface InsufficientDetails {
  totalRequired: string;
  totalAvailable: string;
  insufficientSources: { fundingSourceId?: string; name: string; requiredAmount: string; availableBalance: string | null }[];
}
