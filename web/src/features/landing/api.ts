import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';

/** A plan as `GET /api/subscription/tiers` answers it (spec §3): money in dollars, the fee a fraction, -1 unlimited. */
export type SubscriptionTier = ApiAnswer<'/api/subscription/tiers'>['tiers'][number];

export const TIERS_QUERY_KEY = ['/api/subscription/tiers'] as const;

/** The public plan list. Spec §7: this is the one call made without credentials (the client's rule for this path). */
export function tiersQuery() {
  return queryOptions({
    queryKey: TIERS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/subscription/tiers')),
  });
}
