import { and, eq, lt } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { SEARCH_LAG_MS, VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { mailLanguage, planReceiptEmail } from '../email/messages';
import { enqueueEmail } from '../email/outbox';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';
import {
  type ChargeRow,
  day,
  money,
  PLAN_CHARGE_LEASE_MS,
  planHoldKey,
  planRefundKey,
  renewedPeriodEnd,
  replaceSubscription,
  tierById,
  userOf,
} from './billing';
import { INTERRUPTED, renewalFailed, renewalInterrupted } from './renewal-failure';

/*
 * One plan charge run to its end (billing.ts has the steps): the processor's hold and capture under the charge's
 * lease, step 4's transaction, a failure recorded, and the money sweep's recovery of charges whose worker is gone.
 */

type TierRow = typeof schema.subscriptionTiers.$inferSelect;

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
export async function takeOver(deps: AppDeps, chargeId: string): Promise<ChargeLease | null> {
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
