/*
 * Names for the API's objects and parameters, all taken from the generated `paths` (./schema.d.ts): nothing here
 * restates a shape by hand. Refresh them with `bun run sdk:generate`.
 */
import type { paths } from './schema';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The JSON of an operation's 200 answer. */
export type ResponseOf<P extends keyof paths, M extends Method> = Op<P, M> extends { responses: { 200: infer R } } ? Json<R> : never;
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The query parameters an operation takes. */
export type QueryOf<P extends keyof paths, M extends Method> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

// Merchant API (/api/v1, `Authorization: Bearer sk_…`).
export type PaymentIntent = ResponseOf<'/api/v1/payment_intents/{id}', 'get'>;
export type PaymentIntentStatus = PaymentIntent['status'];
export type PaymentIntentCreateParams = BodyOf<'/api/v1/payment_intents', 'post'>;
export type PaymentIntentUpdateParams = NonNullable<BodyOf<'/api/v1/payment_intents/{id}', 'post'>>;
export type PaymentIntentConfirmParams = BodyOf<'/api/v1/payment_intents/{id}/confirm', 'post'>;
export type PaymentIntentCaptureParams = BodyOf<'/api/v1/payment_intents/{id}/capture', 'post'>;
export type PaymentIntentCancelParams = BodyOf<'/api/v1/payment_intents/{id}/cancel', 'post'>;
export type PaymentIntentListParams = QueryOf<'/api/v1/payment_intents', 'get'> & { limit?: number };
export type PaymentIntentList = ResponseOf<'/api/v1/payment_intents', 'get'>;

/** A merchant's refund of a succeeded payment intent (POST /api/v1/refunds). */
export type Refund = ResponseOf<'/api/v1/refunds/{id}', 'get'>;
export type RefundStatus = Refund['status'];
export type RefundReason = NonNullable<Refund['reason']>;
export type RefundCreateParams = BodyOf<'/api/v1/refunds', 'post'>;
export type RefundListParams = QueryOf<'/api/v1/refunds', 'get'> & { limit?: number };
export type RefundList = ResponseOf<'/api/v1/refunds', 'get'>;

/** A paid payment intent's Charge (ch_…), with `allocations`: how the consumer's bcard was funded (issue 28 §2). */
export type Charge = ResponseOf<'/api/v1/charges/{id}', 'get'>;
/** One funding share of a payment: its part, what was refunded to it, and the card or account's face (never more). */
export type ChargeAllocation = Charge['allocations'][number];
export type ChargeListParams = QueryOf<'/api/v1/charges', 'get'> & { limit?: number };
export type ChargeList = ResponseOf<'/api/v1/charges', 'get'>;
/** A refund's split: how much went back to each share (the refund's `allocations`). */
export type RefundAllocation = Refund['allocations'][number];

export type WebhookEndpoint = ResponseOf<'/api/v1/webhook_endpoints/{id}', 'get'>;
export type WebhookEndpointCreateParams = BodyOf<'/api/v1/webhook_endpoints', 'post'>;
export type WebhookEndpointUpdateParams = BodyOf<'/api/v1/webhook_endpoints/{id}', 'patch'>;
export type WebhookEndpointListParams = QueryOf<'/api/v1/webhook_endpoints', 'get'> & { limit?: number };
export type DeletedWebhookEndpoint = ResponseOf<'/api/v1/webhook_endpoints/{id}', 'delete'>;
export type EventType = WebhookEndpointCreateParams['enabled_events'][number];

export type BpayEvent = ResponseOf<'/api/v1/events/{id}', 'get'>;
export type EventListParams = QueryOf<'/api/v1/events', 'get'> & { limit?: number };
export type EventResendParams = BodyOf<'/api/v1/events/{id}/resend', 'post'>;
export type EventResendResult = ResponseOf<'/api/v1/events/{id}/resend', 'post'>;
export type WebhookDelivery = EventResendResult['data'][number];

export type Usage = ResponseOf<'/api/v1/merchant/usage', 'get'>;

/** A sandbox card for tests (POST /api/v1/test_helpers/bcards; sandbox keys only). */
export type TestBcard = ResponseOf<'/api/v1/test_helpers/bcards', 'post'>;
export type TestBcardCreateParams = BodyOf<'/api/v1/test_helpers/bcards', 'post'>;
export type EventStreamQuery = QueryOf<'/api/v1/events/stream', 'get'>;

// Admin API (/api/admin, `Authorization: Bearer <admin token>`).
export type AdminLoginResult = ResponseOf<'/api/admin/auth/login', 'post'>;
export type AdminVerifyResult = ResponseOf<'/api/admin/auth/verify', 'get'>;
export type KycVerification = ResponseOf<'/api/admin/kyc/verifications/{id}', 'get'>;
export type KycStatus = KycVerification['status'];
export type KycListParams = QueryOf<'/api/admin/kyc/verifications', 'get'>;
export type KycReviewParams = BodyOf<'/api/admin/kyc/verifications/{id}', 'patch'>;
export type KycDashboard = ResponseOf<'/api/admin/kyc/dashboard', 'get'>;
export type AdminUser = ResponseOf<'/api/admin/users/{id}', 'patch'>;
export type UserRole = AdminUser['role'];
/** The roles an admin may give a user (admins are separate accounts, never a user role). */
export type AssignableUserRole = BodyOf<'/api/admin/users/{id}', 'patch'>['role'];
export type AdminUserListParams = QueryOf<'/api/admin/users', 'get'>;
export type UserSubscription = ResponseOf<'/api/admin/users/{id}/subscription', 'patch'>;
export type SubscriptionTier = ResponseOf<'/api/admin/subscription-tiers', 'get'> extends Array<infer T> ? T : never;
