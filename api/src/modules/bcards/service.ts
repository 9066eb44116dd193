import { and, eq, or } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { AppError, invalid, type ErrorCode } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { accounts, postMovement } from '../ledger/service';
import { recordCollection, runCollection } from './collect';
import { collectionSpent, spendBcardRow } from './statements';
import { noticeBcardSpent } from './notices';
import { refundUnusedBcard, settleAfterCommit } from './refund';
import { LEASE_MS } from './saga';
import { money, planCollection, type PlanInput, type SplitInput } from './plan';
import { getBcardView, getOwnedBcard, viewOfBcard, type BcardView } from './views';

/*
 * A consumer's bcards: made (createBcard, collectAndIssue: the split planned in plan.ts, collected in collect.ts),
 * canceled, revealed, spent, and the payment demo's purchase. Views and reads: views.ts.
 */

type UserRow = typeof schema.users.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

/** Failure codes a collection can end with that are worth answering as they are. */
const REPLAYABLE_FAILURES = new Set<ErrorCode>(['insufficient_funds', 'card_declined', 'vendor_unavailable', 'processing_error']);

/** What a retried request (same Idempotency-Key) answers once the first attempt has ended. */
async function outcomeOfExisting(deps: AppDeps, userId: string, collectionId: string): Promise<BcardRow> {
  const c = await firstRow(deps.db, schema.collections, eq(schema.collections.id, collectionId));
  if (c?.status === 'failed') {
    const code = REPLAYABLE_FAILURES.has(c.failureCode as ErrorCode) ? (c.failureCode as ErrorCode) : 'processing_error';
    const details = c.failureDetails ? { details: c.failureDetails } : undefined;
    throw new AppError(code, c.failureMessage ?? undefined, undefined, undefined, details);
  }
  const b = await firstRow(deps.db, schema.bcards, eq(schema.bcards.collectionId, collectionId));
  if (!b || b.userId !== userId) throw new AppError('idempotency_key_in_use');
  return b;
}

/**
 * Collects the split and issues a bcard limited to the amount. All or nothing.
 * Fails with: validation_error, invalid_splits, resource_not_found, plan_limit_reached, insufficient_funds,
 * card_declined, vendor_unavailable, processing_error.
 */
export async function createBcard(
  deps: AppDeps,
  user: UserRow,
  input: Omit<PlanInput, 'kind' | 'merchant' | 'description'>,
): Promise<BcardView> {
  const card = await collectAndIssue(deps, user, { ...input, kind: 'bcard', merchant: null, description: null });
  // The row just issued (or, for a retried key, the one read back for this user): not read a third time.
  return viewOfBcard(deps, card);
}

export async function collectAndIssue(deps: AppDeps, user: UserRow, input: PlanInput): Promise<BcardRow> {
  const { plan, tier } = await planCollection(deps, user, input);
  const { lease, existing, recorded } = await recordCollection(deps, user.id, plan, {
    monthlyTransactions: tier.monthlyTransactions,
    bcardGenerationLimit: tier.bcardGenerationLimit,
    planName: tier.displayName,
    tierName: tier.name,
  });
  if (existing) return outcomeOfExisting(deps, user.id, lease.collectionId);
  return runCollection(deps, lease, deps.bcardTtlMs, recorded);
}

/**
 * Cancels an unused bcard early: deactivated, and every share refunded. A bcard authorized for a merchant's
 * manual-capture payment is not the consumer's to cancel: refunding it would leave that payment waiting for a
 * capture that can never happen. Only the payment intent's cancel (by the merchant, or automatically after
 * AUTHORIZATION_TTL_MS) refunds it.
 * Fails with: resource_not_found, bcard_authorized, bcard_not_active.
 */
export async function cancelBcard(deps: AppDeps, userId: string, id: string): Promise<BcardView> {
  const b = await getOwnedBcard(deps.db, userId, id);
  if (b.status === 'authorized') throw new AppError('bcard_authorized');
  try {
    await refundUnusedBcard(deps, b, 'canceled', undefined, 'active');
  } catch (e) {
    // A merchant may have authorized it between the read above and the guarded update: say so, not "not active".
    if (e instanceof AppError && e.code === 'bcard_not_active') {
      const now = await getOwnedBcard(deps.db, userId, id);
      if (now.status === 'authorized') throw new AppError('bcard_authorized');
    }
    throw e;
  }
  return getBcardView(deps, userId, id);
}

/**
 * The full number, expiry and CVV of an active bcard, for the cardholder's checkout. Each reveal is recorded.
 * Fails with: resource_not_found, bcard_not_active.
 */
export async function revealBcard(deps: AppDeps, userId: string, id: string, meta: { ip: string; userAgent: string | null }) {
  const b = await getOwnedBcard(deps.db, userId, id);
  if (b.status !== 'active' || b.expiresAt <= deps.clock.now()) throw new AppError('bcard_not_active');
  const card = await deps.vendorFor(b.vendor).revealCard(b.vendorCardId);
  await deps.db.insert(schema.bcardReveals).values({
    id: `rv_${newToken().slice(0, 24)}`,
    bcardId: b.id,
    userId,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
    at: deps.clock.now(),
  });
  return { cardNumber: card.number, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv: card.cvc, isDemoCard: false };
}

