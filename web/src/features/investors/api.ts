import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';

/** `GET /api/site/contact`: the investor contact, configured on the server (BPAY_INVESTOR_EMAIL / _PHONE). */
export interface SiteContact {
  investorEmail: string;
  investorPhone: string;
}

/** The fields of a plan the investor pages show (the response of `GET /api/subscription/tiers`). */
export interface TierSummary {
  id: string;
  /** free | pro | premium, or an admin-made name. */
  name: string;
  displayName: string;
  /** Dollars per month, e.g. 9.99. */
  monthlyPrice: number;
  /** A fraction: 0.029 is 2.9 %. */
  transactionFeeRate: number;
}

export interface TiersResponse {
  tiers: TierSummary[];
}

/** Configuration that only changes with a server restart: read once per visit. */
export function siteContactQuery() {
  return queryOptions({
    queryKey: ['/api/site/contact'] as const,
    queryFn: () => apiRequest<SiteContact>('GET', '/api/site/contact', undefined, { credentials: 'omit' }),
    staleTime: Infinity,
  });
}

/**
 * The public plan list. Same key and same request as the landing page's, so a visitor coming from the landing
 * page reuses its answer; made without credentials like every tiers call (spec §7).
 */
export function tiersQuery() {
  return queryOptions({
    queryKey: ['/api/subscription/tiers'] as const,
    queryFn: () => apiRequest<TiersResponse>('GET', '/api/subscription/tiers', undefined, { credentials: 'omit' }),
  });
}
