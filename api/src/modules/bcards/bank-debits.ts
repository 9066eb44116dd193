import { and, asc, eq, inArray, lte, ne, sql } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { VendorUnavailableError, type BankDebitState } from '../../vendors/types';
import { bankExposureCap, owedCents, unsettledBankExposure } from '../funding-sources/bank-standing';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import { remainderBack } from './remainder';

/*
 * A bank share in an all-or-nothing split (docs/DECISIONS.md, "Bank accounts in a split"). An ACH debit cannot be
 * held: its balance is checked with the card holds, it is initiated once every card hold has been captured, and the
 * bcard is issued at once. The debit settles days later or comes back returned; until then it counts against the
 * plan's cap on unsettled bank exposure (funding-sources/bank-standing.ts), and money due back to it (an unused bcard,
 * a remainder) waits.
 *
 * A return is recorded as a movement `bank_debit.returned`: the bank account gets back what bpay counted as taken,
 * and the consumer's receivable owes it. What would go back to that share later goes to the receivable instead. If
 * the bcard is still unused it is canceled, the card shares are refunded and nothing is owed; if it was used, what
 * is owed stays owed and the account is restricted: no new bcards until it is repaid.
 */

type DebitRow = typeof schema.bankDebits.$inferSelect;

const money = (c: number) => formatDecimal(c as Cents);

/** A bank share's debit has not settled: money due back to it waits (the sweep tries again). Expected, not a fault. */
export class BankDebitPendingError extends VendorUnavailableError {
  constructor(shareId: string) {
    super(`the bank debit of share ${shareId} has not settled yet; what goes back to it waits`);
    this.name = 'BankDebitPendingError';
  }
}

/**
 * Checked where a collection is recorded (in its transaction): an account that owes money cannot create bcards,
 * and the bank shares of this one must fit under the plan's cap on unsettled debits.
 * Fails with: account_restricted, bank_exposure_limit_reached.
 */
export async function assertBankStanding(
  tx: DbOrTx,
  userId: string,
  bankCents: number,
  plan: { name: string; displayName: string },
): Promise<void> {
  const owed = await owedCents(tx, userId);
  if (owed > 0) {
    throw new AppError(
      'account_restricted',
      `You owe bpay $${money(owed)} for a bcard already used (a bank debit returned, or a card payment you disputed). ` +
        'Until it is repaid, or the dispute is decided, you cannot create bcards.',
    );
  }
  if (bankCents === 0) return;
  const cap = bankExposureCap(plan.name);
  const unsettled = await unsettledBankExposure(tx, userId);
  if (unsettled + bankCents > cap) {
    throw new AppError(
      'bank_exposure_limit_reached',
      `Your ${plan.displayName} plan allows $${money(cap)} of bank debits still settling; $${money(unsettled)} is settling ` +
        `and this bcard's bank share is $${money(bankCents)}. Fund more of it from a card, or wait until the debits settle (about 4 business days).`,
      'fundingSources',
    );
  }
}

/**
 * How often a pending debit is asked about when the processor's events tell its outcome (Stripe with a webhook signing
 * secret): at most once per 6 hours, a safety net for an event lost or an endpoint misconfigured. An ACH debit takes
 * about 4 business days, so an outcome learnt 6 hours late changes little, while 30-second polling of every pending
 * debit would spend Stripe's read rate limit (docs/DECISIONS.md, "Stripe events instead of polling").
 */
export const BANK_DEBIT_POLL_MS = 6 * 60 * 60 * 1000;

/** Whether the processor's events tell a debit's outcome, so that asking is only the slow safety net. */
export const eventsTellOutcome = (deps: Pick<AppDeps, 'stripeWebhookSecret'>, vendor: string) =>
  vendor === 'stripe' && !!deps.stripeWebhookSecret;

