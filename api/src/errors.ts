import { shownText } from './lib/text';

/**
 * The error catalogue. Every failure bpay answers is one of these, rendered as
 * `{ "error": { "type", "code", "message", "param"? } }` by the handler in plugins/errors.ts.
 * Codes are stable snake_case identifiers that clients may switch on; messages are for people.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'card_error'
  | 'api_error';

interface CatalogueEntry {
  status: number;
  type: ErrorType;
  message: string;
}

export const CATALOGUE = {
  validation_error: { status: 400, type: 'invalid_request_error', message: 'The request is invalid.' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'This endpoint accepts only application/json request bodies.',
  },
  payload_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  body_too_complex: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request body nests too deeply or has too many members.',
  },
  body_not_object: { status: 400, type: 'invalid_request_error', message: 'The request body must be a JSON object.' },
  headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    message: 'The request headers are too large: at most 16 KB in all.',
  },
  uri_too_long: { status: 414, type: 'invalid_request_error', message: 'The request URL is too long: at most 8 KB.' },
  route_not_found: { status: 404, type: 'invalid_request_error', message: 'No such API route.' },
  resource_not_found: { status: 404, type: 'invalid_request_error', message: 'No such resource.' },
  // Stripe's names, answered by the merchant API (/api/v1, /v1) in place of bpay's (STRIPE_CODE_NAMES below).
  resource_missing: { status: 404, type: 'invalid_request_error', message: 'No such resource.' },
  parameter_unknown: { status: 400, type: 'invalid_request_error', message: 'Received unknown parameter.' },
  parameter_missing: { status: 400, type: 'invalid_request_error', message: 'A required parameter is missing.' },
  amount_too_large: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The amount is greater than what is left (to refund, on this PaymentIntent).',
  },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'Method not allowed.' },
  unauthenticated: { status: 401, type: 'authentication_error', message: 'You are not signed in.' },
  invalid_credentials: { status: 401, type: 'authentication_error', message: 'Invalid email or password.' },
  two_factor_required: {
    status: 401,
    type: 'authentication_error',
    message: 'Enter the 6-digit code from your authenticator app.',
  },
  invalid_two_factor_code: {
    status: 400,
    type: 'invalid_request_error',
    message: 'That code is not valid. Check your authenticator app and try again.',
  },
  two_factor_not_pending: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Start two-factor enrolment before confirming a code.',
  },
  two_factor_already_enabled: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Two-factor authentication is already enabled.',
  },
  two_factor_not_enabled: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Two-factor authentication is not enabled.',
  },
  email_taken: { status: 409, type: 'invalid_request_error', message: 'An account with this email already exists.' },
  weak_password: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This password is too easy to guess. A few unrelated words make a password that is long and hard to guess.',
  },
  current_password_required: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Enter your current password to change your e-mail address or password.',
  },
  invalid_current_password: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Your current password is not correct.',
  },
  account_sign_in_limited: {
    status: 429,
    type: 'rate_limit_error',
    message:
      'Too many failed sign-ins for this account from new devices. Sign in from a device you have used before, or ' +
      'enter the code from your authenticator app if two-factor authentication is on; otherwise try again after ' +
      'the time given in Retry-After.',
  },
  sign_in_link_sent: {
    status: 401,
    type: 'authentication_error',
    message:
      'This account had too many failed sign-ins today and this device is new to it. If the password is right, a ' +
      'one-time sign-in link is on its way to the account\'s e-mail address: open it on this device, on this network, ' +
      'within 15 minutes.',
  },
  sign_in_link_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many sign-in link requests from this network. Try again after the time given in Retry-After.',
  },
  sign_in_link_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This sign-in link is not valid (the password may have changed since it was sent). Sign in again.',
  },
  sign_in_link_expired: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This sign-in link has expired (it works for 15 minutes). Sign in again to get a new one.',
  },
  sign_in_link_used: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This sign-in link was already used. Sign in again to get a new one.',
  },
  sign_in_link_other_network: {
    status: 403,
    type: 'permission_error',
    message:
      'This sign-in link works only on the network it was asked from. Open it on the device and network where you ' +
      'signed in (it is still valid there), or sign in again from here.',
  },
  account_network_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many failed sign-ins to this account from this network. Try again after the time given in Retry-After.',
  },
  verification_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many wrong codes or passwords. Try again after the time given in Retry-After.',
  },
  registration_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many accounts were created from this network. Try again after the time given in Retry-After.',
  },
  password_reset_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many password reset requests. Try again after the time given in Retry-After.',
  },
  reset_token_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This password reset link is not valid (a newer link may have replaced it). Request a new one.',
  },
  reset_token_expired: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This password reset link has expired. Request a new one.',
  },
  reset_token_used: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This password reset link was already used. Request a new one if you need to reset your password again.',
  },
  email_change_token_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This e-mail confirmation link is not valid (a newer link may have replaced it, or the change was canceled).',
  },
  email_change_token_expired: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This e-mail confirmation link has expired. Ask for a new one in Settings.',
  },
  email_change_token_used: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This e-mail confirmation link was already used.',
  },
  email_change_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many e-mail change links were sent. Try again after the time given in Retry-After.',
  },
  pairing_code_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This pairing code is not valid or has expired. Start again from "Connect this browser" on bpay.',
  },
  pairing_code_used: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This pairing code was already used. Start again from "Connect this browser" on bpay.',
  },
  pairing_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many attempts to connect a browser. Try again after the time given in Retry-After.',
  },
  extension_token_invalid: {
    status: 401,
    type: 'authentication_error',
    message: 'This browser was disconnected from bpay. Connect it again from the extension.',
  },
  insufficient_scope: {
    status: 403,
    type: 'permission_error',
    message:
      "A browser extension token (bpx_…) can only make the extension's own requests under /api/extension/: read " +
      'funding sources, create bcards and reveal the bcards it created.',
  },
  outbox_forbidden: {
    status: 403,
    type: 'permission_error',
    message:
      'The e-mail outbox is shown only to a signed-in admin, or on a local install (opened from this machine, with a ' +
      'localhost public URL and no SMTP server configured).',
  },
  demo_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many demo checkouts were started from this account. Try again after the time given in Retry-After.',
  },
  demo_unavailable: {
    status: 503,
    type: 'api_error',
    message: 'The checkout demo is not available right now.',
  },
  cross_site_request: {
    status: 403,
    type: 'permission_error',
    message: 'Cross-site requests are not allowed for signed-in actions.',
  },
  forbidden: { status: 403, type: 'permission_error', message: 'You do not have permission to do this.' },
  rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many failed sign-in attempts. Try again later.',
  },
  idempotency_error: {
    status: 400,
    type: 'idempotency_error',
    message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
  },
  idempotency_key_in_use: {
    status: 409,
    type: 'idempotency_error',
    message: 'A request with this Idempotency-Key is still being processed. Retry after it completes.',
  },
  invalid_idempotency_key: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Idempotency-Key must be 1 to 255 printable characters.',
  },
  funding_source_limit_reached: {
    status: 403,
    type: 'invalid_request_error',
    message: 'You have reached the funding source limit of your plan.',
  },
  plan_limit_reached: { status: 403, type: 'invalid_request_error', message: 'You have reached a limit of your plan.' },
  name_mismatch: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The name on the card must match the name on your account until you verify your identity.',
  },
  funding_source_in_use: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This funding source backs an active bcard. Remove it once the bcard is used, expires or is canceled.',
  },
  funding_source_duplicate: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This bank account is already linked to your account.',
  },
  microdeposit_mismatch: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The amounts do not match the two micro-deposits sent to this bank account.',
  },
  bank_verification_failed: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This bank account could not be verified. Remove it, check the numbers and add it again.',
  },
  bank_account_not_verified: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A bank account can fund a bcard only once its two micro-deposits are confirmed.',
  },
  bank_exposure_limit_reached: {
    status: 403,
    type: 'invalid_request_error',
    message: 'Your bank debits still settling have reached the limit of your plan.',
  },
  account_restricted: {
    status: 403,
    type: 'permission_error',
    message:
      'Money is owed for a bcard already used (a bank debit returned, or a card payment disputed): no new bcards until it is repaid or the dispute decided.',
  },
  repayment_exceeds_owed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The amount is more than what can be repaid now (what is owed, less what is under dispute or already being repaid).',
  },
  waiver_exceeds_owed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The amount is more than what this user owes outside open disputes.',
  },
  payable_settle_exceeds_owed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The amount is more than what bpay owes this user.',
  },
  invalid_splits: { status: 400, type: 'invalid_request_error', message: 'Funding splits must add up to 100%' },
  card_declined: { status: 402, type: 'card_error', message: 'A funding source was declined.' },
  insufficient_funds: { status: 402, type: 'card_error', message: 'Insufficient funds in funding sources.' },
  expired_card: { status: 402, type: 'card_error', message: 'Your card has expired.' },
  incorrect_cvc: { status: 402, type: 'card_error', message: "Your card's security code is incorrect." },
  authentication_failed: {
    status: 402,
    type: 'card_error',
    message: 'The card issuer could not authenticate this card.',
  },
  processing_error: { status: 402, type: 'card_error', message: 'An error occurred while processing the card.' },
  test_mode_only: { status: 400, type: 'invalid_request_error', message: 'Test helpers are available in sandbox only.' },
  bcard_not_active: { status: 409, type: 'invalid_request_error', message: 'This bcard is no longer active.' },
  bcard_authorized: {
    status: 409,
    type: 'invalid_request_error',
    message:
      "This bcard is authorized for a merchant's payment and cannot be canceled here. Only the merchant's capture or " +
      'cancel of that payment can release it; if the merchant neither captures nor cancels it within 7 days, the ' +
      'payment is canceled automatically and the bcard refunded to your funding sources.',
  },
  card_attempts_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many cards were tried in the last hour. Try again after the time given in Retry-After.',
  },
  card_adding_locked: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Adding cards is locked for a day after repeated declines. Try again after the time given in Retry-After.',
  },
  network_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many authorizations from this address or for this card. Try again after the time given in Retry-After.',
  },
  stripe_signature_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The Stripe-Signature header is missing, does not match the body, or is too old.',
  },
  stripe_webhook_not_configured: {
    status: 404,
    type: 'invalid_request_error',
    message: 'Stripe webhooks are not configured on this install (no signing secret).',
  },
  share_not_disputable: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This share cannot be disputed through the simulator.',
  },
  dispute_closed: { status: 409, type: 'invalid_request_error', message: 'This dispute was closed already.' },
  verification_not_pending: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This card verification is finished or has expired. Add the card again.',
  },
  vendor_unavailable: {
    status: 503,
    type: 'api_error',
    message: 'The card processor did not answer. Nothing was charged; any hold placed is being released.',
  },
  invalid_api_key: {
    status: 401,
    type: 'authentication_error',
    message: 'Invalid API key provided. Use your secret key: Authorization: Bearer sk_test_… or sk_live_….',
  },
  secret_key_required: {
    status: 403,
    type: 'permission_error',
    message:
      'This API call cannot be made with a publishable API key (pk_…). Use your secret key: Authorization: Bearer ' +
      'sk_test_… or sk_live_…, from the API keys tab of your merchant dashboard.',
  },
  api_key_expired: {
    status: 401,
    type: 'authentication_error',
    message: 'Expired API key provided: it was replaced by a roll and its grace period is over. Use the current secret key.',
  },
  api_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many requests hit the API too quickly. Retry after the time given in Retry-After.',
  },
  monthly_quota_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: "This merchant's plan allows no more API requests this month.",
  },
  payment_intent_unexpected_state: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The payment intent is not in a state that allows this.',
  },
  charge_already_refunded: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This PaymentIntent has already been refunded in full.',
  },
  amount_changed: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The amount of this payment changed after it was shown. Check it and pay again.',
  },
  parameter_invalid: { status: 400, type: 'invalid_request_error', message: 'A parameter is invalid.' },
  merchant_inactive: { status: 403, type: 'invalid_request_error', message: 'This merchant account is not active.' },
  url_not_allowed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Webhook URLs in production must be https and may not point to loopback, private or link-local addresses.',
  },
  webhook_endpoint_limit_reached: {
    status: 400,
    type: 'invalid_request_error',
    message: 'You have reached the maximum of 16 webhook endpoints. Delete one before adding another.',
  },
  webhook_endpoint_disabled: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This webhook endpoint is disabled. Enable it (PATCH with disabled: false) before sending it events.',
  },
  kyc_pending_limit_reached: {
    status: 409,
    type: 'invalid_request_error',
    message: 'You already have 5 verifications waiting for review. Wait for a decision before submitting another.',
  },
  invalid_admin_credentials: { status: 401, type: 'authentication_error', message: 'Invalid admin credentials' },
  admin_locked: {
    status: 429,
    type: 'rate_limit_error',
    message:
      'Too many failed sign-in attempts for this admin. Until the time given in Retry-After, only the right ' +
      'username, password and current code get in.',
  },
  invalid_admin_token: {
    status: 401,
    type: 'authentication_error',
    message: 'Admin authentication required: send Authorization: Bearer <token from /api/admin/auth/login>.',
  },
  tier_name_taken: { status: 409, type: 'invalid_request_error', message: 'A subscription tier with this name already exists.' },
  tier_in_use: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Only inactive tiers that no user subscription references can be deleted.',
  },
  tier_inactive: { status: 400, type: 'invalid_request_error', message: 'Users can only be moved to an active tier.' },
  tier_is_default: {
    status: 409,
    type: 'invalid_request_error',
    message:
      'New accounts start on the free plan, so it cannot be deactivated, renamed or deleted. Its price, fee, limits and features can be edited.',
  },
  plan_unchanged: { status: 409, type: 'invalid_request_error', message: 'You are already on this plan.' },
  plan_not_upgrade: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This plan does not cost more than yours: choose it as a downgrade, which takes effect at the end of your billing period.',
  },
  plan_not_downgrade: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This plan costs more than yours: upgrade to it instead.',
  },
  plan_change_in_progress: {
    status: 409,
    type: 'invalid_request_error',
    message: 'A payment for your plan is still being processed. Try again in a minute.',
  },
  no_pending_plan_change: { status: 409, type: 'invalid_request_error', message: 'No plan change is scheduled.' },
  proration_zero: {
    status: 409,
    type: 'invalid_request_error',
    message: 'What is left of your billing period is worth nothing more on this plan: there is nothing to charge. Upgrade once your plan has renewed.',
  },
  proration_not_paid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The user is not paying for a plan period (Free, or a plan an admin gave): there is nothing to prorate or refund.',
  },
  plan_not_billed: {
    status: 409,
    type: 'invalid_request_error',
    message: 'Your plan is not billed (Free, or a plan an admin gave): there is no payment card to change.',
  },
  plan_not_past_due: { status: 409, type: 'invalid_request_error', message: 'Your plan renewal has not failed: there is nothing to retry.' },
  vendor_secret_missing: { status: 400, type: 'invalid_request_error', message: 'No secret key configured for current mode' },
  database_busy: {
    status: 503,
    type: 'api_error',
    message:
      'bpay is busy saving other requests and could not save this one in time, so this request was not completed. A ' +
      'payment already under way is finished or released by bpay. Try again after the time given in Retry-After.',
  },
  storage_unavailable: {
    status: 503,
    type: 'api_error',
    message:
      'bpay cannot save anything right now (its storage is full or failing), so this request was not completed. A ' +
      'payment already under way is finished or released by bpay once it can save again. Try again after the time ' +
      'given in Retry-After.',
  },
  internal_error: { status: 500, type: 'api_error', message: 'Something went wrong on our side.' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof CATALOGUE;

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
    readonly details?: Record<string, unknown>,
  ) {
    const entry: CatalogueEntry = CATALOGUE[code];
    super(message ?? entry.message);
    this.status = entry.status;
    this.type = entry.type;
  }
}

export interface ErrorBody {
  error: { type: ErrorType; code: string; decline_code?: string; message: string; param?: string; request_id?: string } & Record<
    string,
    unknown
  >;
}

export function errorBody(e: AppError, requestId?: string): ErrorBody {
  return {
    error: {
      type: e.type,
      code: e.code,
      message: e.message,
      ...(e.param !== undefined ? { param: e.param } : {}),
      ...(e.details ?? {}),
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}

export const invalid = (param: string, message: string) => new AppError('validation_error', message, param);

/*
 * The merchant API speaks Stripe's error names where code written for Stripe tests them (issue 28). bpay's own names
 * stay everywhere else (the consumer API, the admin API, the dashboard's routes), where the web app and tests read
 * them. One rendering step (plugins/http.ts) applies both tables below to every error of /api/v1 and /v1.
 */

