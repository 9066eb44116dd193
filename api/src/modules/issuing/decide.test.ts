import { describe, expect, test } from 'bun:test';
import type { schema } from '@bpay/db';
import { decideAuthorization, ISSUER_MAX_BAD_ATTEMPTS, type AuthorizationFacts } from './decide';

/* The issuer's one decision (issue 24), every decline reason and its order, without a database. */

const NOW = new Date('2026-11-28T12:00:00Z');
const card = (over: Partial<typeof schema.bcards.$inferSelect> = {}): typeof schema.bcards.$inferSelect => ({
  id: 'bc_1',
  userId: 'u_1',
  collectionId: 'col_1',
  name: 'Shoes',
  cardholderName: 'Ada Lovelace',
  vendor: 'simulated',
  vendorCardId: 'sim_ic_1',
  brand: 'visa',
  last4: '4242',
  expMonth: 12,
  expYear: 2027,
  limitCents: 5000,
  spentCents: 0,
  status: 'active',
  lockedMerchantId: null,
  sandbox: false,
  expiresAt: new Date(NOW.getTime() + 60_000),
  createdAt: NOW,
  deactivatedAt: null,
  lockedDomain: null,
  badAuthAttempts: 0,
  closedReason: null,
  extensionTokenId: null,
  ...over,
});
const facts = (over: Partial<AuthorizationFacts> = {}): AuthorizationFacts => ({
  amountCents: 4000,
  currency: 'usd',
  merchantDomain: 'shop.example',
  cvc: 'match',
  expiry: 'match',
  ...over,
});
const reason = (b = card(), f = facts()) => {
  const d = decideAuthorization(b, f, NOW);
  return d.approved ? 'approved' : d.reason;
};

describe('decideAuthorization', () => {
  test('approves an active, unused card within its amount, at any shop when not locked', () => {
    expect(reason()).toBe('approved');
    expect(reason(card(), facts({ amountCents: 5000 }))).toBe('approved');
    expect(reason(card(), facts({ currency: 'USD' }))).toBe('approved');
    expect(reason(card(), facts({ cvc: 'not_provided', expiry: 'not_provided' }))).toBe('approved');
  });

  test('every decline reason', () => {
    expect(reason(card({ status: 'canceled' }))).toBe('card_inactive');
    expect(reason(card({ status: 'canceling' }))).toBe('card_inactive');
    expect(reason(card({ sandbox: true }))).toBe('card_inactive');
    expect(reason(card(), facts({ amountCents: 5001 }))).toBe('insufficient_funds');
    expect(reason(card(), facts({ amountCents: 0 }))).toBe('insufficient_funds');
    expect(reason(card({ expiresAt: NOW }))).toBe('expired');
    expect(reason(card({ status: 'expired' }))).toBe('expired');
    expect(reason(card({ status: 'expiring' }))).toBe('expired');
    expect(reason(card({ lockedDomain: 'other.example' }))).toBe('merchant_mismatch');
    expect(reason(card({ lockedMerchantId: 'mer_1' }))).toBe('merchant_mismatch');
    expect(reason(card({ status: 'used', spentCents: 4000 }))).toBe('already_used');
    expect(reason(card({ status: 'authorized' }))).toBe('already_used');
    expect(reason(card(), facts({ cvc: 'mismatch' }))).toBe('incorrect_cvc');
    expect(reason(card(), facts({ expiry: 'mismatch' }))).toBe('incorrect_expiry');
    expect(reason(card(), facts({ currency: 'eur' }))).toBe('currency_mismatch');
  });

  test('a locked card approves at its own site, and where the network names no site', () => {
    expect(reason(card({ lockedDomain: 'shop.example' }))).toBe('approved');
    expect(reason(card({ lockedDomain: 'shop.example' }), facts({ merchantDomain: null }))).toBe('approved');
  });

  test('a dead card says so whatever is guessed; on a live card the credentials come before the purchase', () => {
    expect(reason(card({ status: 'used' }), facts({ cvc: 'mismatch' }))).toBe('already_used');
    expect(reason(card({ status: 'canceled' }), facts({ expiry: 'mismatch' }))).toBe('card_inactive');
    expect(reason(card(), facts({ cvc: 'mismatch', amountCents: 999_999 }))).toBe('incorrect_cvc');
    expect(reason(card({ lockedDomain: 'other.example' }), facts({ expiry: 'mismatch' }))).toBe('incorrect_expiry');
  });

  test('a live card that already met three wrong attempts is refused, even with the right details', () => {
    expect(ISSUER_MAX_BAD_ATTEMPTS).toBe(3);
    expect(reason(card({ badAuthAttempts: 2 }))).toBe('approved');
    expect(reason(card({ badAuthAttempts: 3 }))).toBe('card_inactive');
  });
});
