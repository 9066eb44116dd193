import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The merchant pages read through the cookie-authenticated, owner-checked mirrors under /api/merchants/{id}/…:
 * the browser never holds a secret key (docs/DECISIONS.md, Merchant platform). Every shape is read from the OpenAPI
 * types the server's routes generate (sdk/src/schema.d.ts), never written by hand: a field the server renames breaks
 * this feature's typecheck instead of reaching the page as `undefined`.
 */

/** One of the signed-in user's merchant accounts. The secret key is only ever a hint here. */
export type Merchant = ApiAnswer<'/api/merchants'>[number];
export type PlatformType = Merchant['platformType'];
export type Environment = Merchant['environment'];
/** Creating a merchant: the only answer besides a roll that carries the full secret key. */
export type MerchantWithSecret = ApiAnswer<'/api/merchants', 'post'>;
export type CreateMerchantBody = ApiBody<'/api/merchants'>;
type RollSecretBody = ApiBody<'/api/merchants/{id}/roll-secret'>;
/** How long the replaced secret key keeps working: now, 1h, 24h or 7d. */
export type KeyGracePeriod = NonNullable<RollSecretBody['expire_old_key_in']>;

/** A page of the dashboard's payment intents, with total_count when asked for (include[]=total_count). */
type PaymentIntentPage = ApiAnswer<'/api/merchants/{id}/payment_intents'>;
/** A payment intent as the dashboard's list answers it (amount_received and amount_refunded in cents). */
export type PaymentIntent = PaymentIntentPage['data'][number];

/** A refund of a payment (pending until every funding source has its part back; failed when refused). */
export type Refund = ApiAnswer<'/api/merchants/{id}/refunds', 'post'>;
export type RefundReason = NonNullable<Refund['reason']>;
/** What the dashboard sends to refund a payment. */
export type CreateRefundBody = ApiBody<'/api/merchants/{id}/refunds'>;

export type WebhookEndpoint = ApiAnswer<'/api/merchants/{id}/webhook_endpoints'>['data'][number];
/** The creating answer: its signing secret is shown this once. */
export type CreatedWebhookEndpoint = ApiAnswer<'/api/merchants/{id}/webhook_endpoints', 'post'>;
export type CreateWebhookEndpointBody = ApiBody<'/api/merchants/{id}/webhook_endpoints'>;
/** What editing an endpoint may change (only what changed is sent). */
export type WebhookEndpointUpdate = ApiBody<'/api/merchants/{id}/webhook_endpoints/{endpointId}', 'patch'>;
/** An event type an endpoint can listen to ('*' for all). */
export type WebhookEventType = CreateWebhookEndpointBody['enabled_events'][number];
/** Rolling the signing secret answers the endpoint with its new secret, shown once. */
export type RolledWebhookEndpoint = ApiAnswer<'/api/merchants/{id}/webhook_endpoints/{endpointId}/roll_secret', 'post'>;
/** One attempt of a delivery, as its full record lists them. */
export type WebhookAttemptRecord = ApiAnswer<'/api/merchants/{id}/webhook_deliveries/{deliveryId}'>['attempt_history'][number];

export const MERCHANTS_QUERY_KEY = ['/api/merchants'] as const;

/** The signed-in user's merchant accounts (spec §6: only requested with a user). */
export function merchantsQuery() {
  return queryOptions({
    queryKey: MERCHANTS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/merchants')),
  });
}

/** API requests today (spec §7: totalRequests). */
export function usageQuery(merchantId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'usage'] as const,
    queryFn: () => unwrap(api.GET('/api/merchants/{id}/usage', { params: { path: { id: merchantId } } })),
    staleTime: 0,
  });
}

/** How many intents the cards and the overview read (the spec's "recent"). */
export const RECENT_INTENTS_LIMIT = 10;
export const PAYMENTS_PAGE_SIZE = 10;

