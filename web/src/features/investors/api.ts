import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';

/** A plan as `GET /api/subscription/tiers` answers it; the investor pages show its name, price and fee. */
export type TierSummary = ApiAnswer<'/api/subscription/tiers'>['tiers'][number];

/** Configuration that only changes with a server restart: read once per visit (BPAY_INVESTOR_EMAIL / _PHONE). */
export function siteContactQuery() {
  return queryOptions({
    queryKey: ['/api/site/contact'] as const,
    queryFn: () => unwrap(api.GET('/api/site/contact')),
    staleTime: Infinity,
  });
}

/**
 * The public plan list. Same key and same request as the landing page's, so a visitor coming from the landing
 * page reuses its answer; made without credentials like every tiers call (spec §7; the client's rule for this path).
 */
export function tiersQuery() {
  return queryOptions({
    queryKey: ['/api/subscription/tiers'] as const,
    queryFn: () => unwrap(api.GET('/api/subscription/tiers')),
  });
}
