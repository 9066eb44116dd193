import { and, eq, isNull } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import { newId } from '../../lib/ids';

/*
 * Paid plans (issue 16). A plan charge (subscription_charges) is one payment of a plan's monthly price to a funding
 * source, through the processor the source belongs to:
 *   1. recorded `pending` under a lease, in the transaction that checks the change is allowed (one at a time per user);
 *   2. held at the processor under the key `plan:<charge id>`, the hold's id recorded;
 *   3. captured;
 *   4. in ONE transaction: the charge succeeded, the subscription moved, the ledger movement
 *      (funding_source -price, bpay:subscriptions +price) and the receipt e-mail.
 * A decline records the charge failed and moves nothing. A crash anywhere leaves a pending charge whose lease runs
 * out; the money sweep (recoverPlanCharges) asks the processor by the hold's id or key: captured → step 4 is done;
 * held → voided, failed; nothing there → failed. So a plan is never paid twice and never paid without being given.
 *
 * Billing periods are calendar months in UTC: the same day of the next month, or its last day when it has none
 * (31 January → 28/29 February). An upgrade from a plan that is not being paid for (Free, one an admin gave, or a
 * period that is over) charges the new plan's full price and starts a new period now (kind upgrade). An upgrade in
 * the middle of a paid period is prorated (issue 26, kind proration, proration.ts): the old plan's unused part is
 * credited, the new plan's rest of the period charged, the difference paid now, and the period (the billing anchor)
 * stays. A downgrade or cancellation credits nothing and waits for the period's end (pendingTierId). At a period's end the renewal sweep charges the next period (its plan: the pending one
 * if any) to the source the user paid with; a failed renewal keeps the plan, past due, retried daily for
 * RENEWAL_GRACE_MS, then the user moves to Free, with a plan_notice e-mail at the first failure and at the move.
 * A renewal attempt bpay itself did not finish (interrupted: undone by the sweep) is not a failure of the card: no
 * past due, no notice, the next attempt at once; the grace still ends RENEWAL_GRACE_MS after the period (issue 27).
 *
 * Here: the plan's constants, keys, calendar and lookups. plan-charge.ts: a charge's steps 2 to 4, its lease and the
 * sweep (recoverPlanCharges); renewal-failure.ts: a renewal that failed or was interrupted; upgrade.ts: upgradePlan
 * and what was paid for a period.
 */

type TierRow = typeof schema.subscriptionTiers.$inferSelect;
type SubRow = typeof schema.userSubscriptions.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;
export type ChargeRow = typeof schema.subscriptionCharges.$inferSelect;

/** How long a worker owns a pending charge without renewing; longer than any one processor call may take. */
export const PLAN_CHARGE_LEASE_MS = 60_000;
/** A failed renewal is tried again this long after the last attempt. */
export const RENEWAL_RETRY_MS = 24 * 3600_000;
/** How long a past-due plan is kept (renewal retried) before the user moves to Free. */
export const RENEWAL_GRACE_MS = 7 * 24 * 3600_000;

export const planHoldKey = (chargeId: string) => `plan:${chargeId}`;
export const planRefundKey = (chargeId: string) => `plan-refund:${chargeId}`;
/** The key of a renewal attempt: one charge per subscription, period and attempt (a retry is a new attempt). */
export const renewalKey = (sub: SubRow, attempt: number) => `renewal:${sub.id}:${sub.currentPeriodEnd?.getTime() ?? 0}#${attempt}`;

/** The end of the period a renewal charge follows (its key names it; see renewalKey). */
export function renewedPeriodEnd(charge: Pick<ChargeRow, 'kind' | 'idempotencyKey'>): number | null {
  const m = charge.kind === 'renewal' ? /^renewal:[^:]+:(\d+)#\d+$/.exec(charge.idempotencyKey) : null;
  return m ? Number(m[1]) : null;
}

