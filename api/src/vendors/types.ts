import type { DbOrTx, WriteUnit } from '@bpay/db';
/**
 * Everything bpay asks of a card processor and issuer. Two implementations: the built-in simulated processor
 * (simulated.ts, the default) and Stripe (stripe/, used when Stripe keys are configured).
 *
 * Amounts are integer cents in USD. Every call that moves money takes an idempotency key: calling again with the
 * same key returns the first outcome and never moves money twice, which is what lets the recovery sweep finish or
 * undo a collection that a crash interrupted.
 */
export type VendorName = 'simulated' | 'stripe';

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'unknown';
/** How a card is funded, as the processor answers it (Stripe's `card.funding`). */
export type CardFunding = 'credit' | 'debit' | 'prepaid' | 'unknown';

/** Why a card operation was refused, in Stripe's vocabulary. */
export type DeclineCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'incorrect_number'
  | 'authentication_required'
  | 'authentication_failed'
  | 'processing_error'
  /** Micro-deposit amounts that do not match what was sent (another try may be made). */
  | 'microdeposit_mismatch'
  /** A bank account that cannot be verified (no account, too many tries, the deposits expired). */
  | 'bank_verification_failed';

/** The card was refused. Nothing moved. */
export class VendorDeclineError extends Error {
  constructor(
    readonly code: DeclineCode,
    message: string,
    /** The issuer's finer reason when there is one (Stripe's decline_code). */
    readonly declineCode?: string,
  ) {
    super(message);
    this.name = 'VendorDeclineError';
  }
}

/**
 * The vendor could not be reached or failed (timeout, network, 5xx). The outcome is unknown: the caller must
 * treat the operation as possibly done and resolve it with the same idempotency key.
 */
export class VendorUnavailableError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'VendorUnavailableError';
  }
}

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
}

export interface TokenizedCard {
  token: string;
  brand: CardBrand;
  funding: CardFunding;
  last4: string;
  expMonth: number;
  expYear: number;
}

export type VerifyCardResult =
  | { status: 'verified'; card: TokenizedCard }
  /** 3-D Secure: the cardholder must answer a challenge before the card can be used. */
  | { status: 'requires_action'; challengeId: string; redirectUrl?: string };

export interface IssueCardInput {
  limitCents: number;
  expiresAt: Date;
  cardholderName: string;
  singleUse: true;
  idempotencyKey: string;
}

export interface IssuedCard {
  cardId: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface RevealedCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export interface BankAccountDetails {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  name: string;
}

/** A bank account the processor holds, waiting for its micro-deposits to be confirmed. */
export interface PendingBankAccount {
  token: string;
  last4: string;
  /** What verifyMicrodeposits is asked about (Stripe: the SetupIntent). */
  verificationRef: string;
}

/** Where an ACH debit stands: days pass between initiating it and knowing it was paid. */
export type BankDebitState =
  | { status: 'pending' }
  | { status: 'succeeded' }
  /** Returned by the account holder's bank: `code` is the ACH return code (R01 insufficient funds, ...). */
  | { status: 'returned'; code: string; message: string };

/** How long a remote processor's search by key may lag a hold it placed (Stripe's search: about a minute). */
export const SEARCH_LAG_MS = 10 * 60_000;

/** What prepareHolds decided for one hold. */
export type PreparedHold = { decline: VendorDeclineError } | { holdId: string; record(unit: WriteUnit, short: () => Error): Promise<void> };

export interface PaymentVendor {
  readonly name: VendorName;

  /**
   * Only a processor whose state lives in bpay's own database (the simulator): the same processor writing through
   * `tx`, so that its writes commit together with bpay's record of them, one commit per saga phase (issue 14). A
   * remote processor (Stripe) has none: its calls are made outside any transaction, then recorded.
   */
  within?(tx: DbOrTx): PaymentVendor;
  /**
   * Only the simulator (a processor whose state is in bpay's database), and never a wrapped one: a collection's card
   * holds decided from one read, then written as steps of a unit of work as data (issue 30, db/unit.ts) with bpay's
   * record of them, one round trip to a libSQL server. Each hold answers as hold() would: declined (by the card's
   * behaviour, or its balance as read), or to be placed by `record`, whose debit is guarded (a balance spent meanwhile
   * fails the unit with `short()`; a hold already under its key fails the unit on the key's UNIQUE index).
   */
  prepareHolds?(holds: Array<{ token: string; amountCents: number; idempotencyKey: string }>): Promise<PreparedHold[]>;
  /**
   * Only the simulator, as prepareHolds: the captures of a collection's holds and the card issued for it (its first
   * derived number), written by `record` as steps of the caller's unit, each guarded (a hold that cannot be captured, a
   * card already issued under the key, a number taken: the unit fails with `failed()`, and the caller goes the way
   * capture() and issueCard() go).
   */
  prepareCapture?(holdIds: string[], issue: IssueCardInput): Promise<{ card: IssuedCard; record(unit: WriteUnit, failed: () => Error): Promise<void> }>;
  /**
   * True when `findHold` may miss a hold placed moments ago (Stripe's search is eventually consistent): a share whose
   * hold call got no answer is then not called voided until the search can have caught up (SEARCH_LAG_MS).
   */
  readonly searchLags?: boolean;

