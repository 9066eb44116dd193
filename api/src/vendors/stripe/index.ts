/**
 * The Stripe implementation of PaymentVendor: Payments for the consumer's cards (verify, hold, capture, void,
 * refund) and Issuing for the single-use bcard.
 *
 * Invariants:
 * - Every POST carries an idempotency key derived from the caller's key, so calling again with the same key
 *   replays Stripe's first answer instead of moving money twice (Stripe keeps keys for 24 hours; refunds and
 *   findHold also look for bpay's key in metadata, which does not expire).
 * - Card numbers and CVCs go to Stripe in request bodies only. They never appear in an error message, a log line
 *   or an error's cause: messages pass through `redact`, and causes are small summaries, never Stripe's error.
 * - Errors leave this folder in three shapes only: VendorDeclineError (the card was refused, nothing moved),
 *   VendorUnavailableError (outcome unknown: retry with the same key) and StripeIntegrationError, a plain Error
 *   subclass (configuration or programming problem: an opaque 500).
 *
 * Requirements on the Stripe account: raw card data APIs enabled (verifyCard sends card numbers to Stripe from
 * the server), Search enabled (findHold and the customer lookup), and Issuing with access to card numbers
 * (issueCard, revealCard).
 */
import type { PaymentVendor } from '../types';
import { bankAccountOperations } from './bank-accounts';
import { cardOperations } from './cards';
import { DEFAULT_CARDHOLDER_BILLING, DEFAULT_MAX_NETWORK_RETRIES, newStripeClient, type StripeVendorOptions } from './client';
import { customerLookup } from './customers';
import { holdOperations } from './holds';
import { issuingOperations } from './issuing';

/*
 * One file a resource: client.ts (the SDK client, its options, the key check), errors.ts (the one place Stripe's
 * errors become bpay's), customers.ts, cards.ts (verification), holds.ts (hold, capture, void, refund),
 * bank-accounts.ts (micro-deposits, ACH debits), issuing.ts (the bcard). This file puts them together.
 */

export {
  checkStripeCredentials,
  DEFAULT_CARDHOLDER_BILLING,
  metadataQuery,
  type BillingAddress,
  type StripeConnectionOptions,
  type StripeVendorOptions,
} from './client';
export { declineCodeFor, redact, StripeIntegrationError, toVendorError } from './errors';
export { toBrand, toFunding } from './cards';
export { refundOutcome } from './holds';
export { achReturnCode, returnedDebit } from './bank-accounts';
export { issuingName } from './issuing';

export function createStripeVendor(opts: StripeVendorOptions): PaymentVendor {
  const stripe = newStripeClient(opts.secretKey, opts, DEFAULT_MAX_NETWORK_RETRIES);
  const context = { stripe, opts, billing: opts.billing ?? DEFAULT_CARDHOLDER_BILLING, customerFor: customerLookup(stripe) };
  const vendor: PaymentVendor = {
    name: 'stripe',
    // Holds are found by key through Stripe's search, which lags writes by up to about a minute.
    searchLags: true,

    ...cardOperations(context),
    ...holdOperations(context),
    ...bankAccountOperations(context),
    ...issuingOperations(context),
  };
  return vendor;
}
