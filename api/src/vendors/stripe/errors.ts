import Stripe from 'stripe';
import { VendorDeclineError, VendorUnavailableError, type DeclineCode } from '../types';

/**
 * A configuration or programming problem (bad key, missing permission, invalid parameters, a state bpay should
 * never reach). Deliberately not a Vendor* error: it becomes an opaque 500.
 */
export class StripeIntegrationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StripeIntegrationError';
  }
}

/** Runs a vendor operation and turns whatever it throws into one of the three shapes described at the top of index.ts. */
export async function guard<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw toVendorError(err);
  }
}

/** The one place Stripe's errors become bpay's. */
export function toVendorError(err: unknown): Error {
  if (err instanceof VendorDeclineError || err instanceof VendorUnavailableError) return err;
  if (err instanceof StripeIntegrationError) return err;
  if (!(err instanceof Stripe.errors.StripeError)) {
    // Thrown by the SDK or the runtime while a request was in flight (the SDK has tripped over odd bodies): the
    // request may have been carried out, so the outcome is unknown.
    return new VendorUnavailableError('Unexpected failure while calling Stripe; the outcome is unknown.', {
      name: err instanceof Error ? err.name : typeof err,
    });
  }
  const message = redact(err.message);
  if (err instanceof Stripe.errors.StripeCardError) {
    return new VendorDeclineError(
      declineCodeFor(err.code, err.decline_code),
      message || 'The card was declined.',
      err.decline_code || undefined,
    );
  }
  const summary = {
    stripeType: err.type,
    code: err.code,
    statusCode: err.statusCode,
    requestId: err.requestId,
  };
  const status = err.statusCode ?? 0;
  if (
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeAPIError ||
    err instanceof Stripe.errors.StripeRateLimitError ||
    status === 409 || // a request with the same key is still running
    status >= 500
  ) {
    return new VendorUnavailableError(`Stripe is unavailable: ${message || err.type}`, summary);
  }
  // Authentication, permission, invalid request, idempotency key reused with other parameters: bpay's fault.
  return new StripeIntegrationError(
    `Stripe refused the request (${err.type}${err.code ? `: ${err.code}` : ''}${err.requestId ? `, ${err.requestId}` : ''}): ${message}`,
    { cause: summary },
  );
}

/** Stripe's code and decline_code, folded into bpay's vocabulary. */
export function declineCodeFor(code: string | undefined | null, declineCode: string | undefined | null): DeclineCode {
  for (const c of [declineCode, code]) {
    switch (c) {
      case 'insufficient_funds':
        return 'insufficient_funds';
      case 'expired_card':
        return 'expired_card';
      case 'incorrect_cvc':
      case 'invalid_cvc':
        return 'incorrect_cvc';
      case 'incorrect_number':
      case 'invalid_number':
        return 'incorrect_number';
      case 'authentication_required':
        return 'authentication_required';
      case 'processing_error':
        return 'processing_error';
    }
  }
  return 'card_declined';
}

export function declineFromIntent(pi: Stripe.PaymentIntent): VendorDeclineError {
  const e = pi.last_payment_error;
  return new VendorDeclineError(
    declineCodeFor(e?.code, e?.decline_code),
    redact(e?.message ?? '') || 'The card was declined.',
    e?.decline_code || undefined,
  );
}

export function unknownOutcome(what: string, pi: Stripe.PaymentIntent): VendorUnavailableError {
  const status = typeof pi.status === 'string' ? pi.status : 'missing';
  return new VendorUnavailableError(`Stripe answered the ${what} with an unexpected status (${status}); the outcome is unknown.`);
}

export function isUnexpectedState(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state';
}

/**
 * Removes anything shaped like a card number (12 to 19 digits, spaces or dashes allowed between them) or an API
 * key from text that may reach a message or a log. bpay never puts them there; this guards Stripe's text.
 */
export function redact(text: string): string {
  return text
    .replace(/\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9*]+/g, '[redacted key]')
    .replace(/\d(?:[ -]?\d){11,18}/g, '[redacted]');
}
