import { formatDecimal, type Cents } from '@bpay/db/money';
import type { schema } from '@bpay/db';
import { remainderFee } from './remainder';

/*
 * Where a bcard and each of its shares stand, as stable codes with the figures their words need (issue 25). The
 * web words them in the reader's language; the API never sends the words. Derived from the rows on every read
 * (collections.status, bcards.status and spent, collection_shares.status, bank_debits.status): nothing is stored
 * twice, so a stage can never disagree with the money underneath.
 */

type CollectionRow = typeof schema.collections.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;
type ShareRow = typeof schema.collectionShares.$inferSelect;
type DebitStatus = (typeof schema.bankDebits.$inferSelect)['status'];

/**
 * - collecting: the shares are being held or captured; no bcard yet.
 * - not_issued: the collection failed (a decline, too little money, interrupted): nothing is charged, or it went back.
 * - active: the bcard holds `held`, unused, within its session.
 * - authorized: a merchant's authorization holds it until the merchant captures (or cancels).
 * - used: spent in full at `merchant`.
 * - partly_used: spent `spent` at `merchant`; `returned` went back to the sources.
 * - expiring / canceling: the session ended or it was canceled, unused; its money is on its way back.
 * - expired / canceled: unused, and `returned` went back to the sources.
 */
export const BCARD_STAGES = [
  'collecting',
  'not_issued',
  'active',
  'authorized',
  'used',
  'partly_used',
  'expiring',
  'expired',
  'canceling',
  'canceled',
] as const;
export type BcardStage = (typeof BCARD_STAGES)[number];

export interface BcardStageView {
  code: BcardStage;
  /** What the bcard holds now (active, authorized), in dollars; null otherwise. */
  held: string | null;
  /** What the merchant charged (used, partly_used), in dollars; null otherwise. */
  spent: string | null;
  /** What went back (or is going back) to the sources: partly_used, expired, canceled, expiring, canceling. */
  returned: string | null;
  /** Where it was used (used, partly_used); null otherwise. */
  merchant: string | null;
}

/**
 * A share's stage. `bank_pending`: a captured bank share whose ACH debit is still settling (it can still come back);
 * `charged` once it settled (or a card share captured); `partly_refunded`: charged, and the part of a purchase's
 * remainder due to it went back; `released`: the hold was voided; `returned`: the bank returned the debit.
 * `disputed` / `dispute_won` / `dispute_lost`: the card's issuer took it back in a dispute (modules/disputes), still
 * open (owed until resolved), decided for bpay (the charge stands), or for the card (it stays owed).
 */
export const SHARE_STAGES = [
  'pending',
  'held',
  'charged',
  'bank_pending',
  'partly_refunded',
  'released',
  'declined',
  'refunded',
  'returned',
  'disputed',
  'dispute_won',
  'dispute_lost',
] as const;
export type ShareStage = (typeof SHARE_STAGES)[number];
type DisputeStatus = (typeof schema.shareDisputes.$inferSelect)['status'];

/** The transaction's bank debits taken together: the one that matters most (returned, then pending, then settled). */
export type BankDebitSummary = DebitStatus | null;

const money = (c: number) => formatDecimal(c as Cents);
const none = { held: null, spent: null, returned: null, merchant: null } as const;

/** The stage of a collection and its bcard (null when no bcard was issued). */
export function bcardStageOf(c: CollectionRow, b: BcardRow | null, now: Date): BcardStageView {
  if (!b) return { code: c.status === 'holding' || c.status === 'capturing' ? 'collecting' : 'not_issued', ...none };
  switch (b.status) {
    case 'active':
      // Past its session nothing can spend it (spendBcard checks the time): it is expiring before the sweep says so.
      return b.expiresAt <= now
        ? { code: 'expiring', ...none, returned: money(c.totalCents) }
        : { code: 'active', ...none, held: money(b.limitCents - b.spentCents) };
    case 'authorized':
      return { code: 'authorized', ...none, held: money(b.limitCents) };
    case 'used': {
      const merchant = c.merchant ?? null;
      if (b.spentCents >= b.limitCents) return { code: 'used', ...none, spent: money(b.spentCents), merchant };
      // What the purchase left on the card, back to the sources with its part of the fee (remainder.ts): what the
      // cards got back. Not collections.refunded_cents, which later merchant and card-network refunds add to: those
      // are refunds of what was spent, shown as such.
      const left = b.limitCents - b.spentCents;
      const returned = left + remainderFee(c.feeCents, c.amountCents, left);
      return { code: 'partly_used', ...none, spent: money(b.spentCents), returned: money(returned), merchant };
    }
    case 'expiring':
      return { code: 'expiring', ...none, returned: money(c.totalCents) };
    case 'canceling':
      return { code: 'canceling', ...none, returned: money(c.totalCents) };
    case 'expired':
      return { code: 'expired', ...none, returned: money(c.refundedCents) };
    case 'canceled':
      return { code: 'canceled', ...none, returned: money(c.refundedCents) };
  }
}

/**
 * A share's stage from its own status, its bank debit's (bank shares only), whether its bcard was used, and its
 * latest dispute's status (a dispute says more than the charge under it).
 */
export function shareStageOf(share: Pick<ShareRow, 'status'>, debit: DebitStatus | null, bcardUsed: boolean, dispute: DisputeStatus | null = null): ShareStage {
  if (dispute) return dispute === 'open' ? 'disputed' : dispute === 'won' ? 'dispute_won' : 'dispute_lost';
  switch (share.status) {
    case 'pending':
      return 'pending';
    case 'held':
      return 'held';
    case 'captured':
      return debit === 'pending' ? 'bank_pending' : debit === 'returned' ? 'returned' : 'charged';
    case 'voided':
      return 'released';
    case 'declined':
      return 'declined';
    case 'refunded':
      // A bank share refunded and then returned keeps `refunded` (bank-debits.ts): its debit's return is the stage.
      if (debit === 'returned') return 'returned';
      // A used bcard's shares are refunded only the remainder's part: charged, the rest back.
      return bcardUsed ? 'partly_refunded' : 'refunded';
    case 'returned':
      return 'returned';
  }
}

/** The bank debits of one transaction as one word: any returned, else any still settling, else settled; null: none. */
export function bankDebitSummary(statuses: readonly DebitStatus[]): BankDebitSummary {
  if (statuses.length === 0) return null;
  if (statuses.includes('returned')) return 'returned';
  if (statuses.includes('pending')) return 'pending';
  return 'settled';
}
