/** A funding source's part of a bcard. */
export interface BcardFunding {
  fundingSourceId: string;
  name: string;
  last4: string;
  brand: string;
  percentage: number;
  /** Decimal string: this source's share of the total charged. */
  amount: string;
  /** The share's state at the processor (held, captured, refunded...), as the server reports it. */
  status: string;
}

/** The server may add statuses; unknown ones are shown neutrally. */
export type BcardStatus = 'active' | 'used' | 'expired' | 'canceled' | (string & {});

/** A single-use virtual card, as GET /api/virtual-cards answers it. Money is in decimal strings ("100.00"). */
export interface Bcard {
  id: string;
  name: string;
  cardholderName: string;
  /** Masked: "•••• •••• •••• 4821". The full number only comes from checkout-details. */
  cardNumber: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  /** What is left to spend. */
  balance: string;
  /** The collected amount. */
  spendingLimit: string;
  interval: string;
  status: BcardStatus;
  expiresAt: string;
  createdAt: string;
  amount: string;
  fee: string;
  totalCharged: string;
  transactionId: string | null;
  fundingSources: BcardFunding[];
}

/** GET /api/virtual-cards/{id}/checkout-details: the only place the full number shows (each reveal is recorded). */
export interface CheckoutDetails {
  cardNumber: string;
  expiryMonth: number | string;
  expiryYear: number | string;
  cvv: string;
  isDemoCard: boolean;
}

/** What the Create bcard dialog needs to know of a funding source (the funding-sources feature's shape fits it). */
export interface FundingOption {
  id: string;
  name: string;
  last4: string;
  /** visa, mastercard, amex, ... (the configurator shows it when given). */
  brand?: string;
  balance: string | null;
  defaultSplitPercentage: number;
  isActive: boolean;
  /** credit_card, debit_card, prepaid_card or bank_account. */
  type?: string;
  /** A bank account funds bcards only once verified. */
  bankAccount?: { verificationStatus: string } | null;
}

export interface CreateBcardBody {
  name: string;
  cardholderName: string;
  /** The purchase amount. */
  balance: string;
  /**
   * Every entry with a percentage: split by percentage (amount informative). Otherwise every entry's amount is its
   * fixed share of amount + fee.
   */
  fundingSources: { fundingSourceId: string; percentage?: number; amount: string }[];
  spendingLimit: string;
  interval: 'monthly';
}
