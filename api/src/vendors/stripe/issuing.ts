import Stripe from 'stripe';
import type { IssueCardInput, IssuedCard, PaymentVendor, RevealedCard } from '../types';
import { assertPositiveCents, CURRENCY, type StripeContext } from './client';
import { guard, StripeIntegrationError } from './errors';
import { toBrand } from './cards';

/** The single-use bcard: an Issuing virtual card with its own cardholder, canceled when it is done. */
export function issuingOperations({ stripe, billing }: StripeContext): Pick<
  PaymentVendor,
  'issueCard' | 'deactivateCard' | 'revealCard'
> {
  return {
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