/**
 * Asks the processor where a pending debit stands. Null when it was not asked: not pending any more, or (with the
 * processor's events configured) asked less than BANK_DEBIT_POLL_MS ago; the ask is claimed by one guarded UPDATE of
 * last_checked_at, so two sweeps never both ask.
 */
export async function askBankDebit(deps: AppDeps, debit: DebitRow): Promise<BankDebitState | null> {
  if (debit.status !== 'pending') return null;
  const collection = await firstRow(deps.db, schema.collections, eq(schema.collections.id, debit.collectionId));
  if (!collection) throw new Error(`bank debit ${debit.shareId}: no collection ${debit.collectionId}`);
  if (eventsTellOutcome(deps, collection.vendor)) {
    const at = deps.clock.now();
    const claimed = await deps.db
      .update(schema.bankDebits)
      .set({ lastCheckedAt: at })
      .where(
        and(
          eq(schema.bankDebits.shareId, debit.shareId),
          eq(schema.bankDebits.status, 'pending'),
          // Never asked: its first ask comes BANK_DEBIT_POLL_MS after it was initiated (the events come first).
          lte(sql`coalesce(${schema.bankDebits.lastCheckedAt}, ${schema.bankDebits.initiatedAt})`, at.getTime() - BANK_DEBIT_POLL_MS),
        ),
      );
    if (claimed.rowsAffected !== 1) return null;
  }
  return deps.vendorFor(collection.vendor).getBankDebit(debit.vendorDebitId);
}

/**
 * Asks the processor where a pending debit stands and records a settled or returned one (idempotent: only a pending
 * row changes). Answers the debit's status after that (pending also when it was not asked: see askBankDebit).
 */
export async function refreshBankDebit(deps: AppDeps, debit: DebitRow): Promise<DebitRow['status']> {
  if (debit.status !== 'pending') return debit.status;
  const state = await askBankDebit(deps, debit);
  if (!state) return (await firstRow(deps.db, schema.bankDebits, eq(schema.bankDebits.shareId, debit.shareId)))?.status ?? 'pending';
  if (state.status === 'pending') return 'pending';
  return deps.db.transaction(async (tx) => (await recordBankDebit(tx, deps, debit, state, deps.clock.now())).status);
}

/**
 * Records what the processor says of a debit, in the caller's transaction (the poll's, or a Stripe event's with its
 * stripe_events row): settled only from pending; returned from pending, or from settled (Stripe can fail an ACH
 * payment after it succeeded). Each change is one guarded UPDATE, so an event and a poll racing apply it once: only
 * the one that moved the row (`moved`) writes the ledger and the notice. Answers the status after.
 */
