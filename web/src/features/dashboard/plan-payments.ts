import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';
import type { StatusFilter } from './transactions';

/*
 * Plan payments (issue 16: "a receipt in Transactions"). They are not bcard purchases and the transactions list is
 * paged by its own cursor, so the Transactions tab shows them as a section of their own, from
 * GET /api/subscription/charges (the last 100, newest first), under the same status filter.
 * Shapes are read from the OpenAPI types the server generates, never written by hand.
 */

export type PlanPayment = ApiAnswer<'/api/subscription/charges'>[number];
export type PlanPaymentStatus = PlanPayment['status'];

/** The key the Plans screen uses for the same call (features do not import each other): an upgrade there refreshes this. */
export const PLAN_PAYMENTS_QUERY_KEY = ['/api/subscription/charges'] as const;

export function planPaymentsQuery() {
  return queryOptions({ queryKey: PLAN_PAYMENTS_QUERY_KEY, queryFn: () => unwrap(api.GET('/api/subscription/charges')) });
}

/**
 * The tab's filter in the plan payments' own words: a completed purchase is a paid (succeeded) plan payment. The
 * bcard stages (active, used, returned, bank debits) have no plan payment: those filters keep none.
 */
const statusOf: Partial<Record<Exclude<StatusFilter, 'all'>, PlanPaymentStatus>> = {
  completed: 'succeeded',
  pending: 'pending',
  failed: 'failed',
};

/** The plan payments that the tab's status filter keeps, in the order given (newest first). */
export function planPaymentsFor(payments: readonly PlanPayment[], filter: StatusFilter): PlanPayment[] {
  if (filter === 'all') return [...payments];
  const status = statusOf[filter];
  return status ? payments.filter((p) => p.status === status) : [];
}

/** The plan payments CSV with the same filter (every payment, not only the last 100 the section lists): a link's href. */
export function planPaymentsCsvUrl(filter: StatusFilter): string {
  const status = filter === 'all' ? 'all' : (statusOf[filter] ?? 'all');
  return `/api/subscription/charges/export.csv?${new URLSearchParams({ status })}`;
}

/** Badge tone per status: paid green, failed red, processing yellow. */
export const PLAN_PAYMENT_TONE = { succeeded: 'green', failed: 'red', pending: 'yellow' } as const satisfies Record<PlanPaymentStatus, string>;
