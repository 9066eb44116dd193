import { queryOptions } from '@tanstack/react-query';
import type { paths } from '../../../../sdk/src/schema';
import { apiRequest } from '../../lib/api';
import type { Bcard, CheckoutDetails, CreateBcardBody } from './types';

export const BCARDS_QUERY_KEY = ['/api/virtual-cards'] as const;

/** The signed-in user's bcards. */
export function bcardsQuery() {
  return queryOptions({
    queryKey: BCARDS_QUERY_KEY,
    queryFn: () => apiRequest<Bcard[]>('GET', '/api/virtual-cards'),
  });
}

/**
 * Collects the split and issues the bcard. The Idempotency-Key makes a repeated submission (double click, retry
 * after a lost answer) return the first outcome instead of charging twice.
 */
export const createBcardRequest = (body: CreateBcardBody, idempotencyKey: string) =>
  apiRequest<Bcard>('POST', '/api/virtual-cards', body, {}, { 'Idempotency-Key': idempotencyKey });

/** Cancels an unused bcard; the money goes back to its sources. */
export const cancelBcardRequest = (id: string) =>
  apiRequest<Bcard>('POST', `/api/virtual-cards/${encodeURIComponent(id)}/cancel`);

/** The full number, expiry and CVV. Each call is recorded by the server, so it is never cached or retried. */
export const checkoutDetailsRequest = (id: string) =>
  apiRequest<CheckoutDetails>('GET', `/api/virtual-cards/${encodeURIComponent(id)}/checkout-details`);

/** GET /api/virtual-cards/collection-progress, exactly as the server answers it (generated from the routes). */
export type CollectionProgress =
  paths['/api/virtual-cards/collection-progress']['get']['responses'][200]['content']['application/json'];

/**
 * How far the Create bcard request sent with `idempotencyKey` has got, as the server has recorded it (polled while the
 * request is open; never cached between requests: each has its own key).
 */
export function collectionProgressQuery(idempotencyKey: string | null) {
  return queryOptions({
    queryKey: ['/api/virtual-cards/collection-progress', idempotencyKey] as const,
    queryFn: () =>
      apiRequest<CollectionProgress>(
        'GET',
        `/api/virtual-cards/collection-progress?key=${encodeURIComponent(idempotencyKey ?? '')}`,
      ),
    enabled: idempotencyKey !== null,
    gcTime: 0,
  });
}
