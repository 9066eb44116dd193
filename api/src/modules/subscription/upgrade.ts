import { and, desc, eq } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { prorate, prorationQuote } from './proration';
import {
  activeSubscription,
  addCalendarMonth,
  chargeError,
  freeTier,
  type ChargeRow,
  offeredTier,
  payableSource,
  PLAN_CHARGE_LEASE_MS,
  tierById,
} from './billing';
import { runOrLeave, takeOver } from './plan-charge';

/*
 * A user's upgrade to a dearer plan, paid now (billing.ts: full price and a new period, or prorated in the middle of
 * a paid period), and what was paid for a period (the base of a proration's credit and of an admin's refund).
 */

type TierRow = typeof schema.subscriptionTiers.$inferSelect;
type SubRow = typeof schema.userSubscriptions.$inferSelect;

export interface UpgradeInput {
  tierId: string;
  fundingSourceId: string;
  /** The request's Idempotency-Key (scoped by runIdempotent): the same key never charges twice. */
  idempotencyKey: string;
}

/**
 * Upgrades the user to a dearer plan, paid now. In the middle of a paid period: prorated (the new plan's rest of the
 * period less the old plan's unused part, the period kept); otherwise the full monthly price and a new period from now.
 * Fails with: resource_not_found (plan, funding source), tier_inactive, validation_error (paused source, bank account),
 * plan_unchanged, plan_not_upgrade, proration_zero, plan_change_in_progress, card_declined / insufficient_funds / expired_card /
 * incorrect_cvc / processing_error (nothing charged), vendor_unavailable (the sweep settles it).
 */
export async function upgradePlan(deps: AppDeps, userId: string, input: UpgradeInput): Promise<ChargeRow> {
  const tier = await offeredTier(deps.db, input.tierId);
  await payableSource(deps.db, userId, input.fundingSourceId);
  const owner = newToken();
  const at = deps.clock.now();
  const started = await deps.db.transaction(async (tx): Promise<{ prior: ChargeRow } | { charge: ChargeRow }> => {
    const prior = await firstRow(
      tx,
      schema.subscriptionCharges,
      and(eq(schema.subscriptionCharges.userId, userId), eq(schema.subscriptionCharges.idempotencyKey, input.idempotencyKey)),
    );
    if (prior) return { prior };
    const sub = await activeSubscription(tx, userId);
    const current = sub ? await tierById(tx, sub.tierId) : await freeTier(tx);
    if (current.id === tier.id) throw new AppError('plan_unchanged', `You are already on the ${tier.displayName} plan.`, 'tierId');
    if (tier.monthlyPriceCents <= current.monthlyPriceCents) {
      throw new AppError(
        'plan_not_upgrade',
        `The ${tier.displayName} plan does not cost more than your ${current.displayName} plan: choose it as a downgrade, ` +
          'which takes effect at the end of your billing period.',
        'tierId',
      );
    }
    // One plan payment at a time: two upgrades sent together (different keys) cannot both charge.
    const inFlight = await firstRow(tx, schema.subscriptionCharges, and(eq(schema.subscriptionCharges.userId, userId), eq(schema.subscriptionCharges.status, 'pending')));
    if (inFlight) throw new AppError('plan_change_in_progress');
    // Checked again here: a removal or pause racing this request commits before (refused here) or after.
    const source = await payableSource(tx, userId, input.fundingSourceId);
    const priced = priceUpgrade(sub, current, tier, at, sub ? await paidForPeriod(tx, sub) : null);
    const [charge] = await tx
      .insert(schema.subscriptionCharges)
      .values({
        id: newId('pch'),
        userId,
        tierId: tier.id,
        fundingSourceId: source.id,
        ...priced,
        status: 'pending',
        vendor: source.vendor,
        idempotencyKey: input.idempotencyKey,
        leaseOwner: owner,
        leaseUntil: new Date(at.getTime() + PLAN_CHARGE_LEASE_MS),
        createdAt: at,
        updatedAt: at,
      })
      .returning();
    return { charge: charge! };
  });
  let ended: ChargeRow;
  if ('prior' in started) {
    // The same request again (a retry after an unexpected failure): its outcome, or finish it if its worker is gone.
    const lease = started.prior.status === 'pending' ? await takeOver(deps, started.prior.id) : null;
    // Still running under another worker: not an answer to remember for this key (runIdempotent keeps it open).
    if (started.prior.status === 'pending' && !lease) throw new AppError('idempotency_key_in_use');
    ended = lease ? await runOrLeave(deps, lease) : started.prior;
  } else {
    ended = await runOrLeave(deps, { chargeId: started.charge.id, owner });
  }
  if (ended.status === 'failed') {
    const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, ended.fundingSourceId));
    throw chargeError(ended, ended.failureCode === 'interrupted' ? undefined : source ?? undefined);
  }
  return ended;
}