/** One page of a merchant's payment intents, newest first; `startingAfter` is the last id of the page before. */
export function paymentIntentsQuery(merchantId: string, limit: number, startingAfter?: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'payment_intents', limit, startingAfter ?? null] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/merchants/{id}/payment_intents', {
          params: { path: { id: merchantId }, query: { limit, ...(startingAfter ? { starting_after: startingAfter } : {}) } },
        }),
      ),
    // Merchant servers create intents through the API behind this page's back: read afresh whenever a view mounts.
    staleTime: 0,
  });
}

/**
 * The overview's recent intents together with how many the account has (include[]=total_count): the Payment Intents
 * card shows that count, not the size of this page.
 */
export function recentIntentsQuery(merchantId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'payment_intents', 'recent'] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/merchants/{id}/payment_intents', {
          params: { path: { id: merchantId }, query: { limit: RECENT_INTENTS_LIMIT, 'include[]': ['total_count'] } },
        }),
      ),
    staleTime: 0,
  });
}

/** The key every payment intent query of a merchant starts with (to refresh them all after a refund). */
export const paymentIntentsKey = (merchantId: string) => [...MERCHANTS_QUERY_KEY, merchantId, 'payment_intents'] as const;

export function webhookEndpointsQuery(merchantId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_endpoints'] as const,
    queryFn: async () => (await unwrap(api.GET('/api/merchants/{id}/webhook_endpoints', { params: { path: { id: merchantId } } }))).data,
  });
}

/** Recent deliveries, of every endpoint or of one. The worker changes them behind the page: read afresh on mount. */
export function webhookDeliveriesQuery(merchantId: string, endpointId?: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_deliveries', endpointId ?? null] as const,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/merchants/{id}/webhook_deliveries', {
            params: { path: { id: merchantId }, query: endpointId ? { endpoint_id: endpointId } : {} },
          }),
        )
      ).data,
    staleTime: 0,
  });
}

export const createMerchantRequest = (body: CreateMerchantBody) => unwrap(api.POST('/api/merchants', { body }));

export const KEY_GRACE_PERIODS = ['now', '1h', '24h', '7d'] as const satisfies readonly KeyGracePeriod[];

/**
 * Rolls the secret key under an Idempotency-Key (one per submit, the same for its retries). A replay answers without
 * `secretApiKey`: that roll happened and its key cannot be shown again.
 */
export const rollSecretRequest = (merchantId: string, expireOldKeyIn: KeyGracePeriod, idempotencyKey: string) =>
  unwrap(
    api.POST('/api/merchants/{id}/roll-secret', {
      params: { path: { id: merchantId }, header: { 'idempotency-key': idempotencyKey } },
      body: { expire_old_key_in: expireOldKeyIn },
    }),
  );

export const createWebhookEndpointRequest = (merchantId: string, body: CreateWebhookEndpointBody) =>
  unwrap(api.POST('/api/merchants/{id}/webhook_endpoints', { params: { path: { id: merchantId } }, body }));

const endpointPath = (merchantId: string, endpointId: string) => ({ path: { id: merchantId, endpointId } });

export const deleteWebhookEndpointRequest = (merchantId: string, endpointId: string) =>
  unwrap(api.DELETE('/api/merchants/{id}/webhook_endpoints/{endpointId}', { params: endpointPath(merchantId, endpointId) }));

/** Disables an endpoint, or enables one again (for instance after bpay disabled it for failing). */
export const setWebhookEndpointDisabledRequest = (merchantId: string, endpointId: string, disabled: boolean) =>
  updateWebhookEndpointRequest(merchantId, endpointId, { disabled });

export const sendTestEventRequest = (merchantId: string, endpointId: string) =>
  unwrap(api.POST('/api/merchants/{id}/webhook_endpoints/{endpointId}/test', { params: endpointPath(merchantId, endpointId) }));

/** Edits an endpoint: only the fields given change (URL, events, description, disabled). */
export function updateWebhookEndpointRequest(merchantId: string, endpointId: string, body: WebhookEndpointUpdate) {
  return unwrap(api.PATCH('/api/merchants/{id}/webhook_endpoints/{endpointId}', { params: endpointPath(merchantId, endpointId), body }));
}

