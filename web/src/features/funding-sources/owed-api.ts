import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';
import type { Lang } from '../../i18n';

/*
 * What the consumer owes bpay and repaying it (issue 26): GET /api/receivables and POST /api/receivables/payments.
 * Its own module, loaded with the owed details (never in the dashboard's first chunk): nothing is owed for most users.
 */

export type Receivables = ApiAnswer<'/api/receivables'>;
export type RepayBody = ApiBody<'/api/receivables/payments'>;
export type RepayAnswer = ApiAnswer<'/api/receivables/payments', 'post'>;

export const RECEIVABLES_QUERY_KEY = ['/api/receivables'] as const;

/** What is owed, its reasons written in the screen's language. */
export function receivablesQuery(language: Lang) {
  return queryOptions({
    queryKey: [...RECEIVABLES_QUERY_KEY, language] as const,
    queryFn: () => unwrap(api.GET('/api/receivables', { params: { query: { language } } })),
  });
}

/** One Idempotency-Key per attempt (the same one again for a retry of that attempt): a repayment is never made twice. */
export const repayRequest = (body: RepayBody, idempotencyKey: string): Promise<RepayAnswer> =>
  unwrap(api.POST('/api/receivables/payments', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));
