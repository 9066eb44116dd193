import { and, desc, eq, isNull, lt } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { SEARCH_LAG_MS, VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { mailLanguage, planMovedToFreeEmail, planReceiptEmail, planRenewalFailedEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import { prorate, prorationQuote } from './proration';

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

const money = (c: number) => formatDecimal(c as Cents);
const day = (d: Date) => d.toISOString().slice(0, 10);

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

export interface ChargeLease {
  chargeId: string;
  owner: string;
}

class ChargeLeaseLost extends Error {}

async function renewChargeLease(deps: AppDeps, lease: ChargeLease, set: Partial<ChargeRow> = {}): Promise<void> {
  const at = deps.clock.now();
  const res = await deps.db
    .update(schema.subscriptionCharges)
    .set({ ...set, leaseUntil: new Date(at.getTime() + PLAN_CHARGE_LEASE_MS), updatedAt: at })
    .where(
      and(
        eq(schema.subscriptionCharges.id, lease.chargeId),
        eq(schema.subscriptionCharges.leaseOwner, lease.owner),
        eq(schema.subscriptionCharges.status, 'pending'),
      ),
    );
  if (res.rowsAffected !== 1) throw new ChargeLeaseLost(`plan charge ${lease.chargeId} is no longer this worker's`);
}

/** Moves a pending charge to its end state, if this worker still owns it. */
async function settleChargeRow(tx: DbOrTx, deps: AppDeps, lease: ChargeLease, set: Partial<ChargeRow> & { status: 'succeeded' | 'failed' }) {
  const res = await tx
    .update(schema.subscriptionCharges)
    .set({ ...set, updatedAt: deps.clock.now() })
    .where(
      and(
        eq(schema.subscriptionCharges.id, lease.chargeId),
        eq(schema.subscriptionCharges.leaseOwner, lease.owner),
        eq(schema.subscriptionCharges.status, 'pending'),
      ),
    );
  if (res.rowsAffected !== 1) throw new ChargeLeaseLost(`plan charge ${lease.chargeId} is no longer this worker's`);
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

/**
 * Runs a recorded pending charge to its end (steps 2 to 4): hold, capture, record. Returns the charge as it ended;
 * a decline ends it failed (and a renewal's subscription past due). Throws VendorUnavailableError when the
 * processor does not answer: the charge stays pending and the sweep resolves it once the lease runs out.
 */
export async function runCharge(deps: AppDeps, lease: ChargeLease): Promise<ChargeRow> {
  const charge = await firstRow(deps.db, schema.subscriptionCharges, eq(schema.subscriptionCharges.id, lease.chargeId));
  if (!charge) throw new Error(`no plan charge ${lease.chargeId}`);
  const source = await firstRow(deps.db, schema.fundingSources, eq(schema.fundingSources.id, charge.fundingSourceId));
  if (!source) throw new Error(`no funding source ${charge.fundingSourceId}`);
  const tier = await tierById(deps.db, charge.tierId);
  const vendor = deps.vendorFor(charge.vendor);
  let holdId = charge.vendorChargeId;
  try {
    if (!holdId) {
      ({ holdId } = await vendor.hold(source.vendorToken, charge.amountCents, {
        idempotencyKey: planHoldKey(charge.id),
        description: `bpay ${tier.displayName} plan, ${day(charge.periodStart)} to ${day(charge.periodEnd)}`,
      }));
      await renewChargeLease(deps, lease, { vendorChargeId: holdId });
    }
    await vendor.capture(holdId);
  } catch (e) {
    if (!(e instanceof VendorDeclineError)) throw e;
    // Refused: nothing moved (a hold that was placed is released first).
    if (holdId) await vendor.voidHold(holdId);
    return failCharge(deps, lease, charge, e.code, e.message);
  }
  return completeCharge(deps, lease, charge, tier, holdId);
}

/** Step 4: one transaction for the charge, the plan, the ledger and the receipt. */
async function completeCharge(deps: AppDeps, lease: ChargeLease, charge: ChargeRow, tier: TierRow, holdId: string): Promise<ChargeRow> {
  const at = deps.clock.now();
  const applied = await deps.db.transaction(async (tx) => {
    let subscriptionId: string;
    if (charge.kind === 'upgrade') {
      const sub = await replaceSubscription(tx, at, charge.userId, tier, {
        start: charge.periodStart,
        end: charge.periodEnd,
        paymentSourceId: charge.fundingSourceId,
      });
      subscriptionId = sub.id;
    } else if (charge.kind === 'proration') {
      // The rest of the period the charge was priced on, from the plan it credits: if the plan or its period has
      // moved on meanwhile, the price no longer holds and the money goes back (below).
      const sub = charge.subscriptionId ? await firstRow(tx, schema.userSubscriptions, eq(schema.userSubscriptions.id, charge.subscriptionId)) : null;
      if (!sub || sub.status !== 'active' || sub.tierId !== charge.creditTierId || !sub.currentPeriodStart) return null;
      if (sub.currentPeriodEnd?.getTime() !== charge.periodEnd.getTime()) return null;
      // The period (its anchor) stays: the new plan takes over the rest of it.
      subscriptionId = (
        await replaceSubscription(tx, at, charge.userId, tier, {
          start: sub.currentPeriodStart,
          end: sub.currentPeriodEnd,
          paymentSourceId: charge.fundingSourceId,
        })
      ).id;
    } else {
      // A renewal pays for the period that follows the one it was made for; if that subscription has moved on
      // meanwhile (an admin changed the plan, the grace period ran out), the money goes back (below).
      const sub = charge.subscriptionId ? await firstRow(tx, schema.userSubscriptions, eq(schema.userSubscriptions.id, charge.subscriptionId)) : null;
      if (!sub || sub.status !== 'active' || sub.currentPeriodEnd?.getTime() !== renewedPeriodEnd(charge)) return null;
      if (sub.tierId === tier.id) {
        await tx
          .update(schema.userSubscriptions)
          .set({
            currentPeriodStart: charge.periodStart,
            currentPeriodEnd: charge.periodEnd,
            pendingTierId: null,
            pastDueSince: null,
            renewalAttempts: 0,
            nextRenewalAttemptAt: null,
          })
          .where(eq(schema.userSubscriptions.id, sub.id));
        subscriptionId = sub.id;
      } else {
        // The pending downgrade to a cheaper paid plan takes effect with this period.
        subscriptionId = (
          await replaceSubscription(tx, at, charge.userId, tier, {
            start: charge.periodStart,
            end: charge.periodEnd,
            paymentSourceId: charge.fundingSourceId,
          })
        ).id;
      }
    }
    await settleChargeRow(tx, deps, lease, { status: 'succeeded', vendorChargeId: holdId, subscriptionId });
    await postMovement(tx, {
      kind: 'plan.charged',
      referenceId: charge.id,
      at,
      postings: [
        { account: accounts.fundingSource(charge.fundingSourceId), amountCents: -charge.amountCents },
        { account: accounts.subscriptions, amountCents: charge.amountCents },
      ],
    });
    const user = await userOf(tx, charge.userId);
    const source = await firstRow(tx, schema.fundingSources, eq(schema.fundingSources.id, charge.fundingSourceId));
    const credited = charge.kind === 'proration' && charge.creditTierId ? await tierById(tx, charge.creditTierId) : null;
    await enqueueEmail(
      tx,
      at,
      planReceiptEmail({
        userId: user.id,
        to: user.email,
        firstName: user.firstName,
        lang: mailLanguage(user.language),
        plan: tier.displayName,
        amount: money(charge.amountCents),
        sourceName: source?.name ?? 'card',
        last4: source?.last4 ?? '????',
        periodStart: charge.periodStart,
        periodEnd: charge.periodEnd,
        receiptId: charge.id,
        proration:
          credited && charge.creditCents !== null && charge.listPriceCents !== null
            ? { oldPlan: credited.displayName, credit: money(charge.creditCents), rest: money(charge.listPriceCents) }
            : null,
      }),
    );
    // Beside the receipt, once (settleChargeRow above is guarded by the lease and the pending status). The receipt is
    // this event's mail: the notice's own mail is off for plan kinds (docs/DECISIONS.md).
    // A proration is an upgrade in the notice's words.
    const kind = charge.kind === 'renewal' ? 'renewal' : 'upgrade';
    await notify(tx, deps, user.id, 'plan_charged', { plan: tier.displayName, amount: money(charge.amountCents), kind }, at);
    return true;
  });
  if (applied) return reload(deps, charge.id);
  // Captured, but nothing left to pay for: the money goes back (the refund is keyed, so a repeat is harmless).
  await deps.vendorFor(charge.vendor).refund(holdId, charge.amountCents, { idempotencyKey: planRefundKey(charge.id) });
  await deps.db.transaction((tx) =>
    settleChargeRow(tx, deps, lease, {
      status: 'failed',
      vendorChargeId: holdId,
      failureCode: 'subscription_changed',
      failureMessage: `The plan changed before this ${charge.kind === 'renewal' ? 'renewal' : 'payment'} was recorded; the charge was refunded.`,
    }),
  );
  return reload(deps, charge.id);
}

async function reload(deps: AppDeps, chargeId: string): Promise<ChargeRow> {
  const row = await firstRow(deps.db, schema.subscriptionCharges, eq(schema.subscriptionCharges.id, chargeId));
  if (!row) throw new Error(`no plan charge ${chargeId}`);
  return row;
}

/**
 * Records a charge failed; for a renewal, in the same transaction, the subscription goes past due (or to Free), unless
 * bpay itself was interrupted (renewalInterrupted).
 */
async function failCharge(deps: AppDeps, lease: ChargeLease, charge: ChargeRow, code: string, message: string): Promise<ChargeRow> {
  await deps.db.transaction(async (tx) => {
    await settleChargeRow(tx, deps, lease, { status: 'failed', failureCode: code, failureMessage: message });
    if (charge.kind === 'renewal' && charge.subscriptionId) {
      const sub = await firstRow(tx, schema.userSubscriptions, eq(schema.userSubscriptions.id, charge.subscriptionId));
      if (sub?.status === 'active' && sub.currentPeriodEnd?.getTime() === renewedPeriodEnd(charge)) {
        if (code === INTERRUPTED) await renewalInterrupted(tx, deps, sub, message);
        else await renewalFailed(tx, deps, sub, message, code);
      }
    }
  });
  return reload(deps, charge.id);
}

/** The failure code of a charge the money sweep ended because its worker died: nothing was charged (recoverPlanCharges). */
const INTERRUPTED = 'interrupted';

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
async function renewalInterrupted(tx: DbOrTx, deps: AppDeps, sub: SubRow, message: string): Promise<void> {
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

/** runCharge for a request: a processor that does not answer leaves the charge to the sweep (503). */
export async function runOrLeave(deps: AppDeps, lease: ChargeLease): Promise<ChargeRow> {
  try {
    return await runCharge(deps, lease);
  } catch (e) {
    if (e instanceof VendorUnavailableError) {
      deps.log.warn('a plan charge could not be finished now; the money sweep will settle it', { chargeId: lease.chargeId, error: e });
      throw new AppError(
        'vendor_unavailable',
        'The card processor did not answer. If the payment went through your plan changes within a few minutes; otherwise nothing is charged.',
      );
    }
    throw e;
  }
}

/** Takes over a pending charge whose worker is gone (its lease ran out); null when it is not (or no longer) one. */
async function takeOver(deps: AppDeps, chargeId: string): Promise<ChargeLease | null> {
  const at = deps.clock.now();
  const owner = newToken();
  const res = await deps.db
    .update(schema.subscriptionCharges)
    .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + PLAN_CHARGE_LEASE_MS) })
    .where(
      and(
        eq(schema.subscriptionCharges.id, chargeId),
        eq(schema.subscriptionCharges.status, 'pending'),
        lt(schema.subscriptionCharges.leaseUntil, at),
      ),
    );
  return res.rowsAffected === 1 ? { chargeId, owner } : null;
}

/**
 * Settles every pending plan charge whose worker is gone, by what the processor says of its hold: captured → the
 * plan is given (step 4); held → released, failed; none → failed (after a remote processor's search can have caught
 * up with a hold placed just before the crash). Returns how many it settled.
 */
export async function recoverPlanCharges(deps: AppDeps): Promise<number> {
  const at = deps.clock.now();
  const stale = await deps.db
    .select({ id: schema.subscriptionCharges.id })
    .from(schema.subscriptionCharges)
    .where(and(eq(schema.subscriptionCharges.status, 'pending'), lt(schema.subscriptionCharges.leaseUntil, at)))
    .limit(100);
  let settled = 0;
  for (const { id } of stale) {
    const lease = await takeOver(deps, id);
    if (!lease) continue;
    try {
      const charge = await reload(deps, id);
      const vendor = deps.vendorFor(charge.vendor);
      const found = charge.vendorChargeId ? await vendor.getHold(charge.vendorChargeId) : await vendor.findHold(planHoldKey(charge.id));
      if (found?.status === 'captured') {
        await completeCharge(deps, lease, charge, await tierById(deps.db, charge.tierId), found.holdId);
      } else if (!found && vendor.searchLags && at.getTime() - charge.createdAt.getTime() < SEARCH_LAG_MS) {
        continue; // the hold may exist and not be searchable yet: asked again at a later sweep
      } else {
        if (found?.status === 'held') await vendor.voidHold(found.holdId);
        await failCharge(deps, lease, charge, INTERRUPTED, 'The payment was interrupted before it completed.');
      }
      settled++;
    } catch (error) {
      deps.log.error('recovering a plan charge failed; the next sweep tries again', { chargeId: id, error });
    }
  }
  return settled;
}
