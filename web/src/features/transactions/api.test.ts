import { afterEach, describe, expect, mock, test } from 'bun:test';
import { exportCsvUrl, fetchTransactionsPage, transactionsPath, transactionsQuery } from './api';

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

describe('transactions api', () => {
  test('paths carry the filter, the page size and the cursor', () => {
    expect(transactionsPath('all')).toBe('/api/transactions?status=all&limit=50');
    expect(transactionsPath('failed', 'c_1', 10)).toBe('/api/transactions?status=failed&limit=10&cursor=c_1');
    expect(exportCsvUrl('completed')).toBe('/api/transactions/export.csv?status=completed');
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

  test('every list key starts with the shared prefix (one invalidation refreshes them all)', () => {
    expect(transactionsQuery('failed').queryKey.slice(0, 1)).toEqual(['/api/transactions']);
  });
});
