import { describe, expect, test } from 'bun:test';
import { NOTICE_KINDS, type NoticeKind } from '@bpay/db';
import type { NoticeFacts } from './kinds';
import { declineWords, dollars, noticeLink, noticeText, partsList, returnWords } from './texts';

/** One example of every kind's facts. */
const EXAMPLES: { [K in NoticeKind]: NoticeFacts[K] } = {
  bcard_issued: { bcardId: 'vc_1', bcardName: 'Shoes', amount: '100.00', sourceCount: 2, transactionId: 'col_1' },
  bcard_spent: { bcardId: 'vc_1', bcardName: 'Shoes', merchant: 'Shoe Shop', amount: '40.00', returned: '0.00', transactionId: 'col_1' },
  bcard_declined: { bcardId: 'vc_1', bcardName: 'Shoes', merchant: 'Shoe Shop', amount: '40.00', reason: 'insufficient_funds' },
  bcard_expired: { bcardId: 'vc_1', bcardName: 'Shoes', returned: '0.00', parts: [], transactionId: 'col_1' },
  bcard_canceled: {
    bcardId: 'vc_1',
    bcardName: 'Shoes',
    returned: '15.00',
    parts: [
      { name: 'Visa', last4: '4242', amount: '10.00' },
      { name: 'Chase', last4: '6789', amount: '5.00' },
    ],
    transactionId: 'col_1',
    closedReason: 'too_many_incorrect_attempts',
  },
  merchant_refund: { merchant: 'Shoe Shop', amount: '20.00', parts: [{ name: 'Visa', last4: '4242', amount: '20.60' }], transactionId: 'col_1' },
  refund_failed: { sourceName: 'Visa', last4: '4242', amount: '30.90', reason: 'expired_or_canceled_card', transactionId: 'col_1' },
  dispute_opened: { disputeId: 'dsp_1', cardName: 'Visa', last4: '4242', amount: '60.00', bcardName: 'Shoes', merchant: 'Shoe Shop', owed: '60.00', transactionId: 'col_1' },
  dispute_won: { disputeId: 'dsp_1', cardName: 'Visa', last4: '4242', amount: '60.00', bcardName: 'Shoes', merchant: null, owed: '0.00', transactionId: 'col_1' },
  dispute_lost: { disputeId: 'dsp_1', cardName: 'Visa', last4: '4242', amount: '60.00', bcardName: 'Shoes', merchant: 'Shoe Shop', owed: '60.00', transactionId: 'col_1' },
  bank_debit_settled: { accountName: 'Chase', last4: '6789', amount: '50.00', transactionId: 'col_1' },
  bank_debit_returned: { accountName: 'Chase', last4: '6789', amount: '50.00', reason: 'R10', owed: '0.00', transactionId: 'col_1' },
  receivable_repaid: { amount: '20.00', sourceName: 'Visa', last4: '4242', owed: '30.00' },
  receivable_waived: { amount: '30.00', owed: '0.00', reason: 'Goodwill' },
  payable_settled: { amount: '30.90', owedToYou: '0.00', method: 'paid_outside', reason: 'Bank transfer of 28 Nov' },
  plan_charged: { plan: 'Pro', amount: '9.99', kind: 'upgrade' },
  plan_refunded: { plan: 'Pro', amount: '6.45', sourceName: 'Visa', last4: '4242' },
  plan_renewal_failed: { plan: 'Pro', amount: '9.99', reason: 'card_declined' },
  kyc_approved: {},
  kyc_failed: { reason: null },
  sign_in: { device: 'Chrome on macOS', ip: '198.51.100.4' },
  password_changed: {},
  password_reset: {},
  two_factor_enabled: {},
  two_factor_disabled: {},
  email_changed: { newEmailMasked: 'a•••@example.com' },
};

const ARABIC = /[\u0600-\u06ff]/;

