import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The signed-in demos run the real checkout: a sandbox intent of the built-in merchant TechStore, paid through the
 * same endpoint the widget's popup uses. Nothing here runs for signed-out visitors or in demo mode.
 *
 * Every shape is read from the OpenAPI types the server's routes generate (sdk/src/schema.d.ts, checked against the
 * API by `bun scripts/generate-sdk.ts --check`), never written by hand: a field the server renames or drops breaks
 * this feature's typecheck instead of reaching the page as `undefined`.
 */

/** GET /api/funding-sources: one of the consumer's sources, exactly as the server answers it. */
export type DemoFundingSource = ApiAnswer<'/api/funding-sources'>[number];
/** GET /api/subscription/benefits, exactly as the server answers it (feePercentage is always a number). */
export type DemoBenefits = ApiAnswer<'/api/subscription/benefits'>;
/** POST /api/demo/checkout-intent: a fresh sandbox payment intent of TechStore. */
export type DemoIntent = ApiAnswer<'/api/demo/checkout-intent', 'post'>;
/** GET /api/checkout/payment_intents/{id}?client_secret=… (public fields only). */
export type PublicIntent = ApiAnswer<'/api/checkout/payment_intents/{id}'>;
/** POST /api/checkout/payment_intents/{id}/pay: the intent and the bcard that paid it (masked, no CVV). */
export type PayAnswer = ApiAnswer<'/api/checkout/payment_intents/{id}/pay', 'post'>;
export type PaidBcard = PayAnswer['bcard'];
/** What the /pay endpoint accepts: the amount (cents) shown, refused if it changed since, and the split. */
export type PayBody = ApiBody<'/api/checkout/payment_intents/{id}/pay'>;

/*
 * The two queries below reuse the cache keys of the dashboard's own queries on purpose — ['/api/funding-sources']
 * (features/funding-sources: FUNDING_SOURCES_QUERY_KEY) and ['/api/subscription/benefits'] (features/dashboard:
 * BENEFITS_QUERY_KEY) — so a consumer coming from the dashboard sees their sources at once, and a payment here
 * invalidates the dashboard's balances too. They are declared again rather than imported because features do not
 * import each other. Sharing a key is safe only while both sides cache the very same answer: that is why the types
 * above come from the generated schema, as the endpoints answer, not from what this page happens to read.
 */

/** The consumer's funding sources (shared cache key: ['/api/funding-sources'], see above). */
export function demoSourcesQuery() {
  return queryOptions({
    queryKey: ['/api/funding-sources'] as const,
    queryFn: () => unwrap(api.GET('/api/funding-sources')),
    // Balances change with every payment: read them afresh each time.
    staleTime: 0,
  });
}

/** The plan's fee (spec §7: reads benefits.feePercentage). Shared cache key: ['/api/subscription/benefits']. */
export function demoBenefitsQuery() {
  return queryOptions({
    queryKey: ['/api/subscription/benefits'] as const,
    queryFn: () => unwrap(api.GET('/api/subscription/benefits')),
  });
}

/** A fresh sandbox intent of TechStore for this visit. */
export const createDemoIntentRequest = (idempotencyKey: string): Promise<DemoIntent> =>
  unwrap(api.POST('/api/demo/checkout-intent', { body: {}, params: { header: { 'idempotency-key': idempotencyKey } } }));

/** Pays the intent with the split (a sandbox intent: checked, then paid with a sandbox test bcard). */
export const payDemoIntentRequest = (id: string, body: PayBody, idempotencyKey: string): Promise<PayAnswer> =>
  unwrap(api.POST('/api/checkout/payment_intents/{id}/pay', { body, params: { path: { id }, header: { 'idempotency-key': idempotencyKey } } }));

/** What the merchant's page does after the widget: read the intent back and trust only its status. */
export const readIntentRequest = (id: string, clientSecret: string): Promise<PublicIntent> =>
  unwrap(api.GET('/api/checkout/payment_intents/{id}', { params: { path: { id }, query: { client_secret: clientSecret } } }));
