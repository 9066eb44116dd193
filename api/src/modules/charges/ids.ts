/*
 * A Charge's id is its payment intent's with ch_ for pi_ (as Stripe's own charge and intent ids often share their
 * tail): one per paid intent, stable, and found again without a table. Pure: payment-intents/service.ts answers
 * latest_charge with it, below every loader.
 */

export const chargeIdOf = (paymentIntentId: string): string => `ch_${paymentIntentId.replace(/^pi_/, '')}`;

/** The payment intent a charge id names, or null when it is not a charge id. */
export function intentIdOfCharge(chargeId: string): string | null {
  return /^ch_[A-Za-z0-9]+$/.test(chargeId) ? `pi_${chargeId.slice(3)}` : null;
}