/** bpay's code → Stripe's, on the merchant API. (Validation's parameter_unknown/_missing: validationToAppError.) */
export const STRIPE_CODE_NAMES: Partial<Record<ErrorCode, ErrorCode>> = { resource_not_found: 'resource_missing' };

/**
 * Errors a retry can cure, told to Stripe's libraries with `Stripe-Should-Retry: true` and a Retry-After: a rate
 * limit of seconds, a request still running under the same Idempotency-Key, storage or the processor down for a
 * moment. Every other merchant API error says `false` (a retry answers the same: bad input, a card declined, a
 * missing resource, a monthly quota reached), except an unexpected 500, which says nothing: the libraries then
 * retry it with the same Idempotency-Key, and a replay answers what was stored.
 */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['api_rate_limited', 'database_busy', 'idempotency_key_in_use', 'storage_unavailable', 'vendor_unavailable']);

/** Seconds to wait before a retry when the error gives no Retry-After of its own (an Idempotency-Key in use). */
export const DEFAULT_RETRY_AFTER_S = 1;

/** An error as the merchant API answers it: Stripe's code name, and Stripe-Should-Retry (with Retry-After when true). */
export function asMerchantApiError(e: AppError): AppError {
  const code = STRIPE_CODE_NAMES[e.code] ?? e.code;
  const headers: Record<string, string> = { ...(e.headers ?? {}) };
  if (RETRYABLE_CODES.has(e.code)) {
    headers['stripe-should-retry'] = 'true';
    headers['retry-after'] ??= String(DEFAULT_RETRY_AFTER_S);
  } else if (e.code !== 'internal_error') headers['stripe-should-retry'] = 'false';
  return new AppError(code, e.message, e.param, headers, e.details);
}
/**
 * A missing resource. Given the id (and the param it came in), the message names it as Stripe's does
 * (`No such payment_intent: 'pi_123'`, param `intent`), so a client that mixed up ids or modes sees which one.
 */
