import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import type { SubscriptionBenefits } from './types';

export const BENEFITS_QUERY_KEY = ['/api/subscription/benefits'] as const;

/** The signed-in user's plan benefits; only mounted inside the signed-in dashboard (spec §7). */
export function benefitsQuery() {
  return queryOptions({
    queryKey: BENEFITS_QUERY_KEY,
    queryFn: () => apiRequest<SubscriptionBenefits>('GET', '/api/subscription/benefits'),
  });
}
