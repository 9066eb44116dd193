import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';
/*
 * The queries are the dashboard's own factories (same keys, same cache): a payment here refreshes the balances,
 * bcards and transactions the dashboard shows, and a visit from the dashboard finds them already loaded.
 */
import { bcardsQuery } from '../bcards/api';
import { benefitsQuery } from '../dashboard/api';
import { fundingSourcesQuery } from '../funding-sources/api';
import { TRANSACTIONS_QUERY_KEY } from '../transactions/api';

export { benefitsQuery, fundingSourcesQuery };

/*
 * The demo's calls. Every shape is read from the OpenAPI types the server's routes generate (sdk/src/schema.d.ts),
 * never written by hand: a renamed field breaks this feature's typecheck.
 */

/** The bcard POST /api/virtual-cards issues (and its cancel answers with). Money is in decimal strings. */
export type Bcard = ApiAnswer<'/api/virtual-cards', 'post'>;
/** POST /api/process-payment with an issued bcard: the merchant charges it (spec §7). */
export type ProcessPaymentBody = ApiBody<'/api/process-payment'>;
/** The answer of POST /api/process-payment (spec §3 "Payment result"). */
export type PaymentResult = ApiAnswer<'/api/process-payment', 'post'>;

/**
 * Cancels the unused bcard: it is deactivated and every share refunded at once. Refunds move money, so it carries an
 * Idempotency-Key too: a resend after no answer gets the first answer, not a 409.
 */
export const cancelDemoBcardRequest = (bcardId: string, idempotencyKey: string): Promise<Bcard> =>
  unwrap(api.POST('/api/virtual-cards/{id}/cancel', { params: { path: { id: bcardId }, header: { 'idempotency-key': idempotencyKey } } }));

/** Spends the bcard at the merchant; the transaction is recorded. */
export const processPaymentRequest = (body: ProcessPaymentBody, idempotencyKey: string): Promise<PaymentResult> =>
  unwrap(api.POST('/api/process-payment', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));

/** POST /api/demo/checkout-intent: a sandbox intent of bpay's demo merchant TechStore. */
export type DemoIntent = ApiAnswer<'/api/demo/checkout-intent', 'post'>;
export type DemoIntentBody = ApiBody<'/api/demo/checkout-intent'>;
export type PayIntentBody = ApiBody<'/api/checkout/payment_intents/{id}/pay'>;
export type PayIntentAnswer = ApiAnswer<'/api/checkout/payment_intents/{id}/pay', 'post'>;

/**
 * The signed-in run's order: a sandbox intent of the demo merchant for the demo's amount, the merchant name typed on
 * the checkout only its label. Never a charge of a merchant someone typed (issue 25 item 7).
 */
export const createDemoPaymentIntentRequest = (body: DemoIntentBody, idempotencyKey: string): Promise<DemoIntent> =>
  unwrap(api.POST('/api/demo/checkout-intent', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));

/**
 * Pays it through the checkout widget's endpoint: a sandbox intent is paid with a test bcard collected from test
 * sources standing for the split's shares, nothing collected from the consumer's (its progress: collectionProgressRequest).
 */
export const payDemoPaymentIntentRequest = (id: string, body: PayIntentBody, idempotencyKey: string): Promise<PayIntentAnswer> =>
  unwrap(api.POST('/api/checkout/payment_intents/{id}/pay', { body, params: { path: { id }, header: { 'idempotency-key': idempotencyKey } } }));

/** GET /api/virtual-cards/collection-progress: how far the collection started with this Idempotency-Key has got. */
export type CollectionProgress = ApiAnswer<'/api/virtual-cards/collection-progress'>;
export const collectionProgressRequest = (idempotencyKey: string): Promise<CollectionProgress> =>
  unwrap(api.GET('/api/virtual-cards/collection-progress', { params: { query: { key: idempotencyKey } } }));

/** After money may have moved: balances, bcards and the transaction history are re-read. */
export function useRefreshMoney(): () => void {
  const qc = useQueryClient();
  return useCallback(() => {
    void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
    void qc.invalidateQueries({ queryKey: bcardsQuery().queryKey });
    void qc.invalidateQueries({ queryKey: TRANSACTIONS_QUERY_KEY });
  }, [qc]);
}
