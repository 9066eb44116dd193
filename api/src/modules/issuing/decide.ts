import type { schema } from '@bpay/db';

/*
 * bpay as the issuer of its bcards: the one decision a card network's authorization gets, whichever network carried
 * it (the built-in simulated network, or Stripe Issuing's real-time authorization webhook). Pure: it reads a bcard
 * and a request and answers; authorize.ts applies the answer.
 */

type BcardRow = typeof schema.bcards.$inferSelect;

/**
 * Why an authorization is declined. The first seven are the issue's; `incorrect_number` (no bcard has that number)
 * and `currency_mismatch` (bcards are loaded in USD) complete what a network can send.
 */
export const DECLINE_REASONS = [
  'card_inactive',
  'insufficient_funds',
  'expired',
  'merchant_mismatch',
  'already_used',
  'incorrect_cvc',
  'incorrect_expiry',
  'incorrect_number',
  'currency_mismatch',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** What a decline tells the shop (and the bcard's owner, in their Transactions list). */
export const DECLINE_MESSAGES: Record<DeclineReason, string> = {
  card_inactive: 'This bcard is not active: it was canceled or closed.',
  insufficient_funds: 'The amount is more than this bcard holds.',
  expired: 'This bcard has expired.',
  merchant_mismatch: 'This bcard can be used only at the shop it was made for.',
  already_used: 'This bcard has already been used: bcards are single-use.',
  incorrect_cvc: "The card's security code is incorrect.",
  incorrect_expiry: "The card's expiry date is incorrect.",
  incorrect_number: 'The card number is incorrect.',
  currency_mismatch: 'This bcard can be charged only in US dollars.',
};

/** A wrong CVC or expiry this many times closes the bcard (as issuers do against card testing). */
export const ISSUER_MAX_BAD_ATTEMPTS = 3;

/** How a network checked the card's security code and expiry (Stripe's verification_data: match, mismatch, not_provided). */
export type Check = 'match' | 'mismatch' | 'not_provided';

export interface AuthorizationFacts {
  amountCents: number;
  currency: string;
  /** The shop's registrable domain when the network gives its URL; null when it does not. */
  merchantDomain: string | null;
  cvc: Check;
  expiry: Check;
}

export type Decision = { approved: true } | { approved: false; reason: DeclineReason };

/**
 * Approves only an active, unused bcard, with the right CVC and expiry, before its session ends, in its currency,
 * at its site (when locked to one; a bcard locked to a bpay merchant's checkout is never charged through a network)
 * and within its collected amount. The order: a card that can no longer pay says so whatever is guessed (no CVC
 * guess against a dead card is worth answering); on a live card the credentials come first, so a guessed CVC learns
 * nothing about the purchase; then the purchase. A live card that already met ISSUER_MAX_BAD_ATTEMPTS (its closing
 * did not finish) is refused as inactive.
 */
export function decideAuthorization(bcard: BcardRow, facts: AuthorizationFacts, now: Date): Decision {
  switch (bcard.status) {
    case 'used':
    case 'authorized':
      return { approved: false, reason: 'already_used' };
    case 'expired':
    case 'expiring':
      return { approved: false, reason: 'expired' };
    case 'canceled':
    case 'canceling':
      return { approved: false, reason: 'card_inactive' };
    case 'active':
      break;
  }
  if (bcard.badAuthAttempts >= ISSUER_MAX_BAD_ATTEMPTS) return { approved: false, reason: 'card_inactive' };
  if (facts.expiry === 'mismatch') return { approved: false, reason: 'incorrect_expiry' };
  if (facts.cvc === 'mismatch') return { approved: false, reason: 'incorrect_cvc' };
  if (bcard.sandbox) return { approved: false, reason: 'card_inactive' };
  if (bcard.spentCents > 0) return { approved: false, reason: 'already_used' };
  if (bcard.expiresAt <= now) return { approved: false, reason: 'expired' };
  if (facts.currency.toLowerCase() !== 'usd') return { approved: false, reason: 'currency_mismatch' };
  if (bcard.lockedMerchantId) return { approved: false, reason: 'merchant_mismatch' };
  // The lock holds where the network names the shop's site: always on the simulated network (its URL is required);
  // on Stripe only when merchant_data.url is given, which most card-not-present authorizations lack (docs/DECISIONS.md).
  if (bcard.lockedDomain && facts.merchantDomain !== null && bcard.lockedDomain !== facts.merchantDomain) {
    return { approved: false, reason: 'merchant_mismatch' };
  }
  if (facts.amountCents <= 0 || facts.amountCents > bcard.limitCents - bcard.spentCents) {
    return { approved: false, reason: 'insufficient_funds' };
  }
  return { approved: true };
}
