import type { NoticeKind } from '@bpay/db';

/*
 * The facts each kind of notice carries (issue 25). A notice stores these, not words: texts.ts writes them in the
 * reader's language when the notice is read or mailed. Amounts are decimal dollar strings ("40.00"); reasons are
 * codes (a decline code, an ACH return code, a KYC failure code), put into words by texts.ts.
 */

/** Money that went back to one source. */
export interface ReturnedPart {
  name: string;
  last4: string;
  amount: string;
}

/** A dispute of a funding share: the card, the amount disputed, the bcard it paid for, and all the user owes now. */
export interface DisputeFacts {
  disputeId: string;
  cardName: string;
  last4: string;
  amount: string;
  bcardName: string;
  merchant: string | null;
  owed: string;
  transactionId: string;
}

export interface NoticeFacts {
  /** A bcard was issued (its split collected). */
  bcard_issued: { bcardId: string; bcardName: string; amount: string; sourceCount: number; transactionId: string };
  /** A bcard was spent at a merchant; `returned` is what the purchase left on it, going back to the sources. */
  bcard_spent: { bcardId: string; bcardName: string; merchant: string; amount: string; returned: string; transactionId: string };
  /** A charge on a bcard was refused. `reason` is the decline code (insufficient_funds, merchant_mismatch, ...). */
  bcard_declined: { bcardId: string; bcardName: string; merchant: string; amount: string; reason: string };
  /** The bcard's session ended unused (or partly used) and its money went back. */
  bcard_expired: { bcardId: string; bcardName: string; returned: string; parts: ReturnedPart[]; transactionId: string };
  /** The bcard was canceled (by its owner, or by bpay: `closedReason`) and its money went back. */
  bcard_canceled: { bcardId: string; bcardName: string; returned: string; parts: ReturnedPart[]; transactionId: string; closedReason: string | null };
  /** A merchant refunded a purchase, back to these sources. */
  merchant_refund: { merchant: string; amount: string; parts: ReturnedPart[]; transactionId: string };
  /**
   * A funding share was disputed (charged back) with the card's issuer (issue 26): `amount` went back to the card and
   * is owed until the dispute is resolved; `owed` is all the user owes now. Won: bpay got it back (no longer owed);
   * lost: the card keeps it (still owed). `merchant`: where the bcard was spent, or null.
   */
  dispute_opened: DisputeFacts;
  dispute_won: DisputeFacts;
  dispute_lost: DisputeFacts;
  /**
   * A refund to one of the user's cards that the processor failed after bpay made it (Stripe's refund.failed): the
   * money did not reach the card and bpay owes it. `reason` is the processor's failure_reason code.
   */
  refund_failed: { sourceName: string; last4: string; amount: string; reason: string; transactionId: string };
  bank_debit_settled: { accountName: string; last4: string; amount: string; transactionId: string };
  /** `reason` is the ACH return code (R01 ...); `owed` what the user now owes bpay ("0.00" when nothing). */
  bank_debit_returned: { accountName: string; last4: string; amount: string; reason: string; owed: string; transactionId: string };
  /** A repayment of what is owed went through from this card; `owed` is what is still owed after it ("0.00": nothing). */
  receivable_repaid: { amount: string; sourceName: string; last4: string; owed: string };
  /** bpay forgave `amount` of what is owed (an admin's waiver, with its reason); `owed` is what is still owed. */
  receivable_waived: { amount: string; owed: string; reason: string };
  /**
   * bpay paid `amount` of what it owed the user another way (`method`: paid_outside, such as a bank transfer; an
   * admin's settlement, with its reason); `owedToYou` is what bpay still owes them ("0.00": nothing).
   */
  payable_settled: { amount: string; owedToYou: string; method: string; reason: string };
  plan_charged: { plan: string; amount: string; kind: 'upgrade' | 'renewal' };
  /** `reason` is the card's decline code, or null. */
  plan_renewal_failed: { plan: string; amount: string; reason: string | null };
  /** bpay refunded the unused part of a plan to this card (an admin moved the plan at once, issue 26). */
  plan_refunded: { plan: string; amount: string; sourceName: string; last4: string };
  kyc_approved: Record<string, never>;
  /** `reason` is the review's code or words, or null. */
  kyc_failed: { reason: string | null };
  sign_in: { device: string; ip: string };
  password_changed: Record<string, never>;
  password_reset: Record<string, never>;
  two_factor_enabled: Record<string, never>;
  two_factor_disabled: Record<string, never>;
  /** Shown to the user on screen; the mail to the old address is written by the e-mail change flow itself. */
  email_changed: { newEmailMasked: string };
}

/** Notices about the account's safety: always shown and always mailed (sign_in follows Login Notifications). */
export const SECURITY_NOTICE_KINDS = [
  'sign_in',
  'password_changed',
  'password_reset',
  'two_factor_enabled',
  'two_factor_disabled',
  'email_changed',
] as const satisfies readonly NoticeKind[];

export const isSecurityKind = (k: NoticeKind) => (SECURITY_NOTICE_KINDS as readonly NoticeKind[]).includes(k);

/**
 * Kinds whose mail their own module writes, richer than a notice's (the sign-in notice with its device and address,
 * following Login Notifications; the plan receipt and plan notices, always sent): notify() records the notice and
 * never mails it, so no event is mailed twice.
 */
export const OWN_MAIL_KINDS = ['sign_in', 'plan_charged', 'plan_renewal_failed'] as const satisfies readonly NoticeKind[];
export const hasOwnMail = (k: NoticeKind) => (OWN_MAIL_KINDS as readonly NoticeKind[]).includes(k);

/** Kinds whose mail cannot be turned off in Settings → Notifications: security notices and plan receipts. */
export const isLockedKind = (k: NoticeKind) => isSecurityKind(k) || k === 'plan_charged' || k === 'plan_renewal_failed';
