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
/** POST /api/virtual-cards: the demo sends percentage shares, or fixed amounts (each share's amount, fee included). */
export type DemoBcardBody = ApiBody<'/api/virtual-cards'>;
/** POST /api/process-payment with an issued bcard: the merchant charges it (spec §7). */
export type ProcessPaymentBody = ApiBody<'/api/process-payment'>;
/** The answer of POST /api/process-payment (spec §3 "Payment result"). */
export type PaymentResult = ApiAnswer<'/api/process-payment', 'post'>;

/** Collects the split all-or-nothing and issues the bcard. The key makes a resend return the first outcome. */
export const createDemoBcardRequest = (body: DemoBcardBody, idempotencyKey: string): Promise<Bcard> =>
  unwrap(api.POST('/api/virtual-cards', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));

/** The full number, expiry and CVV. Each call is recorded by the server: asked once per bcard, never cached. */
export const demoCheckoutDetailsRequest = (bcardId: string) =>
  unwrap(api.GET('/api/virtual-cards/{id}/checkout-details', { params: { path: { id: bcardId } } }));

/**
 * Cancels the unused bcard: it is deactivated and every share refunded at once. Refunds move money, so it carries an
 * Idempotency-Key too: a resend after no answer gets the first answer, not a 409.
 */
export const cancelDemoBcardRequest = (bcardId: string, idempotencyKey: string): Promise<Bcard> =>
  unwrap(api.POST('/api/virtual-cards/{id}/cancel', { params: { path: { id: bcardId }, header: { 'idempotency-key': idempotencyKey } } }));

/** Spends the bcard at the merchant; the transaction is recorded. */
export const processPaymentRequest = (body: ProcessPaymentBody, idempotencyKey: string): Promise<PaymentResult> =>
  unwrap(api.POST('/api/process-payment', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));

/** After money may have moved: balances, bcards and the transaction history are re-read. */
export function useRefreshMoney(): () => void {
  const qc = useQueryClient();
  return useCallback(() => {
    void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
    void qc.invalidateQueries({ queryKey: bcardsQuery().queryKey });
    void qc.invalidateQueries({ queryKey: TRANSACTIONS_QUERY_KEY });
  }, [qc]);
}
