import { and, eq, gte, inArray, lt, ne, or, sql } from 'drizzle-orm';
import { schema, firstRow, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';
import { allocate } from '../../lib/split';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { BankDebitPendingError, bankDebitsOf, refreshBankDebit } from '../bcards/bank-debits';
import { creditOwed } from '../funding-sources/bank-standing';
import { remainderBack, spentFee } from '../bcards/remainder';
import { holdKey, LEASE_MS, LeaseLostError, load, renewLease, type Lease, type Loaded } from '../bcards/saga';
import { returnedPart } from '../bcards/notices';
import { notify } from '../notifications/service';

/*
 * Money a Stripe Issuing authorization gives back after bpay approved it (and spent its bcard): the merchant released
 * the hold (a reversal, whole or partial, or an expiry), captured less than it held, or refunded the purchase. What
 * comes back goes to the bcard's funding sources by the split, pro rata: largest remainder over what each share can
 * still give back (its amount, less the bcard's remainder and what earlier returns took), as a merchant's refund of a
 * payment does (modules/refunds). Each source's part is refunded at the processor, then recorded in one transaction:
 * the applied Stripe event, the authorization's returned_cents, the collection's refunded_cents and the ledger.
 *
 * Ledger (a movement per return, reference `<authorization>@<returned before>`, which is also the step of every
 * processor key, `refund:<share>:iauth:<authorization>:<returned before>`):
 *   issuing.released  hold released or captured for less   external:merchants -x, bpay:fees -f, funding_source:<s> +p_s
 *   issuing.refunded  the merchant refunded the purchase     the same postings
 * (a returned bank debit's part goes to receivable:<user>, as everywhere). returned_cents counts both kinds; the split
 * between them is the ledger's: released = returned - refunded. The guards: what is released never exceeds the
 * approved amount less what was captured, and all that returns never exceeds the approved amount (the sources paid
 * no more). The fee follows the return as it follows a merchant's refund (docs/DECISIONS.md): its proportional part,
 * rounded down, and the rest of it when the whole purchase came back (nothing was bought: bpay earns nothing). "The
 * fee" here is the part that stayed with what was spent: the bcard's remainder took its own part back already.
 *
 * Serialised per bcard by its collection's lease (a single-use bcard has one approved authorization): the returns of
 * one authorization never run side by side, so two events cannot both refund the same cents. A collection still
 * settling the bcard's remainder (status refunding) is waited for; past the wait Stripe is asked to retry (503).
 */

type AuthorizationRow = typeof schema.issuerAuthorizations.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;
type Share = Loaded['shares'][number];

export const RETURN_KINDS = ['issuing.released', 'issuing.refunded'] as const;
export type ReturnKind = (typeof RETURN_KINDS)[number];

/** A lease taken for an issuing return: marked, so another event's return waits for it (see takeLease). */
const LEASE_MARK = 'issuing:';
/** How long an event waits for another return of the same bcard (or its remainder's settling) before asking Stripe to retry. */
const LOCK_WAIT_MS = 5_000;
const LOCK_POLL_MS = 25;

export const returnKey = (shareId: string, authorizationId: string, before: number) => `refund:${shareId}:iauth:${authorizationId}:${before}`;
const movementRef = (authorizationId: string, before: number) => `${authorizationId}@${before}`;

/** What returned so far, per kind and per ledger account, read from the ledger's movements of this authorization. */
export interface ReturnedSoFar {
  /** What merchants' refunds returned (purchase part): released = returned_cents - refunded. */
  refunded: number;
  /** Per account (funding_source:<id>, receivable:<user>): everything the returns credited it, fee included. */
  byAccount: Map<string, number>;
}

export async function returnedSoFar(db: DbOrTx, authorizationId: string): Promise<ReturnedSoFar> {
  // The references `<id>@<n>` of one authorization, as a range the (kind, reference) index can walk: '@' is followed
  // by 'A' in ASCII, and the numbers after '@' are digits.
  const rows = await db
    .select({
      kind: schema.ledgerMovements.kind,
      account: schema.ledgerPostings.account,
      sum: sql<number>`sum(${schema.ledgerPostings.amountCents})`,
    })
    .from(schema.ledgerMovements)
    .innerJoin(schema.ledgerPostings, eq(schema.ledgerPostings.movementId, schema.ledgerMovements.id))
    .where(
      and(
        inArray(schema.ledgerMovements.kind, [...RETURN_KINDS]),
        gte(schema.ledgerMovements.referenceId, `${authorizationId}@`),
        lt(schema.ledgerMovements.referenceId, `${authorizationId}A`),
      ),
    )
    .groupBy(schema.ledgerMovements.kind, schema.ledgerPostings.account);
  let refunded = 0;
  const byAccount = new Map<string, number>();
  for (const r of rows) {
    const sum = Number(r.sum);
    if (r.account === accounts.externalMerchants) {
      if (r.kind === 'issuing.refunded') refunded -= sum;
    } else if (sum > 0) {
      byAccount.set(r.account, (byAccount.get(r.account) ?? 0) + sum);
    }
  }
  return { refunded, byAccount };
}

/** The fee that has gone back once `returned` of the approved `approved` came back (see the header). */
export function feeBack(feeCents: number, approved: number, returned: number): number {
  if (approved <= 0 || returned >= approved) return feeCents;
  return Math.floor((feeCents * returned) / approved);
}

/**
 * Takes the collection's lease for a return: only once the collection has settled (completed) and no other return
 * holds it (a lease marked LEASE_MARK and not yet run out). Waits up to LOCK_WAIT_MS, then asks for a retry.
 */
async function takeLease(deps: AppDeps, collectionId: string): Promise<Lease> {
  const owner = `${LEASE_MARK}${newToken()}`;
  // A wait, measured on the monotonic clock: a system clock set back meanwhile must not make it an hour long.
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    const at = deps.clock.now();
    const taken = await deps.db
      .update(schema.collections)
      .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + LEASE_MS) })
      .where(
        and(
          eq(schema.collections.id, collectionId),
          eq(schema.collections.status, 'completed'),
          // A completed collection's last lease is its settling worker's, done: only another return's counts.
          or(lt(schema.collections.leaseUntil, at), sql`substr(${schema.collections.leaseOwner}, 1, ${LEASE_MARK.length}) <> ${LEASE_MARK}`),
        ),
      );
    if (taken.rowsAffected === 1) return { collectionId, owner };
    if (performance.now() >= deadline) {
      throw new AppError(
        'vendor_unavailable',
        "The bcard's money is still being settled by another change; Stripe will send this event again.",
      );
    }
    await Bun.sleep(LOCK_POLL_MS);
  }
}