export function notFound(what = 'resource', id?: string, param?: string): AppError {
  if (id === undefined) return new AppError('resource_not_found', `No such ${what}.`, param);
  // The id comes from the request path: quoted, shortened and with control characters escaped, never raw.
  const shown = shownText(id);
  return new AppError('resource_not_found', `No such ${what}: '${shown}'.`, param);
}

/** What a client is told to wait before retrying when the database cannot be written (storage_unavailable). */
export const STORAGE_RETRY_AFTER_S = 30;

/*
 * SQLite's result codes for storage that cannot take a write: SQLITE_FULL (13, "database or disk is full": the disk,
 * a quota or max_page_count), SQLITE_IOERR (10, "disk I/O error", with its extended codes such as
 * SQLITE_IOERR_WRITE) and SQLITE_READONLY (8, "attempt to write a readonly database": Linux remounts a filesystem
 * read-only after I/O errors, so a failing disk often ends as this; hostile review of issue 27). libSQL gives them as
 * `code` (the local driver also as `rawCode`, extended codes in the upper bits); Drizzle wraps what the driver threw
 * in a DrizzleQueryError whose `cause` it is, and a remote libSQL server's answer may carry only the words. The chain
 * of causes is followed a few steps.
 */
const STORAGE_PRIMARY_CODES = new Set([8, 10, 13]);
const STORAGE_WORDS = /database or disk is full|disk I\/O error|attempt to write a readonly database|SQLITE_FULL|SQLITE_IOERR|SQLITE_READONLY/i;

