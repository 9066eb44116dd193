/*
 * The merchant client: `new Bpay(secretKey, options)`. Each method is one openapi-fetch call on the generated
 * `paths`, sent through the transport (idempotency keys, timeouts, retries) and unwrapped into the API's typed
 * object or a typed BpayError. Parameters are the API's own snake_case fields; the last argument of every method
 * is optional RequestOptions (idempotencyKey, timeoutMs, maxRetries, signal).
 */
import { BpayConnectionError, errorFromResponse } from './errors';
import { BpayEventStream } from './event-stream';
import { createHttp, unwrap, type ClientOptions, type Http } from './http';
import { BpayList } from './list';
import { send, type RequestOptions } from './transport';
import type {
  BpayEvent,
  Charge,
  ChargeListParams,
  DeletedWebhookEndpoint,
  EventListParams,
  EventResendParams,
  EventResendResult,
  EventType,
  PaymentIntent,
  PaymentIntentCancelParams,
  PaymentIntentCaptureParams,
  PaymentIntentConfirmParams,
  PaymentIntentCreateParams,
  PaymentIntentListParams,
  PaymentIntentUpdateParams,
  Refund,
  RefundCreateParams,
  RefundListParams,
  TestBcard,
  TestBcardCreateParams,
  Usage,
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointUpdateParams,
} from './types';
import { webhooks } from './webhooks';

export type BpayOptions = ClientOptions;

export class PaymentIntentsResource {
  constructor(private readonly http: Http) {}

  create(params: PaymentIntentCreateParams, opts?: RequestOptions): Promise<PaymentIntent> {
    return unwrap(this.http.api.POST('/api/v1/payment_intents', { body: params, ...this.http.via(opts) }));
  }

