import { and, asc, eq, lt, lte, ne, or, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { BANK_DEBIT_POLL_MS, BankDebitPendingError } from './bank-debits';
import { pollBankDebit } from './bank-debit-outcome';
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
 * Asks the processor about every pending bank debit due a check (oldest first) and records what it answers: every
 * sweep with the simulator; with Stripe's events configured, each debit at most once per BANK_DEBIT_POLL_MS (the
 * events tell outcomes; this is the safety net). A returned debit whose bcard is still unused cancels the bcard (the
 * card shares are refunded and nothing is owed); one returned after the bcard was used leaves the amount owed
 * (bank-debit-outcome.ts). Runs on the sweep's timer. Returns how many debits it resolved.
 */
export async function sweepBankDebits(deps: AppDeps): Promise<number> {
  const due = deps.stripeWebhookSecret
    ? or(
        ne(schema.collections.vendor, 'stripe'),
        lte(sql`coalesce(${schema.bankDebits.lastCheckedAt}, ${schema.bankDebits.initiatedAt})`, now(deps).getTime() - BANK_DEBIT_POLL_MS),
      )
    : undefined;
  const pending = await deps.db
    .select({ debit: schema.bankDebits })
    .from(schema.bankDebits)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.bankDebits.collectionId))
    .where(and(eq(schema.bankDebits.status, 'pending'), due))
    .orderBy(asc(schema.bankDebits.initiatedAt))
    .limit(100);
  let resolved = 0;
  for (const { debit } of pending) {
    try {
      if ((await pollBankDebit(deps, debit)) !== 'pending') resolved++;
    } catch (error) {
      deps.log.error('checking a bank debit failed', { shareId: debit.shareId, error });
    }
  }
  return resolved;
}
