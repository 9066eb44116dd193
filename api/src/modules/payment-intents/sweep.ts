import { and, eq, lt, sql } from 'drizzle-orm';
import { schema, type PaymentIntentStatus } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { cancelIntentRow } from './payment';

/* The money sweep's payment-intent duties (boot.ts): authorizations that ran out, and intents a crash left in processing. */

/**
 * An uncaptured authorization lasts 7 days, as Stripe's: then the sweep cancels the intent (cancellation_reason
 * `automatic`) and refunds the bcard, so neither the consumer's money nor the payment waits forever.
 */
export const AUTHORIZATION_TTL_MS = 7 * 24 * 3600_000;

/**
 * Cancels every intent whose authorization is older than AUTHORIZATION_TTL_MS (Stripe cancels uncaptured
 * PaymentIntents after 7 days): canceled with cancellation_reason `automatic`, the bcard refunded to its sources
 * (or to the sandbox's test funds) and payment_intent.canceled emitted, as a merchant's cancel would. Intents
 * authorized before `authorized_at` was recorded count from their last update. Runs in the money sweep; an intent
 * that a capture or cancel took meanwhile is skipped. Returns how many it canceled.
 */
export async function cancelStaleAuthorizations(deps: AppDeps): Promise<number> {
  const cutoff = deps.clock.now().getTime() - AUTHORIZATION_TTL_MS;
  const pi = schema.paymentIntents;
  const stale = await deps.db
    .select()
    .from(pi)
    .where(and(eq(pi.status, 'requires_capture'), sql`coalesce(${pi.authorizedAt}, ${pi.updatedAt}) <= ${cutoff}`))
    .limit(100);
  let n = 0;
  for (const row of stale) {
    try {
      await cancelIntentRow(deps, row, 'automatic');
      n++;
    } catch (error) {
      // Captured or canceled meanwhile (an AppError), or left for the next sweep.
      if (!(error instanceof AppError)) deps.log.error('canceling a stale authorization failed', { paymentIntentId: row.id, error });
    }
  }
  return n;
}

/** An intent left in processing by a crash (nothing was spent: spending and succeeding commit together) goes back. */
export async function recoverStuckIntents(deps: AppDeps, olderThanMs = 2 * 60_000): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - olderThanMs);
  const stuck = await deps.db
    .select()
    .from(schema.paymentIntents)
    .where(and(eq(schema.paymentIntents.status, 'processing'), lt(schema.paymentIntents.updatedAt, cutoff)));
  let recovered = 0;
  for (const pi of stuck) {
    const back: PaymentIntentStatus = pi.bcardId && pi.amountCapturable > 0 ? 'requires_capture' : 'requires_payment_method';
    // Only the claim that was read: a claim made since (its updated_at is the claim's token), here or in another
    // process, is not this sweep's to give back, and another sweep that got there first has moved it already.
    const res = await deps.db
      .update(schema.paymentIntents)
      .set({ status: back, updatedAt: deps.clock.now() })
      .where(
        and(
          eq(schema.paymentIntents.id, pi.id),
          eq(schema.paymentIntents.status, 'processing'),
          eq(schema.paymentIntents.updatedAt, pi.updatedAt),
        ),
      );
    recovered += res.rowsAffected;
  }
  return recovered;
}
