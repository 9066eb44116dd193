import { and, eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId } from '../../lib/ids';
import { activeSubscription, freeTier, tierById } from '../subscription/billing';
import { paidForPeriod, unusedOfPaid } from '../subscription/upgrade';
import { planRefundInFlight, recordPlanRefunds, runPlanRefund, type PlanRefundRow } from '../subscription/plan-refunds';
import { prorate } from '../subscription/proration';
import { recordAudit } from './audit';
import { toSubscriptionView, type AdminActor, type UserSubscriptionView } from './users';

/*
 * An admin moving a user to another plan (issue 26). A user who is not paying for a running period (Free, a plan an
 * admin gave, a period that is over) moves at once, as before. A paying user's move needs a choice:
 *   - period_end: the move is scheduled (pendingTierId) for the period's end, no money moves; the renewal then moves
 *     the user (charging the new plan's price to the plan's card, or nothing for a free plan), as a user's own
 *     downgrade does;
 *   - now_with_refund: the move is now, and the unused part of what was paid for the current plan (upgrade.ts
 *     paidForPeriod; the tier's price only when no charge gave it), price × remaining / period (in ms,
 *     rounded half up to whole cents: proration.ts), goes back to the card(s) the period was paid with
 *     (plan-refunds.ts). The new plan is not billed (a plan an admin gave), as every admin move has been.
 * Each change is audited with the admin's id, in the transaction that makes it.
 */

export type PlanChangeTiming = 'period_end' | 'now_with_refund';

const money = (c: number) => formatDecimal(c as Cents);

/**
 * Fails with: resource_not_found (user, tier), tier_inactive, validation_error (timing missing for a paying user,
 * period_end for one who is not paying, or period_end to a dearer plan: the renewal would bill a price the user did
 * not choose), proration_not_paid (now_with_refund for a user not paying for a period:
 * Free, or a plan an admin gave), plan_change_in_progress (a plan payment or refund is running). Moving to the
 * current tier changes nothing.
 */
