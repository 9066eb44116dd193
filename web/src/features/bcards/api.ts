import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The bcards' calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks this feature's typecheck.
 */

/** A single-use virtual card, as GET /api/virtual-cards answers it. Money is in decimal strings ("100.00"). */
export type Bcard = ApiAnswer<'/api/virtual-cards'>[number];
/** A funding source's part of a bcard, with the share's state at the processor (held, captured, refunded...). */
export type BcardFunding = Bcard['fundingSources'][number];
/** GET /api/virtual-cards/{id}/checkout-details: the only place the full number shows (each reveal is recorded). */
export type CheckoutDetails = ApiAnswer<'/api/virtual-cards/{id}/checkout-details'>;
/** POST /api/virtual-cards. */
export type CreateBcardBody = ApiBody<'/api/virtual-cards'>;
/** GET /api/virtual-cards/collection-progress, exactly as the server answers it. */
export type CollectionProgress = ApiAnswer<'/api/virtual-cards/collection-progress'>;
/**
 * What the Create bcard dialog needs to know of a funding source: the fields of GET /api/funding-sources it reads
 * (the dashboard's sources and its demo samples are such sources).
 */
export type FundingOption = Pick<
  ApiAnswer<'/api/funding-sources'>[number],
  'id' | 'name' | 'last4' | 'brand' | 'balance' | 'defaultSplitPercentage' | 'isActive' | 'type' | 'bankAccount'
>;

export const BCARDS_QUERY_KEY = ['/api/virtual-cards'] as const;

/** The signed-in user's bcards. */
export function bcardsQuery() {
  return queryOptions({
    queryKey: BCARDS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/virtual-cards')),
  });
}

/**
 * Collects the split and issues the bcard. The Idempotency-Key makes a repeated submission (double click, retry
 * after a lost answer) return the first outcome instead of charging twice.
 */
export const createBcardRequest = (body: CreateBcardBody, idempotencyKey: string): Promise<Bcard> =>
  unwrap(api.POST('/api/virtual-cards', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));

/** Cancels an unused bcard; the money goes back to its sources. */
export const cancelBcardRequest = (id: string): Promise<Bcard> =>
  unwrap(api.POST('/api/virtual-cards/{id}/cancel', { params: { path: { id } } }));

/** The full number, expiry and CVV. Each call is recorded by the server, so it is never cached or retried. */
export const checkoutDetailsRequest = (id: string): Promise<CheckoutDetails> =>
  unwrap(api.GET('/api/virtual-cards/{id}/checkout-details', { params: { path: { id } } }));

/**
 * How far the Create bcard request sent with `idempotencyKey` has got, as the server has recorded it (polled while the
 * request is open; never cached between requests: each has its own key).
 */
export function collectionProgressQuery(idempotencyKey: string | null) {
  return queryOptions({
    queryKey: ['/api/virtual-cards/collection-progress', idempotencyKey] as const,
    queryFn: () => unwrap(api.GET('/api/virtual-cards/collection-progress', { params: { query: { key: idempotencyKey ?? '' } } })),
    enabled: idempotencyKey !== null,
    gcTime: 0,
  });
}
