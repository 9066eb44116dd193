import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import type { DemoBenefits, DemoFundingSource, DemoIntent, PayAnswer, PayBody, PublicIntent } from './types';

/*
 * The signed-in demos run the real checkout: a sandbox intent of the built-in merchant TechStore, paid through the
 * same endpoint the widget's popup uses. Nothing here runs for signed-out visitors or in demo mode.
 */

/** The consumer's funding sources. Same key as the dashboard's, so a signed-in cache is shared. */
export function demoSourcesQuery() {
  return queryOptions({
    queryKey: ['/api/funding-sources'] as const,
    queryFn: () => apiRequest<DemoFundingSource[]>('GET', '/api/funding-sources'),
    // Balances change with every payment: read them afresh each time.
    staleTime: 0,
  });
}

/** The plan's fee (spec §7: reads benefits.feePercentage). */
export function demoBenefitsQuery() {
  return queryOptions({
    queryKey: ['/api/subscription/benefits'] as const,
    queryFn: () => apiRequest<DemoBenefits>('GET', '/api/subscription/benefits'),
  });
}

/** A fresh sandbox intent of TechStore for this visit. */
export const createDemoIntentRequest = (idempotencyKey: string) =>
  apiRequest<DemoIntent>('POST', '/api/demo/checkout-intent', {}, {}, { 'Idempotency-Key': idempotencyKey });

/** Pays the intent with the split (a sandbox intent: checked, then paid with a sandbox test bcard). */
export const payDemoIntentRequest = (id: string, body: PayBody, idempotencyKey: string) =>
  apiRequest<PayAnswer>('POST', `/api/checkout/payment_intents/${encodeURIComponent(id)}/pay`, body, {}, {
    'Idempotency-Key': idempotencyKey,
  });

/** What the merchant's page does after the widget: read the intent back and trust only its status. */
export const readIntentRequest = (id: string, clientSecret: string) =>
  apiRequest<PublicIntent>(
    'GET',
    `/api/checkout/payment_intents/${encodeURIComponent(id)}?${new URLSearchParams({ client_secret: clientSecret })}`,
  );
