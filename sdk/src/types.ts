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

/*
 * Charges (issue 28 §2): a paid intent's Charge, with `allocations`, how the consumer's bcard was funded. Read from the
 * generated schema once it has /api/v1/charges (`bun run sdk:generate`); until then from the shared contract below, so
 * the SDK builds before the schema is regenerated. The generated shape wins as soon as it exists.
 */
type GeneratedJson<P extends string, M extends Method> = paths extends { [K in P]: { [N in M]: { responses: { 200: { content: { 'application/json': infer T } } } } } } ? T : undefined;
type GeneratedQuery<P extends string> = paths extends { [K in P]: { get: { parameters: { query?: infer Q } } } } ? NonNullable<Q> : undefined;
type Or<G, Fallback> = [G] extends [undefined] ? Fallback : G;

/** One funding share of a payment: its part, what was refunded to it, and the card or account's face (never more). */
export interface ChargeAllocationContract {
  /** In cents: this share's part of the payment. */
  amount: number;
  /** In cents: refunded to this share so far. */
  amount_refunded: number;
  funding: 'credit' | 'debit' | 'prepaid' | 'bank_account';
  /** The card brand; null for a bank account. */
  brand: string | null;
  last4: string;
  /** pending while a bank debit settles; failed when the bank returned it. */
  status: 'succeeded' | 'pending' | 'failed';
}
/** A paid payment intent (ch_…), with the split that funded it. */
export interface ChargeContract {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  created: number;
  livemode: boolean;
  paid: boolean;
  captured: boolean;
  refunded: boolean;
  status: 'succeeded' | 'pending' | 'failed';
  payment_intent: string;
  description: string | null;
  metadata: Record<string, string>;
  payment_method_details: { type: 'bcard'; bcard: { last4: string } };
  allocations: ChargeAllocationContract[];
}
/** How much of a refund went back to one funding share. */
export interface RefundAllocationContract {
  amount: number;
  funding: ChargeAllocationContract['funding'];
  brand: string | null;
  last4: string;
  status: 'pending' | 'succeeded' | 'failed';
}

export type Charge = Or<GeneratedJson<'/api/v1/charges/{id}', 'get'>, ChargeContract>;
export type ChargeAllocation = Charge['allocations'][number];
export type ChargeListParams = Or<GeneratedQuery<'/api/v1/charges'>, { payment_intent?: string; starting_after?: string; ending_before?: string }> & {
  limit?: number;
};
export type ChargeList = { object: 'list'; url: string; has_more: boolean; data: Charge[] };
/** A refund's split: how much went back to each share (the refund's `allocations`). */
export type RefundAllocation = Refund extends { allocations: Array<infer A> } ? A : RefundAllocationContract;

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