  /** Tokenizes a card and checks it with a $1.00 authorization that is released at once. */
  verifyCard(card: CardDetails, opts: { idempotencyKey: string; customerRef: string }): Promise<VerifyCardResult>;
  /** Answers a 3-D Secure challenge; on success the card is verified as above. */
  completeChallenge(challengeId: string, code: string): Promise<TokenizedCard>;
  /** What the card can still be charged, when the vendor can tell (the simulator can; Stripe cannot: null). */
  availableBalance(token: string): Promise<number | null>;

  /** Places an authorization hold for one share. Throws VendorDeclineError when refused. */
  hold(token: string, amountCents: number, opts: { idempotencyKey: string; description: string }): Promise<{ holdId: string }>;
  /** The hold placed under this idempotency key, if any (recovery uses it after a crash). */
  findHold(idempotencyKey: string): Promise<{ holdId: string; status: 'held' | 'captured' | 'voided' } | null>;
  /**
   * The hold with this id, read directly (strongly consistent, unlike a search by key): null when the processor has
   * no such hold. A hold the processor refused reports `voided` (nothing is held).
   */
  getHold(holdId: string): Promise<{ holdId: string; status: 'held' | 'captured' | 'voided' } | null>;
  capture(holdId: string): Promise<void>;
  /** Releases a hold that was not captured. Voiding a voided hold is a no-op. */
  voidHold(holdId: string): Promise<void>;
  /**
   * Returns captured money to the card; several refunds of one hold may add up to what was captured. The key makes a
   * repeated refund a no-op that answers the first one's id.
   */
  refund(holdId: string, amountCents: number, opts: { idempotencyKey: string }): Promise<{ refundId: string }>;

  /**
   * Hands a US bank account to the processor, which sends two micro-deposits to it. The account number goes to the
   * processor only. Throws VendorDeclineError when the processor refuses the account outright.
   */
  addBankAccount(
    account: BankAccountDetails,
    opts: { idempotencyKey: string; customerRef: string; mandate: { ipAddress: string; userAgent: string } },
  ): Promise<PendingBankAccount>;
  /**
   * Confirms the two micro-deposit amounts (cents). Throws VendorDeclineError `microdeposit_mismatch` for wrong
   * amounts (another try may be made), `bank_verification_failed` when the account can never be verified.
   */
  verifyMicrodeposits(verificationRef: string, amountsCents: [number, number]): Promise<void>;
  /**
   * Initiates an ACH debit from a verified account. It cannot be held or voided: it is pending until it settles or
   * is returned (getBankDebit). Refunds go through refund(debitId, ...). Throws VendorDeclineError when refused.
   */
  debitBank(token: string, amountCents: number, opts: { idempotencyKey: string; description: string }): Promise<{ debitId: string }>;
  getBankDebit(debitId: string): Promise<BankDebitState>;

  /** Issues a single-use virtual card limited to `limitCents` that stops working at `expiresAt`. */
  issueCard(input: IssueCardInput): Promise<IssuedCard>;
  deactivateCard(cardId: string): Promise<void>;
  /** The full number, expiry and CVC, for the cardholder's checkout. */
  revealCard(cardId: string): Promise<RevealedCard>;
  /**
   * The issued card a checkout form's number, expiry and CVC name, or null when they match none. Only an
   * issuer that sees card details can answer (the simulator); with Stripe, authorizations come from the network.
   */
  findIssuedCard?(card: { number: string; expMonth: number; expYear: number; cvc: string }): Promise<{ cardId: string } | null>;
  /**
   * The simulated card network's lookup (issue 24): the issued card with this number, and whether the expiry and CVC
   * sent with it match, so the issuer can count wrong guesses against that card. Null when no card has the number.
   */
  checkIssuedCard?(card: { number: string; expMonth: number; expYear: number; cvc: string }): Promise<{
    cardId: string;
    expiry: 'match' | 'mismatch';
    cvc: 'match' | 'mismatch';
  } | null>;
}
