import { and, eq } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import type { BankDebitState } from '../../vendors/types';
import { askBankDebit, recordBankDebit } from './bank-debits';
import { settleAfterCommit, startUnusedRefund } from './refund';
import type { Lease } from './saga';

/*
 * A bank debit's outcome, whoever learnt it: the money sweep asking the processor (pollBankDebit), or a Stripe event
 * (issuing/stripe-money-events.ts). Both apply it through applyBankDebitOutcome: one transaction records it
 * (bank-debits.ts recordBankDebit, guarded on the debit's status, so a poll and an event racing apply it once) and,
 * when the debit came back while its bcard is still unused, starts that bcard's cancel in the same transaction (the
 * card shares go back and nothing is owed): a crash can never leave a returned debit with a spendable bcard.
 */

type DebitRow = typeof schema.bankDebits.$inferSelect;
export type BankDebitOutcome = Exclude<BankDebitState, { status: 'pending' }>;

/**
 * Applies a settled or returned debit. `within` writes more in the same transaction (a Stripe event's stripe_events
 * row: a failure after it rolls both back, and the resent event applies once). Answers the debit's status after, and
 * whether this call moved it.
 */
export async function applyBankDebitOutcome(
  deps: AppDeps,
  debit: DebitRow,
  state: BankDebitOutcome,
  within?: (tx: DbOrTx) => Promise<void>,
): Promise<{ status: DebitRow['status']; moved: boolean }> {
  let cancel: { lease: Lease; bcardId: string } | null = null;
  const out = await deps.db.transaction(async (tx) => {
    if (within) await within(tx);
    const r = await recordBankDebit(tx, deps, debit, state, deps.clock.now());
    if (r.moved && r.status === 'returned') cancel = await cancelUnusedBcard(tx, deps, debit);
    return r;
  });
  const c = cancel as { lease: Lease; bcardId: string } | null;
  if (c) await settleAfterCommit(deps, c.lease, { bcardId: c.bcardId, step: 'bank debit returned' });
  return out;
}

/** The bcard of a returned debit, canceled when still unused (its collection settled and nothing spent). */
async function cancelUnusedBcard(tx: DbOrTx, deps: AppDeps, debit: DebitRow): Promise<{ lease: Lease; bcardId: string } | null> {
  const bcard = await firstRow(tx, schema.bcards, and(eq(schema.bcards.collectionId, debit.collectionId), eq(schema.bcards.status, 'active')));
  if (!bcard || bcard.spentCents !== 0) return null;
  const collection = await firstRow(tx, schema.collections, eq(schema.collections.id, debit.collectionId));
  if (collection?.status !== 'completed') return null;
  const lease = await startUnusedRefund(tx, deps, bcard, 'canceled');
  return lease ? { lease, bcardId: bcard.id } : null;
}

/**
 * Asks the processor about a pending debit (as often as askBankDebit allows) and applies what it answers. Answers the
 * debit's status after.
 */
export async function pollBankDebit(deps: AppDeps, debit: DebitRow): Promise<DebitRow['status']> {
  const state = await askBankDebit(deps, debit);
  if (!state || state.status === 'pending') return 'pending';
  return (await applyBankDebitOutcome(deps, debit, state)).status;
}
