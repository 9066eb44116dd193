import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import type { TiersResponse } from './types';

export const TIERS_QUERY_KEY = ['/api/subscription/tiers'] as const;

/** The public plan list. Spec §7: this is the one call made without credentials. */
export function tiersQuery() {
  return queryOptions({
    queryKey: TIERS_QUERY_KEY,
    queryFn: () => apiRequest<TiersResponse>('GET', '/api/subscription/tiers', undefined, { credentials: 'omit' }),
  });
}
