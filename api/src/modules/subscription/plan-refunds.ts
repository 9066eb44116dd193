import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { VendorDeclineError } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { notify } from '../notifications/service';

/*
 * Refunding the unused part of a paid plan (issue 26: an admin moves a paying user to another plan now). The money
 * goes back to the card(s) the current period was paid with, out of the period's plan charges, newest first (a
 * period paid by an upgrade and then a proration may need both). Each part is a plan_refunds row, a small saga:
 *   1. recorded `pending`, with its processor key and a lease, in the transaction that changes the plan (and is
 *      audited): the decision and the promise to pay it commit together;
 *   2. refunded at the processor under that key (a repeated call with the key pays nothing more);
 *   3. in ONE transaction: the row succeeded and the ledger movement plan.refunded (funding_source:<card> +x,
 *      bpay:subscriptions −x), reversing that part of the plan charge.
 * A crash between 1 and 3 leaves a pending row whose lease runs out; the money sweep (recoverPlanRefunds) runs 2 and
 * 3 again with the same key. So a refund is never paid twice and never recorded as paid without being paid. A
 * processor refusal records the row failed (nothing moved) for an admin to settle by hand.
 */

export type PlanRefundRow = typeof schema.planRefunds.$inferSelect;

/** How long a worker owns a pending refund; longer than any one processor call may take. */
export const PLAN_REFUND_LEASE_MS = 60_000;

/** The processor key of one refund part: fixed when the part is recorded, so every retry asks for the same refund. */
export const proratedRefundKey = (refundId: string) => `plan-prorated-refund:${refundId}`;

export interface PlanRefundInput {
  userId: string;
  /** The end of the period being refunded: the charges that paid for it end there. */
  periodEnd: Date;
  amountCents: number;
  fromTierId: string;
  toTierId: string;
  unusedFrom: Date;
  adminId: string;
}

export interface RecordedRefunds {
  ids: string[];
  owner: string;
  /** What was recorded: amountCents, or less when the period's charges hold less (never expected; logged). */
  totalCents: number;
}

/**
 * Step 1, in the caller's transaction: the refund parts of `amountCents`, pending, from the period's paid charges
 * (newest first), each no more than what is left of its charge after earlier refunds.
 */
export async function recordPlanRefunds(tx: DbOrTx, at: Date, input: PlanRefundInput): Promise<RecordedRefunds> {
  const owner = newToken();
  const paid = await tx
    .select({
      charge: schema.subscriptionCharges,
      refunded: sql<number>`coalesce((SELECT sum(r.amount_cents) FROM plan_refunds r WHERE r.charge_id = ${schema.subscriptionCharges.id} AND r.status != 'failed'), 0)`,
    })
    .from(schema.subscriptionCharges)
    .where(
      and(
        eq(schema.subscriptionCharges.userId, input.userId),
        eq(schema.subscriptionCharges.status, 'succeeded'),
        eq(schema.subscriptionCharges.periodEnd, input.periodEnd),
      ),
    )
    .orderBy(desc(schema.subscriptionCharges.createdAt), desc(schema.subscriptionCharges.id));
  let left = input.amountCents;
  const ids: string[] = [];
  for (const { charge, refunded } of paid) {
    if (left <= 0) break;
    const part = Math.min(left, charge.amountCents - Number(refunded));
    if (part <= 0 || !charge.vendorChargeId) continue;
    const id = newId('prf');
    await tx.insert(schema.planRefunds).values({
      id,
      userId: input.userId,
      chargeId: charge.id,
      fundingSourceId: charge.fundingSourceId,
      amountCents: part,
      status: 'pending',
      vendor: charge.vendor,
      fromTierId: input.fromTierId,
      toTierId: input.toTierId,
      unusedFrom: input.unusedFrom,
      unusedTo: input.periodEnd,
      adminId: input.adminId,
      idempotencyKey: proratedRefundKey(id),
      leaseOwner: owner,
      leaseUntil: new Date(at.getTime() + PLAN_REFUND_LEASE_MS),
      createdAt: at,
      updatedAt: at,
    });
    ids.push(id);
    left -= part;
  }
  return { ids, owner, totalCents: input.amountCents - left };
}

/**
 * Steps 2 and 3 for one recorded part this worker owns. Returns the row as it ended (pending when the processor did
 * not answer: the sweep finishes it). Throws nothing for a processor failure; a lost lease means another worker has it.
 */
