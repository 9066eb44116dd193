import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { apiRequest } from '../../lib/api';
/*
 * The queries are the dashboard's own factories (same keys, same cache): a payment here refreshes the balances,
 * bcards and transactions the dashboard shows, and a visit from the dashboard finds them already loaded.
 */
import { bcardsQuery } from '../bcards/api';
import type { Bcard, CheckoutDetails } from '../bcards/types';
import { benefitsQuery } from '../dashboard/api';
import { fundingSourcesQuery } from '../funding-sources/api';
import { TRANSACTIONS_QUERY_KEY } from '../transactions/api';

export { benefitsQuery, fundingSourcesQuery };

/** POST /api/virtual-cards as the demo sends it: percentage shares, or fixed amounts (each share's amount, fee included). */
export interface DemoBcardBody {
  name: string;
  balance: string;
  fundingSources: { fundingSourceId: string; percentage?: number; amount: string }[];
}

/** POST /api/process-payment with an issued bcard: the merchant charges it (spec §7). */
export interface ProcessPaymentBody {
  amount: string;
  merchant: string;
  virtualCardId: string;
}

/** The answer of POST /api/process-payment (spec §3 "Payment result"). */
export interface PaymentResult {
  totalAmount: string;
  totalFees: string;
  transaction: { id: string };
  splits: Bcard['fundingSources'];
  virtualCard: Bcard;
}

/** Collects the split all-or-nothing and issues the bcard. The key makes a resend return the first outcome. */
export const createDemoBcardRequest = (body: DemoBcardBody, idempotencyKey: string) =>
  apiRequest<Bcard>('POST', '/api/virtual-cards', body, {}, { 'Idempotency-Key': idempotencyKey });

/** The full number, expiry and CVV. Each call is recorded by the server: asked once per bcard, never cached. */
export const demoCheckoutDetailsRequest = (bcardId: string) =>
  apiRequest<CheckoutDetails>('GET', `/api/virtual-cards/${encodeURIComponent(bcardId)}/checkout-details`);

/**
 * Cancels the unused bcard: it is deactivated and every share refunded at once. Refunds move money, so it carries an
 * Idempotency-Key too: a resend after no answer gets the first answer, not a 409.
 */
export const cancelDemoBcardRequest = (bcardId: string, idempotencyKey: string) =>
  apiRequest<Bcard>('POST', `/api/virtual-cards/${encodeURIComponent(bcardId)}/cancel`, undefined, {}, { 'Idempotency-Key': idempotencyKey });

/** Spends the bcard at the merchant; the transaction is recorded. */
export const processPaymentRequest = (body: ProcessPaymentBody, idempotencyKey: string) =>
  apiRequest<PaymentResult>('POST', '/api/process-payment', body, {}, { 'Idempotency-Key': idempotencyKey });

/** After money may have moved: balances, bcards and the transaction history are re-read. */
export function useRefreshMoney(): () => void {
  const qc = useQueryClient();
  return useCallback(() => {
    void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
    void qc.invalidateQueries({ queryKey: bcardsQuery().queryKey });
    void qc.invalidateQueries({ queryKey: TRANSACTIONS_QUERY_KEY });
  }, [qc]);
}
