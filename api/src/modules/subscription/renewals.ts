import { and, asc, eq, isNull, lte, or } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { VendorUnavailableError } from '../../vendors/types';
import { mailLanguage, planEndedEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { addCalendarMonth, PLAN_CHARGE_LEASE_MS, renewalKey, replaceSubscription, tierById, userOf } from './billing';
import { runCharge, type ChargeLease } from './plan-charge';
import { renewalFailed } from './renewal-failure';

/*
 * The renewal sweep (part of the money sweep, boot.ts): at a paid period's end the next period is charged through
 * the same saga as an upgrade (billing.ts), keyed per subscription, period and attempt.
 */

type SubRow = typeof schema.userSubscriptions.$inferSelect;


/**
 * The renewal sweep: every active subscription whose period has ended (and whose retry is due). A pending move to a
 * free plan (a cancellation) takes effect without a charge; otherwise the next period is charged at the price of
 * its plan (the pending downgrade's, if any) to the source the user paid with. Returns how many it handled.
 */
export async function renewSubscriptions(deps: AppDeps): Promise<number> {
  const at = deps.clock.now();
  const due = await deps.db
    .select()
    .from(schema.userSubscriptions)
    .where(
      and(
        eq(schema.userSubscriptions.status, 'active'),
        lte(schema.userSubscriptions.currentPeriodEnd, at),
        or(isNull(schema.userSubscriptions.nextRenewalAttemptAt), lte(schema.userSubscriptions.nextRenewalAttemptAt, at)),
      ),
    )
    .orderBy(asc(schema.userSubscriptions.currentPeriodEnd))
    .limit(100);
  let handled = 0;
  for (const sub of due) {
    try {
      if (await renewOne(deps, sub)) handled++;
    } catch (error) {
      deps.log.error('renewing a subscription failed; the next sweep tries again', { subscriptionId: sub.id, error });
    }
  }
  return handled;
}

async function renewOne(deps: AppDeps, sub: SubRow): Promise<boolean> {
  const started = await startRenewal(deps, sub, { now: false });
  if (started === null) return false;
  if (started === 'done') return true;
  try {
    await runCharge(deps, started);
  } catch (e) {
    if (!(e instanceof VendorUnavailableError)) throw e;
    deps.log.warn('a renewal could not be finished now; the money sweep will settle it', { chargeId: started.chargeId, error: e });
  }
  return true;
}

/**
 * Records the renewal charge of `sub`'s ended period, pending under a lease (or ends the plan / records the failure
 * when there is nothing to charge: 'done'); null when it is not due or another worker got there first. `now`: the
 * user asked for the retry at once (issue 26, after changing the card), so the day's wait between retries is skipped;
 * everything else is the sweep's path, keyed per subscription, period and attempt, one charge in flight per user.
 */
export async function startRenewal(deps: AppDeps, sub: SubRow, opts: { now: boolean }): Promise<ChargeLease | 'done' | null> {
  const at = deps.clock.now();
  const periodEnd = sub.currentPeriodEnd!;
  const owner = newToken();
  return deps.db.transaction(async (tx): Promise<ChargeLease | 'done' | null> => {
    // Read again under the write lock: another sweep (or the user) may have moved it since the list was read.
    const now = await firstRow(tx, schema.userSubscriptions, eq(schema.userSubscriptions.id, sub.id));
    if (!now || now.status !== 'active' || now.currentPeriodEnd?.getTime() !== periodEnd.getTime()) return null;
    if (periodEnd > at) return null;
    if (!opts.now && now.nextRenewalAttemptAt && now.nextRenewalAttemptAt > at) return null;
    const inFlight = await firstRow(tx, schema.subscriptionCharges, and(eq(schema.subscriptionCharges.userId, sub.userId), eq(schema.subscriptionCharges.status, 'pending')));
    if (inFlight) return null;
    const next = await tierById(tx, now.pendingTierId ?? now.tierId);
    if (next.monthlyPriceCents === 0) {
      // A cancellation or a move to a free plan: no charge, the new plan starts now.
      const old = await tierById(tx, now.tierId);
      await replaceSubscription(tx, at, now.userId, next, null);
      const user = await userOf(tx, now.userId);
      await enqueueEmail(
        tx,
        at,
        planEndedEmail({
          userId: user.id,
          to: user.email,
          firstName: user.firstName,
          lang: mailLanguage(user.language),
          oldPlan: old.displayName,
          newPlan: next.displayName,
          endedOn: periodEnd,
        }),
      );
      return 'done';
    }
    const source = now.paymentSourceId
      ? await firstRow(tx, schema.fundingSources, and(eq(schema.fundingSources.id, now.paymentSourceId), isNull(schema.fundingSources.deletedAt)))
      : null;
    if (!source || !source.isActive) {
      await renewalFailed(
        tx,
        deps,
        now,
        source ? 'the card you pay with is paused.' : 'the card you paid with was removed.',
        source ? 'payment_source_paused' : 'payment_source_removed',
      );
      return 'done';
    }
    // Periods follow each other; a period that would already be over (the service was down for long) starts now.
    const start = addCalendarMonth(periodEnd) > at ? periodEnd : at;
    const inserted = await tx
      .insert(schema.subscriptionCharges)
      .values({
        id: newId('pch'),
        userId: now.userId,
        subscriptionId: now.id,
        tierId: next.id,
        fundingSourceId: source.id,
        kind: 'renewal',
        status: 'pending',
        amountCents: next.monthlyPriceCents,
        periodStart: start,
        periodEnd: addCalendarMonth(start),
        vendor: source.vendor,
        idempotencyKey: renewalKey(now, now.renewalAttempts + 1),
        leaseOwner: owner,
        leaseUntil: new Date(at.getTime() + PLAN_CHARGE_LEASE_MS),
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing()
      .returning({ id: schema.subscriptionCharges.id });
    return inserted[0] ? { chargeId: inserted[0].id, owner } : null;
  });
}
