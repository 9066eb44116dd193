import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, unwrap, unwrapWithHeaders, type ApiAnswer, type ApiQuery } from '../../lib/api';
import type { Lang } from '../../i18n';

/*
 * The transaction history's calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks this feature's typecheck.
 */

/** A payment made with a bcard, as GET /api/transactions answers it. Money is in decimal strings ("42.50"). */
export type Transaction = ApiAnswer<'/api/transactions'>[number];
/** GET /api/transactions/{id}: the transaction with its shares and the merchant's refunds of it (newest first). */
export type TransactionDetail = ApiAnswer<'/api/transactions/{id}'>;
/** One funding source's part of a transaction. */
export type TransactionShare = TransactionDetail['shares'][number];
/**
 * A merchant's refund of the purchase: the purchase amount refunded and the part of the bpay fee returned with it
 * (dollars), and what went back to which funding source (`parts`, which add up to amount + fee).
 */
export type TransactionRefund = TransactionDetail['refunds'][number];
export type TransactionRefundPart = TransactionRefund['parts'][number];
/** GET /api/transactions/summary: the Overview's figures. */
export type TransactionSummary = ApiAnswer<'/api/transactions/summary'>;

/**
 * The status filter the list, the CSV and the tab share, in the order the tab offers them: the coarse statuses,
 * then the stages people look for (a bcard holding money, used, returned; bank debits settling or returned).
 */
export type TransactionFilter = NonNullable<ApiQuery<'/api/transactions'>['status']>;
export const TRANSACTION_FILTERS = [
  'all',
  'active',
  'used',
  'returned',
  'completed',
  'pending',
  'failed',
  'bank_pending',
  'bank_returned',
] as const satisfies readonly TransactionFilter[];

/** One page of the history (a view of one answer: its rows and the cursor its header gave). */
export interface TransactionPage {
  items: Transaction[];
  /** From the Bpay-Next-Cursor header; null on the last page. */
  nextCursor: string | null;
}

/** Every transactions query starts with this key, so invalidating it refreshes lists, totals and details. */
export const TRANSACTIONS_QUERY_KEY = ['/api/transactions'] as const;
export const PAGE_SIZE = 50;
export const NEXT_CURSOR_HEADER = 'Bpay-Next-Cursor';

/*
 * Every call names the screen's language (`language`): bpay's own words in the answer (descriptions, decline and
 * return reasons) are written in it, whatever the account's language says, and a switch reads the rows again (the
 * language is part of each query key).
 */

/** The query of one page (its order is the URL's: status, limit, the cursor when there is one, then the language). */
function pageQuery(status: TransactionFilter, cursor: string | null | undefined, limit: number, language?: Lang): ApiQuery<'/api/transactions'> {
  return { status, limit, ...(cursor ? { cursor } : {}), ...(language ? { language } : {}) };
}

/** The address of one page, as the client sends it (for reading and tests; the call itself goes through `api`). */
export function transactionsPath(status: TransactionFilter, cursor?: string | null, limit = PAGE_SIZE, language?: Lang): string {
  const query = pageQuery(status, cursor, limit, language);
  return `/api/transactions?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;
}

/** One page, newest first; the next page's cursor comes in a response header. */
export async function fetchTransactionsPage(
  status: TransactionFilter,
  cursor: string | null,
  limit = PAGE_SIZE,
  language?: Lang,
): Promise<TransactionPage> {
  const { data, headers } = await unwrapWithHeaders(api.GET('/api/transactions', { params: { query: pageQuery(status, cursor, limit, language) } }));
  return { items: data ?? [], nextCursor: headers.get(NEXT_CURSOR_HEADER) || null };
}

/** The history, filtered by status on the server, a page at a time ("Load more"), in the screen's language. */
export function transactionsQuery(status: TransactionFilter, language: Lang) {
  return infiniteQueryOptions({
    queryKey: [...TRANSACTIONS_QUERY_KEY, 'list', status, language] as const,
    queryFn: ({ pageParam }) => fetchTransactionsPage(status, pageParam, PAGE_SIZE, language),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** The Overview's figures, summed by the server; "this month" starts at the viewer's local month start. */
export function transactionSummaryQuery(monthStart: Date) {
  const iso = monthStart.toISOString();
  return queryOptions({
    queryKey: [...TRANSACTIONS_QUERY_KEY, 'summary', iso] as const,
    queryFn: () => unwrap(api.GET('/api/transactions/summary', { params: { query: { monthStart: iso } } })),
  });
}

/** One transaction with its shares and their sources, in the screen's language. */
export function transactionQuery(id: string, language: Lang) {
  return queryOptions({
    queryKey: [...TRANSACTIONS_QUERY_KEY, 'detail', id, language] as const,
    queryFn: () => unwrap(api.GET('/api/transactions/{id}', { params: { path: { id }, query: { language } } })),
  });
}

/** The CSV download of the history with the same filter as the list, in the screen's language (a link's href). */
export function exportCsvUrl(status: TransactionFilter, language: Lang): string {
  return `/api/transactions/export.csv?${new URLSearchParams({ status, language })}`;
}
