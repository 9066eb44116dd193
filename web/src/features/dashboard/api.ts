import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';

/** GET /api/subscription/benefits, read from the generated schema. maxFundingSources -1 means unlimited. */
export type SubscriptionBenefits = ApiAnswer<'/api/subscription/benefits'>;

export const BENEFITS_QUERY_KEY = ['/api/subscription/benefits'] as const;

/** The signed-in user's plan benefits; only mounted inside the signed-in dashboard (spec §7). */
export function benefitsQuery() {
  return queryOptions({
    queryKey: BENEFITS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/subscription/benefits')),
  });
}