/**
 * Spends a bcard once: it becomes used and is deactivated, the amount moves to the merchant in the ledger, and
 * whatever the purchase left on it goes back to the sources. Fails with: bcard_not_active, validation_error.
 *
 * The spend commits with the collection in `refunding` under a lease, even when nothing is left on the card: the
 * processor's part (deactivating the card, refunding a remainder) comes after the commit, and if it fails the
 * spend still stands (the caller answers success) while the recovery sweep finishes that part.
 */
export async function spendBcard(
  deps: AppDeps,
  bcard: BcardRow,
  amountCents: number,
  purchase: { merchant: string; description: string | null; account: string },
  /** More writes that must commit with the spend (the payment intent's status and its event). */
  within?: (tx: DbOrTx) => Promise<void>,
  /**
   * `background`: answer once the spend has committed, and let the processor's part run on (a card network waiting
   * for an approval within its deadline: Stripe Issuing's 2 seconds). It logs its own failure; the sweep finishes it.
   */
  settle: 'await' | 'background' = 'await',
): Promise<void> {
  if (amountCents > bcard.limitCents - bcard.spentCents) {
    throw invalid('amount', `The amount exceeds what this bcard holds ($${money(bcard.limitCents - bcard.spentCents)}).`);
  }
  const at = deps.clock.now();
  const owner = newToken();
  await deps.db.transaction(async (tx) => {
    // The collection first, then the bcard: the spending figures are worked out once, when the bcard is spent with its
    // merchant already set (migration 0031's triggers refresh an ended bcard on either write). A bcard no longer
    // active throws and takes the collection's update back with it.
    await collectionSpent(tx).run({
      id: bcard.collectionId,
      merchant: purchase.merchant,
      description: purchase.description,
      updatedAt: at,
      leaseOwner: owner,
      leaseUntil: new Date(at.getTime() + LEASE_MS),
    });
    const res = await spendBcardRow(tx).run({ id: bcard.id, at: at.getTime(), amount: amountCents, deactivatedAt: at });
    if (res.rowsAffected !== 1) throw new AppError('bcard_not_active');
    await postMovement(tx, {
      kind: 'bcard.spent',
      referenceId: bcard.id,
      at,
      postings: [
        { account: accounts.bcard(bcard.id), amountCents: -amountCents },
        { account: purchase.account, amountCents },
      ],
    });
    if (within) await within(tx);
    // In the spend's transaction: a `within` that fails (a lost race) takes the notice back with the spend.
    await noticeBcardSpent(tx, deps, bcard, { merchant: purchase.merchant, amountCents }, at);
  });
  const settling = settleAfterCommit(deps, { collectionId: bcard.collectionId, owner }, { bcardId: bcard.id, step: 'bcard spent' });
  if (settle === 'await') await settling;
}

export interface ProcessPaymentInput {
  amountCents: number;
  merchant: string;
  description: string | null;
  virtualCardId: string | null;
  splits: SplitInput[];
  idempotencyKey: string | null;
}

/**
 * The payment demo's purchase: with a bcard given, that bcard pays; otherwise the split is collected, a bcard
 * issued for exactly the amount, and spent at the merchant. Either way the purchase is recorded.
 * Fails with: everything createBcard fails with, bcard_not_active.
 */
export async function processPayment(deps: AppDeps, user: UserRow, input: ProcessPaymentInput) {
  let bcard: BcardRow;
  if (input.virtualCardId) {
    bcard = await getOwnedBcard(deps.db, user.id, input.virtualCardId);
  } else {
    if (input.splits.length === 0) throw new AppError('invalid_splits', 'Please configure at least one payment split', 'splits');
    bcard = await collectAndIssue(deps, user, {
      kind: 'purchase',
      name: `${input.merchant} purchase`,
      amountCents: input.amountCents,
      splits: input.splits,
      merchant: input.merchant,
      description: input.description,
      idempotencyKey: input.idempotencyKey,
    });
  }
  if (bcard.status === 'active') {
    await spendBcard(deps, bcard, input.amountCents, {
      merchant: input.merchant,
      // The payer's own words, or none: "Purchase at <merchant>" is written when read, in the reader's language.
      description: input.description,
      account: accounts.externalMerchants,
    });
  } else if (!(bcard.status === 'used' && bcard.spentCents === input.amountCents && !input.virtualCardId)) {
    throw new AppError('bcard_not_active');
  }
  const view = await getBcardView(deps, user.id, bcard.id);
  return {
    totalAmount: view.totalCharged,
    totalFees: view.fee,
    transaction: { id: view.transactionId },
    splits: view.fundingSources,
    virtualCard: view,
  };
}
