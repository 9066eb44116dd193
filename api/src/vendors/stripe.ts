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
 * - Errors leave this file in three shapes only: VendorDeclineError (the card was refused, nothing moved),
 *   VendorUnavailableError (outcome unknown: retry with the same key) and StripeIntegrationError, a plain Error
 *   subclass (configuration or programming problem: an opaque 500).
 *
 * Requirements on the Stripe account: raw card data APIs enabled (verifyCard sends card numbers to Stripe from
 * the server), Search enabled (findHold and the customer lookup), and Issuing with access to card numbers
 * (issueCard, revealCard).
 */
import Stripe from 'stripe';
import {
  VendorDeclineError,
  VendorUnavailableError,
  type BankDebitState,
  type CardBrand,
  type CardFunding,
  type DeclineCode,
  type IssueCardInput,
  type IssuedCard,
  type PaymentVendor,
  type RevealedCard,
  type TokenizedCard,
  type VerifyCardResult,
} from './types';

export interface BillingAddress {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

/** bpay's business address: Issuing needs a cardholder billing address and bpay does not collect one. */
export const DEFAULT_CARDHOLDER_BILLING: BillingAddress = {
  line1: '1 Market Street',
  city: 'San Francisco',
  state: 'CA',
  postal_code: '94105',
  country: 'US',
};

export interface StripeConnectionOptions {
  /** Stripe's API host; tests point it at a local stub. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Whole-request timeout (the SDK's default is 80 s, too long for a checkout). */
  timeoutMs?: number;
  /** Automatic retries of network failures, 409s and 5xx. Safe: every POST carries an idempotency key. */
  maxNetworkRetries?: number;
}

export interface StripeVendorOptions extends StripeConnectionOptions {
  secretKey: string;
  /**
   * Where Stripe sends the cardholder after a 3-D Secure challenge (it appends `payment_intent=pi_...`). Without
   * it Stripe answers a challenge with `use_stripe_sdk` instead of a redirect, and verifyCard returns no
   * redirectUrl.
   */
  returnUrl?: string;
  /** Billing address given to Issuing cardholders (default: bpay's business address). */
  billing?: BillingAddress;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_NETWORK_RETRIES = 2;
/** The verification authorization: $1.00, released at once. */
const VERIFICATION_AMOUNT_CENTS = 100;
const CURRENCY = 'usd';
/** Metadata on the $1.00 verification intents, so completeChallenge accepts only those. */
const VERIFICATION_PURPOSE = 'card_verification';
const HOLD_PURPOSE = 'share_hold';
const BANK_DEBIT_PURPOSE = 'bank_debit';

/** Stripe's micro-deposit verification errors (https://docs.stripe.com/error-codes), as bpay's declines. */
const MICRODEPOSIT_ERRORS: Record<string, ['microdeposit_mismatch' | 'bank_verification_failed', string]> = {
  payment_method_microdeposit_verification_amounts_mismatch: [
    'microdeposit_mismatch',
    'The amounts do not match the micro-deposits sent to this account.',
  ],
  payment_method_microdeposit_verification_descriptor_code_mismatch: [
    'microdeposit_mismatch',
    'The amounts do not match the micro-deposits sent to this account.',
  ],
  payment_method_microdeposit_verification_attempts_exceeded: [
    'bank_verification_failed',
    'Too many wrong answers: this bank account cannot be verified.',
  ],
  payment_method_microdeposit_verification_timeout: [
    'bank_verification_failed',
    'The micro-deposits expired before they were confirmed (10 days).',
  ],
  payment_method_microdeposit_failed: ['bank_verification_failed', 'The micro-deposits could not be sent to this account.'],
};

function newStripeClient(secretKey: string, o: StripeConnectionOptions, defaultRetries: number): Stripe {
  if (!secretKey.trim()) throw new StripeIntegrationError('A Stripe secret key is required.');
  const config: Stripe.StripeConfig = {
    httpClient: Stripe.createFetchHttpClient(),
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxNetworkRetries: o.maxNetworkRetries ?? defaultRetries,
    appInfo: { name: 'bpay' },
  };
  if (o.host !== undefined) config.host = o.host;
  if (o.port !== undefined) config.port = o.port;
  if (o.protocol !== undefined) config.protocol = o.protocol;
  return new Stripe(secretKey, config);
}

export function createStripeVendor(opts: StripeVendorOptions): PaymentVendor {
  const stripe = newStripeClient(opts.secretKey, opts, DEFAULT_MAX_NETWORK_RETRIES);
  const billing = opts.billing ?? DEFAULT_CARDHOLDER_BILLING;
  /** customerRef -> Stripe customer id. Search lags writes, so this also stops duplicates within a process. */
  const customers = new Map<string, string>();

  async function customerFor(customerRef: string): Promise<string> {
    const cached = customers.get(customerRef);
    if (cached) return cached;
    const found = await stripe.customers.search({ query: metadataQuery('bpay_customer_ref', customerRef), limit: 1 });
    let id = found.data[0]?.id;
    if (!id) {
      // Constant parameters, so a replay of this key (another verifyCard within 24 h) returns the same customer.
      const created = await stripe.customers.create(
        { description: 'bpay consumer', metadata: { bpay_customer_ref: customerRef } },
        { idempotencyKey: `bpay-customer:${customerRef}` },
      );
      id = created.id;
    }
    if (customers.size >= 10_000) customers.clear();
    customers.set(customerRef, id);
    return id;
  }

  /** Cancels an intent; cancelling one that is already cancelled is a no-op. A captured one cannot be cancelled. */
  async function cancelIntent(id: string, idempotencyKey: string): Promise<void> {
    try {
      await stripe.paymentIntents.cancel(id, {}, { idempotencyKey });
    } catch (err) {
      if (!isUnexpectedState(err)) throw err;
      const pi = await stripe.paymentIntents.retrieve(id);
      if (pi.status === 'canceled') return;
      throw new StripeIntegrationError(`Stripe PaymentIntent ${id} is ${pi.status} and cannot be released by cancelling it.`);
    }
  }

  /** Gives back the $1.00 of a verification that was authorized (cancel) or, if someone captured it, refunds it. */
  async function releaseVerification(pi: Stripe.PaymentIntent): Promise<void> {
    if (pi.status === 'requires_capture') await cancelIntent(pi.id, `bpay-verify-release:${pi.id}`);
    else if (pi.status === 'succeeded') {
      await stripe.refunds.create({ payment_intent: pi.id }, { idempotencyKey: `bpay-verify-refund:${pi.id}` });
    }
  }

  async function tokenizedFrom(pm: string | Stripe.PaymentMethod | null): Promise<TokenizedCard> {
    if (pm === null) throw new StripeIntegrationError('Stripe returned a verification without a payment method.');
    return toTokenizedCard(typeof pm === 'string' ? await stripe.paymentMethods.retrieve(pm) : pm);
  }

  const vendor: PaymentVendor = {
    name: 'stripe',
    // Holds are found by key through Stripe's search, which lags writes by up to about a minute.
    searchLags: true,

    verifyCard: (card, { idempotencyKey: key, customerRef }) =>
      guard(async (): Promise<VerifyCardResult> => {
        const customer = await customerFor(customerRef);
        const pm = await stripe.paymentMethods.create(
          {
            type: 'card',
            card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc },
            billing_details: { name: card.name },
          },
          { idempotencyKey: `${key}:pm` },
        );
        await stripe.paymentMethods.attach(pm.id, { customer }, { idempotencyKey: `${key}:attach` });

        let pi: Stripe.PaymentIntent;
        try {
          pi = await stripe.paymentIntents.create(
            {
              amount: VERIFICATION_AMOUNT_CENTS,
              currency: CURRENCY,
              capture_method: 'manual',
              confirm: true,
              payment_method: pm.id,
              customer,
              off_session: false,
              // Later holds are off-session: save the card for that now, while the cardholder is present.
              setup_future_usage: 'off_session',
              // Cards only, so Stripe does not ask for a return_url for redirect-based methods. (API 2026-09-30
              // renamed `payment_method_types` to `allowed_payment_method_types` on create.)
              allowed_payment_method_types: ['card'],
              ...(opts.returnUrl ? { return_url: opts.returnUrl } : {}),
              description: 'bpay card verification ($1.00, released at once)',
              metadata: { bpay_purpose: VERIFICATION_PURPOSE, bpay_verification_key: key },
            },
            { idempotencyKey: `${key}:pi` },
          );
        } catch (err) {
          // A refused card leaves nothing behind; an unknown outcome keeps the card attached for the retry.
          if (err instanceof Stripe.errors.StripeCardError) await detachQuietly(stripe, pm.id, key);
          throw err;
        }

        switch (pi.status) {
          case 'requires_capture':
            await cancelIntent(pi.id, `${key}:cancel`);
            return { status: 'verified', card: toTokenizedCard(pm) };
          case 'requires_action': {
            const redirectUrl = pi.next_action?.redirect_to_url?.url ?? undefined;
            return { status: 'requires_action', challengeId: pi.id, ...(redirectUrl ? { redirectUrl } : {}) };
          }
          case 'requires_payment_method':
            await detachQuietly(stripe, pm.id, key);
            throw declineFromIntent(pi);
          case 'processing':
            throw new VendorUnavailableError('Stripe is still processing the card verification; try again.');
          default:
            // Includes a body that is not an intent at all: the SDK returns any JSON without `error` as a success,
            // even with a 5xx status.
            await releaseVerification(pi);
            throw unknownOutcome('verification', pi);
        }
      }),

    /**
     * Stripe runs the 3-D Secure challenge on its own page (verifyCard's redirectUrl), so `code` is not used: this
     * reads how the challenge ended. Authorized: release the $1.00 and return the card. Anything else: refused.
     */
    completeChallenge: (challengeId, _code) =>
      guard(async (): Promise<TokenizedCard> => {
        let pi: Stripe.PaymentIntent;
        try {
          pi = await stripe.paymentIntents.retrieve(challengeId, { expand: ['payment_method', 'latest_charge'] });
        } catch (err) {
          if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing') {
            throw new VendorDeclineError('authentication_failed', 'Unknown verification challenge.');
          }
          throw err;
        }
        if (pi.metadata?.bpay_purpose !== VERIFICATION_PURPOSE) {
          throw new VendorDeclineError('authentication_failed', 'Unknown verification challenge.');
        }
        switch (pi.status) {
          case 'requires_capture':
          case 'succeeded':
            await releaseVerification(pi);
            return tokenizedFrom(pi.payment_method);
          case 'canceled':
            // Asked again after we released it: it was verified if its authorization went through.
            if (typeof pi.latest_charge === 'object' && pi.latest_charge?.status === 'succeeded') {
              return tokenizedFrom(pi.payment_method);
            }
            break;
        }
        throw new VendorDeclineError('authentication_failed', 'The card could not be authenticated (3-D Secure).');
      }),

