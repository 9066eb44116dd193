import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { BankDebitPendingError, refreshBankDebit } from './bank-debits';
import { finishCapture } from './collect';
import { refundUnusedBcard, releaseHolds, settleRefund } from './refund';
import { LEASE_MS, load, now, setStatus } from './saga';

/*
 * The money sweep's bcard duties, run at start-up and on a timer (boot.ts): collections whose worker is gone are
 * finished or undone, unused bcards whose session ended are refunded, and pending bank debits are asked about.
 */

/**
 * Finishes or undoes every collection whose worker is gone (its lease ran out): holding is undone, capturing is
 * finished, refunding is settled. Runs at start-up and on a timer. Returns how many it handled.
 */
export async function recoverCollections(deps: AppDeps, bcardTtlMs: number): Promise<number> {
  const at = now(deps);
  const stale = await deps.db
    .select({ id: schema.collections.id, status: schema.collections.status })
    .from(schema.collections)
    .where(and(sql`${schema.collections.status} IN ('holding', 'capturing', 'refunding')`, lt(schema.collections.leaseUntil, at)))
    .limit(100);
  let handled = 0;
  for (const { id, status } of stale) {
    const owner = newToken();
    const taken = await deps.db
      .update(schema.collections)
      .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + LEASE_MS) })
      .where(and(eq(schema.collections.id, id), eq(schema.collections.status, status), lt(schema.collections.leaseUntil, at)));
    if (taken.rowsAffected !== 1) continue;
    const lease = { collectionId: id, owner };
    try {
      if (status === 'holding') {
        const loaded = await load(deps.db, id);
        // Any share not recorded may have reached the processor before the crash.
        await releaseHolds(deps, deps.vendorFor(loaded.collection.vendor), loaded, () => true);
        await setStatus(deps.db, deps, lease, 'holding', 'failed', {
          // The reason is written from the code when read (lib/server-words.ts), in the reader's language.
          failureCode: 'interrupted',
          failureMessage: null,
        });
      } else if (status === 'capturing') {
        await finishCapture(deps, lease, bcardTtlMs).catch((e) => {
          if (!(e instanceof AppError)) throw e;
        });
      } else {
        await settleRefund(deps, lease);
      }
      handled++;
    } catch (error) {
      // Left for the next sweep: its lease runs out again and another attempt is made.
      if (error instanceof BankDebitPendingError) deps.log.info('a refund waits for a bank debit to settle', { collectionId: id });
      else deps.log.error('recovery of a collection failed', { collectionId: id, status, error });
    }
  }
  return handled;
}

/** Deactivates and refunds every unused bcard whose session has ended. Returns how many. */
export async function expireBcards(deps: AppDeps): Promise<number> {
  const due = await deps.db
    .select()
    .from(schema.bcards)
    .where(and(eq(schema.bcards.status, 'active'), lt(schema.bcards.expiresAt, new Date(now(deps).getTime() + 1))))
    .limit(100);
  let n = 0;
  for (const bcard of due) {
    try {
      await refundUnusedBcard(deps, bcard, 'expired');
      n++;
    } catch (error) {
      if (!(error instanceof AppError)) deps.log.error('expiring a bcard failed', { bcardId: bcard.id, error });
    }
  }
  return n;
}

/**
 * Asks the processor about every pending bank debit (oldest first) and records what it answers. A returned debit
 * whose bcard is still unused cancels the bcard: the card shares are refunded and nothing is owed. One returned
 * after the bcard was used leaves the amount owed (bank-debits.ts). Runs on the sweep's timer. Returns how many
 * debits it resolved.
 */
export async function sweepBankDebits(deps: AppDeps): Promise<number> {
  const pending = await deps.db
    .select()
    .from(schema.bankDebits)
    .where(eq(schema.bankDebits.status, 'pending'))
    .orderBy(asc(schema.bankDebits.initiatedAt))
    .limit(100);
  let resolved = 0;
  for (const debit of pending) {
    try {
      const status = await refreshBankDebit(deps, debit);
      if (status === 'pending') continue;
      resolved++;
      if (status !== 'returned') continue;
      const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.collectionId, debit.collectionId));
      if (bcard && bcard.status === 'active' && bcard.spentCents === 0) {
        await refundUnusedBcard(deps, bcard, 'canceled').catch((error) => {
          // Spent or canceled meanwhile: what is owed, if anything, stays on the receivable.
          if (!(error instanceof AppError)) throw error;
        });
      }
    } catch (error) {
      deps.log.error('checking a bank debit failed', { shareId: debit.shareId, error });
    }
  }
  return resolved;
}
