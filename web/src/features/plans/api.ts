import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { paths } from '../../../../sdk/src/schema';
import { apiRequest } from '../../lib/api';

/*
 * The Plans screen's calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks this feature's typecheck.
 */

type AnswerOf<Op, Status extends number> = Op extends { responses: { [S in Status]: { content: { 'application/json': infer B } } } }
  ? B
  : never;
type BodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

export type Plan = AnswerOf<paths['/api/subscription/plan']['get'], 200>;
export type Tier = Plan['tier'];
export type PlanCharge = AnswerOf<paths['/api/subscription/charges']['get'], 200>[number];
export type UpgradeBody = BodyOf<paths['/api/subscription/upgrade']['post']>;
export type UpgradeAnswer = AnswerOf<paths['/api/subscription/upgrade']['post'], 200>;
export type PayingSource = AnswerOf<paths['/api/funding-sources']['get'], 200>[number];
type TiersAnswer = AnswerOf<paths['/api/subscription/tiers']['get'], 200>;

export const PLAN_QUERY_KEY = ['/api/subscription/plan'] as const;
export const PLAN_CHARGES_QUERY_KEY = ['/api/subscription/charges'] as const;
/*
 * These keys are the ones the landing page (tiers), the dashboard (benefits) and the funding-sources feature use for
 * the same calls, declared again rather than imported (features do not import each other): a plan change here
 * refreshes the limits the dashboard shows.
 */
const TIERS_QUERY_KEY = ['/api/subscription/tiers'] as const;
const BENEFITS_QUERY_KEY = ['/api/subscription/benefits'] as const;
const SOURCES_QUERY_KEY = ['/api/funding-sources'] as const;

export function planQuery() {
  return queryOptions({ queryKey: PLAN_QUERY_KEY, queryFn: () => apiRequest<Plan>('GET', '/api/subscription/plan') });
}

export function planChargesQuery() {
  return queryOptions({ queryKey: PLAN_CHARGES_QUERY_KEY, queryFn: () => apiRequest<PlanCharge[]>('GET', '/api/subscription/charges') });
}

export function tiersQuery() {
  return queryOptions({
    queryKey: TIERS_QUERY_KEY,
    queryFn: () => apiRequest<TiersAnswer>('GET', '/api/subscription/tiers', undefined, { credentials: 'omit' }),
  });
}

export function payingSourcesQuery() {
  return queryOptions({ queryKey: SOURCES_QUERY_KEY, queryFn: () => apiRequest<PayingSource[]>('GET', '/api/funding-sources') });
}

/** Pays for a dearer plan. `idempotencyKey`: one per attempt, the same for a retry of that attempt. */
export function upgradePlan(body: UpgradeBody, idempotencyKey: string): Promise<UpgradeAnswer> {
  return apiRequest<UpgradeAnswer>('POST', '/api/subscription/upgrade', body, {}, { 'Idempotency-Key': idempotencyKey });
}

export function downgradePlan(tierId: string): Promise<Plan> {
  return apiRequest<Plan>('POST', '/api/subscription/downgrade', { tierId });
}

export function keepPlan(): Promise<Plan> {
  return apiRequest<Plan>('POST', '/api/subscription/keep');
}

/** After a change: the plan, its receipts, and every limit shown elsewhere. */
export async function refreshAfterChange(queryClient: QueryClient, plan?: Plan): Promise<void> {
  if (plan) queryClient.setQueryData(PLAN_QUERY_KEY, plan);
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: PLAN_QUERY_KEY }),
    queryClient.invalidateQueries({ queryKey: PLAN_CHARGES_QUERY_KEY }),
    queryClient.invalidateQueries({ queryKey: BENEFITS_QUERY_KEY }),
  ]);
}
