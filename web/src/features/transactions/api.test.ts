import { afterEach, describe, expect, mock, test } from 'bun:test';
import { exportCsvUrl, fetchTransactionsPage, transactionQuery, transactionsPath, transactionsQuery } from './api';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('transactions api', () => {
  test('paths carry the filter, the page size and the cursor', () => {
    expect(transactionsPath('all')).toBe('/api/transactions?status=all&limit=50');
    expect(transactionsPath('failed', 'c_1', 10)).toBe('/api/transactions?status=failed&limit=10&cursor=c_1');
    expect(transactionsPath('all', null, 50, 'ar')).toBe('/api/transactions?status=all&limit=50&language=ar');
    expect(exportCsvUrl('completed', 'ar')).toBe('/api/transactions/export.csv?status=completed&language=ar');
  });

  test('a page reads its next cursor from the Bpay-Next-Cursor header', async () => {
    const calls: string[] = [];
    globalThis.fetch = mock(async (input: RequestInfo | URL) => {
      // The typed client hands fetch a Request with the page's origin: record its path and query.
      const url = new URL((input as Request).url);
      calls.push(url.pathname + url.search);
      const last = url.search.includes('cursor=');
      return new Response(JSON.stringify([{ id: last ? 't2' : 't1' }]), {
        status: 200,
        headers: last ? {} : { 'Bpay-Next-Cursor': 'next_1' },
      });
    }) as unknown as typeof fetch;
    const first = await fetchTransactionsPage('pending', null);
    expect(first.nextCursor).toBe('next_1');
    expect(first.items.map((t) => t.id)).toEqual(['t1']);
    const second = await fetchTransactionsPage('pending', first.nextCursor);
    expect(second.nextCursor).toBeNull();
    expect(calls).toEqual([
      '/api/transactions?status=pending&limit=50',
      '/api/transactions?status=pending&limit=50&cursor=next_1',
    ]);
  });

  test('every list key starts with the shared prefix (one invalidation refreshes them all) and names the language', () => {
    expect([...transactionsQuery('failed', 'ar').queryKey]).toEqual(['/api/transactions', 'list', 'failed', 'ar']);
    expect([...transactionQuery('t1', 'en').queryKey]).toEqual(['/api/transactions', 'detail', 't1', 'en']);
  });

  test("the screen's language goes with the list's pages and the detail", async () => {
    const calls: string[] = [];
    globalThis.fetch = mock(async (input: RequestInfo | URL) => {
      const url = new URL((input as Request).url);
      calls.push(url.pathname + url.search);
      return new Response(url.pathname.endsWith('/t1') ? '{"id":"t1"}' : '[]', { status: 200 });
    }) as unknown as typeof fetch;
    const list = transactionsQuery('all', 'ar');
    await list.queryFn!({ pageParam: null } as never);
    await transactionQuery('t1', 'ar').queryFn!({} as never);
    expect(calls).toEqual(['/api/transactions?status=all&limit=50&language=ar', '/api/transactions/t1?language=ar']);
  });
});
