export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'unknown';

export type FundingSourceType = 'credit_card' | 'debit_card' | 'prepaid_card' | 'bank_account';

/** A bank account's part of a source: routing number, type and where its micro-deposit verification stands. */
export interface BankAccountInfo {
  routingNumber: string;
  accountType: 'checking' | 'savings';
  verificationStatus: 'pending' | 'verified' | 'failed';
  verificationAttemptsLeft: number;
}

/** A linked card or bank account, as GET /api/funding-sources answers it (spec §3). */
export interface FundingSource {
  id: string;
  name: string;
  /** A card's type is the processor's answer (its funding). */
  type: FundingSourceType;
  funding: 'credit' | 'debit' | 'prepaid' | 'unknown' | null;
  last4: string;
  brand: CardBrand;
  /** null for a bank account. */
  expiryMonth: number | null;
  expiryYear: number | null;
  bankAccount: BankAccountInfo | null;
  /** 0–100. */
  defaultSplitPercentage: number;
  isActive: boolean;
  /** Available at the processor as a decimal string ("10000.00"); null when the processor cannot tell. */
  balance: string | null;
  createdAt: string;
}

/** POST /api/funding-sources answers 202 with this when the card needs 3-D Secure. */
export interface RequiresAction {
  status: 'requires_action';
  verificationId: string;
  message: string;
}

export interface CreateFundingSourceBody {
  cardNumber: string;
  expiryMonth: string;
  expiryYear: string;
  cvv: string;
  name: string;
  type: 'credit_card';
  last4: string;
  brand: string;
  defaultSplitPercentage: number;
}

export interface UpdateFundingSourceBody {
  name?: string;
  defaultSplitPercentage?: number;
  isActive?: boolean;
}

/** The plan facts the funding-source screens need (from GET /api/subscription/benefits, read by the dashboard). */
export interface SourcePlan {
  currentTier: string;
  /** -1 means unlimited. */
  maxFundingSources: number;
  /** Unverified accounts must add cards in their own name. */
  nameVerificationRequired: boolean;
  isKycVerified: boolean;
}

/** POST /api/funding-sources/bank-accounts. The account number goes to the processor and is never stored. */
export interface CreateBankAccountBody {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  name: string;
  defaultSplitPercentage: number;
}

/** GET /api/funding-sources/bank-standing: what is owed for returned bank debits, and bank money still settling. */
export interface BankStanding {
  owed: string;
  restricted: boolean;
  unsettledBankExposure: string;
  bankExposureCap: string;
  returnedDebits: Array<{ bcardName: string; amount: string; returnCode: string; returnMessage: string; fundingSourceId: string; returnedAt: string }>;
}