/** Whether `error` (or what caused it) says the database cannot be written: a full disk or a failing one. */
export function isStorageFailure(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const { code, rawCode, message } = e as { code?: unknown; rawCode?: unknown; message?: unknown };
    if (typeof code === 'string' && (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY'))) return true;
    if (typeof rawCode === 'number' && STORAGE_PRIMARY_CODES.has(rawCode & 0xff)) return true;
    if (typeof message === 'string' && STORAGE_WORDS.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What a client is told to wait before retrying when another writer held the database too long (database_busy). */
export const DATABASE_BUSY_RETRY_AFTER_S = 1;

/*
 * Contention, not failure: SQLITE_BUSY (5, with its extended codes such as SQLITE_BUSY_SNAPSHOT and
 * SQLITE_BUSY_RECOVERY) once the wait for another process's write lock has passed its deadline (issue 29 §5: several
 * processes on one file, BPAY_REUSE_PORT=1; the same with the default busy timeout), and the in-process write lock's
 * own timeout (db/client.ts, code BPAY_WRITE_LOCK_TIMEOUT). Nothing of the unit that met it was written.
 */
export function isDatabaseBusy(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const { code, rawCode } = e as { code?: unknown; rawCode?: unknown };
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code === 'BPAY_WRITE_LOCK_TIMEOUT')) return true;
    if (typeof rawCode === 'number' && (rawCode & 0xff) === 5) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The answer to a request whose write met another writer holding the database past the wait (isDatabaseBusy). */
export const databaseBusy = () =>
  new AppError('database_busy', undefined, undefined, { 'retry-after': String(DATABASE_BUSY_RETRY_AFTER_S) });

/** The answer to a request whose writes the database refused (isStorageFailure): 503, with Retry-After. */
export const storageUnavailable = () =>
  new AppError('storage_unavailable', undefined, undefined, { 'retry-after': String(STORAGE_RETRY_AFTER_S) });
