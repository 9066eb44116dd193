/*
 * Shapes of the admin API (spec §3, §7). Money may come as a decimal string ("42.50") or a number; the
 * display helpers accept both. Fields the spec marks optional are optional here so a partial answer still renders.
 */
export type Amount = string | number;
export type UserRole = 'user' | 'merchant' | 'admin';
export type KycStatus = 'pending' | 'processing' | 'verified' | 'failed' | 'requires_input';
export type VendorMode = 'test' | 'live';

export interface AdminSession {
  admin: { username: string; loginTime: string };
}

export interface AdminDashboard {
  revenue: { total: Amount };
  users: { total: number };
  merchants: { total: number; active?: number };
  /** total: attempts (finished collections); issued: those that issued a bcard; successRate = issued / total. */
  bcardGeneration: { successRate: number; total: number; issued: number };
  fundingPool: { balance: Amount };
  transactions: { volume: Amount; total?: number };
  fundingDeductions: { successRate: number };
  bcardsToday: number;
}

export interface TierLimits {
  fundingSources: number | null;
  monthlyTransactions: number | null;
  apiCallsPerMonth: number | null;
  bcardGenerationLimit: number | null;
}

export interface AdminTier {
  id: string;
  name: string;
  displayName: string;
  monthlyPrice: Amount;
  transactionFeeRate: Amount;
  features: string[];
  limits: TierLimits;
  isActive: boolean;
}

export interface TierBody {
  name: string;
  displayName: string;
  /** Dollars. */
  monthlyPrice: number;
  /** A fraction: 0.029 = 2.9 %. */
  transactionFeeRate: number;
  features: string[];
  limits: TierLimits;
  isActive: boolean;
}

export interface AdminUser {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  role: UserRole;
  country?: string | null;
  createdAt: string;
  isKycVerified?: boolean;
  tier?: { id: string; name: string; displayName: string } | null;
}

export interface PersonRef {
  id?: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
}

export interface AdminUserSubscription {
  id?: string;
  userId: string;
  tierId: string;
  status: string;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  user?: PersonRef | null;
  tier?: { displayName: string; name?: string; monthlyPrice?: Amount } | null;
}

export interface SubscriptionAnalytics {
  totalSubscriptionRevenue: Amount;
  subscriptionsByTier: { tierName: string; count: number; monthlyRevenue: Amount }[];
}

export interface AdminMerchant {
  id: string;
  businessName: string;
  businessEmail: string;
  website: string | null;
  platformType: string;
  environment: 'sandbox' | 'production' | string;
  isActive: boolean;
  totalVolume: Amount;
  createdAt: string;
  apiKey?: string;
  publicApiKey?: string;
  owner?: PersonRef | null;
  user?: PersonRef | null;
}

export interface AdminAnalytics {
  paymentVolumeByDay: { date: string; amount: Amount }[];
  bcardsByDay: { date: string; count: number }[];
  sharesPerPayment: { shares: number; count: number }[];
  revenueByPlan: { plan: string; revenue: Amount }[];
}

export interface KycOverview {
  totalVerifications: number;
  pendingVerifications: number;
  verifiedUsers: number;
  rejectedVerifications: number;
  averageProcessingTime: number | null;
}

export interface KycDocument {
  id: string;
  name?: string;
  contentType?: string;
  size?: number;
}

export interface KycVerification {
  id: string;
  user?: PersonRef | null;
  userId?: string;
  verificationType: string;
  documentType: string;
  documentCountry: string;
  status: KycStatus;
  riskScore: number | null;
  adminNotes: string | null;
  errorMessage?: string | null;
  createdAt?: string;
  submittedAt?: string;
  firstName?: string | null;
  lastName?: string | null;
  dateOfBirth?: string | null;
  documentNumber?: string | null;
  documents?: KycDocument[];
}

export interface VendorModeConfig {
  publishableKey: string | null;
  secretKeySet: boolean;
  secretKeyLast4: string | null;
  webhookSecretSet: boolean;
  webhookSecretLast4: string | null;
}

export type VendorFeature = 'paymentProcessing' | 'cardIssuing' | 'identity' | 'connect';

export interface VendorConfig {
  /** What the running server uses; a saved mode or key takes effect at the next start. */
  inUse: { vendor: 'simulated' | 'stripe'; mode: VendorMode | null; source: 'environment' | 'admin' | 'default' };
  mode: VendorMode;
  features: Record<VendorFeature, boolean>;
  test: VendorModeConfig;
  live: VendorModeConfig;
}
