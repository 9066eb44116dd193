import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import { schema, type CollectionStatus, type DbOrTx, firstRow } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { allocate } from '../../lib/split';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { accounts, postMovement } from '../ledger/service';
import { assertBankStanding, BankDebitPendingError, bankDebitsOf, refreshBankDebit } from './bank-debits';

/*
 * All-or-nothing split collection. A collection is recorded first (status holding), then every share is held at
 * the processor; only when all hold are they captured (capturing) and a bcard issued (completed). A failure voids
 * every hold. Refunds (an unused bcard, or what a purchase left on it) go through refunding.
 *
 * Every processor call carries an idempotency key derived from the share or collection id, so the recovery sweep
 * can repeat any step after a crash: holding is undone, capturing is finished, refunding is settled.
 */

type CollectionRow = typeof schema.collections.$inferSelect;
type ShareRow = typeof schema.collectionShares.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

/** The collection state machine. */
export const COLLECTION_TRANSITIONS: Record<CollectionStatus, readonly CollectionStatus[]> = {
  holding: ['capturing', 'failed'],
  capturing: ['completed', 'refunding'],
  completed: ['refunding'],
  refunding: ['refunded', 'completed', 'failed'],
  refunded: [],
  failed: [],
};

export function assertTransition(from: CollectionStatus, to: CollectionStatus): void {
  if (!COLLECTION_TRANSITIONS[from].includes(to)) {
    throw new Error(`collection cannot go from ${from} to ${to}`);
  }
}

/** How long a worker owns a collection without renewing; longer than any one processor call may take. */
export const LEASE_MS = 60_000;

export const holdKey = (shareId: string) => `hold:${shareId}`;
export const refundKey = (shareId: string) => `refund:${shareId}`;
export const issueKey = (collectionId: string) => `issue:${collectionId}`;

export interface PlannedShare {
  source: SourceRow;
  percentageBps: number;
  amountCents: number;
}

export interface CollectionPlan {
  kind: 'bcard' | 'purchase';
  name: string;
  cardholderName: string;
  merchant: string | null;
  description: string | null;
  amountCents: number;
  feeCents: number;
  shares: PlannedShare[];
  idempotencyKey: string | null;
  lockedMerchantId: string | null;
}

export interface Lease {
  collectionId: string;
  owner: string;
}

const now = (deps: AppDeps) => deps.clock.now();

async function setStatus(
  db: DbOrTx,
  deps: AppDeps,
  lease: Lease,
  from: CollectionStatus,
  to: CollectionStatus,
  extra: Partial<typeof schema.collections.$inferInsert> = {},
): Promise<void> {
  assertTransition(from, to);
  const res = await db
    .update(schema.collections)
    .set({ status: to, updatedAt: now(deps), ...extra })
    .where(
      and(
        eq(schema.collections.id, lease.collectionId),
        eq(schema.collections.status, from),
        eq(schema.collections.leaseOwner, lease.owner),
      ),
    );
  if (res.rowsAffected !== 1) throw new LeaseLostError(lease.collectionId);
}

/** Another worker took the collection over (our lease ran out): stop touching it. */
export class LeaseLostError extends Error {
  constructor(collectionId: string) {
    super(`lost the lease on collection ${collectionId}`);
  }
}

async function renewLease(db: DbOrTx, deps: AppDeps, lease: Lease): Promise<void> {
  const res = await db
    .update(schema.collections)
    .set({ leaseUntil: new Date(now(deps).getTime() + LEASE_MS) })
    .where(and(eq(schema.collections.id, lease.collectionId), eq(schema.collections.leaseOwner, lease.owner)));
  if (res.rowsAffected !== 1) throw new LeaseLostError(lease.collectionId);
}

const startOfMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * Records the collection and its shares (status holding) in one transaction, after checking the plan's monthly
 * limits inside it, so concurrent requests cannot pass a limit together. Returns the lease to work under.
 * Fails with: plan_limit_reached.
 */
