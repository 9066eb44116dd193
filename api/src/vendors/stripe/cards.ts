import Stripe from 'stripe';
import {
  VendorDeclineError,
  VendorUnavailableError,
  type CardBrand,
  type CardFunding,
  type PaymentVendor,
  type TokenizedCard,
  type VerifyCardResult,
} from '../types';
import { CURRENCY, type StripeContext } from './client';
import { declineFromIntent, guard, StripeIntegrationError, unknownOutcome } from './errors';
import { cancelIntent } from './holds';

/** The verification authorization: $1.00, released at once. */
const VERIFICATION_AMOUNT_CENTS = 100;
/** Metadata on the $1.00 verification intents, so completeChallenge accepts only those. */
const VERIFICATION_PURPOSE = 'card_verification';

/** A consumer's card: verified with a $1.00 authorization (3-D Secure on Stripe's page when asked), then saved. */
export function cardOperations({ stripe, opts, customerFor }: StripeContext): Pick<
  PaymentVendor,
  'verifyCard' | 'completeChallenge' | 'availableBalance'
> {
  /** Gives back the $1.00 of a verification that was authorized (cancel) or, if someone captured it, refunds it. */
  async function releaseVerification(pi: Stripe.PaymentIntent): Promise<void> {
    if (pi.status === 'requires_capture') await cancelIntent(stripe, pi.id, `bpay-verify-release:${pi.id}`);
    else if (pi.status === 'succeeded') {
      await stripe.refunds.create({ payment_intent: pi.id }, { idempotencyKey: `bpay-verify-refund:${pi.id}` });
    }
  }

  async function tokenizedFrom(pm: string | Stripe.PaymentMethod | null): Promise<TokenizedCard> {
    if (pm === null) throw new StripeIntegrationError('Stripe returned a verification without a payment method.');
    return toTokenizedCard(typeof pm === 'string' ? await stripe.paymentMethods.retrieve(pm) : pm);
  }

  return {
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
            await cancelIntent(stripe, pi.id, `${key}:cancel`);
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
  };
}

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