/** How long a rolled webhook secret keeps signing beside the new one (the API's expire_old_secret_in). */
export const SECRET_GRACE_PERIODS = ['now', '1h', '24h'] as const;
export type SecretGracePeriod = (typeof SECRET_GRACE_PERIODS)[number];

/**
 * A new signing secret, in force at once; the answer carries it, the only time it is shown. With a grace the old
 * secret signs deliveries too until it ends (two v1= in the signature headers).
 */
export const rollWebhookSecretRequest = (merchantId: string, endpointId: string, expireOldSecretIn: SecretGracePeriod, idempotencyKey: string) =>
  unwrap(
    api.POST('/api/merchants/{id}/webhook_endpoints/{endpointId}/roll_secret', {
      params: { ...endpointPath(merchantId, endpointId), header: { 'idempotency-key': idempotencyKey } },
      body: { expire_old_secret_in: expireOldSecretIn },
    }),
  );

/** One delivery in full. Pending ones change behind the page as the worker retries them: read afresh on open. */
export function webhookDeliveryQuery(merchantId: string, deliveryId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_delivery', deliveryId] as const,
    queryFn: () =>
      unwrap(api.GET('/api/merchants/{id}/webhook_deliveries/{deliveryId}', { params: { path: { id: merchantId, deliveryId } } })),
    staleTime: 0,
  });
}

/** Sends an event again to one endpoint: a new delivery the worker sends. One key per click (kept across retries). */
export const resendEventRequest = (merchantId: string, eventId: string, endpointId: string, idempotencyKey: string) =>
  unwrap(
    api.POST('/api/merchants/{id}/events/{eventId}/resend', {
      params: { path: { id: merchantId, eventId }, header: { 'idempotency-key': idempotencyKey } },
      body: { endpoint_id: endpointId },
    }),
  );

export const REFUNDS_PAGE_SIZE = 20;

/** A payment's refunds, newest first, a page at a time (cursor: the last refund's id). */
export function refundsQuery(merchantId: string, paymentIntentId: string) {
  return infiniteQueryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'refunds', paymentIntentId] as const,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/merchants/{id}/refunds', {
          params: {
            path: { id: merchantId },
            query: { payment_intent: paymentIntentId, limit: REFUNDS_PAGE_SIZE, ...(pageParam ? { starting_after: pageParam } : {}) },
          },
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => (page.has_more ? (page.data[page.data.length - 1]?.id ?? null) : null),
    // A pending refund turns succeeded behind the page (the money sweep finishes it): read afresh on open.
    staleTime: 0,
  });
}

/** Refunds a payment, in full (no amount) or in part; the key is the submit's (kept across its retries). */
export const createRefundRequest = (merchantId: string, body: CreateRefundBody, idempotencyKey: string) =>
  unwrap(api.POST('/api/merchants/{id}/refunds', { params: { path: { id: merchantId }, header: { 'idempotency-key': idempotencyKey } }, body }));

/*
 * How a payment was funded (issue 28 §2): its charge's allocations, one per funding share of the consumer's bcard, and
 * each refund's.
 */
/** A paid payment's charge: its allocations say which card or account paid what. */
export type Charge = ApiAnswer<'/api/merchants/{id}/charges'>['data'][number];
export type ChargeAllocation = Charge['allocations'][number];
/** How much of a refund went back to one funding share. */
export type RefundAllocation = Refund['allocations'][number];
/** A refund's split (none when the answer carries none). */
export const refundAllocations = (r: Refund): RefundAllocation[] => r.allocations ?? [];

/**
 * A payment's charge (null before it is paid). Under the payment intents' key: a refund's refresh of the intents reads
 * it again too (each share's amount refunded changed).
 */
export function paymentChargeQuery(merchantId: string, paymentIntentId: string) {
  return queryOptions({
    queryKey: [...paymentIntentsKey(merchantId), 'charge', paymentIntentId] as const,
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/merchants/{id}/charges', { params: { path: { id: merchantId }, query: { payment_intent: paymentIntentId, limit: 1 } } }),
        )
      ).data[0] ?? null,
    staleTime: 0,
  });
}