async function releaseLease(deps: AppDeps, lease: Lease): Promise<void> {
  await deps.db
    .update(schema.collections)
    .set({ leaseUntil: new Date(deps.clock.now().getTime() - 1) })
    .where(and(eq(schema.collections.id, lease.collectionId), eq(schema.collections.leaseOwner, lease.owner)));
}

/** The applied event was applied already (its id is in stripe_events): the caller answers it as a duplicate. */
export class DuplicateEvent extends Error {}

/** Records a Stripe event as applied, in the caller's transaction; throws DuplicateEvent when it already was. */
export async function markApplied(tx: DbOrTx, deps: AppDeps, event: { id: string; type: string }): Promise<void> {
  const [row] = await tx
    .insert(schema.stripeEvents)
    .values({ id: event.id, type: event.type, receivedAt: deps.clock.now() })
    .onConflictDoNothing()
    .returning({ id: schema.stripeEvents.id });
  if (!row) throw new DuplicateEvent(event.id);
}

export async function wasApplied(db: DbOrTx, eventId: string): Promise<boolean> {
  return !!(await firstRow(db, schema.stripeEvents, eq(schema.stripeEvents.id, eventId)));
}

export interface ReturnRequest {
  event: { id: string; type: string };
  kind: ReturnKind;
  authorizationId: string;
  /**
   * How much of the purchase goes back, decided on the authorization as it is once the lease is held (another event
   * may have changed it while this one waited), with what returned so far. Zero or less: nothing moves.
   */
  amount: (row: AuthorizationRow, sofar: ReturnedSoFar) => number;
}

/**
 * Returns part of an approved authorization's purchase to the bcard's sources, once per Stripe event. Answers
 * 'duplicate' when the event was applied already, else the cents of the purchase that went back (0: nothing was due,
 * the event is recorded all the same). Fails with vendor_unavailable (503: Stripe retries the event) when the
 * processor does not answer or refuses, a bank share's debit has not settled, or the bcard is busy settling.
 */
