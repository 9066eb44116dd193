import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { apiRequest, apiRequestWithHeaders } from '../../lib/api';
import type { Transaction, TransactionDetail, TransactionFilter, TransactionPage } from './types';

/** Every transactions query starts with this key, so invalidating it refreshes lists, totals and details. */
export const TRANSACTIONS_QUERY_KEY = ['/api/transactions'] as const;
export const PAGE_SIZE = 50;
export const NEXT_CURSOR_HEADER = 'Bpay-Next-Cursor';

export function transactionsPath(status: TransactionFilter, cursor?: string | null, limit = PAGE_SIZE): string {
  const params = new URLSearchParams({ status, limit: String(limit) });
  if (cursor) params.set('cursor', cursor);
  return `/api/transactions?${params}`;
}

/** One page, newest first; the next page's cursor comes in a response header. */
export async function fetchTransactionsPage(
  status: TransactionFilter,
  cursor: string | null,
  limit = PAGE_SIZE,
): Promise<TransactionPage> {
  const { data, headers } = await apiRequestWithHeaders<Transaction[]>('GET', transactionsPath(status, cursor, limit));
  return { items: data ?? [], nextCursor: headers.get(NEXT_CURSOR_HEADER) || null };
}

/** The history, filtered by status on the server, a page at a time ("Load more"). */
export function transactionsQuery(status: TransactionFilter = 'all') {
  return infiniteQueryOptions({
    queryKey: [...TRANSACTIONS_QUERY_KEY, 'list', status] as const,
    queryFn: ({ pageParam }) => fetchTransactionsPage(status, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

export interface TransactionSummary {
  totalSpent: string;
  thisMonth: string;
  activeBcards: number;
}

/** The Overview's figures, summed by the server; "this month" starts at the viewer's local month start. */
export function transactionSummaryQuery(monthStart: Date) {
  const iso = monthStart.toISOString();
  return queryOptions({
    queryKey: [...TRANSACTIONS_QUERY_KEY, 'summary', iso] as const,
    queryFn: () => apiRequest<TransactionSummary>('GET', `/api/transactions/summary?${new URLSearchParams({ monthStart: iso })}`),
  });
}

/** One transaction with its shares and their sources. */
export function transactionQuery(id: string) {
  return queryOptions({
    queryKey: [...TRANSACTIONS_QUERY_KEY, 'detail', id] as const,
    queryFn: () => apiRequest<TransactionDetail>('GET', `/api/transactions/${encodeURIComponent(id)}`),
  });
}

/** The CSV download of the history with the same filter as the list. */
export function exportCsvUrl(status: TransactionFilter): string {
  return `/api/transactions/export.csv?${new URLSearchParams({ status })}`;
}
