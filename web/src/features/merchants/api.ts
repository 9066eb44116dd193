import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { paths } from '../../../../sdk/src/schema';
import { apiRequest } from '../../lib/api';
import type {
  CreateMerchantBody,
  CreateWebhookEndpointBody,
  ListAnswer,
  Merchant,
  MerchantUsage,
  MerchantWithSecret,
  CreateRefundBody,
  PaymentIntentPage,
  Refund,
  RefundPage,
  ResendAnswer,
  RolledWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEndpoint,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
} from './types';

/*
 * The merchant pages read through the cookie-authenticated, owner-checked mirrors under /api/merchants/{id}/…:
 * the browser never holds a secret key (docs/DECISIONS.md, Merchant platform).
 */

export const MERCHANTS_QUERY_KEY = ['/api/merchants'] as const;
const base = (id: string) => `/api/merchants/${encodeURIComponent(id)}`;

/** The signed-in user's merchant accounts (spec §6: only requested with a user). */
export function merchantsQuery() {
  return queryOptions({
    queryKey: MERCHANTS_QUERY_KEY,
    queryFn: () => apiRequest<Merchant[]>('GET', '/api/merchants'),
  });
}

/** API requests today (spec §7: totalRequests). */
export function usageQuery(merchantId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'usage'] as const,
    queryFn: () => apiRequest<MerchantUsage>('GET', `${base(merchantId)}/usage`),
    staleTime: 0,
  });
}

/** How many intents the cards and the overview read (the spec's "recent"). */
export const RECENT_INTENTS_LIMIT = 10;
export const PAYMENTS_PAGE_SIZE = 10;

/** One page of a merchant's payment intents, newest first; `startingAfter` is the last id of the page before. */
export function paymentIntentsQuery(merchantId: string, limit: number, startingAfter?: string) {
  const params = new URLSearchParams({ limit: String(limit) });
  if (startingAfter) params.set('starting_after', startingAfter);
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'payment_intents', limit, startingAfter ?? null] as const,
    queryFn: () => apiRequest<PaymentIntentPage>('GET', `${base(merchantId)}/payment_intents?${params}`),
    // Merchant servers create intents through the API behind this page's back: read afresh whenever a view mounts.
    staleTime: 0,
  });
}

/**
 * The overview's recent intents together with how many the account has (include[]=total_count): the Payment Intents
 * card shows that count, not the size of this page.
 */
export function recentIntentsQuery(merchantId: string) {
  const params = new URLSearchParams({ limit: String(RECENT_INTENTS_LIMIT), 'include[]': 'total_count' });
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'payment_intents', 'recent'] as const,
    queryFn: () => apiRequest<PaymentIntentPage>('GET', `${base(merchantId)}/payment_intents?${params}`),
    staleTime: 0,
  });
}

/** The key every payment intent query of a merchant starts with (to refresh them all after a refund). */
export const paymentIntentsKey = (merchantId: string) => [...MERCHANTS_QUERY_KEY, merchantId, 'payment_intents'] as const;

/** Lists may come as `{ data: [...] }` or as a bare array. */
function listOf<T>(answer: ListAnswer<T> | T[]): T[] {
  return Array.isArray(answer) ? answer : answer.data;
}

export function webhookEndpointsQuery(merchantId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_endpoints'] as const,
    queryFn: async () =>
      listOf(await apiRequest<ListAnswer<WebhookEndpoint> | WebhookEndpoint[]>('GET', `${base(merchantId)}/webhook_endpoints`)),
  });
}

/** Recent deliveries, of every endpoint or of one. The worker changes them behind the page: read afresh on mount. */
export function webhookDeliveriesQuery(merchantId: string, endpointId?: string) {
  const qs = endpointId ? `?${new URLSearchParams({ endpoint_id: endpointId })}` : '';
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_deliveries', endpointId ?? null] as const,
    queryFn: async () =>
      listOf(await apiRequest<ListAnswer<WebhookDelivery> | WebhookDelivery[]>('GET', `${base(merchantId)}/webhook_deliveries${qs}`)),
    staleTime: 0,
  });
}

export const createMerchantRequest = (body: CreateMerchantBody) =>
  apiRequest<MerchantWithSecret>('POST', '/api/merchants', body);

/** The roll's body as the server takes it (sdk/src/schema.d.ts, generated from the route): a renamed field breaks the build. */
type RollSecretBody = NonNullable<paths['/api/merchants/{id}/roll-secret']['post']['requestBody']>['content']['application/json'];
/** How long the replaced secret key keeps working: now, 1h, 24h or 7d. */
export type KeyGracePeriod = NonNullable<RollSecretBody['expire_old_key_in']>;
export const KEY_GRACE_PERIODS = ['now', '1h', '24h', '7d'] as const satisfies readonly KeyGracePeriod[];

