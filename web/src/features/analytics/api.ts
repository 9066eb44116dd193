import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiQuery } from '../../lib/api';

/** GET /api/analytics, exactly as the server answers it (sdk/src/schema.d.ts, generated from the routes). */
export type SpendingAnalytics = ApiAnswer<'/api/analytics'>;

export const RANGE_MONTHS = [3, 6, 12, 24, 36] as const;
export type RangeMonths = (typeof RANGE_MONTHS)[number];

/** Shares the transactions key's prefix, so whatever refreshes the history (a new bcard, a refund) refreshes these. */
export const ANALYTICS_QUERY_KEY = ['/api/transactions', 'analytics'] as const;

/** The viewer's minutes east of UTC now: months begin at local midnight. */
export const localUtcOffset = (now = new Date()) => -now.getTimezoneOffset();

/** The range the figures cover, the same for the page and its CSV: `months` months ending now, the top 5 merchants. */
export function analyticsParams(months: RangeMonths, utcOffset: number) {
  return { months, utcOffset, top: 5 } satisfies ApiQuery<'/api/analytics'>;
}

export function analyticsQuery(months: RangeMonths, utcOffset: number) {
  return queryOptions({
    queryKey: [...ANALYTICS_QUERY_KEY, months, utcOffset] as const,
    queryFn: () => unwrap(api.GET('/api/analytics', { params: { query: analyticsParams(months, utcOffset) } })),
  });
}

/** The same figures as a CSV download (a link's href, not a call), with the page's query. */
export function analyticsCsvUrl(months: RangeMonths, utcOffset: number): string {
  const query = Object.entries(analyticsParams(months, utcOffset)).map(([name, value]) => [name, String(value)]);
  return `/api/analytics.csv?${new URLSearchParams(query)}`;
}

/** GET /api/spending/activity: the latest purchases, money returned and plan charges (the Overview's Recent Activity). */
export type SpendingActivityItem = ApiAnswer<'/api/spending/activity'>[number];

/** Shares the transactions key's prefix too: a new bcard, a refund or a plan charge refreshes it with the history. */
export function spendingActivityQuery(limit: number) {
  return queryOptions({
    queryKey: [...ANALYTICS_QUERY_KEY.slice(0, 1), 'activity', limit] as const,
    queryFn: () => unwrap(api.GET('/api/spending/activity', { params: { query: { limit } } })),
  });
}