export async function recordBankDebit(
  tx: DbOrTx,
  deps: AppDeps,
  debit: DebitRow,
  state: Exclude<BankDebitState, { status: 'pending' }>,
  at: Date,
): Promise<{ status: DebitRow['status']; moved: boolean }> {
  const current = async () => (await firstRow(tx, schema.bankDebits, eq(schema.bankDebits.shareId, debit.shareId)))?.status ?? debit.status;
  if (state.status === 'succeeded') {
    const res = await tx
      .update(schema.bankDebits)
      .set({ status: 'settled', resolvedAt: at })
      .where(and(eq(schema.bankDebits.shareId, debit.shareId), eq(schema.bankDebits.status, 'pending')));
    if (res.rowsAffected !== 1) return { status: await current(), moved: false };
    // Told once: only the request that moved the row from pending gets here.
    const source = await sourceOf(tx, debit);
    await notify(
      tx,
      deps,
      debit.userId,
      'bank_debit_settled',
      { accountName: source.name, last4: source.last4, amount: money(debit.amountCents), transactionId: debit.collectionId },
      at,
    );
    return { status: 'settled', moved: true };
  }
  const res = await tx
    .update(schema.bankDebits)
    .set({ status: 'returned', returnCode: state.code, returnMessage: state.message, resolvedAt: at })
    .where(and(eq(schema.bankDebits.shareId, debit.shareId), inArray(schema.bankDebits.status, ['pending', 'settled'])));
  if (res.rowsAffected !== 1) return { status: await current(), moved: false };
  // A share already refunded at the processor stays `refunded`: a refund's retry after a crash must know the money went
  // back to the bank account, and not credit it to the receivable instead (hostile review of issue 26).
  await tx
    .update(schema.collectionShares)
    .set({ status: 'returned', updatedAt: at })
    .where(and(eq(schema.collectionShares.id, debit.shareId), ne(schema.collectionShares.status, 'refunded')));
  await tx
    .update(schema.collections)
    .set({
      failureCode: 'bank_debit_returned',
      // Written when read from this debit's amount and return code (lib/server-words.ts), in the reader's language.
      failureMessage: null,
      updatedAt: at,
    })
    .where(eq(schema.collections.id, debit.collectionId));
  await postMovement(tx, {
    kind: 'bank_debit.returned',
    referenceId: debit.shareId,
    at,
    postings: [
      { account: accounts.fundingSource(debit.fundingSourceId), amountCents: debit.amountCents },
      { account: accounts.receivable(debit.userId), amountCents: -debit.amountCents },
    ],
  });
  const source = await sourceOf(tx, debit);
  await notify(
    tx,
    deps,
    debit.userId,
    'bank_debit_returned',
    {
      accountName: source.name,
      last4: source.last4,
      amount: money(debit.amountCents),
      reason: state.code,
      owed: money(Math.max(0, (await owedCents(tx, debit.userId)) - (await stillComingBack(tx, debit)))),
      transactionId: debit.collectionId,
    },
    at,
  );
  return { status: 'returned', moved: true };
}

async function sourceOf(tx: DbOrTx, debit: DebitRow): Promise<{ name: string; last4: string }> {
  const source = await firstRow(tx, schema.fundingSources, eq(schema.fundingSources.id, debit.fundingSourceId));
  return { name: source?.name ?? '', last4: source?.last4 ?? '' };
}

/**
 * Of a returned debit, what its share is still due back, which will go to the receivable instead and so is not owed:
 * all of it while the bcard is unused (it is canceled or expires, and the card shares go back: nothing is owed), its
 * part of a purchase's remainder not yet settled (with the fee's part, bcards/remainder.ts), nothing once the bcard's money has settled.
 */
export async function stillComingBack(tx: DbOrTx, debit: DebitRow): Promise<number> {
  const bcard = await firstRow(tx, schema.bcards, eq(schema.bcards.collectionId, debit.collectionId));
  const collection = await firstRow(tx, schema.collections, eq(schema.collections.id, debit.collectionId));
  if (!bcard || !collection) return 0;
  if (bcard.spentCents === 0 && ['active', 'expiring', 'canceling'].includes(bcard.status)) return debit.amountCents;
  if (bcard.status !== 'used' || collection.status !== 'refunding') return 0;
  const remainder = bcard.limitCents - bcard.spentCents;
  if (remainder <= 0) return 0;
  const shares = await tx
    .select({ id: schema.collectionShares.id, amountCents: schema.collectionShares.amountCents })
    .from(schema.collectionShares)
    .where(eq(schema.collectionShares.collectionId, debit.collectionId))
    .orderBy(asc(schema.collectionShares.position));
  const back = remainderBack(collection, remainder, shares.map((s) => s.amountCents)).parts;
  return back[shares.findIndex((s) => s.id === debit.shareId)] ?? 0;
}

/** The bank debit of each of these shares that has one. */
export async function bankDebitsOf(db: DbOrTx, shareIds: string[]): Promise<Map<string, DebitRow>> {
  if (shareIds.length === 0) return new Map();
  const rows = await db.select().from(schema.bankDebits).where(inArray(schema.bankDebits.shareId, shareIds));
  return new Map(rows.map((r) => [r.shareId, r]));
}