export async function changeUserSubscription(
  deps: AppDeps,
  actor: AdminActor,
  userId: string,
  tierId: string,
  timing?: PlanChangeTiming,
): Promise<UserSubscriptionView> {
  const { db, clock } = deps;
  const user = await firstRow(db, schema.users, eq(schema.users.id, userId));
  if (!user) throw notFound('user');
  const tier = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, tierId));
  if (!tier) throw new AppError('resource_not_found', 'No such subscription tier.', 'tierId');
  if (!tier.isActive) throw new AppError('tier_inactive', undefined, 'tierId');
  const now = clock.now();
  const done = await db.transaction(async (tx) => {
    const current = await activeSubscription(tx, userId);
    if (current?.tierId === tierId) return { sub: current, tier, refunds: null };
    const currentTier = current ? await tierById(tx, current.tierId) : await freeTier(tx);
    const paying =
      current?.currentPeriodStart && current.currentPeriodEnd && current.currentPeriodEnd > now && currentTier.monthlyPriceCents > 0
        ? { sub: current, start: current.currentPeriodStart, end: current.currentPeriodEnd }
        : null;
    if (timing === 'now_with_refund' && !paying) {
      throw new AppError(
        'proration_not_paid',
        currentTier.monthlyPriceCents === 0
          ? `${user.email} is on the ${currentTier.displayName} plan: nothing was paid, so there is nothing to prorate or refund.`
          : `${user.email}'s ${currentTier.displayName} plan is not being paid for (an admin gave it, or its period is over): there is nothing to prorate or refund.`,
        'timing',
      );
    }
    if (timing === 'period_end' && !paying) {
      throw invalid('timing', `${user.email}'s ${currentTier.displayName} plan has no paid period to wait for: leave timing out to move them now.`);
    }
    if (paying && !timing) {
      throw invalid(
        'timing',
        `${user.email} pays for ${currentTier.displayName} until ${paying.end.toISOString().slice(0, 10)}: choose period_end or now_with_refund.`,
      );
    }
    if (paying && timing === 'period_end' && tier.monthlyPriceCents > currentTier.monthlyPriceCents) {
      // The renewal would charge the user's card a dearer plan they never chose (hostile review of issue 26).
      throw invalid(
        'timing',
        `Moving ${user.email} to ${tier.displayName} at the period end would charge their card $${money(tier.monthlyPriceCents)} at renewal, a price they did not choose: use now_with_refund (the plan is then given, not billed) or let them upgrade.`,
      );
    }
    const inFlight = await firstRow(tx, schema.subscriptionCharges, and(eq(schema.subscriptionCharges.userId, userId), eq(schema.subscriptionCharges.status, 'pending')));
    if (inFlight || (await planRefundInFlight(tx, userId))) throw new AppError('plan_change_in_progress', 'A payment or refund for this user\'s plan is still being processed. Try again in a minute.');

    if (paying && timing === 'period_end') {
      await tx.update(schema.userSubscriptions).set({ pendingTierId: tierId }).where(eq(schema.userSubscriptions.id, paying.sub.id));
      await recordAudit(tx, clock, {
        adminId: actor.adminId,
        action: 'user.subscription.schedule',
        targetType: 'user',
        targetId: userId,
        before: { subscriptionId: paying.sub.id, tierId: paying.sub.tierId, pendingTierId: paying.sub.pendingTierId },
        after: { subscriptionId: paying.sub.id, tierId: paying.sub.tierId, pendingTierId: tierId, at: paying.end.toISOString() },
        ip: actor.ip,
      });
      return { sub: { ...paying.sub, pendingTierId: tierId }, tier: currentTier, refunds: null };
    }

    if (current) {
      await tx
        .update(schema.userSubscriptions)
        .set({ status: 'ended', endedAt: now })
        .where(and(eq(schema.userSubscriptions.id, current.id), eq(schema.userSubscriptions.status, 'active')));
    }
    const [next] = await tx
      .insert(schema.userSubscriptions)
      .values({ id: newId('sub'), userId, tierId, status: 'active' as const, startedAt: now, endedAt: null })
      .returning();
    let refunds = null;
    if (paying) {
      // The unused part of what was paid for the plan (not of its price now: an admin may have changed it since).
      const paid = await paidForPeriod(tx, paying.sub);
      const amountCents = paid
        ? unusedOfPaid(paid, paying.end, now)
        : prorate(currentTier.monthlyPriceCents, paying.end.getTime() - now.getTime(), paying.end.getTime() - paying.start.getTime());
      refunds =
        amountCents > 0
          ? await recordPlanRefunds(tx, now, {
              userId,
              periodEnd: paying.end,
              amountCents,
              fromTierId: currentTier.id,
              toTierId: tierId,
              unusedFrom: now,
              adminId: actor.adminId,
            })
          : null;
      if (refunds && refunds.totalCents !== amountCents) {
        deps.log.error('a prorated plan refund is larger than what the period\'s charges hold; refunding what they hold', {
          userId,
          amountCents,
          recordedCents: refunds.totalCents,
        });
      }
    }
    await recordAudit(tx, clock, {
      adminId: actor.adminId,
      action: 'user.subscription.change',
      targetType: 'user',
      targetId: userId,
      before: current ? { subscriptionId: current.id, tierId: current.tierId } : null,
      after: {
        subscriptionId: next!.id,
        tierId,
        ...(paying ? { timing: 'now_with_refund', refundCents: refunds?.totalCents ?? 0, refundIds: refunds?.ids ?? [] } : {}),
      },
      ip: actor.ip,
    });
    return { sub: next!, tier, refunds };
  });
  const view = toSubscriptionView(done.sub, user, done.tier, now);
  if (!done.refunds) return timing === 'now_with_refund' ? { ...view, refund: { amount: money(0), status: 'succeeded' } } : view;
  // After the commit: the processor is called outside any transaction; what it does not finish now, the sweep does.
  const ended: PlanRefundRow[] = [];
  for (const id of done.refunds.ids) ended.push(await runPlanRefund(deps, id, done.refunds.owner));
  const status = ended.some((r) => r.status === 'failed') ? 'failed' : ended.some((r) => r.status === 'pending') ? 'pending' : 'succeeded';
  return { ...view, refund: { amount: money(done.refunds.totalCents), status } };
}