    /** Stripe cannot tell how much credit a card has left. */
    availableBalance: async () => null,

    hold: (token, amountCents, { idempotencyKey: key, description }) =>
      guard(async () => {
        assertPositiveCents(amountCents);
        // A card saved on a customer can only be charged together with that customer.
        const pm = await stripe.paymentMethods.retrieve(token);
        const customer = typeof pm.customer === 'string' ? pm.customer : pm.customer?.id;
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: CURRENCY,
            payment_method: token,
            ...(customer ? { customer } : {}),
            capture_method: 'manual',
            confirm: true,
            off_session: true,
            allowed_payment_method_types: ['card'],
            description,
            metadata: { bpay_idempotency_key: key, bpay_purpose: HOLD_PURPOSE },
          },
          { idempotencyKey: `${key}:hold` },
        );
        switch (pi.status) {
          case 'requires_capture':
            return { holdId: pi.id };
          case 'requires_action':
            await cancelIntent(pi.id, `${key}:hold-cancel`);
            throw new VendorDeclineError('authentication_required', 'The card asks for authentication (3-D Secure).');
          case 'requires_payment_method':
            throw declineFromIntent(pi);
          case 'processing':
            throw new VendorUnavailableError('Stripe is still processing the hold; resolve it with findHold.');
          default:
            throw unknownOutcome('hold', pi);
        }
      }),

    /**
     * Stripe Search lags writes by up to a minute (longer during incidents), so a hold placed just before a crash
     * may not be found yet; calling hold again with the same key replays it within Stripe's 24 hours.
     */
    findHold: (idempotencyKey) =>
      guard(async () => {
        const found = await stripe.paymentIntents.search({
          query: metadataQuery('bpay_idempotency_key', idempotencyKey),
          limit: 10,
        });
        // Several intents share a key only if a hold was retried after Stripe forgot the key: the one that moved
        // or holds money wins.
        const rank: Record<string, number> = { succeeded: 4, requires_capture: 3, processing: 2, canceled: 1 };
        const best = found.data
          .filter((pi) => (rank[pi.status] ?? 0) > 0)
          .sort((a, b) => (rank[b.status] ?? 0) - (rank[a.status] ?? 0))[0];
        if (!best) return null;
        if (best.status === 'processing') {
          throw new VendorUnavailableError('Stripe is still processing this hold; ask again later.');
        }
        const status = best.status === 'succeeded' ? 'captured' : best.status === 'requires_capture' ? 'held' : 'voided';
        return { holdId: best.id, status };
      }),

    getHold: (holdId) =>
      guard(async () => {
        let pi: Stripe.PaymentIntent;
        try {
          pi = await stripe.paymentIntents.retrieve(holdId);
        } catch (err) {
          if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing') return null;
          throw err;
        }
        if (pi.status === 'processing') throw new VendorUnavailableError('Stripe is still processing this hold; ask again later.');
        const status = pi.status === 'succeeded' ? 'captured' : pi.status === 'requires_capture' ? 'held' : 'voided';
        return { holdId: pi.id, status };
      }),

    capture: (holdId) =>
      guard(async () => {
        try {
          await stripe.paymentIntents.capture(holdId, {}, { idempotencyKey: `capture:${holdId}` });
        } catch (err) {
          if (!isUnexpectedState(err)) throw err;
          const pi = await stripe.paymentIntents.retrieve(holdId);
          if (pi.status === 'succeeded') return; // captured before
          if (pi.status === 'canceled') {
            throw new VendorDeclineError('processing_error', 'The hold was released or expired before it was captured.');
          }
          throw err;
        }
      }),

    voidHold: (holdId) => guard(() => cancelIntent(holdId, `void:${holdId}`)),

    refund: (holdId, amountCents, { idempotencyKey: key }) =>
      guard(async () => {
        assertPositiveCents(amountCents);
        // Stripe forgets idempotency keys after 24 hours; the key in the refund's metadata does not. Every page is
        // read: a hold refunded in many parts has more than one.
        let done: Stripe.Refund | undefined;
        for await (const r of stripe.refunds.list({ payment_intent: holdId, limit: 100 })) {
          if (r.metadata?.bpay_idempotency_key === key) {
            done = r;
            break;
          }
        }
        const made =
          done ??
          (await stripe.refunds
            .create({ payment_intent: holdId, amount: amountCents, metadata: { bpay_idempotency_key: key } }, { idempotencyKey: `${key}:refund` })
            .catch((err: unknown) => {
              // Stripe refusing this refund (a disputed charge, one too old to refund, an amount above what is left):
              // a refusal of the money's return, not bpay's request being malformed.
              if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code && REFUND_REFUSALS.has(err.code)) {
                throw new VendorDeclineError('processing_error', redact(err.message) || 'Stripe refused the refund.', err.code);
              }
              throw err;
            }));
        return refundOutcome(made);
      }),

    /**
     * A us_bank_account payment method, attached through a SetupIntent confirmed with the customer's mandate and
     * micro-deposit verification: Stripe sends the deposits and the SetupIntent waits in requires_action.
     */
    addBankAccount: (account, { idempotencyKey: key, customerRef, mandate }) =>
      guard(async () => {
        const customer = await customerFor(customerRef);
        const pm = await stripe.paymentMethods.create(
          {
            type: 'us_bank_account',
            us_bank_account: {
              routing_number: account.routingNumber,
              account_number: account.accountNumber,
              account_holder_type: 'individual',
              account_type: account.accountType,
            },
            billing_details: { name: account.name },
          },
          { idempotencyKey: `${key}:bank-pm` },
        );
        const seti = await stripe.setupIntents.create(
          {
            customer,
            payment_method: pm.id,
            // (API 2026-09-30: `allowed_payment_method_types` on create, as for PaymentIntents.)
            allowed_payment_method_types: ['us_bank_account'],
            payment_method_options: { us_bank_account: { verification_method: 'microdeposits' } },
            confirm: true,
            usage: 'off_session',
            mandate_data: {
              customer_acceptance: {
                type: 'online',
                online: { ip_address: mandate.ipAddress, user_agent: mandate.userAgent },
              },
            },
            metadata: { bpay_idempotency_key: key },
          },
          { idempotencyKey: `${key}:bank-seti` },
        );
        if (seti.status === 'succeeded') return { token: pm.id, last4: pm.us_bank_account?.last4 ?? '', verificationRef: seti.id };
        if (seti.status !== 'requires_action' || seti.next_action?.type !== 'verify_with_microdeposits') {
          const e = seti.last_setup_error;
          throw new VendorDeclineError('card_declined', redact(e?.message ?? '') || 'Stripe refused the bank account.');
        }
        const last4 = pm.us_bank_account?.last4;
        if (!last4) throw new StripeIntegrationError(`Stripe payment method ${pm.id} is not a US bank account.`);
        return { token: pm.id, last4, verificationRef: seti.id };
      }),

    verifyMicrodeposits: (ref, amounts) =>
      guard(async () => {
        try {
          const seti = await stripe.setupIntents.verifyMicrodeposits(ref, { amounts });
          if (seti.status !== 'succeeded' && seti.status !== 'processing') {
            throw new VendorDeclineError('bank_verification_failed', 'Stripe did not verify the bank account.');
          }
        } catch (err) {
          if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code) {
            const known = MICRODEPOSIT_ERRORS[err.code];
            if (known) throw new VendorDeclineError(known[0], known[1], err.code);
            if (err.code === 'setup_intent_unexpected_state') {
              const seti = await stripe.setupIntents.retrieve(ref);
              if (seti.status === 'succeeded') return; // verified before
              throw new VendorDeclineError('bank_verification_failed', 'This bank account can no longer be verified.');
            }
          }
          throw err;
        }
      }),

    debitBank: (token, amountCents, { idempotencyKey: key, description }) =>
      guard(async () => {
        assertPositiveCents(amountCents);
        const pm = await stripe.paymentMethods.retrieve(token);
        const customer = typeof pm.customer === 'string' ? pm.customer : pm.customer?.id;
        // ACH debits cannot be authorized and captured later: confirmed, they are `processing` until they settle.
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: CURRENCY,
            payment_method: token,
            ...(customer ? { customer } : {}),
            confirm: true,
            off_session: true,
            allowed_payment_method_types: ['us_bank_account'],
            description,
            metadata: { bpay_idempotency_key: key, bpay_purpose: BANK_DEBIT_PURPOSE },
          },
          { idempotencyKey: `${key}:debit` },
        );
        if (pi.status === 'processing' || pi.status === 'succeeded') return { debitId: pi.id };
        if (pi.status === 'requires_payment_method') throw declineFromIntent(pi);
        throw unknownOutcome('bank debit', pi);
      }),

    getBankDebit: (debitId) =>
      guard(async (): Promise<BankDebitState> => {
        const pi = await stripe.paymentIntents.retrieve(debitId, { expand: ['latest_charge'] });
        if (pi.status === 'processing') return { status: 'pending' };
        if (pi.status === 'succeeded') return { status: 'succeeded' };
        const charge = typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
        const code = charge?.failure_code ?? pi.last_payment_error?.code ?? 'unknown';
        const message = redact(charge?.failure_message ?? pi.last_payment_error?.message ?? '') || 'The bank returned the debit.';
        return { status: 'returned', code: achReturnCode(code), message };
      }),

    issueCard: (input: IssueCardInput) =>
      guard(async (): Promise<IssuedCard> => {
        assertPositiveCents(input.limitCents);
        if (Number.isNaN(input.expiresAt.getTime())) throw new StripeIntegrationError('issueCard: expiresAt is not a valid date.');
        const key = input.idempotencyKey;
        const name = issuingName(input.cardholderName);
        // One cardholder per card, created under the card's key: a retry must send the card's exact parameters
        // again (same cardholder id) or Stripe refuses the replay.
        const holder = await stripe.issuing.cardholders.create(
          {
            type: 'individual',
            name: name.full,
            individual: { first_name: name.first, last_name: name.last },
            billing: { address: billing },
            metadata: { bpay_idempotency_key: key },
          },
          { idempotencyKey: `${key}:cardholder` },
        );
        const card = await stripe.issuing.cards.create(
          {
            cardholder: holder.id,
            type: 'virtual',
            currency: CURRENCY,
            status: 'active',
            spending_controls: { spending_limits: [{ amount: input.limitCents, interval: 'all_time' }] },
            // Single use: Stripe cancels the card after its first non-zero authorization.
            ...(input.singleUse ? { lifecycle_controls: { cancel_after: { payment_count: 1 } } } : {}),
            // Stripe cards cannot stop at an arbitrary instant: bpay's expiry sweep calls deactivateCard.
            metadata: { bpay_expires_at: input.expiresAt.toISOString(), bpay_idempotency_key: key },
          },
          { idempotencyKey: `${key}:card` },
        );
        return {
          cardId: card.id,
          brand: toBrand(card.brand),
          last4: card.last4,
          expMonth: card.exp_month,
          expYear: card.exp_year,
        };
      }),

    /** Single-use cards are cancelled, never made inactive: a cancelled Issuing card cannot be turned back on. */
    deactivateCard: (cardId) =>
      guard(async () => {
        try {
          await stripe.issuing.cards.update(cardId, { status: 'canceled' }, { idempotencyKey: `deactivate:${cardId}` });
        } catch (err) {
          if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
          const card = await stripe.issuing.cards.retrieve(cardId);
          if (card.status !== 'canceled') throw err;
        }
      }),

    revealCard: (cardId) =>
      guard(async (): Promise<RevealedCard> => {
        const card = await stripe.issuing.cards.retrieve(cardId, { expand: ['number', 'cvc'] });
        if (!card.number || !card.cvc) {
          throw new StripeIntegrationError('Stripe did not return the card number and CVC (the account needs access to card details).');
        }
        return { number: card.number, expMonth: card.exp_month, expYear: card.exp_year, cvc: card.cvc };
      }),
  };
  return vendor;
}