export async function returnToSources(deps: AppDeps, req: ReturnRequest): Promise<number | 'duplicate'> {
  const first = await firstRow(deps.db, schema.issuerAuthorizations, eq(schema.issuerAuthorizations.id, req.authorizationId));
  if (!first?.bcardId || first.decision !== 'approved') throw new Error(`authorization ${req.authorizationId} spent no bcard`);
  const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, first.bcardId));
  if (!bcard) throw new Error(`authorization ${req.authorizationId}: no bcard ${first.bcardId}`);

  // Nothing due now is nothing due under the lease either (captures and returns only grow, and only lower what is
  // due): such an event is recorded without waiting for the bcard's settling.
  if (Math.min(req.amount(first, await returnedSoFar(deps.db, first.id)), first.amountCents - first.returnedCents) <= 0) {
    try {
      await deps.db.transaction((tx) => markApplied(tx, deps, req.event));
      return 0;
    } catch (e) {
      if (e instanceof DuplicateEvent) return 'duplicate';
      throw e;
    }
  }
  const lease = await takeLease(deps, bcard.collectionId);
  try {
    if (await wasApplied(deps.db, req.event.id)) return 'duplicate';
    const row = (await firstRow(deps.db, schema.issuerAuthorizations, eq(schema.issuerAuthorizations.id, req.authorizationId)))!;
    const sofar = await returnedSoFar(deps.db, row.id);
    // Never more than the sources paid for this purchase, whatever the event says.
    const amount = Math.min(req.amount(row, sofar), row.amountCents - row.returnedCents);
    if (amount <= 0) {
      await deps.db.transaction((tx) => markApplied(tx, deps, req.event));
      return 0;
    }
    await giveBack(deps, lease, { row, bcard, sofar, amount, kind: req.kind, event: req.event });
    return amount;
  } catch (e) {
    if (e instanceof DuplicateEvent) return 'duplicate';
    if (e instanceof VendorUnavailableError || e instanceof LeaseLostError) {
      deps.log.warn('a Stripe Issuing return could not finish now; Stripe will send the event again', {
        eventId: req.event.id,
        authorizationId: req.authorizationId,
        error: e,
      });
      throw new AppError('vendor_unavailable', 'The card processor did not answer; nothing was recorded. Stripe will send this event again.');
    }
    if (e instanceof VendorDeclineError) {
      deps.log.error('the processor refused to return an Issuing purchase to a funding source; the event is retried', {
        eventId: req.event.id,
        authorizationId: req.authorizationId,
        error: e,
      });
      throw new AppError('vendor_unavailable', 'The card processor refused the refund; nothing was recorded. Stripe will send this event again.');
    }
    throw e;
  } finally {
    await releaseLease(deps, lease);
  }
}

interface GiveBack {
  row: AuthorizationRow;
  bcard: BcardRow;
  sofar: ReturnedSoFar;
  /** The purchase's part (the fee's part is added here). */
  amount: number;
  kind: ReturnKind;
  event: { id: string; type: string };
}

/** What each share can still give back: its amount, less the bcard's remainder and what earlier returns credited it. */
function refundableByShare(loaded: Loaded, bcard: BcardRow, sofar: ReturnedSoFar, returnedShares: Set<string>): number[] {
  const { shares, collection } = loaded;
  // The remainder went back pro rata with its part of the fee, exactly as settleRefund gives it.
  const back = remainderBack(collection, bcard.limitCents - bcard.spentCents, shares.map((s) => s.amountCents)).parts;
  // A returned bank share's parts went to the consumer's receivable, one account for all of them: attributed to those
  // shares in their order, each up to what it could give (one such share per collection is the rule in practice).
  // (Past what was owed it went to payable:<user>, creditOwed: the same money, counted with it.)
  let receivable =
    (sofar.byAccount.get(accounts.receivable(collection.userId)) ?? 0) + (sofar.byAccount.get(accounts.payable(collection.userId)) ?? 0);
  return shares.map((s, i) => {
    const can = s.amountCents - (back[i] ?? 0);
    let taken = sofar.byAccount.get(accounts.fundingSource(s.source.id)) ?? 0;
    if (returnedShares.has(s.id)) {
      const part = Math.min(receivable, Math.max(0, can - taken));
      receivable -= part;
      taken += part;
    }
    return Math.max(0, can - taken);
  });
}

