import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import type { CheckoutBenefits, CheckoutSource, PayAnswer, PayBody, PublicIntent } from './types';

/** The intent as the widget shows it: public fields only, by client secret. */
export function publicIntentQuery(id: string, clientSecret: string) {
  return queryOptions({
    queryKey: ['/api/checkout/payment_intents', id, clientSecret] as const,
    queryFn: () =>
      apiRequest<PublicIntent>(
        'GET',
        `/api/checkout/payment_intents/${encodeURIComponent(id)}?${new URLSearchParams({ client_secret: clientSecret })}`,
      ),
  });
}

/** The consumer's funding sources. Same endpoint and key as the dashboard's, so a signed-in cache is shared. */
export function checkoutSourcesQuery() {
  return queryOptions({
    queryKey: ['/api/funding-sources'] as const,
    queryFn: () => apiRequest<CheckoutSource[]>('GET', '/api/funding-sources'),
    // Balances change with every payment: read them afresh each time the checkout opens.
    staleTime: 0,
  });
}

/** The plan's fee (spec §7: reads benefits.feePercentage). */
export function checkoutBenefitsQuery() {
  return queryOptions({
    queryKey: ['/api/subscription/benefits'] as const,
    queryFn: () => apiRequest<CheckoutBenefits>('GET', '/api/subscription/benefits'),
  });
}

/**
 * Collects the split into a bcard locked to the merchant and confirms the intent with it. The Idempotency-Key
 * makes a repeated submission return the first outcome instead of charging twice.
 */
export const payIntentRequest = (id: string, body: PayBody, idempotencyKey: string) =>
  apiRequest<PayAnswer>('POST', `/api/checkout/payment_intents/${encodeURIComponent(id)}/pay`, body, {}, {
    'Idempotency-Key': idempotencyKey,
  });
