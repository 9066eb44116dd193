import { eq } from 'drizzle-orm';
import { firstRow, schema, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { simulateChargeback } from '../../vendors/simulated-disputes';
import { recordAudit } from '../admin/audit';
import { applyDisputeFact, disputeRoom, DISPUTABLE_SHARE_STATUSES, isBankShare, type DisputeRow } from './service';

/*
 * The simulator's disputes (issue 26): with the built-in simulated processor there is no issuer to open a chargeback,
 * so an admin plays it. Applied through the same service as Stripe's events (service.ts), each with an audit row in
 * the same transaction. Only for shares charged through the simulator: a Stripe share's disputes come from Stripe.
 */

/** Stripe's dispute reasons: the simulator speaks the same codes. */
export const DISPUTE_REASONS = [
  'bank_cannot_process',
  'credit_not_processed',
  'customer_initiated',
  'debit_not_authorized',
  'duplicate',
  'fraudulent',
  'general',
  'incorrect_account_details',
  'insufficient_funds',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'unrecognized',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export interface AdminActor {
  adminId: string;
  ip: string | null;
}

export interface DisputeView {
  id: string;
  shareId: string;
  transactionId: string;
  userId: string;
  vendor: DisputeRow['vendor'];
  vendorDisputeId: string;
  amount: string;
  reason: string;
  status: DisputeRow['status'];
  vendorStatus: string;
  refundedBefore: string;
  openedAt: string;
  closedAt: string | null;
}

const money = (c: number) => formatDecimal(c as Cents);

export const disputeView = (d: DisputeRow): DisputeView => ({
  id: d.id,
  shareId: d.shareId,
  transactionId: d.collectionId,
  userId: d.userId,
  vendor: d.vendor,
  vendorDisputeId: d.vendorDisputeId,
  amount: money(d.amountCents),
  reason: d.reason,
  status: d.status,
  vendorStatus: d.vendorStatus,
  refundedBefore: money(d.refundedBeforeCents),
  openedAt: d.openedAt.toISOString(),
  closedAt: d.closedAt?.toISOString() ?? null,
});

/**
 * Opens a dispute of a captured share, as a card issuer would. `amountCents` defaults to the share's charge (less
 * what its other disputes hold). Checked in the dispute's own transaction, so two opens at once cannot both take it.
 * Fails with: resource_not_found (no such share), share_not_disputable (409: not on the simulated processor, never
 * charged or returned by the bank, a bank account's share, or disputed in full already), validation_error (400: more than the share can give).
 */
export async function openSandboxDispute(
  deps: AppDeps,
  actor: AdminActor,
  input: { shareId: string; reason: DisputeReason; amountCents?: number },
): Promise<DisputeView> {
  const share = await firstRow(deps.db, schema.collectionShares, eq(schema.collectionShares.id, input.shareId));
  if (!share) throw new AppError('resource_not_found', 'No such share.', 'shareId');
  // The default: what is left of the share (checked again in the dispute's transaction).
  const amountCents = input.amountCents ?? (await disputeRoom(deps.db, { share }));
  const vendorDisputeId = `sim_dp_${newToken().slice(0, 24)}`;
  const check = async (tx: DbOrTx) => {
    const now = (await firstRow(tx, schema.collectionShares, eq(schema.collectionShares.id, share.id)))!;
    const collection = (await firstRow(tx, schema.collections, eq(schema.collections.id, now.collectionId)))!;
    if (collection.vendor !== 'simulated') {
      throw new AppError(
        'share_not_disputable',
        `This share was charged through ${collection.vendor}, not the simulated processor: its disputes come from the processor's own events.`,
        'shareId',
      );
    }
    if (!(DISPUTABLE_SHARE_STATUSES as readonly string[]).includes(now.status)) {
      throw new AppError(
        'share_not_disputable',
        `Only a share charged to its card (captured, or refunded since) can be disputed; this one is ${now.status}.`,
        'shareId',
      );
    }
    if (await isBankShare(tx, now.id)) {
      throw new AppError(
        'share_not_disputable',
        "This share is a bank account's debit: its dispute is the bank's return, which makes it owed already.",
        'shareId',
      );
    }
    const room = await disputeRoom(tx, { share: now });
    if (room <= 0) throw new AppError('share_not_disputable', 'This share is disputed in full already.', 'shareId');
    if (amountCents > room) {
      throw new AppError(
        'validation_error',
        `amount must be at most ${money(room)}: what the share was charged, less what its other disputes hold.`,
        'amount',
      );
    }
    // The simulated issuer gives the amount back to the card, as the ledger's share.disputed says.
    if (now.vendorHoldId) await simulateChargeback(tx, now.vendorHoldId, amountCents);
    await recordAudit(tx, deps.clock, {
      adminId: actor.adminId,
      action: 'dispute.sandbox_opened',
      targetType: 'share',
      targetId: share.id,
      after: { vendorDisputeId, amount: money(amountCents), reason: input.reason },
      ip: actor.ip,
    });
  };
  const fact = {
    vendor: 'simulated' as const,
    vendorDisputeId,
    shareId: share.id,
    amountCents,
    reason: input.reason,
    vendorStatus: 'needs_response',
    outcome: 'open' as const,
  };
  const { dispute } = await applyDisputeFact(deps, fact, check);
  if (!dispute) throw new Error(`sandbox dispute of share ${input.shareId} was not recorded`);
  return disputeView(dispute);
}

/**
 * Closes an open simulated dispute: won (the issuer gave the money back to bpay: all of it is reversed) or lost (the
 * card keeps it; the consumer owes it). Fails with: resource_not_found, share_not_disputable (409: a Stripe dispute),
 * dispute_closed (409: closed already).
 */
export async function closeSandboxDispute(deps: AppDeps, actor: AdminActor, disputeId: string, outcome: 'won' | 'lost'): Promise<DisputeView> {
  const first = await firstRow(deps.db, schema.shareDisputes, eq(schema.shareDisputes.id, disputeId));
  if (!first) throw new AppError('resource_not_found', 'No such dispute.');
  if (first.vendor !== 'simulated') {
    throw new AppError('share_not_disputable', "This dispute is Stripe's: it closes when Stripe says so, not through the simulator.");
  }
  const check = async (tx: DbOrTx) => {
    const now = (await firstRow(tx, schema.shareDisputes, eq(schema.shareDisputes.id, disputeId)))!;
    if (now.status !== 'open') throw new AppError('dispute_closed', `This dispute was closed already (${now.status}).`);
    // Won: the issuer takes the amount from the card again (the ledger's share.dispute_won); lost: the card keeps it.
    const share = (await firstRow(tx, schema.collectionShares, eq(schema.collectionShares.id, now.shareId)))!;
    if (outcome === 'won' && share.vendorHoldId) await simulateChargeback(tx, share.vendorHoldId, -now.amountCents);
    await recordAudit(tx, deps.clock, {
      adminId: actor.adminId,
      action: 'dispute.sandbox_closed',
      targetType: 'dispute',
      targetId: disputeId,
      before: { status: now.status },
      after: { status: outcome },
      ip: actor.ip,
    });
  };
  const { dispute } = await applyDisputeFact(
    deps,
    {
      vendor: 'simulated',
      vendorDisputeId: first.vendorDisputeId,
      shareId: first.shareId,
      amountCents: first.amountCents,
      reason: first.reason,
      vendorStatus: outcome,
      outcome,
    },
    check,
  );
  return disputeView(dispute!);
}
