import { queryOptions } from '@tanstack/react-query';
import type { paths } from '../../../../sdk/src/schema';
import { apiRequest } from '../../lib/api';

/** GET /api/analytics, exactly as the server answers it (sdk/src/schema.d.ts, generated from the routes). */
export type SpendingAnalytics = paths['/api/analytics']['get']['responses'][200]['content']['application/json'];

export const RANGE_MONTHS = [3, 6, 12, 24, 36] as const;
export type RangeMonths = (typeof RANGE_MONTHS)[number];

/** Shares the transactions key's prefix, so whatever refreshes the history (a new bcard, a refund) refreshes these. */
export const ANALYTICS_QUERY_KEY = ['/api/transactions', 'analytics'] as const;

/** The viewer's minutes east of UTC now: months begin at local midnight. */
export const localUtcOffset = (now = new Date()) => -now.getTimezoneOffset();

export function analyticsParams(months: RangeMonths, utcOffset: number): URLSearchParams {
  return new URLSearchParams({ months: String(months), utcOffset: String(utcOffset), top: '5' });
}

export function analyticsQuery(months: RangeMonths, utcOffset: number) {
  return queryOptions({
    queryKey: [...ANALYTICS_QUERY_KEY, months, utcOffset] as const,
    queryFn: () => apiRequest<SpendingAnalytics>('GET', `/api/analytics?${analyticsParams(months, utcOffset)}`),
  });
}

/** The same figures as a CSV download. */
export const analyticsCsvUrl = (months: RangeMonths, utcOffset: number) => `/api/analytics.csv?${analyticsParams(months, utcOffset)}`;
