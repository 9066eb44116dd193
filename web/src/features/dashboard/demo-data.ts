import type { FundingSource, Transaction } from './types';

/*
 * Sample data shown in demo mode (spec §4: "sample data replaces real funding sources and transactions
 * (five built-in sample transactions)"). Nothing here is ever sent to the server.
 */
export const DEMO_FUNDING_SOURCES: readonly FundingSource[] = [
  {
    id: 'demo_fs_1',
    name: 'Chase Sapphire',
    type: 'credit_card',
    last4: '4242',
    brand: 'visa',
    defaultSplitPercentage: 50,
    isActive: true,
    balance: '2500.00',
  },
  {
    id: 'demo_fs_2',
    name: 'Capital One Quicksilver',
    type: 'credit_card',
    last4: '5555',
    brand: 'mastercard',
    defaultSplitPercentage: 30,
    isActive: true,
    balance: '1800.00',
  },
  {
    id: 'demo_fs_3',
    name: 'American Express Gold',
    type: 'credit_card',
    last4: '0005',
    brand: 'amex',
    defaultSplitPercentage: 20,
    isActive: true,
    balance: '3200.00',
  },
];

const HOUR_MS = 3_600_000;

/**
 * The five sample transactions, dated relative to `now` so the dashboard's "This Month" figure behaves the way
 * it would with real data (items more than a few days old may fall into last month).
 */
export function demoTransactions(now: Date = new Date()): Transaction[] {
  const at = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * HOUR_MS).toISOString();
  return [
    {
      id: 'demo_txn_1',
      createdAt: at(2),
      merchant: 'Amazon',
      amount: '249.99',
      status: 'completed',
      virtualCardName: 'Electronics bcard',
      description: 'Wireless headphones',
    },
    {
      id: 'demo_txn_2',
      createdAt: at(26),
      merchant: 'Whole Foods Market',
      amount: '86.42',
      status: 'completed',
      virtualCardName: 'Groceries bcard',
      description: 'Weekly groceries',
    },
    {
      id: 'demo_txn_3',
      createdAt: at(50),
      merchant: 'Delta Air Lines',
      amount: '612.30',
      status: 'pending',
      virtualCardName: 'Travel bcard',
      description: 'Flight to Chicago',
    },
    {
      id: 'demo_txn_4',
      createdAt: at(98),
      merchant: 'Best Buy',
      amount: '1199.00',
      status: 'failed',
      virtualCardName: 'Laptop bcard',
      description: 'Laptop purchase',
    },
    {
      id: 'demo_txn_5',
      createdAt: at(170),
      merchant: 'Starbucks',
      amount: '12.75',
      status: 'completed',
      virtualCardName: 'Coffee bcard',
      description: 'Morning coffee',
    },
  ];
}
