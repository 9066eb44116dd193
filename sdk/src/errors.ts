/*
 * Typed errors. Every non-2xx answer of the API becomes one BpayError subclass chosen by the body's `error.type`
 * (falling back to the HTTP status when the body is not bpay's error shape), carrying the stable `code`, the
 * `param` at fault, a card decline's `declineCode`, the status and the request id (the API's `request-id` header,
 * which the error body repeats as `error.request_id`).
 */

/** The error types of bpay's error catalogue (api/src/errors.ts). */
export type BpayErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'card_error'
  | 'api_error'
  | 'connection_error'
  | 'webhook_signature_error';

export interface BpayErrorInit {
  message: string;
  type: BpayErrorType;
  code?: string;
  declineCode?: string;
  param?: string;
  statusCode?: number;
  requestId?: string;
  /** The parsed error body as the API sent it (or its text when it was not JSON). */
  raw?: unknown;
  headers?: Headers;
  cause?: unknown;
}

export class BpayError extends Error {
  override readonly name: string = 'BpayError';
  readonly type: BpayErrorType;
  /** A stable snake_case identifier (`card_declined`, `validation_error`, `invalid_api_key` …). */
  readonly code: string | undefined;
  /** For card errors: why the card was declined (`insufficient_funds`, `generic_decline` …). */
  readonly declineCode: string | undefined;
  /** The request field at fault, when one is. */
  readonly param: string | undefined;
  /** The HTTP status; undefined when no answer came (connection errors). */
  readonly statusCode: number | undefined;
  /** The `request-id` the API gave this request: quote it to bpay support. */
  readonly requestId: string | undefined;
  readonly raw: unknown;
  readonly headers: Headers | undefined;

  constructor(init: BpayErrorInit) {
    super(init.message, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.type = init.type;
    this.code = init.code;
    this.declineCode = init.declineCode;
    this.param = init.param;
    this.statusCode = init.statusCode;
    this.requestId = init.requestId;
    this.raw = init.raw;
    this.headers = init.headers;
  }
}

/** 402 `card_error`: the card (or a funding source behind a bcard) was declined; see `declineCode`. */
export class BpayCardError extends BpayError {
  override readonly name = 'BpayCardError';
}
/** 400/404/409/413/415 `invalid_request_error`: the request is wrong; `param` names the field when one is at fault. */
export class BpayInvalidRequestError extends BpayError {
  override readonly name = 'BpayInvalidRequestError';
}
/** 401 `authentication_error`: missing, wrong or revoked key/token. */
export class BpayAuthenticationError extends BpayError {
  override readonly name = 'BpayAuthenticationError';
}
/** 403 `permission_error`. */
export class BpayPermissionError extends BpayError {
  override readonly name = 'BpayPermissionError';
}
/** 429 `rate_limit_error` (after the SDK's own retries); `headers.get('retry-after')` says when to come back. */
export class BpayRateLimitError extends BpayError {
  override readonly name = 'BpayRateLimitError';
}
/** `idempotency_error`: an Idempotency-Key was reused with different parameters (400), or is still in use (409). */
export class BpayIdempotencyError extends BpayError {
  override readonly name = 'BpayIdempotencyError';
}
/** 5xx `api_error`: something went wrong on bpay's side (after the SDK's own retries). */
export class BpayAPIError extends BpayError {
  override readonly name = 'BpayAPIError';
}
/** No answer: the network failed or the caller aborted. Thrown after the SDK's own retries. */
export class BpayConnectionError extends BpayError {
  override readonly name: string = 'BpayConnectionError';
  constructor(message: string, cause?: unknown) {
    super({ message, type: 'connection_error', cause });
  }
}
/** No answer within `timeoutMs` (per attempt). A BpayConnectionError, so one `instanceof` catches both. */
export class BpayTimeoutError extends BpayConnectionError {
  override readonly name = 'BpayTimeoutError';
}
/** `Bpay.webhooks.constructEvent` refused a delivery: bad header, stale timestamp or a signature that does not match. */
export class BpayWebhookSignatureError extends BpayError {
  override readonly name = 'BpayWebhookSignatureError';
  constructor(message: string) {
    super({ message, type: 'webhook_signature_error' });
  }
}

const TYPES = new Set<string>([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'idempotency_error',
  'card_error',
  'api_error',
]);

function typeForStatus(status: number): BpayErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'card_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The `error` object of a body shaped `{ error: { type, code, message, … } }`, else null. */
export function errorObjectOf(body: unknown): Record<string, unknown> | null {
  if (body === null || typeof body !== 'object' || !('error' in body)) return null;
  const e = (body as { error: unknown }).error;
  return e !== null && typeof e === 'object' ? (e as Record<string, unknown>) : null;
}

/** Builds the BpayError subclass for an error answer (`body` already parsed, or its text). */
export function errorFromResponse(status: number, headers: Headers, body: unknown): BpayError {
  const e = errorObjectOf(body);
  const declared = str(e?.type);
  const type: BpayErrorType = declared && TYPES.has(declared) ? (declared as BpayErrorType) : typeForStatus(status);
  const init: BpayErrorInit = {
    message: str(e?.message) ?? (typeof body === 'string' && body ? body.slice(0, 500) : `The API answered ${status}`),
    type,
    code: str(e?.code),
    declineCode: str(e?.decline_code),
    param: str(e?.param),
    statusCode: status,
    requestId: headers.get('request-id') ?? headers.get('x-request-id') ?? str(e?.request_id),
    raw: body,
    headers,
  };
  switch (type) {
    case 'card_error':
      return new BpayCardError(init);
    case 'authentication_error':
      return new BpayAuthenticationError(init);
    case 'permission_error':
      return new BpayPermissionError(init);
    case 'rate_limit_error':
      return new BpayRateLimitError(init);
    case 'idempotency_error':
      return new BpayIdempotencyError(init);
    case 'api_error':
      return new BpayAPIError(init);
    case 'invalid_request_error':
      return new BpayInvalidRequestError(init);
    default:
      return new BpayError(init);
  }
}
