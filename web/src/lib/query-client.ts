import { QueryClient } from '@tanstack/react-query';

/** Reads never refetch on focus or by interval, never go stale and never retry; writes never retry (spec §7). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { refetchOnWindowFocus: false, refetchInterval: false, staleTime: Infinity, retry: false },
      mutations: { retry: false },
    },
  });
}
