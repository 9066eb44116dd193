import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * What the consumer owes bpay and repaying it (issue 26): GET /api/receivables and POST /api/receivables/payments.
 * Its own module, loaded with the owed details (never in the dashboard's first chunk): nothing is owed for most users.
 */

export type Receivables = ApiAnswer<'/api/receivables'>;
export type RepayBody = ApiBody<'/api/receivables/payments'>;
export type RepayAnswer = ApiAnswer<'/api/receivables/payments', 'post'>;

export const RECEIVABLES_QUERY_KEY = ['/api/receivables'] as const;

export function receivablesQuery() {
  return queryOptions({ queryKey: RECEIVABLES_QUERY_KEY, queryFn: () => unwrap(api.GET('/api/receivables')) });
}

/** One Idempotency-Key per attempt (the same one again for a retry of that attempt): a repayment is never made twice. */
export const repayRequest = (body: RepayBody, idempotencyKey: string): Promise<RepayAnswer> =>
  unwrap(api.POST('/api/receivables/payments', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));
