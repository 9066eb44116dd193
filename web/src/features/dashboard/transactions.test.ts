import { describe, expect, test } from 'bun:test';
import { demoBcards, demoTransactions } from './demo-data';
import {
  dashboardStats,
  filterByStatus,
  formatAmount,
  formatCents,
  matchesFilter,
  parseCents,
  partBrand,
  recentTransactions,
  refundBackCents,
  refundReasonKind,
  REFUND_REASONS,
  rowRefundedCents,
  statusDot,
} from './transactions';
import { REFUND_REASONS as API_REFUND_REASONS } from '../../../../db/schema/merchants';
import type { Transaction } from '../transactions/api';

const tx = (over: Partial<Transaction>): Transaction => ({
  id: 't',
  createdAt: '2025-03-10T12:00:00.000Z',
  merchant: 'M',
  amount: '1.00',
  fee: '0.03',
  totalCharged: '1.03',
  refunded: '0.00',
  status: 'completed',
  stage: { code: 'used', held: null, spent: '1.00', returned: null, merchant: 'M' },
  bankDebit: null,
  virtualCardId: null,
  virtualCardName: 'Card',
  description: '',
  failureMessage: null,
  ...over,
});

describe('parseCents / formatCents', () => {
  test.each([
    ['12.34', 1234],
    ['12.3', 1230],
    ['12', 1200],
    ['0.07', 7],
    ['-5.50', -550],
    [' 1199.00 ', 119900],
    ['abc', 0],
    ['1.234', 0],
    ['', 0],
  ])('%p -> %p cents', (input, cents) => {
    expect(parseCents(input)).toBe(cents);
  });

  test('sums of decimal amounts are exact', () => {
    expect(parseCents('0.10') + parseCents('0.20')).toBe(30);
  });

  test('formats dollars with two decimals', () => {
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(123456)).toBe('$1,234.56');
    expect(formatAmount('86.4')).toBe('$86.40');
  });
});

describe('dashboardStats', () => {
  const now = new Date(2025, 2, 15, 12);
  test('empty lists give zeros', () => {
    expect(dashboardStats([], [], now)).toEqual({ activeBcards: 0, totalSpentCents: 0, thisMonthCents: 0 });
  });

  test('only completed payments are spending; this month follows the calendar month of now', () => {
    const list = [
      tx({ amount: '10.00', status: 'completed', createdAt: new Date(2025, 2, 1, 9).toISOString() }),
      tx({ amount: '5.25', status: 'pending', createdAt: new Date(2025, 2, 14).toISOString() }),
      tx({ amount: '99.00', status: 'failed', createdAt: new Date(2025, 2, 14).toISOString() }),
      tx({ amount: '3.00', status: 'refunded', createdAt: new Date(2025, 2, 14).toISOString() }),
      tx({ amount: '20.00', status: 'completed', createdAt: new Date(2025, 1, 28, 23).toISOString() }),
      tx({ amount: '1.00', status: 'completed', createdAt: new Date(2024, 2, 10).toISOString() }),
    ];
    expect(dashboardStats(list, [], now)).toEqual({ activeBcards: 0, totalSpentCents: 3100, thisMonthCents: 1000 });
  });

  test('active bcards are the bcards whose status is active', () => {
    const cards = [{ status: 'active' }, { status: 'used' }, { status: 'active' }, { status: 'canceled' }];
    expect(dashboardStats([], cards, now).activeBcards).toBe(2);
  });

  test('demo data gives non-zero totals', () => {
    const s = dashboardStats(demoTransactions(now), demoBcards(now), now);
    expect(s.totalSpentCents).toBe(24999 + 8642 + 1275);
    expect(s.activeBcards).toBe(1);
  });
});

