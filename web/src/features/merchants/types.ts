import type { paths } from '../../../../sdk/src/schema';

export type PlatformType = 'shopify' | 'wordpress' | 'woocommerce' | 'custom';
export type Environment = 'sandbox' | 'production';

/** GET /api/merchants: one of the signed-in user's merchant accounts. The secret key is only ever a hint here. */
export interface Merchant {
  id: string;
  businessName: string;
  businessEmail: string;
  website: string | null;
  platformType: PlatformType;
  environment: Environment;
  isActive: boolean;
  /** All-time received, decimal dollars ("123.45"). */
  totalVolume: string;
  createdAt: string;
  /** The publishable key (pk_test_… / pk_live_…): public by design. */
  apiKey: string;
  publicApiKey: string;
  /** "sk_test_••••AB12". */
  secretKeyHint: string;
  secretKeyRolledAt: string | null;
  /** The key the last roll replaced, while its grace period lasts ("sk_test_••••CD34"); null otherwise. */
  previousSecretKeyHint: string | null;
  /** When that key stops working (ISO 8601). */
  previousSecretKeyExpiresAt: string | null;
}

/** Creating a merchant or rolling its secret: the only answers that carry the full secret key. */
export interface MerchantWithSecret extends Merchant {
  secretApiKey: string;
}

export interface CreateMerchantBody {
  businessName: string;
  businessEmail: string;
  website?: string;
  platformType: PlatformType;
  environment: Environment;
}

export interface ListAnswer<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

export interface MerchantUsage {
  totalRequests: number;
  totalRequestsToday?: number;
  totalRequestsThisMonth?: number;
}

/** The spec's event choices (besides all events); each must be an event type the API knows. */
export const WEBHOOK_EVENT_CHOICES = ['payment_intent.succeeded', 'payment_intent.failed'] as const satisfies ReadonlyArray<
  NonNullable<WebhookEndpointUpdate['enabled_events']>[number]
>;

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabled_events: string[];
  description: string | null;
  status: 'enabled' | 'disabled' | (string & {});
  disabled_reason: string | null;
  /** Unix seconds. */
  created: number;
}

/** The creating answer: the signing secret is shown this once. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  secret: string;
}

export interface CreateWebhookEndpointBody {
  url: string;
  enabled_events: string[];
  description?: string;
}

/** One attempt's outcome. */
export interface WebhookAttempt {
  /** Unix seconds. */
  at: number;
  /** The receiver's HTTP status; null when it did not answer. */
  status_code: number | null;
  duration_ms: number;
  response_snippet: string | null;
  /** Why no answer came (timeout, network, URL rules). */
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  /** The event id. */
  event: string;
  event_type: string;
  /** The endpoint id. */
  webhook_endpoint: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed' | (string & {});
  attempts: number;
  created: number;
  /** Unix seconds, while pending. */
  next_attempt_at: number | null;
  last_attempt: WebhookAttempt | null;
}

/*
 * Newer shapes are read from the OpenAPI types the server's routes generate (sdk/src/schema.d.ts, checked against
 * the API by `bun scripts/generate-sdk.ts --check`), not written by hand: a field the server renames breaks this
 * feature's typecheck instead of reaching the page as `undefined`.
 */
type Method = 'get' | 'post' | 'patch';
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
/** The JSON of an operation's 200 answer. */
type AnswerOf<P extends keyof paths, M extends Method> = Op<P, M> extends { responses: { 200: infer R } } ? Json<R> : never;
/** The JSON body an operation takes. */
type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

/** A page of the dashboard's payment intents, with total_count when asked for (include[]=total_count). */
export type PaymentIntentPage = AnswerOf<'/api/merchants/{id}/payment_intents', 'get'>;
/** One delivery in full: the request as sent and every attempt. */
export type WebhookDeliveryDetail = AnswerOf<'/api/merchants/{id}/webhook_deliveries/{deliveryId}', 'get'>;
export type WebhookAttemptRecord = WebhookDeliveryDetail['attempt_history'][number];
/** What editing an endpoint may change (only what changed is sent). */
export type WebhookEndpointUpdate = BodyOf<'/api/merchants/{id}/webhook_endpoints/{endpointId}', 'patch'>;
/** Rolling the signing secret answers the endpoint with its new secret, shown once. */
export type RolledWebhookEndpoint = AnswerOf<'/api/merchants/{id}/webhook_endpoints/{endpointId}/roll_secret', 'post'>;
/** The deliveries a resend queued. */
export type ResendAnswer = AnswerOf<'/api/merchants/{id}/events/{eventId}/resend', 'post'>;

/** A payment intent as the dashboard's list answers it (amount_received and amount_refunded in cents). */
export type PaymentIntent = PaymentIntentPage['data'][number];
export type PaymentIntentStatus = PaymentIntent['status'];

/** A refund of a payment (pending until every funding source has its part back; failed when refused). */
export type Refund = AnswerOf<'/api/merchants/{id}/refunds', 'post'>;
export type RefundReason = NonNullable<Refund['reason']>;
/** What the dashboard sends to refund a payment. */
export type CreateRefundBody = BodyOf<'/api/merchants/{id}/refunds', 'post'>;
export type RefundPage = AnswerOf<'/api/merchants/{id}/refunds', 'get'>;
