import { formatCents, parseCents as parseMoney } from '../../lib/money';
import {
  TRANSACTION_FILTERS,
  type Transaction,
  type TransactionFilter,
  type TransactionRefund,
  type TransactionRefundPart,
  type TransactionShare,
} from '../transactions/api';

/*
 * Pure helpers behind the Overview and Transactions tabs. Amounts arrive as decimal strings ("42.50"); they are
 * summed as integer cents so that totals never pick up floating-point noise (CONVENTIONS: money).
 */

export const RECENT_ACTIVITY_COUNT = 3;
export const STATUS_FILTERS = TRANSACTION_FILTERS;
export type StatusFilter = TransactionFilter;

/** "12.5" -> 1250. Anything that is not a dollar amount with at most two decimals counts as 0. */
export function parseCents(amount: string): number {
  return parseMoney(amount) ?? 0;
}

export { formatCents };

/** A transaction amount as shown in the lists: dollars with two decimals. */
export function formatAmount(amount: string): string {
  return formatCents(parseCents(amount));
}

export interface DashboardStats {
  activeBcards: number;
  totalSpentCents: number;
  thisMonthCents: number;
}

/**
 * The three Overview figures.
 * - Active bcards: bcards whose status is active.
 * - Total Spent: the amounts of completed transactions (pending and failed ones are not spent yet or at all).
 * - This Month: the same, limited to the calendar month of `now` (local time).
 */
export function dashboardStats(
  transactions: readonly Transaction[],
  bcards: readonly { status: string }[],
  now: Date,
): DashboardStats {
  let totalSpentCents = 0;
  let thisMonthCents = 0;
  for (const t of transactions) {
    if (t.status !== 'completed') continue;
    const cents = parseCents(t.amount);
    totalSpentCents += cents;
    const d = new Date(t.createdAt);
    if (d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth()) thisMonthCents += cents;
  }
  return { activeBcards: bcards.filter((b) => b.status === 'active').length, totalSpentCents, thisMonthCents };
}

/** Newest first, the first `count` of them. */
export function recentTransactions(transactions: readonly Transaction[], count = RECENT_ACTIVITY_COUNT): Transaction[] {
  return [...transactions].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt)).slice(0, count);
}

/** Whether a transaction is one the filter names (the server's rule, api/src/modules/transactions/filters.ts). */
export function matchesFilter(t: Pick<Transaction, 'status' | 'stage' | 'bankDebit'>, filter: StatusFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'completed':
    case 'pending':
    case 'failed':
      return t.status === filter;
    case 'active':
      return t.stage.code === 'active' || t.stage.code === 'authorized';
    case 'used':
      return t.stage.code === 'used' || t.stage.code === 'partly_used';
    case 'returned':
      return t.status === 'refunded';
    case 'bank_pending':
      return t.bankDebit === 'pending';
    case 'bank_returned':
      return t.bankDebit === 'returned';
  }
}

/** The demo samples under a filter (the real list is filtered by the server). */
export function filterByStatus(transactions: readonly Transaction[], filter: StatusFilter): Transaction[] {
  return transactions.filter((t) => matchesFilter(t, filter));
}

export type StatusDot = 'completed' | 'pending' | 'failed' | 'refunded' | 'created';

/**
 * Spec §4: completed green, pending yellow, anything else blue ("Transaction created"). Failed (red) and refunded
 * (grey) say what happened (issue 16): "Transaction created" for them told the reader nothing true.
 */
export function statusDot(status: string): StatusDot {
  return status === 'completed' || status === 'pending' || status === 'failed' || status === 'refunded' ? status : 'created';
}

/** What a merchant's refund sent back to the funding sources: the purchase amount plus the part of the fee, in cents. */
export function refundBackCents(refund: Pick<TransactionRefund, 'amount' | 'fee'>): number {
  return parseCents(refund.amount) + parseCents(refund.fee);
}

/**
 * The refunded amount a history row shows, in cents: whatever came back to the sources, when something did and the
 * row's status does not already say so (an unused bcard given back is "Refunded" in full).
 */
export function rowRefundedCents(tx: Partial<Pick<Transaction, 'refunded'>> & Pick<Transaction, 'status'>): number | null {
  const cents = tx.refunded ? parseCents(tx.refunded) : 0;
  return cents > 0 && tx.status !== 'refunded' ? cents : null;
}

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;
export type RefundReasonKind = (typeof REFUND_REASONS)[number] | 'none' | 'other';

/** A refund's reason as the page words it: one of the API's three, none given, or one this page does not know. */
export function refundReasonKind(reason: string | null): RefundReasonKind {
  if (reason === null || reason === '') return 'none';
  return (REFUND_REASONS as readonly string[]).includes(reason) ? (reason as RefundReasonKind) : 'other';
}

/** The brand of the card a refund part went back to, from the transaction's shares (null when it is not among them). */
export function partBrand(part: Pick<TransactionRefundPart, 'fundingSourceId'>, shares: readonly Pick<TransactionShare, 'fundingSourceId' | 'brand'>[]): string | null {
  return shares.find((s) => s.fundingSourceId === part.fundingSourceId)?.brand ?? null;
}
