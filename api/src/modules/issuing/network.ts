import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { addressKey } from '../../lib/address-key';
import { hmacHex } from '../../lib/crypto';
import { registrableDomain } from '../../lib/registrable-domain';
import { hitThrottle, recordThrottle, throttleWait, type ThrottleRule } from '../../lib/throttle';
import { authorizeBcard, type AuthorizationOutcome } from './authorize';
import { DECLINE_MESSAGES } from './decide';

/*
 * The built-in simulated card network (issue 24): what a shop's processor would send to bpay as the issuer of a
 * bcard, for sandbox and demo installs and for developers trying bpay with their own shop. The card details lead to
 * the bcard through the simulated issuer's number fingerprint; the decision is the same one Stripe Issuing's
 * webhook gets. With Stripe configured the real network carries authorizations and this endpoint is not there (404).
 *
 * Card testing: a bot sends many numbers, or many CVCs for one number. Both are limited (per address, and per card
 * number through a keyed hash of it), and three wrong CVCs or expiries close a bcard (authorize.ts).
 */

const HOUR = 60 * 60_000;
/** A shop's server (one address) in a sandbox: a few hundred orders an hour is far more than a demo makes. */
export const NETWORK_PER_ADDRESS: ThrottleRule = { scope: 'network:address', limit: 300, windowMs: HOUR };
/** One card number: a single-use bcard needs one authorization; a few retries after a decline are honest. */
export const NETWORK_PER_CARD: ThrottleRule = { scope: 'network:card', limit: 10, windowMs: HOUR };
/**
 * Wrong card details (an unknown number, a wrong CVC or expiry) from one address: customers mistype now and then;
 * a bot walking numbers to find bcards, or guessing a found one's CVC, meets this long before the address limit.
 */
export const NETWORK_BAD_DETAILS_PER_ADDRESS: ThrottleRule = { scope: 'network:bad_details', limit: 20, windowMs: HOUR };
const BAD_DETAILS = new Set(['incorrect_number', 'incorrect_cvc', 'incorrect_expiry']);

export interface NetworkRequest {
  cardNumber: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  amountCents: number;
  currency: string;
  merchant: { name: string; url: string; city: string | null; category: string | null };
}

export interface NetworkAuthorizationObject {
  id: string;
  object: 'issuing.authorization';
  approved: true;
  amount: number;
  currency: string;
  status: 'closed';
  merchant_data: { name: string; city: string | null; category: string | null; url: string };
}

/**
 * Authorizes a purchase on the simulated network. Approved: the authorization object (the bcard is spent).
 * Fails with: route_not_found (Stripe configured), network_rate_limited (429), validation_error (a URL that names
 * no site), card_declined (402, decline_code: one of DECLINE_REASONS; nothing moved).
 */
export async function simulateNetworkAuthorization(deps: AppDeps, req: NetworkRequest, address: string): Promise<NetworkAuthorizationObject> {
  if (deps.vendor.name !== 'simulated') throw new AppError('route_not_found', 'The simulated card network is off: this install uses Stripe Issuing.');
  const number = req.cardNumber.replace(/[\s-]/g, '');
  if (!/^[0-9]{12,19}$/.test(number)) {
    throw new AppError('validation_error', 'card_number must be 12 to 19 digits (spaces and dashes are ignored).', 'card_number');
  }
  const domain = registrableDomain(req.merchant.url);
  if (!domain) throw new AppError('validation_error', "merchant.url must be the shop's address, such as https://shop.example/checkout.", 'merchant.url');
  const badDetails = { rule: NETWORK_BAD_DETAILS_PER_ADDRESS, key: addressKey(address) };
  if (deps.rateLimits) {
    const wait = await throttleWait(deps.db, deps.clock, [badDetails]);
    if (wait !== null) {
      throw new AppError(
        'network_rate_limited',
        'Too many authorizations with wrong card details from this address. Try again after the time given in Retry-After.',
        undefined,
        { 'retry-after': String(wait) },
      );
    }
    const limited = await hitThrottle(deps.db, deps.clock, [
      { rule: NETWORK_PER_ADDRESS, key: addressKey(address) },
      { rule: NETWORK_PER_CARD, key: hmacHex(deps.idempotencySecret, `network-card:${number}`) },
    ]);
    if (!limited.allowed) {
      throw new AppError('network_rate_limited', undefined, undefined, { 'retry-after': String(limited.retryAfterSeconds) });
    }
  }
  const found = await deps.vendorFor('simulated').checkIssuedCard?.({ number, expMonth: req.expMonth, expYear: req.expYear, cvc: req.cvc });
  const bcard = found ? await firstRow(deps.db, schema.bcards, eq(schema.bcards.vendorCardId, found.cardId)) : undefined;
  const outcome = await authorizeBcard(deps, {
    network: 'simulated',
    networkRef: null,
    bcard: bcard ?? null,
    facts: {
      amountCents: req.amountCents,
      currency: req.currency,
      merchantDomain: domain,
      cvc: found?.cvc ?? 'not_provided',
      expiry: found?.expiry ?? 'not_provided',
    },
    merchant: { name: req.merchant.name, city: req.merchant.city, category: req.merchant.category },
  });
  if (!outcome.approved) {
    if (deps.rateLimits && outcome.reason && BAD_DETAILS.has(outcome.reason)) await recordThrottle(deps.db, deps.clock, [badDetails]);
    throw declined(outcome);
  }
  return {
    id: outcome.id,
    object: 'issuing.authorization',
    approved: true,
    amount: req.amountCents,
    currency: req.currency.toLowerCase(),
    status: 'closed',
    merchant_data: { name: req.merchant.name, city: req.merchant.city, category: req.merchant.category, url: req.merchant.url },
  };
}

function declined(outcome: AuthorizationOutcome): AppError {
  const reason = outcome.reason ?? 'card_inactive';
  const message = outcome.closed
    ? `${DECLINE_MESSAGES[reason]} The bcard was closed after repeated incorrect attempts.`
    : DECLINE_MESSAGES[reason];
  return new AppError('card_declined', message, undefined, undefined, { decline_code: reason, authorization: outcome.id });
}