/**
 * What an upgrade charges. A paid period still running (a paid plan, its end ahead): a proration over the rest of
 * it. Otherwise (Free, a plan an admin gave, a period that is over and past due): the full price, a new period.
 * Fails with: proration_zero (the rest of the period is worth nothing in whole cents).
 */
function priceUpgrade(sub: SubRow | null, current: TierRow, tier: TierRow, at: Date, paid: PaidForPeriod | null) {
  if (sub?.currentPeriodStart && sub.currentPeriodEnd && sub.currentPeriodEnd > at && current.monthlyPriceCents > 0) {
    const quote = prorationQuote(current.monthlyPriceCents, tier.monthlyPriceCents, { start: sub.currentPeriodStart, end: sub.currentPeriodEnd }, at);
    // The credit is the unused part of what was paid for the plan, not of its price today (an admin may have changed it).
    const creditCents = paid ? unusedOfPaid(paid, sub.currentPeriodEnd, at) : quote.creditCents;
    const q = { ...quote, creditCents, amountCents: quote.listPriceCents - creditCents };
    if (q.amountCents <= 0) {
      throw new AppError(
        'proration_zero',
        `Your ${current.displayName} period ends on ${sub.currentPeriodEnd.toISOString().replace('T', ' ').slice(0, 16)} UTC: the ${tier.displayName} ` +
          'plan for what is left of it costs $0.00 more, so there is nothing to charge. Upgrade once your plan has renewed.',
        'tierId',
      );
    }
    return {
      kind: 'proration' as const,
      subscriptionId: sub.id,
      amountCents: q.amountCents,
      listPriceCents: q.listPriceCents,
      creditCents: q.creditCents,
      creditTierId: current.id,
      periodStart: at,
      periodEnd: sub.currentPeriodEnd,
    };
  }
  return { kind: 'upgrade' as const, subscriptionId: null, amountCents: tier.monthlyPriceCents, periodStart: at, periodEnd: addCalendarMonth(at) };
}

/** What was paid for a subscription's plan over its current period: `cents` for the time from `from` to the period end. */
export interface PaidForPeriod {
  cents: number;
  from: Date;
}

/**
 * The charge that gave `sub` its plan for its current period (a renewal's or an upgrade's price for the whole period,
 * a proration's rest of it from its start), or null when none did (a plan given by an admin, data older than
 * charges). Proration credits and an admin's refund are the unused part of this, not of the tier's price now, which
 * an admin can change in the middle of a period (hostile review of issue 26).
 */
export async function paidForPeriod(db: DbOrTx, sub: SubRow): Promise<PaidForPeriod | null> {
  if (!sub.currentPeriodEnd) return null;
  const [charge] = await db
    .select()
    .from(schema.subscriptionCharges)
    .where(
      and(
        eq(schema.subscriptionCharges.subscriptionId, sub.id),
        eq(schema.subscriptionCharges.tierId, sub.tierId),
        eq(schema.subscriptionCharges.status, 'succeeded'),
        eq(schema.subscriptionCharges.periodEnd, sub.currentPeriodEnd),
      ),
    )
    .orderBy(desc(schema.subscriptionCharges.createdAt))
    .limit(1);
  if (!charge) return null;
  return { cents: charge.kind === 'proration' ? (charge.listPriceCents ?? charge.amountCents) : charge.amountCents, from: charge.periodStart };
}

/** The part of what was paid that covers the time from `at` to the period's end (rounded half up, as every line). */
export const unusedOfPaid = (paid: PaidForPeriod, end: Date, at: Date) =>
  prorate(paid.cents, end.getTime() - at.getTime(), end.getTime() - paid.from.getTime());