export async function runPlanRefund(deps: AppDeps, refundId: string, owner: string): Promise<PlanRefundRow> {
  const row = await reload(deps, refundId);
  if (row.status !== 'pending' || row.leaseOwner !== owner) return row;
  const charge = await firstRow(deps.db, schema.subscriptionCharges, eq(schema.subscriptionCharges.id, row.chargeId));
  if (!charge?.vendorChargeId) throw new Error(`plan refund ${refundId}: its charge ${row.chargeId} was never captured`);
  let vendorRefundId: string;
  try {
    ({ refundId: vendorRefundId } = await deps.vendorFor(row.vendor).refund(charge.vendorChargeId, row.amountCents, { idempotencyKey: row.idempotencyKey }));
  } catch (e) {
    if (!(e instanceof VendorDeclineError)) {
      deps.log.warn('a plan refund could not be finished now; the money sweep will finish it', { refundId, error: e });
      return reload(deps, refundId);
    }
    await deps.db
      .update(schema.planRefunds)
      .set({ status: 'failed', failureMessage: e.message, updatedAt: deps.clock.now() })
      .where(and(eq(schema.planRefunds.id, refundId), eq(schema.planRefunds.leaseOwner, owner), eq(schema.planRefunds.status, 'pending')));
    deps.log.error('the processor refused a plan refund; settle it by hand', { refundId, error: e });
    return reload(deps, refundId);
  }
  const at = deps.clock.now();
  // The money went back: a failure to record it now (the database refusing a write) leaves the row pending for the
  // sweep, which asks again with the same key and records it; it must not turn the admin's committed move into an
  // error (hostile review of issue 26).
  await deps.db.transaction(async (tx) => {
    const res = await tx
      .update(schema.planRefunds)
      .set({ status: 'succeeded', vendorRefundId, updatedAt: at })
      .where(and(eq(schema.planRefunds.id, refundId), eq(schema.planRefunds.leaseOwner, owner), eq(schema.planRefunds.status, 'pending')));
    // Another worker recorded it meanwhile (its lease ran out under us): its movement stands, ours is not written.
    if (res.rowsAffected !== 1) return;
    await postMovement(tx, {
      kind: 'plan.refunded',
      referenceId: refundId,
      at,
      postings: [
        { account: accounts.fundingSource(row.fundingSourceId), amountCents: row.amountCents },
        { account: accounts.subscriptions, amountCents: -row.amountCents },
      ],
    });
    // Money went back to the user's card: they are told, in the transaction that records it (once per part).
    const source = await firstRow(tx, schema.fundingSources, eq(schema.fundingSources.id, row.fundingSourceId));
    const tier = await firstRow(tx, schema.subscriptionTiers, eq(schema.subscriptionTiers.id, charge.tierId));
    await notify(
      tx,
      deps,
      row.userId,
      'plan_refunded',
      { plan: tier?.displayName ?? '', amount: formatDecimal(row.amountCents as Cents), sourceName: source?.name ?? '', last4: source?.last4 ?? '' },
      at,
    );
  }).catch((error) => deps.log.error('recording a paid plan refund failed; the money sweep will record it', { refundId, error }));
  return reload(deps, refundId);
}

async function reload(deps: AppDeps, refundId: string): Promise<PlanRefundRow> {
  const row = await firstRow(deps.db, schema.planRefunds, eq(schema.planRefunds.id, refundId));
  if (!row) throw new Error(`no plan refund ${refundId}`);
  return row;
}

/** A plan refund is in flight for the user (a new plan change waits for it). */
export async function planRefundInFlight(tx: DbOrTx, userId: string): Promise<boolean> {
  return Boolean(await firstRow(tx, schema.planRefunds, and(eq(schema.planRefunds.userId, userId), eq(schema.planRefunds.status, 'pending'))));
}

/** Finishes every pending plan refund whose worker is gone, with its own key. Returns how many ended. */
export async function recoverPlanRefunds(deps: AppDeps): Promise<number> {
  const at = deps.clock.now();
  const stale = await deps.db
    .select({ id: schema.planRefunds.id })
    .from(schema.planRefunds)
    .where(and(eq(schema.planRefunds.status, 'pending'), lt(schema.planRefunds.leaseUntil, at)))
    .limit(100);
  let settled = 0;
  for (const { id } of stale) {
    const owner = newToken();
    const taken = await deps.db
      .update(schema.planRefunds)
      .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + PLAN_REFUND_LEASE_MS) })
      .where(and(eq(schema.planRefunds.id, id), eq(schema.planRefunds.status, 'pending'), lt(schema.planRefunds.leaseUntil, at)));
    if (taken.rowsAffected !== 1) continue;
    try {
      const ended = await runPlanRefund(deps, id, owner);
      if (ended.status !== 'pending') settled++;
    } catch (error) {
      deps.log.error('finishing a plan refund failed; the next sweep tries again', { refundId: id, error });
    }
  }
  return settled;
}