describe('lists', () => {
  test('recent activity is the newest three', () => {
    const list = [
      tx({ id: 'a', createdAt: '2025-01-01T00:00:00Z' }),
      tx({ id: 'b', createdAt: '2025-01-04T00:00:00Z' }),
      tx({ id: 'c', createdAt: '2025-01-02T00:00:00Z' }),
      tx({ id: 'd', createdAt: '2025-01-03T00:00:00Z' }),
    ];
    expect(recentTransactions(list).map((t) => t.id)).toEqual(['b', 'd', 'c']);
    expect(list.map((t) => t.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('the status filter keeps only matching rows', () => {
    const list = demoTransactions(new Date());
    expect(filterByStatus(list, 'all')).toHaveLength(5);
    expect(filterByStatus(list, 'completed').every((t) => t.status === 'completed')).toBe(true);
    expect(filterByStatus(list, 'completed')).toHaveLength(3);
    expect(filterByStatus(list, 'pending')).toHaveLength(1);
    expect(filterByStatus(list, 'failed')).toHaveLength(1);
  });

  test('status dots: completed, pending, anything else "created"', () => {
    expect(statusDot('completed')).toBe('completed');
    expect(statusDot('pending')).toBe('pending');
    expect(statusDot('failed')).toBe('failed');
    expect(statusDot('refunded')).toBe('refunded');
    expect(statusDot('something-new')).toBe('created');
  });
});

describe('demo data', () => {
  test('the sample bcard is consistent: amount + fee = total, and its shares add up to the total', () => {
    for (const b of demoBcards(new Date())) {
      expect(parseCents(b.amount) + parseCents(b.fee)).toBe(parseCents(b.totalCharged));
      expect(b.fundingSources.reduce((a, s) => a + parseCents(s.amount), 0)).toBe(parseCents(b.totalCharged));
      expect(b.fundingSources.reduce((a, s) => a + s.percentage, 0)).toBe(100);
    }
  });

  test('every sample transaction has amount + fee = total', () => {
    for (const t of demoTransactions(new Date())) {
      expect(parseCents(t.amount) + parseCents(t.fee)).toBe(parseCents(t.totalCharged));
    }
  });
});

describe("a merchant's refunds", () => {
  test('a refund sends back the purchase amount plus its part of the fee, in cents', () => {
    expect(refundBackCents({ amount: '20.00', fee: '0.50' })).toBe(2050);
    expect(refundBackCents({ amount: '0.01', fee: '0.00' })).toBe(1);
  });

  test('a row shows what came back when something did, unless its status already says refunded', () => {
    expect(rowRefundedCents({ refunded: '20.50', status: 'completed' })).toBe(2050);
    expect(rowRefundedCents({ refunded: '0.00', status: 'completed' })).toBeNull();
    expect(rowRefundedCents({ refunded: undefined, status: 'completed' })).toBeNull();
    expect(rowRefundedCents({ refunded: '51.44', status: 'refunded' })).toBeNull();
  });

  test("reasons: the API's three in words, none, or an unknown one shown as it is", () => {
    expect([...REFUND_REASONS].sort()).toEqual([...API_REFUND_REASONS].sort());
    for (const r of API_REFUND_REASONS) expect(refundReasonKind(r)).toBe(r);
    expect(refundReasonKind(null)).toBe('none');
    expect(refundReasonKind('')).toBe('none');
    expect(refundReasonKind('expired_uncaptured_charge')).toBe('other');
  });

  test("a part's card brand comes from the transaction's shares", () => {
    const shares = [
      { fundingSourceId: 'fs_1', brand: 'visa' },
      { fundingSourceId: 'fs_2', brand: 'mastercard' },
    ];
    expect(partBrand({ fundingSourceId: 'fs_2' }, shares)).toBe('mastercard');
    expect(partBrand({ fundingSourceId: 'fs_9' }, shares)).toBeNull();
  });
});

describe('matchesFilter (the server rule, for the demo samples)', () => {
  test('stages and bank debits pick the rows people look for; the coarse statuses stay as they were', () => {
    const active = tx({ status: 'pending', stage: { code: 'active', held: '5.00', spent: null, returned: null, merchant: null } });
    const settling = tx({ status: 'pending', bankDebit: 'pending' });
    const returned = tx({ status: 'refunded', stage: { code: 'canceled', held: null, spent: null, returned: '5.15', merchant: null } });
    const used = tx({});
    expect([active, settling, returned, used].map((t) => matchesFilter(t, 'active'))).toEqual([true, false, false, false]);
    expect([active, settling, returned, used].map((t) => matchesFilter(t, 'pending'))).toEqual([true, true, false, false]);
    expect([active, settling, returned, used].map((t) => matchesFilter(t, 'used'))).toEqual([false, true, false, true]);
    expect([active, settling, returned, used].map((t) => matchesFilter(t, 'returned'))).toEqual([false, false, true, false]);
    expect([active, settling, returned, used].map((t) => matchesFilter(t, 'bank_pending'))).toEqual([false, true, false, false]);
    expect([active, settling, returned, used].map((t) => matchesFilter(t, 'completed'))).toEqual([false, false, false, true]);
  });
});