/**
 * Read-only check of a secret key (GET /v1/balance), for the admin panel. Never throws; the message never holds
 * the key.
 */
export async function checkStripeCredentials(
  secretKey: string,
  opts: StripeConnectionOptions = {},
): Promise<{ ok: true } | { ok: false; message: string }> {
  if (!secretKey.trim()) return { ok: false, message: 'No Stripe secret key was given.' };
  if (secretKey.startsWith('pk_')) {
    return { ok: false, message: 'That is a publishable key (pk_...); bpay needs a secret key (sk_...) or a restricted key (rk_...).' };
  }
  try {
    await newStripeClient(secretKey, opts, 0).balance.retrieve();
    return { ok: true };
  } catch (err) {
    if (err instanceof Stripe.errors.StripeAuthenticationError) {
      return { ok: false, message: 'Stripe rejected the key (authentication failed).' };
    }
    if (err instanceof Stripe.errors.StripePermissionError) {
      return { ok: false, message: `The key lacks a permission bpay needs: ${redact(err.message)}` };
    }
    if (err instanceof Stripe.errors.StripeConnectionError) {
      return { ok: false, message: `Could not reach Stripe: ${redact(err.message)}` };
    }
    if (err instanceof Stripe.errors.StripeError) {
      return { ok: false, message: `Stripe answered with an error: ${redact(err.message)}` };
    }
    return { ok: false, message: 'Could not check the key with Stripe.' };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Error mapping

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

/** Runs a vendor operation and turns whatever it throws into one of the three shapes described at the top. */
/** Stripe's codes for a refund it will not make (https://docs.stripe.com/error-codes). */
const REFUND_REFUSALS = new Set([
  'charge_disputed',
  'charge_already_refunded',
  'charge_expired_for_refund',
  'charge_not_refundable',
  'amount_too_large',
  'refund_disputed_payment',
]);

/**
 * A Stripe refund as the vendor interface needs it: its id once it has gone through (or is on its way: `pending`,
 * which Stripe completes by itself); a failed or canceled one is a refusal; one that needs the customer's action
 * is not finished, and is asked about again (the same key finds it) when the sweep comes back.
 */
export function refundOutcome(r: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>): { refundId: string } {
  if (r.status === 'failed' || r.status === 'canceled') {
    throw new VendorDeclineError('processing_error', `Stripe ${r.status === 'failed' ? 'failed' : 'canceled'} the refund${r.failure_reason ? ` (${r.failure_reason})` : ''}.`, r.failure_reason ?? undefined);
  }
  if (r.status === 'requires_action') throw new VendorUnavailableError(`Stripe refund ${r.id} waits for the customer's action.`);
  return { refundId: r.id };
}

async function guard<T>(op: () => Promise<T>): Promise<T> {
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

function declineFromIntent(pi: Stripe.PaymentIntent): VendorDeclineError {
  const e = pi.last_payment_error;
  return new VendorDeclineError(
    declineCodeFor(e?.code, e?.decline_code),
    redact(e?.message ?? '') || 'The card was declined.',
    e?.decline_code || undefined,
  );
}

function unknownOutcome(what: string, pi: Stripe.PaymentIntent): VendorUnavailableError {
  const status = typeof pi.status === 'string' ? pi.status : 'missing';
  return new VendorUnavailableError(`Stripe answered the ${what} with an unexpected status (${status}); the outcome is unknown.`);
}

function isUnexpectedState(err: unknown): boolean {
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

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

async function detachQuietly(stripe: Stripe, pmId: string, key: string): Promise<void> {
  try {
    await stripe.paymentMethods.detach(pmId, {}, { idempotencyKey: `${key}:detach` });
  } catch {
    // Tidying only: a refused card left attached to its customer is never charged.
  }
}

function toTokenizedCard(pm: Stripe.PaymentMethod): TokenizedCard {
  const c = pm.card;
  if (!c) throw new StripeIntegrationError(`Stripe payment method ${pm.id} is not a card.`);
  return { token: pm.id, brand: toBrand(c.brand), funding: toFunding(c.funding), last4: c.last4, expMonth: c.exp_month, expYear: c.exp_year };
}

/** Stripe's `card.funding`: credit, debit, prepaid or unknown. */
export function toFunding(funding: string | null | undefined): CardFunding {
  return funding === 'credit' || funding === 'debit' || funding === 'prepaid' ? funding : 'unknown';
}

/**
 * Stripe names an ACH return by a failure code (https://docs.stripe.com/payments/ach-direct-debit#failed-payments);
 * bpay shows the NACHA return code people and banks know.
 */
export function achReturnCode(failureCode: string): string {
  const codes: Record<string, string> = {
    insufficient_funds: 'R01',
    account_closed: 'R02',
    no_account: 'R03',
    invalid_account_number: 'R04',
    debit_not_authorized: 'R29',
    bank_account_restricted: 'R16',
  };
  return codes[failureCode] ?? failureCode;
}

/** Payments say `visa`, `mastercard`; Issuing says `Visa`, `MasterCard`. */
export function toBrand(brand: string | null | undefined): CardBrand {
  const b = (brand ?? '').toLowerCase().replace(/[^a-z]/g, '');
  switch (b) {
    case 'visa':
    case 'mastercard':
      return b;
    case 'amex':
    case 'americanexpress':
      return 'amex';
    default:
      return 'unknown';
  }
}

/** A Stripe Search clause matching one metadata value (quotes and backslashes escaped). */
export function metadataQuery(field: string, value: string): string {
  return `metadata['${field}']:'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function assertPositiveCents(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new StripeIntegrationError(`Amount must be positive integer cents, got ${amount}.`);
}

/**
 * Issuing prints the name: at most 24 characters, letters and spaces only (no digits or special characters).
 * Accents are folded; a name with no Latin letters (Arabic, for one) falls back to a generic name.
 */
export function issuingName(raw: string): { full: string; first: string; last: string } {
  const latin = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const words = (latin || 'bpay Cardholder').split(' ');
  const first = words[0] ?? 'bpay';
  const last = words.length > 1 ? (words[words.length - 1] ?? 'Cardholder') : 'Cardholder';
  let full = words.join(' ');
  if (full.length > 24) full = `${first} ${last}`.slice(0, 24).trim();
  return { full, first, last };
}