/**
 * Rolls the secret key under an Idempotency-Key (one per submit, the same for its retries). A replay answers without
 * `secretApiKey`: that roll happened and its key cannot be shown again.
 */
export const rollSecretRequest = (merchantId: string, expireOldKeyIn: KeyGracePeriod, idempotencyKey: string) =>
  apiRequest<Merchant & { secretApiKey?: string }>(
    'POST',
    `${base(merchantId)}/roll-secret`,
    { expire_old_key_in: expireOldKeyIn } satisfies RollSecretBody,
    {},
    { 'Idempotency-Key': idempotencyKey },
  );

export const createWebhookEndpointRequest = (merchantId: string, body: CreateWebhookEndpointBody) =>
  apiRequest<WebhookEndpointWithSecret>('POST', `${base(merchantId)}/webhook_endpoints`, body);

export const deleteWebhookEndpointRequest = (merchantId: string, endpointId: string) =>
  apiRequest<unknown>('DELETE', `${base(merchantId)}/webhook_endpoints/${encodeURIComponent(endpointId)}`);

/** Disables an endpoint, or enables one again (for instance after bpay disabled it for failing). */
export const setWebhookEndpointDisabledRequest = (merchantId: string, endpointId: string, disabled: boolean) =>
  apiRequest<WebhookEndpoint>('PATCH', `${base(merchantId)}/webhook_endpoints/${encodeURIComponent(endpointId)}`, { disabled });

export const sendTestEventRequest = (merchantId: string, endpointId: string) =>
  apiRequest<unknown>('POST', `${base(merchantId)}/webhook_endpoints/${encodeURIComponent(endpointId)}/test`);

/** Edits an endpoint: only the fields given change (URL, events, description, disabled). */
export const updateWebhookEndpointRequest = (merchantId: string, endpointId: string, body: WebhookEndpointUpdate) =>
  apiRequest<WebhookEndpoint>('PATCH', `${base(merchantId)}/webhook_endpoints/${encodeURIComponent(endpointId)}`, body);

/** A new signing secret, in force at once; the answer carries it, the only time it is shown. */
export const rollWebhookSecretRequest = (merchantId: string, endpointId: string, idempotencyKey: string) =>
  apiRequest<RolledWebhookEndpoint>(
    'POST',
    `${base(merchantId)}/webhook_endpoints/${encodeURIComponent(endpointId)}/roll_secret`,
    undefined,
    {},
    { 'Idempotency-Key': idempotencyKey },
  );

/** One delivery in full. Pending ones change behind the page as the worker retries them: read afresh on open. */
export function webhookDeliveryQuery(merchantId: string, deliveryId: string) {
  return queryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_delivery', deliveryId] as const,
    queryFn: () => apiRequest<WebhookDeliveryDetail>('GET', `${base(merchantId)}/webhook_deliveries/${encodeURIComponent(deliveryId)}`),
    staleTime: 0,
  });
}

/** Sends an event again to one endpoint: a new delivery the worker sends. One key per click (kept across retries). */
export const resendEventRequest = (merchantId: string, eventId: string, endpointId: string, idempotencyKey: string) =>
  apiRequest<ResendAnswer>(
    'POST',
    `${base(merchantId)}/events/${encodeURIComponent(eventId)}/resend`,
    { endpoint_id: endpointId },
    {},
    { 'Idempotency-Key': idempotencyKey },
  );

/** A payment's refunds, newest first, a page at a time (cursor: the last refund's id). */
export function refundsQuery(merchantId: string, paymentIntentId: string) {
  return infiniteQueryOptions({
    queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'refunds', paymentIntentId] as const,
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ payment_intent: paymentIntentId, limit: String(REFUNDS_PAGE_SIZE) });
      if (pageParam) params.set('starting_after', pageParam);
      return apiRequest<RefundPage>('GET', `${base(merchantId)}/refunds?${params}`);
    },
    initialPageParam: null as string | null,
    getNextPageParam: (page) => (page.has_more ? (page.data[page.data.length - 1]?.id ?? null) : null),
    // A pending refund turns succeeded behind the page (the money sweep finishes it): read afresh on open.
    staleTime: 0,
  });
}
export const REFUNDS_PAGE_SIZE = 20;

/** Refunds a payment, in full (no amount) or in part; the key is the submit's (kept across its retries). */
export const createRefundRequest = (merchantId: string, body: CreateRefundBody, idempotencyKey: string) =>
  apiRequest<Refund>('POST', `${base(merchantId)}/refunds`, body, {}, { 'Idempotency-Key': idempotencyKey });