async function giveBack(deps: AppDeps, lease: Lease, g: GiveBack): Promise<void> {
  const { row, bcard, amount } = g;
  const loaded = await load(deps.db, bcard.collectionId);
  const { collection, shares } = loaded;
  if (collection.kind === 'sandbox' || shares.length === 0) throw new Error(`collection ${collection.id} has no shares to return to`);
  const before = row.returnedCents;
  // The fee that stayed with what was spent (the remainder took its own part back: bcards/remainder.ts).
  const spent = spentFee(collection, bcard.limitCents - bcard.spentCents);
  const fee = feeBack(spent, row.amountCents, before + amount) - feeBack(spent, row.amountCents, before);
  const debits = await bankDebitsOf(deps.db, shares.map((s) => s.id));
  const returnedShares = new Set([...debits.values()].filter((d) => d.status === 'returned').map((d) => d.shareId));
  const refundable = refundableByShare(loaded, bcard, g.sofar, returnedShares);
  const total = amount + fee;
  const sum = refundable.reduce((a, b) => a + b, 0);
  if (sum < total) throw new Error(`authorization ${row.id}: the shares of ${collection.id} can give back ${sum}, not ${total}`);
  const parts = allocate(total, refundable);

  const vendor = deps.vendorFor(collection.vendor);
  /** Each share's part at the processor; answers the shares whose part went to the consumer's receivable instead. */
  const refundAll = async (v: PaymentVendor, beforeCall: () => Promise<void>): Promise<Set<string>> => {
    const toReceivable = new Set<string>();
    // Card shares first: a bank share whose debit is still settling stops the pass after them (retried by Stripe;
    // every refund is keyed, so the card shares' refunds replay instead of repeating).
    const order = [...shares.entries()].sort(([, a], [, b]) => Number(debits.has(a.id)) - Number(debits.has(b.id)));
    for (const [i, share] of order) {
      const part = parts[i] ?? 0;
      if (part === 0) continue;
      const debit = debits.get(share.id);
      if (debit) {
        const status = await refreshBankDebit(deps, debit);
        if (status === 'pending') throw new BankDebitPendingError(share.id);
        if (status === 'returned') {
          toReceivable.add(share.id);
          continue;
        }
      }
      await beforeCall();
      const holdId = share.vendorHoldId ?? (await v.findHold(holdKey(share.id)))?.holdId;
      if (!holdId) throw new Error(`share ${share.id} of a completed collection has no hold`);
      await v.refund(holdId, part, { idempotencyKey: returnKey(share.id, row.id, before) });
    }
    return toReceivable;
  };
  const record = async (tx: DbOrTx, toReceivable: Set<string>) => {
    await renewLease(tx, deps, lease);
    await markApplied(tx, deps, g.event);
    const at = deps.clock.now();
    const moved = await tx
      .update(schema.issuerAuthorizations)
      .set({ returnedCents: sql`${schema.issuerAuthorizations.returnedCents} + ${amount}`, updatedAt: at })
      .where(and(eq(schema.issuerAuthorizations.id, row.id), eq(schema.issuerAuthorizations.returnedCents, before)));
    if (moved.rowsAffected !== 1) throw new LeaseLostError(collection.id);
    // The collections CHECK keeps refunded_cents within what was charged.
    await tx
      .update(schema.collections)
      .set({ refundedCents: sql`${schema.collections.refundedCents} + ${total}`, updatedAt: at })
      .where(eq(schema.collections.id, collection.id));
    const backTo = (s: Share) => (toReceivable.has(s.id) ? accounts.receivable(collection.userId) : accounts.fundingSource(s.source.id));
    await postMovement(tx, {
      kind: g.kind,
      referenceId: movementRef(row.id, before),
      at,
      postings: await creditOwed(tx, collection.userId, [
        { account: accounts.externalMerchants, amountCents: -amount },
        { account: accounts.fees, amountCents: -fee },
        ...shares.map((s, i) => ({ account: backTo(s), amountCents: parts[i] ?? 0 })),
      ]),
    });
    // A merchant's refund (not a released hold) is told to the owner, once: this transaction also marks the Stripe
    // event applied and moves returned_cents from `before`, so a replayed event writes nothing.
    if (g.kind === 'issuing.refunded') {
      const toSources = shares.map((s, i) => ({ s, cents: parts[i] ?? 0 })).filter(({ s, cents }) => cents > 0 && !toReceivable.has(s.id));
      await notify(
        tx,
        deps,
        collection.userId,
        'merchant_refund',
        {
          merchant: row.merchantName,
          amount: formatDecimal(total as Cents),
          parts: toSources.map(({ s, cents }) => returnedPart(s.source, cents)),
          transactionId: collection.id,
        },
        at,
      );
    }
  };
  if (vendor.within) {
    const local = vendor.within.bind(vendor);
    await deps.db.transaction(async (tx) => record(tx, await refundAll(local(tx), async () => undefined)));
    return;
  }
  const toReceivable = await refundAll(vendor, () => renewLease(deps.db, deps, lease));
  await deps.db.transaction((tx) => record(tx, toReceivable));
}

/** The approved Stripe authorization that spent this bcard (a single-use bcard has at most one). */
export function approvedAuthorizationOf(db: DbOrTx, bcardId: string) {
  return firstRow(
    db,
    schema.issuerAuthorizations,
    and(
      eq(schema.issuerAuthorizations.bcardId, bcardId),
      eq(schema.issuerAuthorizations.network, 'stripe'),
      eq(schema.issuerAuthorizations.decision, 'approved'),
      ne(schema.issuerAuthorizations.amountCents, 0),
    ),
  );
}
