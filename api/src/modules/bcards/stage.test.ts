import { expect, test } from 'bun:test';
import type { schema } from '@bpay/db';
import { bcardStageOf } from './stage';

/*
 * A partly used bcard's "returned" is what the purchase left on it with its part of the fee, whatever merchants
 * refunded later (from the hostile review of issue 25: the stage read collections.refunded_cents, which a card
 * network's refund of the spent part adds to, and said $100-and-fee came back when $40 had).
 */

type CollectionRow = typeof schema.collections.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;
const now = new Date('2026-11-28T12:00:00Z');

// $100.00 at a 2.9 % fee: $102.90 collected; $60.00 spent at a shop outside bpay.
const collection = { amountCents: 10_000, feeCents: 290, totalCents: 10_290, merchant: 'Corner Shoes', status: 'completed' } as CollectionRow;
const bcard = { status: 'used', limitCents: 10_000, spentCents: 6_000, expiresAt: now } as BcardRow;

test('partly used: the remainder and its fee part (floor(2.90 × 40 / 100) = 1.16), not later refunds', () => {
  const settled = { ...collection, refundedCents: 4_116 };
  expect(bcardStageOf(settled, bcard, now)).toEqual({ code: 'partly_used', held: null, spent: '60.00', returned: '41.16', merchant: 'Corner Shoes' });
  // The shop then refunds the $60.00 it charged (and its fee part): the purchase still left $41.16, no more.
  const refunded = { ...collection, refundedCents: 10_290 };
  expect(bcardStageOf(refunded, bcard, now).returned).toBe('41.16');
});

test('used in full: nothing returned, whatever is refunded later', () => {
  const full = { ...bcard, spentCents: 10_000 };
  expect(bcardStageOf({ ...collection, refundedCents: 10_290 }, full, now)).toEqual({ code: 'used', held: null, spent: '100.00', returned: null, merchant: 'Corner Shoes' });
});
