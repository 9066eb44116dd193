import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { AppError, invalid } from '../../errors';
import type { AppDeps } from '../../deps';
import { activeSubscription, chargeError, payableSource, type ChargeRow } from './billing';
import { runOrLeave } from './plan-charge';
import { getPlan, type PlanView } from './plans';
import { startRenewal } from './renewals';

/*
 * The card a plan is paid with (issue 26). Renewals are charged to user_subscriptions.payment_source_id; the user
 * changes it here, and it is used from the next renewal on. A plan that is past due (its renewal failed and is being
 * retried daily) can be retried at once, on the card it has now, through the renewal's own path (startRenewal:
 * keyed per subscription, period and attempt, one plan payment in flight per user), so a retry is never charged twice.
 */

type UserRow = typeof schema.users.$inferSelect;

/**
 * Sets the card the plan renews on: one of the user's own active cards.
 * Fails with: resource_not_found (no such source, removed, or another user's), validation_error (a bank account, a
 * paused card), plan_not_billed (Free, or a plan an admin gave: nothing renews).
 */
export async function setPlanPaymentSource(deps: AppDeps, user: UserRow, fundingSourceId: string): Promise<PlanView> {
  await payableSource(deps.db, user.id, fundingSourceId);
  await deps.db.transaction(async (tx) => {
    const sub = await activeSubscription(tx, user.id);
    if (!sub?.currentPeriodEnd) throw new AppError('plan_not_billed');
    // Checked again under the write lock: a removal or pause racing this request commits before (refused) or after.
    const source = await payableSource(tx, user.id, fundingSourceId);
    await tx.update(schema.userSubscriptions).set({ paymentSourceId: source.id }).where(eq(schema.userSubscriptions.id, sub.id));
  });
  return getPlan(deps, user);
}

/**
 * Tries the failed renewal again now, on the plan's card. Returns the renewal charge (succeeded).
 * Fails with: plan_not_past_due, validation_error (no card to pay with, a paused card), plan_change_in_progress
 * (a plan payment is running), card_declined and the other declines (the plan stays past due, the retry counted),
 * vendor_unavailable (the sweep settles it).
 */
export async function retryRenewal(deps: AppDeps, user: UserRow): Promise<ChargeRow> {
  const sub = await activeSubscription(deps.db, user.id);
  if (!sub?.pastDueSince || !sub.currentPeriodEnd) throw new AppError('plan_not_past_due');
  if (!sub.paymentSourceId) {
    throw invalid('fundingSourceId', 'The card your plan was paid with was removed: choose a card to pay with first.');
  }
  await payableSource(deps.db, user.id, sub.paymentSourceId);
  const started = await startRenewal(deps, sub, { now: true });
  // Nothing started: another payment runs (a sweep's retry, or a second request) or the plan moved meanwhile.
  if (started === null || started === 'done') throw new AppError('plan_change_in_progress');
  const ended = await runOrLeave(deps, started);
  if (ended.status === 'failed') {
    const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, ended.fundingSourceId));
    throw chargeError(ended, ended.failureCode === 'interrupted' ? undefined : (source ?? undefined));
  }
  return ended;
}