  retrieve(id: string, opts?: RequestOptions): Promise<PaymentIntent> {
    return unwrap(this.http.api.GET('/api/v1/payment_intents/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  /**
   * Changes amount, currency, description, metadata or capture_method before a payment starts. metadata is merged:
   * a key set to "" is removed, and metadata "" removes every key. Once a payment started: BpayInvalidRequestError
   * with code payment_intent_unexpected_state.
   */
  update(id: string, params: PaymentIntentUpdateParams, opts?: RequestOptions): Promise<PaymentIntent> {
    return unwrap(this.http.api.POST('/api/v1/payment_intents/{id}', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }

  /** Newest first. Iterate for every intent across pages, or `.firstPage()` for one page (`limit` 1–100, default 10). */
  list(params: PaymentIntentListParams = {}, opts?: RequestOptions): BpayList<PaymentIntent, PaymentIntentListParams> {
    return new BpayList(params, (query) => unwrap(this.http.api.GET('/api/v1/payment_intents', { params: { query }, ...this.http.via(opts) })));
  }

  /** Pays with a bcard: `payment_method` (its id) or `payment_method_data.card`. A decline throws BpayCardError. */
  confirm(id: string, params: PaymentIntentConfirmParams, opts?: RequestOptions): Promise<PaymentIntent> {
    return unwrap(this.http.api.POST('/api/v1/payment_intents/{id}/confirm', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }

  capture(id: string, params: PaymentIntentCaptureParams = {}, opts?: RequestOptions): Promise<PaymentIntent> {
    return unwrap(this.http.api.POST('/api/v1/payment_intents/{id}/capture', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }

  cancel(id: string, params: PaymentIntentCancelParams = {}, opts?: RequestOptions): Promise<PaymentIntent> {
    return unwrap(this.http.api.POST('/api/v1/payment_intents/{id}/cancel', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }
}

export class RefundsResource {
  constructor(private readonly http: Http) {}

  /**
   * Refunds a succeeded payment intent: all of what is left (no `amount`) or `amount` cents of it. The money goes
   * back to the funding sources that paid, in the proportions they funded the bcard. Answers the refund, usually
   * `succeeded`; `pending` when the processor has not answered yet (bpay finishes it), `failed` when it refused.
   */
  create(params: RefundCreateParams, opts?: RequestOptions): Promise<Refund> {
    return unwrap(this.http.api.POST('/api/v1/refunds', { body: params, ...this.http.via(opts) }));
  }

  retrieve(id: string, opts?: RequestOptions): Promise<Refund> {
    return unwrap(this.http.api.GET('/api/v1/refunds/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  /** Newest first; `payment_intent` keeps one intent's refunds. Iterate for every refund across pages, or `.firstPage()`. */
  list(params: RefundListParams = {}, opts?: RequestOptions): BpayList<Refund, RefundListParams> {
    return new BpayList(params, (query) => unwrap(this.http.api.GET('/api/v1/refunds', { params: { query }, ...this.http.via(opts) })));
  }
}

export class ChargesResource {
  constructor(private readonly http: Http) {}

  /**
   * A paid payment intent's charge (ch_…, its `latest_charge`): amounts, status and `allocations`, one per funding
   * share of the consumer's bcard (funding type, brand, last 4, amount, amount refunded, status). Another merchant's
   * id: BpayInvalidRequestError with code resource_missing (404).
   */
  retrieve(id: string, opts?: RequestOptions): Promise<Charge> {
    return unwrap(this.http.api.GET('/api/v1/charges/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  /** Newest first; `payment_intent` keeps that intent's charge. Iterate for every charge across pages, or `.firstPage()`. */
  list(params: ChargeListParams = {}, opts?: RequestOptions): BpayList<Charge, ChargeListParams> {
    return new BpayList(params, (query) => unwrap(this.http.api.GET('/api/v1/charges', { params: { query }, ...this.http.via(opts) })));
  }
}

/** How long a rolled signing secret keeps signing beside the new one. */
export interface WebhookEndpointRollSecretParams {
  expire_old_secret_in?: 'now' | '1h' | '24h';
}

export class WebhookEndpointsResource {
  constructor(private readonly http: Http) {}

  /** The answer holds `secret` (whsec_…): keep it, it is shown only here and by rollSecret. */
  create(params: WebhookEndpointCreateParams, opts?: RequestOptions): Promise<WebhookEndpoint> {
    return unwrap(this.http.api.POST('/api/v1/webhook_endpoints', { body: params, ...this.http.via(opts) }));
  }

  retrieve(id: string, opts?: RequestOptions): Promise<WebhookEndpoint> {
    return unwrap(this.http.api.GET('/api/v1/webhook_endpoints/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  list(params: WebhookEndpointListParams = {}, opts?: RequestOptions): BpayList<WebhookEndpoint, WebhookEndpointListParams> {
    return new BpayList(params, (query) => unwrap(this.http.api.GET('/api/v1/webhook_endpoints', { params: { query }, ...this.http.via(opts) })));
  }

  /** `disabled: true` stops deliveries; `disabled: false` enables the endpoint again. */
  update(id: string, params: WebhookEndpointUpdateParams, opts?: RequestOptions): Promise<WebhookEndpoint> {
    return unwrap(this.http.api.PATCH('/api/v1/webhook_endpoints/{id}', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }

  delete(id: string, opts?: RequestOptions): Promise<DeletedWebhookEndpoint> {
    return unwrap(this.http.api.DELETE('/api/v1/webhook_endpoints/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  /**
   * A new signing secret, effective at once; the answer holds it. `expire_old_secret_in` '1h' or '24h' keeps the old
   * secret signing deliveries beside the new one until then (two v1= in the signature headers); 'now' (the default)
   * stops it at once.
   */
  rollSecret(id: string, params: WebhookEndpointRollSecretParams = {}, opts?: RequestOptions): Promise<WebhookEndpoint> {
    return unwrap(
      this.http.api.POST('/api/v1/webhook_endpoints/{id}/roll_secret', {
        params: { path: { id } },
        body: params.expire_old_secret_in !== undefined ? { expire_old_secret_in: params.expire_old_secret_in } : {},
        ...this.http.via(opts),
      }),
    );
  }
}

export interface EventStreamParams {
  /** Event types to receive (default: all). */
  events?: Array<EventType | (string & {})>;
  /** Ends the stream (iteration then ends quietly). */
  signal?: AbortSignal;
  /** For the connection only (headers); the open stream has no timeout. */
  timeoutMs?: number;
  /** Retries of the connection only; a stream that breaks later is not reconnected. */
  maxRetries?: number;
  /**
   * The id of the last event received on an earlier stream: this one starts with what was broadcast since then
   * (up to an hour back), so a reconnecting listener misses nothing.
   */
  lastEventId?: string;
}

export class EventsResource {
  constructor(private readonly http: Http) {}

  retrieve(id: string, opts?: RequestOptions): Promise<BpayEvent> {
    return unwrap(this.http.api.GET('/api/v1/events/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  list(params: EventListParams = {}, opts?: RequestOptions): BpayList<BpayEvent, EventListParams> {
    return new BpayList(params, (query) => unwrap(this.http.api.GET('/api/v1/events', { params: { query }, ...this.http.via(opts) })));
  }

  /** Queues the event again to `endpoint_id`, or to every endpoint that subscribes to it or was sent it (and live streams). */
  resend(id: string, params: EventResendParams = {}, opts?: RequestOptions): Promise<EventResendResult> {
    return unwrap(this.http.api.POST('/api/v1/events/{id}/resend', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }

  /**
   * Events as they happen (server-sent events; only those recorded after the connection opened). Iterate it once;
   * `await stream.opened()` first when you are about to cause an event yourself. Does not reconnect.
   */
  stream(params: EventStreamParams = {}): BpayEventStream {
    const { events, signal, lastEventId, ...transport } = params;
    const query = events && events.length > 0 ? { events: events.join(',') } : {};
    return new BpayEventStream(async (abort) => {
      const r = await this.http.api.GET('/api/v1/events/stream', {
        params: { query },
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        parseAs: 'stream',
        fetch: (req: Request) => send(this.http.config, req, { ...transport, signal: abort, stream: true }),
      });
      if (!r.response.ok) throw errorFromResponse(r.response.status, r.response.headers, r.error ?? null);
      if (!r.data) throw new BpayConnectionError('The event stream answered without a body');
      return { response: r.response, body: r.data };
    }, signal);
  }
}

export class UsageResource {
  constructor(private readonly http: Http) {}

  /** This merchant's API requests today and this month. */
  retrieve(opts?: RequestOptions): Promise<Usage> {
    return unwrap(this.http.api.GET('/api/v1/merchant/usage', this.http.via(opts)));
  }
}

export class TestBcardsResource {
  constructor(private readonly http: Http) {}

  /** A fresh sandbox bcard holding `amount` cents, locked to this merchant (sandbox keys only: 400 test_mode_only). */
  create(params: TestBcardCreateParams, opts?: RequestOptions): Promise<TestBcard> {
    return unwrap(this.http.api.POST('/api/v1/test_helpers/bcards', { body: params, ...this.http.via(opts) }));
  }
}

export class Bpay {
  /** Webhook signature verification: `Bpay.webhooks.constructEvent(rawBody, header, secret)`. */
  static readonly webhooks = webhooks;
  /** The same as Bpay.webhooks, for convenience on an instance. */
  readonly webhooks = webhooks;

  readonly paymentIntents: PaymentIntentsResource;
  readonly refunds: RefundsResource;
  /** Paid intents' charges, with the split that funded each (allocations). */
  readonly charges: ChargesResource;
  readonly webhookEndpoints: WebhookEndpointsResource;
  readonly events: EventsResource;
  readonly usage: UsageResource;
  readonly testHelpers: { readonly bcards: TestBcardsResource };
  /** The resolved base URL (no trailing slash). */
  readonly baseUrl: string;

  constructor(secretKey: string, options: BpayOptions = {}) {
    if (!secretKey) throw new TypeError('Bpay: a secret key (sk_test_… or sk_live_…) is required');
    const http = createHttp(`Bearer ${secretKey}`, options);
    this.baseUrl = http.baseUrl;
    this.paymentIntents = new PaymentIntentsResource(http);
    this.refunds = new RefundsResource(http);
    this.charges = new ChargesResource(http);
    this.webhookEndpoints = new WebhookEndpointsResource(http);
    this.events = new EventsResource(http);
    this.usage = new UsageResource(http);
    this.testHelpers = { bcards: new TestBcardsResource(http) };
  }
}