describe('every kind in both languages', () => {
  test.each([...NOTICE_KINDS])('%s', (kind) => {
    const facts = EXAMPLES[kind] as never;
    const en = noticeText('en', kind, facts);
    const ar = noticeText('ar', kind, facts);
    for (const s of [en.title, en.body, ar.title, ar.body]) {
      expect(s.length).toBeGreaterThan(5);
      expect(s).not.toMatch(/undefined|null|\[object|NaN/);
      // No raw reason code reaches a person.
      expect(s).not.toMatch(/insufficient_funds|too_many_incorrect_attempts|card_declined/);
    }
    expect(en.title + en.body).not.toMatch(ARABIC);
    expect(en.title + en.body).not.toMatch(/[\u2066-\u2069]/);
    expect(ar.title).toMatch(ARABIC);
    expect(ar.body).toMatch(ARABIC);
    // Isolates are balanced and never nested: each opener is closed before the next opens.
    expect(ar.title + ar.body).toMatch(/^[^\u2066-\u2069]*(?:[\u2066\u2068][^\u2066-\u2069]*\u2069[^\u2066-\u2069]*)*$/);
    expect(noticeLink(kind, facts)).toStartWith('/');
  });
});

test('amounts: dollars with thousands, left-to-right in Arabic', () => {
  expect(dollars('40.00')).toBe('$40.00');
  expect(dollars('1234567.5')).toBe('$1,234,567.50');
  expect(noticeText('ar', 'bcard_spent', { ...EXAMPLES.bcard_spent, amount: '1040.00' }).title).toContain('\u2066$1,040.00\u2069');
});

test('returned parts are listed by source', () => {
  expect(partsList('en', EXAMPLES.bcard_canceled.parts)).toBe('Visa •••• 4242: $10.00; Chase •••• 6789: $5.00');
  expect(noticeText('en', 'bcard_canceled', EXAMPLES.bcard_canceled).body).toBe(
    'bpay closed your bcard Shoes after too many wrong security codes or expiry dates. $15.00 went back to your sources: Visa •••• 4242: $10.00; Chase •••• 6789: $5.00.',
  );
  expect(noticeText('en', 'bcard_expired', EXAMPLES.bcard_expired).body).toBe('Your bcard Shoes expired. Nothing was left on it to return.');
});

test('decline and ACH return codes in words; an unknown code is named, not hidden', () => {
  for (const code of ['insufficient_funds', 'merchant_mismatch', 'expired', 'incorrect_cvc', 'card_inactive', 'already_used', 'test_mode_live_card']) {
    expect(declineWords('en', code)).not.toContain('(code');
    expect(declineWords('en', code)).not.toContain('_');
    expect(declineWords('ar', code)).toMatch(ARABIC);
  }
  expect(declineWords('en', 'weird_code')).toBe('the charge was refused (code weird_code)');
  for (const code of ['R01', 'R02', 'R03', 'R04', 'R08', 'R10', 'R16', 'R20', 'R29']) {
    expect(returnWords('en', code)).toMatch(new RegExp(`^[A-Z].+ \\(${code}\\)$`));
    expect(returnWords('ar', code)).toMatch(ARABIC);
  }
  // One table of return reasons for screens and notices (lib/server-words.ts).
  expect(returnWords('en', 'R01')).toBe('Insufficient funds (R01)');
});

test('KYC failure: a known code in words, a reviewer\'s note quoted, an unknown code the general sentence', () => {
  expect(noticeText('en', 'kyc_failed', { reason: 'document_expired' }).body).toBe(
    'Your identity could not be verified: the document has expired. You can submit a new verification.',
  );
  expect(noticeText('en', 'kyc_failed', { reason: 'Photo is blurry' }).body).toContain("The reviewer's note: Photo is blurry");
  expect(noticeText('en', 'kyc_failed', { reason: 'some_new_code' }).body).toBe('Your documents could not be verified. You can submit a new verification.');
});

test('links: money to the transaction, security to Settings, plans to /plans', () => {
  expect(noticeLink('bcard_spent', EXAMPLES.bcard_spent)).toBe('/?tab=transactions&transaction=col_1');
  expect(noticeLink('sign_in', EXAMPLES.sign_in)).toBe('/?tab=settings&section=security');
  expect(noticeLink('plan_renewal_failed', EXAMPLES.plan_renewal_failed)).toBe('/plans');
});
