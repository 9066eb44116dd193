import { schema, type CollectionStatus, type DbOrTx, type WriteUnit } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { VendorUnavailableError, type PaymentVendor } from '../../vendors/types';
import { AppError } from '../../errors';
import {
  collectionById,
  leaseRenewal,
  shareDeclined,
  sharesWithSources,
  shareStatus,
  shareStatusAndHold,
  statusChange,
} from './statements';

/*
 * The collection saga's shared parts: its state machine (the one table of transitions and assertTransition), the
 * lease a worker holds while it works on a collection, the keys of its processor calls, and how one phase of it
 * commits. The saga itself: collect.ts (forward: record, hold, capture, issue), refund.ts (shares going back),
 * sweep.ts (recovery of interrupted collections, expiry, bank debits).
 */

type CollectionRow = typeof schema.collections.$inferSelect;
type ShareRow = typeof schema.collectionShares.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;

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

export interface Lease {
  collectionId: string;
  owner: string;
}

export const now = (deps: AppDeps) => deps.clock.now();

export async function setStatus(
  db: DbOrTx,
  deps: AppDeps,
  lease: Lease,
  from: CollectionStatus,
  to: CollectionStatus,
  extra: Partial<typeof schema.collections.$inferInsert> = {},
): Promise<void> {
  const { query, values } = statusStatement(deps, lease, from, to, extra);
  const res = await query(db).run(values);
  if (res.rowsAffected !== 1) throw new LeaseLostError(lease.collectionId);
}

/** setStatus as a step of a unit of work as data (db/unit.ts): guarded, the unit fails with LeaseLostError. */
export async function recordStatus(
  unit: WriteUnit,
  deps: AppDeps,
  lease: Lease,
  from: CollectionStatus,
  to: CollectionStatus,
  extra: Partial<typeof schema.collections.$inferInsert> = {},
): Promise<void> {
  const { query, values } = statusStatement(deps, lease, from, to, extra);
  await query(unit.tx).run(values);
  unit.expectChanges(1, () => new LeaseLostError(lease.collectionId));
}

function statusStatement(deps: AppDeps, lease: Lease, from: CollectionStatus, to: CollectionStatus, extra: Partial<typeof schema.collections.$inferInsert>) {
  assertTransition(from, to);
  // Built once per set of columns written (statements.ts); an undefined value is not written, as drizzle's set() skips it.
  const columns = Object.keys(extra).filter((k) => extra[k as keyof typeof extra] !== undefined);
  const values: Record<string, unknown> = { to, updatedAt: now(deps), id: lease.collectionId, from, owner: lease.owner };
  for (const k of columns) values[`x_${k}`] = extra[k as keyof typeof extra];
  return { query: statusChange(columns), values };
}

/** Another worker took the collection over (our lease ran out): stop touching it. */
export class LeaseLostError extends Error {
  constructor(collectionId: string) {
    super(`lost the lease on collection ${collectionId}`);
  }
}

export async function renewLease(db: DbOrTx, deps: AppDeps, lease: Lease): Promise<void> {
  const res = await leaseRenewal(db).run({ leaseUntil: new Date(now(deps).getTime() + LEASE_MS), id: lease.collectionId, owner: lease.owner });
  if (res.rowsAffected !== 1) throw new LeaseLostError(lease.collectionId);
}

export interface Loaded {
  collection: CollectionRow;
  shares: Array<ShareRow & { source: SourceRow }>;
}

export async function load(db: DbOrTx, collectionId: string): Promise<Loaded> {
  const collection = await collectionById(db).get({ id: collectionId });
  if (!collection) throw new Error(`no collection ${collectionId}`);
  const rows = await sharesWithSources(db).all({ collectionId });
  return { collection, shares: rows.map((r) => ({ ...r.share, source: r.source })) };
}

type ShareStatus = (typeof schema.collectionShares.$inferInsert)['status'];
/** What setShare may set: a status, with the processor's hold id, or with a decline (code and message together). */
type ShareSet =
  | { status: ShareStatus }
  | { status: ShareStatus; vendorHoldId: string | null }
  | { status: ShareStatus; declineCode: string; declineMessage: string };

/** One share's new status (and, when given, its processor id or its decline), in one statement built once per shape. */
export async function setShare(db: DbOrTx, deps: AppDeps, shareId: string, set: ShareSet) {
  const updatedAt = now(deps);
  if ('declineCode' in set) {
    await shareDeclined(db).run({ id: shareId, status: set.status, declineCode: set.declineCode, declineMessage: set.declineMessage, updatedAt });
  } else if ('vendorHoldId' in set) {
    await shareStatusAndHold(db).run({ id: shareId, status: set.status, vendorHoldId: set.vendorHoldId, updatedAt });
  } else {
    await shareStatus(db).run({ id: shareId, status: set.status, updatedAt });
  }
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
export async function phase<T, R>(
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

/**
 * The processor stopped answering while a failed collection was being undone. The collection keeps its status
 * and our lease; once the lease runs out the recovery sweep finishes the undoing. Nothing stays charged, so the
 * caller gets vendor_unavailable rather than an opaque 500.
 */
export function stillUnavailable(e: unknown): never {
  if (e instanceof VendorUnavailableError) throw new AppError('vendor_unavailable');
  throw e;
}
