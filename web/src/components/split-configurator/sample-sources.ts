/*
 * The built-in sample funding sources that signed-out visitors and demo mode split with (spec: merchant/demos §3
 * "Demo funding source", §6). Nothing here is a real account: the ids and payment-method ids say "demo".
 *
 * Amounts are chosen so that the default purchase ($150 + 2.9 % = $154.35, split 60/40 = $92.61 + $61.74) is
 * covered, while the third card's small available credit ($120.00) cannot cover a whole purchase: a visitor who
 * puts 100 % on it sees the insufficient-funds message.
 */
import type { SplitSourceOption } from './split-rules';

export interface DemoFundingSource {
  id: string;
  name: string;
  type: 'credit_card' | 'bank_account';
  last4: string;
  brand: 'visa' | 'mastercard' | 'amex' | 'bank';
  /** Decimal string: what a card owes, or what a bank account holds. */
  balance: string;
  /** Cards only (null for the bank account). */
  creditLimit: string | null;
  /** Cards only: creditLimit − balance (null for the bank account). */
  availableCredit: string | null;
  defaultSplitPercentage: number;
  stripePaymentMethodId: string;
  /** Rewards earned per dollar, in percent (null: none). */
  rewardsRate: number | null;
  accountType: 'credit' | 'checking';
  bankName: string;
}

export const DEMO_SPLIT_SOURCES: readonly DemoFundingSource[] = [
  {
    id: 'demo_fs_visa',
    name: 'Visa Rewards',
    type: 'credit_card',
    last4: '4242',
    brand: 'visa',
    balance: '1250.00',
    creditLimit: '5000.00',
    availableCredit: '3750.00',
    defaultSplitPercentage: 60,
    stripePaymentMethodId: 'pm_demo_visa',
    rewardsRate: 1.5,
    accountType: 'credit',
    bankName: 'Demo Bank',
  },
  {
    id: 'demo_fs_mastercard',
    name: 'Mastercard Cash Back',
    type: 'credit_card',
    last4: '4444',
    brand: 'mastercard',
    balance: '820.50',
    creditLimit: '3000.00',
    availableCredit: '2179.50',
    defaultSplitPercentage: 40,
    stripePaymentMethodId: 'pm_demo_mastercard',
    rewardsRate: 2,
    accountType: 'credit',
    bankName: 'Demo Bank',
  },
  {
    id: 'demo_fs_amex',
    name: 'Amex Everyday',
    type: 'credit_card',
    last4: '8431',
    brand: 'amex',
    balance: '1380.00',
    creditLimit: '1500.00',
    availableCredit: '120.00',
    defaultSplitPercentage: 0,
    stripePaymentMethodId: 'pm_demo_amex',
    rewardsRate: 1,
    accountType: 'credit',
    bankName: 'Demo Bank',
  },
  {
    id: 'demo_fs_checking',
    name: 'Everyday Checking',
    type: 'bank_account',
    last4: '6789',
    brand: 'bank',
    balance: '2450.75',
    creditLimit: null,
    availableCredit: null,
    defaultSplitPercentage: 0,
    stripePaymentMethodId: 'pm_demo_bank',
    rewardsRate: null,
    accountType: 'checking',
    bankName: 'Demo Bank',
  },
];

/** The sample sources as configurator options: a card can cover its available credit, a bank account its balance. */
export function sampleSplitOptions(): SplitSourceOption[] {
  return DEMO_SPLIT_SOURCES.map((s) => ({
    id: s.id,
    name: s.name,
    last4: s.last4,
    brand: s.brand,
    available: s.type === 'bank_account' ? s.balance : s.availableCredit,
    defaultPercentage: s.defaultSplitPercentage,
  }));
}