/** The same day of the next month in UTC, clamped to that month's last day; time of day kept. */
export function addCalendarMonth(d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const lastDay = new Date(Date.UTC(y, m + 2, 0)).getUTCDate();
  return new Date(Date.UTC(y, m + 1, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
}

export const money = (c: number) => formatDecimal(c as Cents);
export const day = (d: Date) => d.toISOString().slice(0, 10);

export async function activeSubscription(db: DbOrTx, userId: string): Promise<SubRow | null> {
  return (
    (await firstRow(db, schema.userSubscriptions, and(eq(schema.userSubscriptions.userId, userId), eq(schema.userSubscriptions.status, 'active')))) ?? null
  );
}

export async function freeTier(db: DbOrTx): Promise<TierRow> {
  const free = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.name, 'free'));
  if (!free) throw new Error('the free plan is missing: the database was not seeded');
  return free;
}

export async function tierById(db: DbOrTx, id: string): Promise<TierRow> {
  const tier = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, id));
  if (!tier) throw new Error(`no tier ${id}`);
  return tier;
}

/** A plan the user may move to: it exists and is on offer. Fails with: resource_not_found, tier_inactive. */
export async function offeredTier(db: DbOrTx, tierId: string): Promise<TierRow> {
  const tier = await firstRow(db, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, tierId));
  if (!tier) throw notFound('plan', tierId, 'tierId');
  if (!tier.isActive) throw new AppError('tier_inactive', `The ${tier.displayName} plan is no longer offered.`, 'tierId');
  return tier;
}

/** The user's own, not removed, active card. Fails with: resource_not_found, validation_error (bank account, paused). */
export async function payableSource(db: DbOrTx, userId: string, fundingSourceId: string): Promise<SourceRow> {
  const source = await firstRow(
    db,
    schema.fundingSources,
    and(eq(schema.fundingSources.id, fundingSourceId), eq(schema.fundingSources.userId, userId), isNull(schema.fundingSources.deletedAt)),
  );
  if (!source) throw notFound('funding source', fundingSourceId, 'fundingSourceId');
  if (source.type === 'bank_account') {
    // A plan is paid by card: a bank debit cannot be held and captured like the plan's charge is.
    throw invalid('fundingSourceId', `A plan is paid by card; ${source.name} (•••• ${source.last4}) is a bank account. Choose a card.`);
  }
  if (!source.isActive) {
    throw invalid('fundingSourceId', `The funding source ${source.name} (•••• ${source.last4}) is paused. Resume it or choose another.`);
  }
  return source;
}

export async function userOf(db: DbOrTx, userId: string) {
  const user = await firstRow(db, schema.users, eq(schema.users.id, userId));
  if (!user) throw new Error(`no user ${userId}`);
  return user;
}

/** Ends the user's active subscription (if any) and starts one on `tier`, in the caller's transaction. */
export async function replaceSubscription(
  tx: DbOrTx,
  at: Date,
  userId: string,
  tier: TierRow,
  period: { start: Date; end: Date; paymentSourceId: string } | null,
): Promise<SubRow> {
  await tx
    .update(schema.userSubscriptions)
    .set({ status: 'ended', endedAt: at })
    .where(and(eq(schema.userSubscriptions.userId, userId), eq(schema.userSubscriptions.status, 'active')));
  const [sub] = await tx
    .insert(schema.userSubscriptions)
    .values({
      id: newId('sub'),
      userId,
      tierId: tier.id,
      status: 'active',
      startedAt: at,
      endedAt: null,
      currentPeriodStart: period?.start ?? null,
      currentPeriodEnd: period?.end ?? null,
      paymentSourceId: period?.paymentSourceId ?? null,
    })
    .returning();
  return sub!;
}

/** Why a charge failed, as the error the payer gets. */
export function chargeError(charge: Pick<ChargeRow, 'failureCode' | 'failureMessage'>, source?: Pick<SourceRow, 'name' | 'last4'>): AppError {
  const what = source ? `${source.name} (•••• ${source.last4}) was declined: ` : '';
  const message = `${what}${charge.failureMessage ?? 'The payment did not go through.'} Nothing was charged.`;
  switch (charge.failureCode) {
    case 'insufficient_funds':
    case 'expired_card':
    case 'incorrect_cvc':
    case 'processing_error':
      return new AppError(charge.failureCode, message, 'fundingSourceId');
    case 'interrupted':
      return new AppError('vendor_unavailable', `${charge.failureMessage ?? 'The payment was interrupted.'} Nothing was charged.`);
    default:
      return new AppError('card_declined', message, 'fundingSourceId');
  }
}
