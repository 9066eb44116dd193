import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The checkout page's calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks this feature's typecheck.
 */

/** GET /api/checkout/payment_intents/{id}?client_secret=…: what anyone holding the client secret may see (amount in cents). */
export type PublicIntent = ApiAnswer<'/api/checkout/payment_intents/{id}'>;
/** A funding source as GET /api/funding-sources answers it (the checkout reads its name, balance and default split). */
export type CheckoutSource = ApiAnswer<'/api/funding-sources'>[number];
/** GET /api/subscription/benefits (the checkout reads the plan's fee). */
export type CheckoutBenefits = ApiAnswer<'/api/subscription/benefits'>;
/** POST /api/checkout/payment_intents/{id}/pay. `amount` is the cents the page showed: a changed amount is refused. */
export type PayBody = ApiBody<'/api/checkout/payment_intents/{id}/pay'>;
/** Its answer: the intent, the bcard that paid it (masked), and testMode for a sandbox intent. */
export type PayAnswer = ApiAnswer<'/api/checkout/payment_intents/{id}/pay', 'post'>;

/** The intent as the widget shows it: public fields only, by client secret. */
export function publicIntentQuery(id: string, clientSecret: string) {
  return queryOptions({
    queryKey: ['/api/checkout/payment_intents', id, clientSecret] as const,
    queryFn: () => unwrap(api.GET('/api/checkout/payment_intents/{id}', { params: { path: { id }, query: { client_secret: clientSecret } } })),
  });
}

/** The consumer's funding sources. Same endpoint and key as the dashboard's, so a signed-in cache is shared. */
export function checkoutSourcesQuery() {
  return queryOptions({
    queryKey: ['/api/funding-sources'] as const,
    queryFn: () => unwrap(api.GET('/api/funding-sources')),
    // Balances change with every payment: read them afresh each time the checkout opens.
    staleTime: 0,
  });
}

/** The plan's fee (spec §7: reads benefits.feePercentage). */
export function checkoutBenefitsQuery() {
  return queryOptions({
    queryKey: ['/api/subscription/benefits'] as const,
    queryFn: () => unwrap(api.GET('/api/subscription/benefits')),
  });
}

/**
 * Collects the split into a bcard locked to the merchant and confirms the intent with it. The Idempotency-Key
 * makes a repeated submission return the first outcome instead of charging twice.
 */
export const payIntentRequest = (id: string, body: PayBody, idempotencyKey: string): Promise<PayAnswer> =>
  unwrap(api.POST('/api/checkout/payment_intents/{id}/pay', { body, params: { path: { id }, header: { 'idempotency-key': idempotencyKey } } }));