export async function recordCollection(
  deps: AppDeps,
  userId: string,
  plan: CollectionPlan,
  limits: { monthlyTransactions: number; bcardGenerationLimit: number; planName: string; tierName: string },
): Promise<{ lease: Lease; existing: boolean }> {
  const owner = newToken();
  const at = now(deps);
  const id = newId('col');
  return deps.db.transaction(async (tx) => {
    if (plan.idempotencyKey) {
      const prior = await firstRow(tx, schema.collections, and(eq(schema.collections.userId, userId), eq(schema.collections.idempotencyKey, plan.idempotencyKey)));
      if (prior) return { lease: { collectionId: prior.id, owner: prior.leaseOwner }, existing: true };
    }
    await assertSourcesStillUsable(tx, userId, plan.shares);
    const bankCents = plan.shares.filter((s) => s.source.type === 'bank_account').reduce((a, s) => a + s.amountCents, 0);
    await assertBankStanding(tx, userId, bankCents, { name: limits.tierName, displayName: limits.planName });
    const [row] = await tx
      .select({ n: sql<number>`count(*)` })
      .from(schema.collections)
      .where(
        and(
          eq(schema.collections.userId, userId),
          sql`${schema.collections.status} != 'failed'`,
          // A merchant's sandbox test bcards do not use the owner's consumer plan.
          sql`${schema.collections.kind} != 'sandbox'`,
          sql`${schema.collections.createdAt} >= ${startOfMonth(at).getTime()}`,
        ),
      );
    const thisMonth = Number(row?.n ?? 0);
    const cap = Math.min(
      ...[limits.monthlyTransactions, limits.bcardGenerationLimit].filter((l) => l !== -1),
      Number.POSITIVE_INFINITY,
    );
    if (thisMonth >= cap) {
      throw new AppError(
        'plan_limit_reached',
        `Your ${limits.planName} plan allows ${cap} bcards a month, and you have used them all. ` +
          'Upgrade your plan or wait for next month.',
      );
    }
    await tx.insert(schema.collections).values({
      id,
      userId,
      kind: plan.kind,
      status: 'holding',
      amountCents: plan.amountCents,
      feeCents: plan.feeCents,
      totalCents: plan.amountCents + plan.feeCents,
      name: plan.name,
      cardholderName: plan.cardholderName,
      merchant: plan.merchant,
      description: plan.description,
      lockedMerchantId: plan.lockedMerchantId,
      vendor: deps.vendor.name,
      idempotencyKey: plan.idempotencyKey,
      leaseOwner: owner,
      leaseUntil: new Date(at.getTime() + LEASE_MS),
      createdAt: at,
      updatedAt: at,
    });
    await tx.insert(schema.collectionShares).values(
      plan.shares.map((s, position) => ({
        id: newId('shr'),
        collectionId: id,
        fundingSourceId: s.source.id,
        position,
        percentageBps: s.percentageBps,
        amountCents: s.amountCents,
        status: 'pending' as const,
        updatedAt: at,
      })),
    );
    return { lease: { collectionId: id, owner }, existing: false };
  });
}

/**
 * The plan's sources were checked when it was made, outside this transaction; a source removed or paused since
 * (a DELETE racing the request) must not be charged. Checked again here, where the collection is recorded: a
 * removal commits either before (this request fails) or after (the removal sees a live collection and is refused).
 */
