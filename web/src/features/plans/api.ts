import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The Plans screen's calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks this feature's typecheck.
 */

export type Plan = ApiAnswer<'/api/subscription/plan'>;
export type Tier = Plan['tier'];
export type PlanCharge = ApiAnswer<'/api/subscription/charges'>[number];
export type UpgradeBody = ApiBody<'/api/subscription/upgrade'>;
export type UpgradeAnswer = ApiAnswer<'/api/subscription/upgrade', 'post'>;
export type PayingSource = ApiAnswer<'/api/funding-sources'>[number];

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
  return queryOptions({ queryKey: PLAN_QUERY_KEY, queryFn: () => unwrap(api.GET('/api/subscription/plan')) });
}

export function planChargesQuery() {
  return queryOptions({ queryKey: PLAN_CHARGES_QUERY_KEY, queryFn: () => unwrap(api.GET('/api/subscription/charges')) });
}

export function tiersQuery() {
  return queryOptions({
    queryKey: TIERS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/subscription/tiers')),
  });
}

export function payingSourcesQuery() {
  return queryOptions({ queryKey: SOURCES_QUERY_KEY, queryFn: () => unwrap(api.GET('/api/funding-sources')) });
}

/** Pays for a dearer plan. `idempotencyKey`: one per attempt, the same for a retry of that attempt. */
export function upgradePlan(body: UpgradeBody, idempotencyKey: string): Promise<UpgradeAnswer> {
  return unwrap(api.POST('/api/subscription/upgrade', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));
}

/** Sets the card the plan renews on (issue 26); nothing is charged now. */
export function setPaymentSource(fundingSourceId: string): Promise<Plan> {
  return unwrap(api.PUT('/api/subscription/payment-source', { body: { fundingSourceId } }));
}

export type RetryAnswer = ApiAnswer<'/api/subscription/retry-renewal', 'post'>;

/** Retries a failed renewal now, on the plan's card. `idempotencyKey`: one per attempt, as for an upgrade. */
export function retryRenewal(idempotencyKey: string): Promise<RetryAnswer> {
  return unwrap(api.POST('/api/subscription/retry-renewal', { params: { header: { 'idempotency-key': idempotencyKey } } }));
}

export function downgradePlan(tierId: string): Promise<Plan> {
  return unwrap(api.POST('/api/subscription/downgrade', { body: { tierId } }));
}

export function keepPlan(): Promise<Plan> {
  return unwrap(api.POST('/api/subscription/keep'));
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
