import { bcardOfCollection } from './statements';
import { and, eq } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { SEARCH_LAG_MS, VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { BankDebitPendingError, bankDebitsOf, refreshBankDebit } from './bank-debits';
import { creditOwed } from '../funding-sources/bank-standing';
import { remainderBack } from './remainder';
import { noticeBcardEnded, returnedPart } from './notices';
import {
  holdKey,
  LEASE_MS,
  LeaseLostError,
  load,
  now,
  refundKey,
  renewLease,
  setShare,
  setStatus,
  type Lease,
  type Loaded,
} from './saga';

/*
 * A collection's shares going back to their sources (the consumer's money; a merchant's refund of a payment is
 * modules/refunds): the holds of a collection that failed are voided, and a bcard's shares are refunded when it
 * ends unused (expired, canceled), when what a purchase left on it goes back, or when capture or issuing failed.
 * Every call carries the share's key, so the recovery sweep can repeat any of it after a crash.
 */

type CollectionRow = typeof schema.collections.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

/**
 * The processor's record of a share's hold: read by its id when bpay recorded one (strongly consistent), otherwise
 * looked up by the share's idempotency key (a hold placed just before a crash, its answer lost).
 */
function holdOf(vendor: PaymentVendor, share: { id: string; vendorHoldId: string | null }) {
  return share.vendorHoldId ? vendor.getHold(share.vendorHoldId) : vendor.findHold(holdKey(share.id));
}

/**
 * Voids every hold of a collection that did not complete, including one placed just before a crash. A share that
 * may have reached a remote processor (`maybePlaced`) but is not found by its key yet is not called voided while the
 * processor's search may still lag: the undoing stops (vendor_unavailable) and the sweep tries again later.
 */
export async function releaseHolds(
  deps: AppDeps,
  vendor: PaymentVendor,
  loaded: Loaded,
  maybePlaced: (shareId: string) => boolean,
): Promise<void> {
  for (const share of loaded.shares) {
    if (share.status === 'voided' || share.status === 'declined') continue;
    const holdId = share.vendorHoldId ?? (await vendor.findHold(holdKey(share.id)))?.holdId ?? null;
    const lagging = now(deps).getTime() - loaded.collection.createdAt.getTime() < SEARCH_LAG_MS;
    if (!holdId && vendor.searchLags && maybePlaced(share.id) && lagging) {
      throw new VendorUnavailableError(`the hold of share ${share.id} may not be visible at the processor yet`);
    }
    if (holdId) await vendor.voidHold(holdId);
    await setShare(deps.db, deps, share.id, { status: 'voided', vendorHoldId: holdId });
  }
}

/**
 * From refunding: returns money to the sources and settles. Three cases, by the bcard's state:
 * - no bcard (capture or issuing failed): captured shares refunded in full, held ones voided -> failed;
 * - bcard expiring/canceling (unused): deactivated, every share refunded in full, fee included -> refunded;
 * - bcard used: deactivated, and the remainder (if the purchase left any) goes back pro rata to the shares with its
 *   pro-rata part of the fee, as a merchant's refund does -> completed.
 * Every refund carries the share's key, so repeating this after a crash never refunds twice.
 */
export async function settleRefund(deps: AppDeps, lease: Lease): Promise<void> {
  const loaded = await load(deps.db, lease.collectionId);
  const { collection } = loaded;
  const vendor = deps.vendorFor(collection.vendor);
  const bcard = (await bcardOfCollection(deps.db).get({ collectionId: collection.id })) ?? null;
  const at = now(deps);

  if (!bcard) {
    // Capture or issuing failed: what the processor captured goes back, what it only held is released. The
    // processor's own record decides, so a capture that happened just before a crash is refunded too.
    let refunded = 0;
    for (const share of loaded.shares) {
      await renewLease(deps.db, deps, lease);
      const found = await holdOf(vendor, share);
      // bpay recorded this share as held or captured but the processor's search does not show it yet (Stripe's
      // search lags writes): ask again at the next sweep rather than call it voided and leave money behind.
      if (!found && (share.status === 'held' || share.status === 'captured')) {
        throw new VendorUnavailableError(`the hold of share ${share.id} is not visible at the processor yet`);
      }
      if (found?.status === 'captured') {
        await vendor.refund(found.holdId, share.amountCents, { idempotencyKey: refundKey(share.id) });
        await setShare(deps.db, deps, share.id, { status: 'refunded', vendorHoldId: found.holdId });
        refunded += share.amountCents;
      } else {
        if (found?.status === 'held') await vendor.voidHold(found.holdId);
        await setShare(deps.db, deps, share.id, { status: 'voided', vendorHoldId: found?.holdId ?? null });
      }
    }
    await setStatus(deps.db, deps, lease, 'refunding', 'failed', { refundedCents: refunded });
    return;
  }

  // The one-pool sandbox test bcard has no shares; a split one (test-helpers/split.ts) goes back through its shares below.
  if (collection.kind === 'sandbox' && loaded.shares.length === 0) return settleSandboxRefund(deps, lease, collection, bcard, vendor);

  // Used with money left on it: the remainder and its part of the fee go back pro rata (bcards/remainder.ts).
  // Unused: every share goes back in full.
  const used = bcard.status === 'used';
  const back = remainderBack(collection, bcard.limitCents - bcard.spentCents, loaded.shares.map((s) => s.amountCents));
  const refunds = used ? back.parts : loaded.shares.map((s) => s.amountCents);
  await vendor.deactivateCard(bcard.vendorCardId);
  // A purchase that spent the bcard exactly gives nothing back: no share's debit is asked about (a statement fewer on
  // every such payment).
  const debits = refunds.some((a) => a > 0) ? await bankDebitsOf(deps.db, loaded.shares.map((s) => s.id)) : new Map<string, never>();
  /** Shares whose bank debit came back: what is due to them reduces what the consumer owes instead. */
  const returned = new Set<string>();
  // Card shares first, whatever their place in the split: a bank share whose debit is still settling stops this pass,
  // and must not hold a card's money back with it (hostile review of issue 16). Each refund is keyed, so the next
  // sweep's pass repeats the card refunds without refunding twice.
  const order = [...loaded.shares.entries()].sort(([, a], [, b]) => Number(debits.has(a.id)) - Number(debits.has(b.id)));
  for (const [i, share] of order) {
    const amount = refunds[i] ?? 0;
    if (amount === 0) continue;
    await renewLease(deps.db, deps, lease);
    const debit = debits.get(share.id);
    if (debit) {
      // A bank debit still settling cannot be refunded (the money may never arrive): the card shares have gone back
      // above; this one waits, and the sweep comes back until the debit settles or is returned.
      const status = await refreshBankDebit(deps, debit);
      if (status === 'pending') throw new BankDebitPendingError(share.id);
      // Returned, unless this share was refunded at the processor in an earlier pass (a crash before the recording
      // below): that money went back to the bank account, so it is recorded so (the refund's key pays nothing twice).
      if (status === 'returned' && share.status !== 'refunded') {
        returned.add(share.id);
        continue;
      }
    }
    const holdId = share.vendorHoldId ?? (await vendor.findHold(holdKey(share.id)))?.holdId;
    if (!holdId) throw new Error(`share ${share.id} of a completed collection has no hold`);
    await vendor.refund(holdId, amount, { idempotencyKey: refundKey(share.id) });
    await setShare(deps.db, deps, share.id, { status: 'refunded' });
  }
  const refundedTotal = refunds.reduce((a, b) => a + b, 0);
  const backTo = (s: (typeof loaded.shares)[number]) =>
    returned.has(s.id) ? accounts.receivable(collection.userId) : accounts.fundingSource(s.source.id);

  await deps.db.transaction(async (tx) => {
    if (used) {
      await setStatus(tx, deps, lease, 'refunding', 'completed', { refundedCents: refundedTotal });
      if (refundedTotal > 0) {
        await postMovement(tx, {
          kind: 'bcard.remainder_refunded',
          referenceId: bcard.id,
          at,
          postings: await creditOwed(tx, collection.userId, [
            { account: accounts.bcard(bcard.id), amountCents: -back.remainderCents },
            { account: accounts.fees, amountCents: -back.feeCents },
            ...loaded.shares.map((s, i) => ({ account: backTo(s), amountCents: refunds[i] ?? 0 })),
          ]),
        });
      }
      return;
    }
    // A bank debit returned before the bcard was used: the collection failed (the card shares went back, nothing is
    // owed: the returned share's receivable is cleared by its part here).
    await setStatus(tx, deps, lease, 'refunding', returned.size > 0 ? 'failed' : 'refunded', { refundedCents: refundedTotal });
    await tx
      .update(schema.bcards)
      .set({ status: bcard.status === 'canceling' ? 'canceled' : 'expired', deactivatedAt: at })
      .where(and(eq(schema.bcards.id, bcard.id), eq(schema.bcards.status, bcard.status)));
    await postMovement(tx, {
      kind: 'bcard.refunded',
      referenceId: bcard.id,
      at,
      postings: await creditOwed(tx, collection.userId, [
        { account: accounts.bcard(bcard.id), amountCents: -collection.amountCents },
        { account: accounts.fees, amountCents: -collection.feeCents },
        ...loaded.shares.map((s) => ({ account: backTo(s), amountCents: s.amountCents })),
      ]),
    });
    // Once: the guarded refunding -> refunded/failed above lets one worker (the request's, or the sweep's) get here.
    const wentBack = loaded.shares.filter((s) => !returned.has(s.id));
    await noticeBcardEnded(
      tx,
      deps,
      bcard,
      bcard.status === 'canceling' ? 'canceled' : 'expired',
      wentBack.map((s) => returnedPart(s.source, s.amountCents)),
      wentBack.reduce((a, s) => a + s.amountCents, 0),
      at,
    );
  });
}

/**
 * settleRefund for a merchant's sandbox test bcard: it has no shares, so what goes back (everything when unused,
 * the remainder when used) returns to `sandbox:test_funds`, where it came from. No consumer source is touched.
 */
async function settleSandboxRefund(deps: AppDeps, lease: Lease, collection: CollectionRow, bcard: BcardRow, vendor: PaymentVendor) {
  const at = now(deps);
  const used = bcard.status === 'used';
  const back = used ? bcard.limitCents - bcard.spentCents : collection.amountCents;
  await vendor.deactivateCard(bcard.vendorCardId);
  await deps.db.transaction(async (tx) => {
    if (used) {
      await setStatus(tx, deps, lease, 'refunding', 'completed', { refundedCents: back });
    } else {
      await setStatus(tx, deps, lease, 'refunding', 'refunded', { refundedCents: back });
      await tx
        .update(schema.bcards)
        .set({ status: bcard.status === 'canceling' ? 'canceled' : 'expired', deactivatedAt: at })
        .where(and(eq(schema.bcards.id, bcard.id), eq(schema.bcards.status, bcard.status)));
    }
    if (back > 0) {
      await postMovement(tx, {
        kind: used ? 'bcard.remainder_refunded' : 'bcard.refunded',
        referenceId: bcard.id,
        at,
        postings: [
          { account: accounts.bcard(bcard.id), amountCents: -back },
          { account: accounts.sandboxTestFunds, amountCents: back },
        ],
      });
    }
  });
}

/**
 * Starts refunding an unused bcard (expired or canceled): one guarded transaction moves the card to
 * expiring/canceling and its collection to refunding under a new lease; then settles.
 *
 * `from` is the status the card must be in: `active` (a consumer's cancel, expiry, a failed checkout) or
 * `authorized` (only the cancel of the payment intent it is authorized for, by its merchant or automatically).
 * Once that transaction has committed the refund has happened as far as bpay is concerned: if the processor fails
 * while settling, the failure is logged and the recovery sweep settles it when the lease runs out.
 * Fails with: bcard_not_active (not in `from`: already used, expired, canceled, or authorized when `from` is active).
 */
export async function refundUnusedBcard(
  deps: AppDeps,
  bcard: BcardRow,
  reason: 'expired' | 'canceled',
  /** More writes that must commit with the start of the refund (a canceled payment intent and its event). */
  within?: (tx: DbOrTx) => Promise<void>,
  from: 'active' | 'authorized' = 'active',
): Promise<void> {
  const lease = await deps.db.transaction(async (tx) => {
    const started = await startUnusedRefund(tx, deps, bcard, reason, from);
    if (!started) throw new AppError('bcard_not_active');
    if (within) await within(tx);
    return started;
  });
  await settleAfterCommit(deps, lease, { bcardId: bcard.id, step: `bcard ${reason}` });
}

/**
 * refundUnusedBcard's first transaction, in the caller's: the bcard from `from` (unspent) to expiring/canceling and
 * its collection to refunding under a new lease. Null when the bcard is no longer in `from` or was spent; the caller
 * settles after its commit (settleAfterCommit), or the recovery sweep does once the lease runs out.
 */
export async function startUnusedRefund(
  tx: DbOrTx,
  deps: AppDeps,
  bcard: BcardRow,
  reason: 'expired' | 'canceled',
  from: 'active' | 'authorized' = 'active',
): Promise<Lease | null> {
  const owner = newToken();
  const at = now(deps);
  const res = await tx
    .update(schema.bcards)
    .set({ status: reason === 'canceled' ? 'canceling' : 'expiring' })
    .where(and(eq(schema.bcards.id, bcard.id), eq(schema.bcards.status, from), eq(schema.bcards.spentCents, 0)));
  if (res.rowsAffected !== 1) return null;
  const col = await tx
    .update(schema.collections)
    .set({ status: 'refunding', leaseOwner: owner, leaseUntil: new Date(at.getTime() + LEASE_MS), updatedAt: at })
    .where(and(eq(schema.collections.id, bcard.collectionId), eq(schema.collections.status, 'completed')));
  if (col.rowsAffected !== 1) throw new Error(`collection of bcard ${bcard.id} is not completed`);
  return { collectionId: bcard.collectionId, owner };
}

/**
 * The processor's part of a change that has already committed (a refund started, a bcard spent). Its failure must
 * not turn the committed answer into an error (the client would retry a payment that went through): it is logged
 * and left to the recovery sweep, which takes the collection once this lease runs out and settles it again (every
 * processor call is idempotent per share).
 */
export async function settleAfterCommit(deps: AppDeps, lease: Lease, ids: { bcardId: string; step: string }): Promise<void> {
  try {
    await settleRefund(deps, lease);
  } catch (error) {
    // The processor not answering (or refusing) is expected now and then; anything else deserves a closer look.
    const expected = error instanceof VendorUnavailableError || error instanceof VendorDeclineError || error instanceof LeaseLostError;
    deps.log[expected ? 'warn' : 'error']('the processor could not finish a committed change; the recovery sweep will finish it', {
      collectionId: lease.collectionId,
      bcardId: ids.bcardId,
      step: ids.step,
      error,
    });
  }
}
