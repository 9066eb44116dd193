import type { Bcard } from '../bcards/api';
import type { FundingSource } from '../funding-sources/api';
import type { Transaction } from '../transactions/api';

/*
 * Sample data shown in demo mode (spec §4: "sample data replaces real funding sources and transactions
 * (five built-in sample transactions)"). Nothing here is ever sent to the server.
 */
const DEMO_CREATED_AT = '2025-01-15T10:00:00.000Z';

export const DEMO_FUNDING_SOURCES: readonly FundingSource[] = [
  {
    id: 'demo_fs_1',
    name: 'Chase Sapphire',
    type: 'credit_card',
    funding: 'credit',
    bankAccount: null,
    last4: '4242',
    brand: 'visa',
    expiryMonth: 8,
    expiryYear: 2029,
    defaultSplitPercentage: 50,
    isActive: true,
    balance: '2500.00',
    createdAt: DEMO_CREATED_AT,
  },
  {
    id: 'demo_fs_2',
    name: 'Capital One Quicksilver',
    type: 'credit_card',
    funding: 'credit',
    bankAccount: null,
    last4: '5555',
    brand: 'mastercard',
    expiryMonth: 3,
    expiryYear: 2028,
    defaultSplitPercentage: 30,
    isActive: true,
    balance: '1800.00',
    createdAt: DEMO_CREATED_AT,
  },
  {
    id: 'demo_fs_3',
    name: 'American Express Gold',
    type: 'credit_card',
    funding: 'credit',
    bankAccount: null,
    last4: '0005',
    brand: 'amex',
    expiryMonth: 11,
    expiryYear: 2027,
    defaultSplitPercentage: 20,
    isActive: true,
    balance: '3200.00',
    createdAt: DEMO_CREATED_AT,
  },
];

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** A sample's fee and total at the default 2.9 %: "249.99" -> fee "7.25", total "257.24". */
function withFee(amount: string): { amount: string; fee: string; totalCharged: string } {
  const cents = Math.round(Number(amount) * 100);
  const fee = Math.floor((cents * 290 + 5000) / 10000);
  const dec = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
  return { amount, fee: dec(fee), totalCharged: dec(cents + fee) };
}

/**
 * The five sample transactions, dated relative to `now` so the dashboard's "This Month" figure behaves the way
 * it would with real data (items more than a few days old may fall into last month).
 */
export function demoTransactions(now: Date = new Date()): Transaction[] {
  const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * HOUR_MS).toISOString();
  const tx = (
    id: string,
    hoursAgo: number,
    merchant: string,
    amount: string,
    status: Transaction['status'],
    virtualCardName: string,
    description: string,
  ): Transaction => ({
    id,
    createdAt: at(hoursAgo),
    merchant,
    ...withFee(amount),
    refunded: '0.00',
    status,
    // The sample's stage as the API words it: a completed one was used at its merchant, the pending one is the active
    // Travel bcard below holding its money, the failed one was never issued.
    stage:
      status === 'completed'
        ? { code: 'used', held: null, spent: amount, returned: null, merchant }
        : status === 'pending'
          ? { code: 'active', held: amount, spent: null, returned: null, merchant: null }
          : { code: 'not_issued', held: null, spent: null, returned: null, merchant: null },
    bankDebit: null,
    virtualCardId: null,
    virtualCardName,
    description,
    failureMessage: status === 'failed' ? 'Card declined' : null,
  });
  return [
    tx('demo_txn_1', 2, 'Amazon', '249.99', 'completed', 'Electronics bcard', 'Wireless headphones'),
    tx('demo_txn_2', 26, 'Whole Foods Market', '86.42', 'completed', 'Groceries bcard', 'Weekly groceries'),
    tx('demo_txn_3', 50, 'Delta Air Lines', '612.30', 'pending', 'Travel bcard', 'Flight to Chicago'),
    tx('demo_txn_4', 98, 'Best Buy', '1199.00', 'failed', 'Laptop bcard', 'Laptop purchase'),
    tx('demo_txn_5', 170, 'Starbucks', '12.75', 'completed', 'Coffee bcard', 'Morning coffee'),
  ];
}

/** One sample bcard, active for another 29 minutes, funded by two of the sample sources. */
export function demoBcards(now: Date = new Date()): Bcard[] {
  const expires = new Date(now.getTime() + 29 * MINUTE_MS + 30_000);
  return [
    {
      id: 'demo_bcard_1',
      name: 'Travel bcard',
      cardholderName: 'Demo User',
      cardNumber: '•••• •••• •••• 4821',
      last4: '4821',
      brand: 'visa',
      expiryMonth: expires.getMonth() + 1,
      expiryYear: expires.getFullYear(),
      balance: '612.30',
      spendingLimit: '612.30',
      interval: 'single_use',
      status: 'active',
      expiresAt: expires.toISOString(),
      createdAt: new Date(now.getTime() - MINUTE_MS).toISOString(),
      lockedDomain: null,
      closedReason: null,
      stage: { code: 'active', held: '612.30', spent: null, returned: null, merchant: null },
      ...withFee('612.30'),
      // The sample purchase this bcard's collection is (the Delta Air Lines flight in demoTransactions).
      transactionId: 'demo_txn_3',
      fundingSources: [
        { fundingSourceId: 'demo_fs_1', name: 'Chase Sapphire', last4: '4242', brand: 'visa', percentage: 60, amount: '378.04', status: 'captured', stage: 'charged' },
        {
          fundingSourceId: 'demo_fs_2',
          name: 'Capital One Quicksilver',
          last4: '5555',
          brand: 'mastercard',
          percentage: 40,
          amount: '252.02',
          status: 'captured',
          stage: 'charged',
        },
      ],
    },
  ];
}