async function assertSourcesStillUsable(tx: DbOrTx, userId: string, shares: PlannedShare[]): Promise<void> {
  if (shares.length === 0) return;
  const rows = await tx
    .select({ id: schema.fundingSources.id, isActive: schema.fundingSources.isActive })
    .from(schema.fundingSources)
    .where(
      and(
        inArray(schema.fundingSources.id, shares.map((s) => s.source.id)),
        eq(schema.fundingSources.userId, userId),
        isNull(schema.fundingSources.deletedAt),
      ),
    );
  const now = new Map(rows.map((r) => [r.id, r.isActive]));
  for (const [i, { source }] of shares.entries()) {
    if (!now.has(source.id)) throw notFound('funding source');
    if (!now.get(source.id)) {
      throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source ${source.name} (•••• ${source.last4}) is paused.`);
    }
  }
}

interface Loaded {
  collection: CollectionRow;
  shares: Array<ShareRow & { source: SourceRow }>;
}

async function load(db: DbOrTx, collectionId: string): Promise<Loaded> {
  const collection = await firstRow(db, schema.collections, eq(schema.collections.id, collectionId));
  if (!collection) throw new Error(`no collection ${collectionId}`);
  const rows = await db
    .select({ share: schema.collectionShares, source: schema.fundingSources })
    .from(schema.collectionShares)
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .where(eq(schema.collectionShares.collectionId, collectionId))
    .orderBy(asc(schema.collectionShares.position));
  return { collection, shares: rows.map((r) => ({ ...r.share, source: r.source })) };
}

async function setShare(db: DbOrTx, deps: AppDeps, shareId: string, set: Partial<typeof schema.collectionShares.$inferInsert>) {
  await db
    .update(schema.collectionShares)
    .set({ ...set, updatedAt: now(deps) })
    .where(eq(schema.collectionShares.id, shareId));
}

/**
 * One saga phase, one commit (issue 14): the processor's calls and bpay's record of what they answered.
 * - A processor whose state lives in this database (the simulator, `within`) is called inside the transaction: its
 *   writes commit with the record, or neither does.
 * - A remote processor (Stripe) is called first, outside any transaction, so no write waits while the network
 *   answers; the lease is renewed before each call (`beforeCall`), and the answers are recorded afterwards. A crash
 *   between the two leaves calls that the sweep finds again by their idempotency keys.
 * `record` checks the lease (setStatus, renewLease): if another worker took the collection over, nothing is recorded.
 */
async function phase<T, R>(
  deps: AppDeps,
  vendor: PaymentVendor,
  lease: Lease,
  calls: (v: PaymentVendor, beforeCall: () => Promise<void>) => Promise<T>,
  record: (tx: DbOrTx, answered: T) => Promise<R>,
): Promise<R> {
  if (vendor.within) {
    const local = vendor.within.bind(vendor);
    return deps.db.transaction(async (tx) => record(tx, await calls(local(tx), async () => undefined)));
  }
  const answered = await calls(vendor, () => renewLease(deps.db, deps, lease));
  return deps.db.transaction((tx) => record(tx, answered));
}

interface Decline {
  fundingSourceId: string;
  name: string;
  last4: string;
  code: string;
  message: string;
}

/**
 * The processor's record of a share's hold: read by its id when bpay recorded one (strongly consistent), otherwise
 * looked up by the share's idempotency key (a hold placed just before a crash, its answer lost).
 */
function holdOf(vendor: PaymentVendor, share: { id: string; vendorHoldId: string | null }) {
  return share.vendorHoldId ? vendor.getHold(share.vendorHoldId) : vendor.findHold(holdKey(share.id));
}

/** How long a remote processor's search by key may lag a hold it placed (Stripe's search: about a minute). */
export const SEARCH_LAG_MS = 10 * 60_000;

/**
 * Voids every hold of a collection that did not complete, including one placed just before a crash. A share that
 * may have reached a remote processor (`maybePlaced`) but is not found by its key yet is not called voided while the
 * processor's search may still lag: the undoing stops (vendor_unavailable) and the sweep tries again later.
 */
async function releaseHolds(
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

const money = (c: number) => formatDecimal(c as Cents);
const label = (s: SourceRow) => `${s.name} (•••• ${s.last4})`;

/** The spec's shortfall details, read after the holds are released so the balances are what is really there. */
async function insufficientFundsError(deps: AppDeps, loaded: Loaded): Promise<AppError> {
  const balances = await Promise.all(
    loaded.shares.map((s) => deps.vendorFor(s.source.vendor).availableBalance(s.source.vendorToken).catch(() => null)),
  );
  const totalRequired = loaded.collection.totalCents;
  const totalAvailable = balances.reduce<number>((a, b) => a + (b ?? 0), 0);
  const short = loaded.shares
    .map((s, i) => ({ s, available: balances[i] ?? null }))
    .filter(({ s, available }) => s.status === 'declined' || (available !== null && available < s.amountCents));
  const insufficientSources = short.map(({ s, available }) => ({
    fundingSourceId: s.source.id,
    name: label(s.source),
    requiredAmount: money(s.amountCents),
    availableBalance: available === null ? null : money(available),
  }));
  const parts = insufficientSources.map(
    (x) => `${x.name} needs $${x.requiredAmount}${x.availableBalance === null ? '' : `, has $${x.availableBalance}`}`,
  );
  return new AppError(
    'insufficient_funds',
    `Insufficient funds: ${parts.join('; ')}. Need $${money(totalRequired)} in total.`,
    'fundingSources',
    undefined,
    {
      details: {
        totalRequired: money(totalRequired),
        totalAvailable: money(totalAvailable),
        insufficientSources,
      },
    },
  );
}

/**
 * The processor stopped answering while a failed collection was being undone. The collection keeps its status
 * and our lease; once the lease runs out the recovery sweep finishes the undoing. Nothing stays charged, so the
 * caller gets vendor_unavailable rather than an opaque 500.
 */
function stillUnavailable(e: unknown): never {
  if (e instanceof VendorUnavailableError) throw new AppError('vendor_unavailable');
  throw e;
}

/** What placing the holds came to: each held share's hold, and why the first share that did not hold did not. */
interface HoldOutcome {
  held: Map<string, string>;
  declined: (Decline & { shareId: string }) | null;
  /** The share whose hold call got no answer: it may have been placed. */
  unanswered: string | null;
  unavailable: boolean;
}

/**
 * Places every hold, then captures them all and issues the bcard: with the recording of the collection, three
 * commits (phase()). On any failure every hold is voided and the collection fails with the reason; the error thrown
 * is what the caller answers.
 * Fails with: insufficient_funds (with details), card_declined (each share's decline), vendor_unavailable.
 */
export async function runCollection(deps: AppDeps, lease: Lease, bcardTtlMs: number): Promise<BcardRow> {
  const vendor = deps.vendor;
  const loaded = await load(deps.db, lease.collectionId);
  const outcome = await phase(
    deps,
    vendor,
    lease,
    async (v, beforeCall): Promise<HoldOutcome> => {
      const held = new Map<string, string>();
      for (const share of loaded.shares) {
        await beforeCall();
        try {
          if (share.source.type === 'bank_account') {
            // A debit cannot be held: its balance is checked now (when the processor can tell), and the debit is
            // initiated in finishCapture, once every card share is held and captured.
            const available = await v.availableBalance(share.source.vendorToken);
            if (available !== null && available < share.amountCents) {
              throw new VendorDeclineError('insufficient_funds', 'The bank account has insufficient funds.');
            }
            continue;
          }
          const { holdId } = await v.hold(share.source.vendorToken, share.amountCents, {
            idempotencyKey: holdKey(share.id),
            description: `bpay ${loaded.collection.name}`,
          });
          held.set(share.id, holdId);
        } catch (e) {
          if (e instanceof VendorDeclineError) {
            const { id: fundingSourceId, name, last4 } = share.source;
            return {
              held,
              declined: { shareId: share.id, fundingSourceId, name, last4, code: e.code, message: e.message },
              unanswered: null,
              unavailable: false,
            };
          }
          if (e instanceof VendorUnavailableError) return { held, declined: null, unanswered: share.id, unavailable: true };
          throw e;
        }
      }
      return { held, declined: null, unanswered: null, unavailable: false };
    },
    async (tx, answered) => {
      for (const [shareId, holdId] of answered.held) await setShare(tx, deps, shareId, { status: 'held', vendorHoldId: holdId });
      const d = answered.declined;
      if (d) await setShare(tx, deps, d.shareId, { status: 'declined', declineCode: d.code, declineMessage: d.message });
      if (d || answered.unavailable) await renewLease(tx, deps, lease);
      else await setStatus(tx, deps, lease, 'holding', 'capturing', { leaseUntil: new Date(now(deps).getTime() + LEASE_MS) });
      return answered;
    },
  );

  if (outcome.declined || outcome.unavailable) {
    const placed = (shareId: string) => shareId === outcome.unanswered;
    await releaseHolds(deps, vendor, await load(deps.db, lease.collectionId), placed).catch(stillUnavailable);
    const released = await load(deps.db, lease.collectionId);
    const declines: Decline[] = outcome.declined ? [outcome.declined].map(({ shareId: _, ...d }) => d) : [];
    let error: AppError;
    if (outcome.unavailable) error = new AppError('vendor_unavailable');
    else if (declines.every((d) => d.code === 'insufficient_funds')) error = await insufficientFundsError(deps, released);
    else {
      error = new AppError(
        'card_declined',
        `A funding source was declined: ${declines.map((d) => `${d.name} (•••• ${d.last4}): ${d.message}`).join('; ')}`,
        'fundingSources',
        undefined,
        { details: { declines } },
      );
    }
    const details = (error.details?.details ?? null) as Record<string, unknown> | null;
    await setStatus(deps.db, deps, lease, 'holding', 'failed', {
      failureCode: error.code,
      failureMessage: error.message,
      failureDetails: details,
    });
    throw error;
  }

  const shares = loaded.shares.map((s) => ({ ...s, status: 'held' as const, vendorHoldId: outcome.held.get(s.id) ?? null }));
  return finishCapture(deps, lease, bcardTtlMs, { collection: { ...loaded.collection, status: 'capturing' }, shares });
}

/**
 * From capturing: captures every hold (again, harmlessly, after a crash), issues the bcard under the
 * collection's key and completes, all postings in the same commit as the capture's record (phase()). If that
 * cannot be done, the collection moves to refunding and every share goes back. `known` is the collection as its
 * caller has just recorded it (the sweep reads it afresh).
 */
export async function finishCapture(deps: AppDeps, lease: Lease, bcardTtlMs: number, known?: Loaded): Promise<BcardRow> {
  const loaded = known ?? (await load(deps.db, lease.collectionId));
  const { collection } = loaded;
  const vendor = deps.vendorFor(collection.vendor);
  let issueAttempted = false;
  try {
    return await phase(
      deps,
      vendor,
      lease,
      async (v, beforeCall) => {
        const holdIds = new Map<string, string>();
        for (const share of loaded.shares) {
          if (share.source.type === 'bank_account') continue;
          await beforeCall();
          const holdId = share.vendorHoldId ?? (await v.findHold(holdKey(share.id)))?.holdId;
          if (!holdId) throw new Error(`share ${share.id} has no hold to capture`);
          await v.capture(holdId);
          holdIds.set(share.id, holdId);
        }
        // Every card share is captured: now the bank debits (the same key after a crash names the same debit).
        for (const share of loaded.shares) {
          if (share.source.type !== 'bank_account') continue;
          await beforeCall();
          const { debitId } = await v.debitBank(share.source.vendorToken, share.amountCents, {
            idempotencyKey: holdKey(share.id),
            description: `bpay ${collection.name}`,
          });
          holdIds.set(share.id, debitId);
        }
        await beforeCall();
        const expiresAt = new Date(now(deps).getTime() + bcardTtlMs);
        issueAttempted = true;
        const card = await v.issueCard({
          limitCents: collection.amountCents,
          expiresAt,
          cardholderName: collection.cardholderName,
          singleUse: true,
          idempotencyKey: issueKey(collection.id),
        });
        return { holdIds, card, expiresAt };
      },
      async (tx, { holdIds, card, expiresAt }) => {
        for (const share of loaded.shares) {
          const vendorHoldId = holdIds.get(share.id) ?? null;
          await setShare(tx, deps, share.id, { status: 'captured', vendorHoldId });
          if (share.source.type === 'bank_account' && vendorHoldId) {
            await tx
              .insert(schema.bankDebits)
              .values({
                shareId: share.id,
                collectionId: collection.id,
                userId: collection.userId,
                fundingSourceId: share.source.id,
                amountCents: share.amountCents,
                vendorDebitId: vendorHoldId,
                status: 'pending',
                initiatedAt: now(deps),
              })
              .onConflictDoNothing();
          }
        }
        await setStatus(tx, deps, lease, 'capturing', 'completed');
        const bcardId = newId('bc');
        const [bcard] = await tx
          .insert(schema.bcards)
          .values({
            id: bcardId,
            userId: collection.userId,
            collectionId: collection.id,
            name: collection.name,
            cardholderName: collection.cardholderName,
            vendor: collection.vendor,
            vendorCardId: card.cardId,
            brand: card.brand,
            last4: card.last4,
            expMonth: card.expMonth,
            expYear: card.expYear,
            limitCents: collection.amountCents,
            status: 'active',
            lockedMerchantId: collection.lockedMerchantId,
            expiresAt,
            createdAt: now(deps),
          })
          .returning();
        await postMovement(tx, {
          kind: 'collection.captured',
          referenceId: collection.id,
          at: now(deps),
          postings: [
            ...loaded.shares.map((s) => ({ account: accounts.fundingSource(s.source.id), amountCents: -s.amountCents })),
            { account: accounts.bcard(bcardId), amountCents: collection.amountCents },
            { account: accounts.fees, amountCents: collection.feeCents },
          ],
        });
        return bcard!;
      },
    );
  } catch (e) {
    if (e instanceof LeaseLostError) throw e;
    deps.log.error('capture or card issuing failed; refunding the collection', { collectionId: collection.id, error: e });
    // A card issued inside the phase's transaction (the simulator) was rolled back with it: there is none to stop.
    if (issueAttempted && !vendor.within) await deactivateOrphanCard(deps, vendor, collection).catch(() => undefined);
    await setStatus(deps.db, deps, lease, 'capturing', 'refunding', {
      failureCode: 'processing_error',
      failureMessage: 'The collection could not be completed; every share was returned.',
    });
    await settleRefund(deps, lease).catch(stillUnavailable);
    throw e instanceof VendorUnavailableError
      ? new AppError('vendor_unavailable')
      : new AppError('processing_error', 'The bcard could not be issued. Every share was returned to its source.');
  }
}

/**
 * The card may exist at the processor even though bpay never recorded it (the answer was lost, or the recording
 * failed). Issuing is idempotent per collection, so asking again returns that card (or a new one, if none was
 * made), and it is deactivated: no card outlives a collection that failed. Best effort; nobody knows its number.
 */
async function deactivateOrphanCard(deps: AppDeps, vendor: PaymentVendor, collection: CollectionRow): Promise<void> {
  const card = await vendor.issueCard({
    limitCents: collection.amountCents,
    expiresAt: now(deps),
    cardholderName: collection.cardholderName,
    singleUse: true,
    idempotencyKey: issueKey(collection.id),
  });
  await vendor.deactivateCard(card.cardId);
}

/**
 * From refunding: returns money to the sources and settles. Three cases, by the bcard's state:
 * - no bcard (capture or issuing failed): captured shares refunded in full, held ones voided -> failed;
 * - bcard expiring/canceling (unused): deactivated, every share refunded in full, fee included -> refunded;
 * - bcard used: deactivated, and the remainder (if the purchase left any) goes back pro rata to the shares -> completed.
 * Every refund carries the share's key, so repeating this after a crash never refunds twice.
 */
export async function settleRefund(deps: AppDeps, lease: Lease): Promise<void> {
  const loaded = await load(deps.db, lease.collectionId);
  const { collection } = loaded;
  const vendor = deps.vendorFor(collection.vendor);
  const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.collectionId, collection.id));
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

  if (collection.kind === 'sandbox') return settleSandboxRefund(deps, lease, collection, bcard, vendor);

  // Used with money left on it: the remainder goes back pro rata. Unused: every share goes back in full.
  const used = bcard.status === 'used';
  const remainder = bcard.limitCents - bcard.spentCents;
  const refunds = used
    ? remainder > 0
      ? allocate(remainder, loaded.shares.map((s) => s.amountCents))
      : loaded.shares.map(() => 0)
    : loaded.shares.map((s) => s.amountCents);
  await vendor.deactivateCard(bcard.vendorCardId);
  const debits = await bankDebitsOf(deps.db, loaded.shares.map((s) => s.id));
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
      if (status === 'returned') {
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
          postings: [
            { account: accounts.bcard(bcard.id), amountCents: -refundedTotal },
            ...loaded.shares.map((s, i) => ({ account: backTo(s), amountCents: refunds[i] ?? 0 })),
          ],
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
      postings: [
        { account: accounts.bcard(bcard.id), amountCents: -collection.amountCents },
        { account: accounts.fees, amountCents: -collection.feeCents },
        ...loaded.shares.map((s) => ({ account: backTo(s), amountCents: s.amountCents })),
      ],
    });
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
  const owner = newToken();
  const at = now(deps);
  await deps.db.transaction(async (tx) => {
    const res = await tx
      .update(schema.bcards)
      .set({ status: reason === 'canceled' ? 'canceling' : 'expiring' })
      .where(and(eq(schema.bcards.id, bcard.id), eq(schema.bcards.status, from), eq(schema.bcards.spentCents, 0)));
    if (res.rowsAffected !== 1) throw new AppError('bcard_not_active');
    const col = await tx
      .update(schema.collections)
      .set({ status: 'refunding', leaseOwner: owner, leaseUntil: new Date(at.getTime() + LEASE_MS), updatedAt: at })
      .where(and(eq(schema.collections.id, bcard.collectionId), eq(schema.collections.status, 'completed')));
    if (col.rowsAffected !== 1) throw new Error(`collection of bcard ${bcard.id} is not completed`);
    if (within) await within(tx);
  });
  await settleAfterCommit(deps, { collectionId: bcard.collectionId, owner }, { bcardId: bcard.id, step: `bcard ${reason}` });
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

/**
 * Finishes or undoes every collection whose worker is gone (its lease ran out): holding is undone, capturing is
 * finished, refunding is settled. Runs at start-up and on a timer. Returns how many it handled.
 */
export async function recoverCollections(deps: AppDeps, bcardTtlMs: number): Promise<number> {
  const at = now(deps);
  const stale = await deps.db
    .select({ id: schema.collections.id, status: schema.collections.status })
    .from(schema.collections)
    .where(and(sql`${schema.collections.status} IN ('holding', 'capturing', 'refunding')`, lt(schema.collections.leaseUntil, at)))
    .limit(100);
  let handled = 0;
  for (const { id, status } of stale) {
    const owner = newToken();
    const taken = await deps.db
      .update(schema.collections)
      .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + LEASE_MS) })
      .where(and(eq(schema.collections.id, id), eq(schema.collections.status, status), lt(schema.collections.leaseUntil, at)));
    if (taken.rowsAffected !== 1) continue;
    const lease = { collectionId: id, owner };
    try {
      if (status === 'holding') {
        const loaded = await load(deps.db, id);
        // Any share not recorded may have reached the processor before the crash.
        await releaseHolds(deps, deps.vendorFor(loaded.collection.vendor), loaded, () => true);
        await setStatus(deps.db, deps, lease, 'holding', 'failed', {
          failureCode: 'interrupted',
          failureMessage: 'The collection was interrupted before every share was held; nothing was charged.',
        });
      } else if (status === 'capturing') {
        await finishCapture(deps, lease, bcardTtlMs).catch((e) => {
          if (!(e instanceof AppError)) throw e;
        });
      } else {
        await settleRefund(deps, lease);
      }
      handled++;
    } catch (error) {
      // Left for the next sweep: its lease runs out again and another attempt is made.
      if (error instanceof BankDebitPendingError) deps.log.info('a refund waits for a bank debit to settle', { collectionId: id });
      else deps.log.error('recovery of a collection failed', { collectionId: id, status, error });
    }
  }
  return handled;
}

/** Deactivates and refunds every unused bcard whose session has ended. Returns how many. */
export async function expireBcards(deps: AppDeps): Promise<number> {
  const due = await deps.db
    .select()
    .from(schema.bcards)
    .where(and(eq(schema.bcards.status, 'active'), lt(schema.bcards.expiresAt, new Date(now(deps).getTime() + 1))))
    .limit(100);
  let n = 0;
  for (const bcard of due) {
    try {
      await refundUnusedBcard(deps, bcard, 'expired');
      n++;
    } catch (error) {
      if (!(error instanceof AppError)) deps.log.error('expiring a bcard failed', { bcardId: bcard.id, error });
    }
  }
  return n;
}

/**
 * Asks the processor about every pending bank debit (oldest first) and records what it answers. A returned debit
 * whose bcard is still unused cancels the bcard: the card shares are refunded and nothing is owed. One returned
 * after the bcard was used leaves the amount owed (bank-debits.ts). Runs on the sweep's timer. Returns how many
 * debits it resolved.
 */
export async function sweepBankDebits(deps: AppDeps): Promise<number> {
  const pending = await deps.db
    .select()
    .from(schema.bankDebits)
    .where(eq(schema.bankDebits.status, 'pending'))
    .orderBy(asc(schema.bankDebits.initiatedAt))
    .limit(100);
  let resolved = 0;
  for (const debit of pending) {
    try {
      const status = await refreshBankDebit(deps, debit);
      if (status === 'pending') continue;
      resolved++;
      if (status !== 'returned') continue;
      const bcard = await firstRow(deps.db, schema.bcards, eq(schema.bcards.collectionId, debit.collectionId));
      if (bcard && bcard.status === 'active' && bcard.spentCents === 0) {
        await refundUnusedBcard(deps, bcard, 'canceled').catch((error) => {
          // Spent or canceled meanwhile: what is owed, if anything, stays on the receivable.
          if (!(error instanceof AppError)) throw error;
        });
      }
    } catch (error) {
      deps.log.error('checking a bank debit failed', { shareId: debit.shareId, error });
    }
  }
  return resolved;
}
