import { and, desc, eq } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { mailLanguage, planMovedToFreeEmail, planRenewalFailedEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { notify } from '../notifications/service';
import { freeTier, money, RENEWAL_GRACE_MS, RENEWAL_RETRY_MS, replaceSubscription, tierById, userOf } from './billing';

/*
 * A renewal that did not go through (billing.ts: a failed renewal keeps the plan past due, retried, then Free), and
 * one bpay itself did not finish (interrupted: no past due, no notice).
 */

type SubRow = typeof schema.userSubscriptions.$inferSelect;

/** The failure code of a charge the money sweep ended because its worker died: nothing was charged (recoverPlanCharges). */
export const INTERRUPTED = 'interrupted';

/** The wait before the second attempt after an interrupted one; it doubles with each attempt, up to RENEWAL_RETRY_MS. */
export const INTERRUPTED_RETRY_MS = 15 * 60_000;

/**
 * A renewal attempt bpay itself did not finish (the process died, the processor's answer was lost) and the sweep
 * undid: nothing was charged and the card did not refuse, so the user is not told their card failed and the plan does
 * not go past due for it (issue 27: a crash at every processor call of a renewal). The attempt is counted (the next one
 * has its own processor key). An attempt interrupted after one that was not is tried again at once (the sweep's next
 * pass); when attempts are interrupted in a row the wait doubles from INTERRUPTED_RETRY_MS up to RENEWAL_RETRY_MS, so an attempt that keeps
 * being interrupted (a processor whose answers are lost, each attempt placing and voiding a hold on the card) does not
 * touch the card at every sweep for the whole grace (hostile review of issue 27: thousands of authorizations).
 * Bounded: once the period has been over for RENEWAL_GRACE_MS it counts as a failure from the period's end, so a plan
 * never stays unpaid past the grace.
 */
export async function renewalInterrupted(tx: DbOrTx, deps: AppDeps, sub: SubRow, message: string): Promise<void> {
  const at = deps.clock.now();
  const since = sub.pastDueSince ?? sub.currentPeriodEnd;
  if (since && at.getTime() - since.getTime() >= RENEWAL_GRACE_MS) {
    await renewalFailed(tx, deps, { ...sub, pastDueSince: since }, message, INTERRUPTED);
    return;
  }
  await tx
    .update(schema.userSubscriptions)
    .set({ renewalAttempts: sub.renewalAttempts + 1, nextRenewalAttemptAt: interruptedRetryAt(at, await interruptedInARow(tx, sub.id)) })
    .where(eq(schema.userSubscriptions.id, sub.id));
}

/** How many of the subscription's latest renewal attempts in a row were interrupted (the one just ended included). */
async function interruptedInARow(tx: DbOrTx, subscriptionId: string): Promise<number> {
  const latest = await tx
    .select({ failureCode: schema.subscriptionCharges.failureCode })
    .from(schema.subscriptionCharges)
    .where(and(eq(schema.subscriptionCharges.subscriptionId, subscriptionId), eq(schema.subscriptionCharges.kind, 'renewal')))
    .orderBy(desc(schema.subscriptionCharges.createdAt))
    .limit(20);
  const other = latest.findIndex((c) => c.failureCode !== INTERRUPTED);
  return other === -1 ? latest.length : other;
}

/** When the attempt after an interrupted one is due, `inARow` attempts having been interrupted in a row. */
function interruptedRetryAt(at: Date, inARow: number): Date | null {
  if (inARow <= 1) return null;
  return new Date(at.getTime() + Math.min(RENEWAL_RETRY_MS, INTERRUPTED_RETRY_MS * 2 ** Math.min(inARow - 2, 16)));
}

/**
 * A renewal could not be paid: the plan is kept, past due, and tried again after RENEWAL_RETRY_MS; once
 * RENEWAL_GRACE_MS has passed since the first failure the user moves to Free. The user hears of the first failure
 * and of the move (plan_notice mail, and a plan_renewal_failed notice beside each: the daily retries in between are
 * not told again). `code` is the card's decline code, or why no card could be charged (payment_source_paused,
 * payment_source_removed), for the notice.
 */
export async function renewalFailed(tx: DbOrTx, deps: AppDeps, sub: SubRow, reason: string, code: string | null): Promise<void> {
  const at = deps.clock.now();
  const since = sub.pastDueSince ?? at;
  const tier = await tierById(tx, sub.tierId);
  const user = await userOf(tx, sub.userId);
  const notice = () =>
    notify(tx, deps, user.id, 'plan_renewal_failed', { plan: tier.displayName, amount: money(tier.monthlyPriceCents), reason: code }, at);
  if (at.getTime() - since.getTime() >= RENEWAL_GRACE_MS) {
    await replaceSubscription(tx, at, sub.userId, await freeTier(tx), null);
    await notice();
    await enqueueEmail(
      tx,
      at,
      planMovedToFreeEmail({
        userId: user.id,
        to: user.email,
        firstName: user.firstName,
        lang: mailLanguage(user.language),
        plan: tier.displayName,
        since,
        reason,
        reasonCode: code,
      }),
    );
    return;
  }
  await tx
    .update(schema.userSubscriptions)
    .set({
      pastDueSince: since,
      renewalAttempts: sub.renewalAttempts + 1,
      nextRenewalAttemptAt: new Date(at.getTime() + RENEWAL_RETRY_MS),
    })
    .where(eq(schema.userSubscriptions.id, sub.id));
  if (!sub.pastDueSince) {
    await notice();
    const endsAt = new Date(since.getTime() + RENEWAL_GRACE_MS);
    await enqueueEmail(
      tx,
      at,
      planRenewalFailedEmail({
        userId: user.id,
        to: user.email,
        firstName: user.firstName,
        lang: mailLanguage(user.language),
        plan: tier.displayName,
        price: money(tier.monthlyPriceCents),
        reason,
        reasonCode: code,
        until: endsAt,
      }),
    );
  }
}
