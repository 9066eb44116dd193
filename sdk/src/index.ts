/**
 * @bpay/sdk — the bpay merchant API (and the admin API) for TypeScript, thin over openapi-fetch and the types
 * generated from the API's own OpenAPI document. See sdk/README.md.
 */
export { Bpay, ChargesResource, EventsResource, PaymentIntentsResource, RefundsResource, TestBcardsResource, UsageResource, WebhookEndpointsResource } from './client';
export type { BpayOptions, EventStreamParams, WebhookEndpointRollSecretParams } from './client';
export { BpayAdmin, AdminKycResource, AdminTiersResource, AdminUsersResource } from './admin';
export type { BpayAdminLoginParams, BpayAdminOptions } from './admin';
export {
  BpayAPIError,
  BpayAuthenticationError,
  BpayCardError,
  BpayConnectionError,
  BpayError,
  BpayIdempotencyError,
  BpayInvalidRequestError,
  BpayPermissionError,
  BpayRateLimitError,
  BpayTimeoutError,
  BpayWebhookSignatureError,
  errorFromResponse,
} from './errors';
export type { BpayErrorType, BpayErrorInit } from './errors';
export { BpayEventStream } from './event-stream';
export { BpayList } from './list';
export type { CursorParams, Page } from './list';
export { parseSse, SseDecoder, LineSplitter } from './sse';
export type { SseMessage } from './sse';
export { DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './http';
export type { ClientOptions } from './http';
export { BACKOFF_BASE_MS, BACKOFF_CAP_MS, MAX_RETRY_AFTER_SECONDS } from './transport';
export type { FetchLike, RequestOptions, Sleep } from './transport';
export { webhooks, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } from './webhooks';
export type { Webhooks } from './webhooks';
export type * from './types';
export type { paths, components, operations } from './schema';
