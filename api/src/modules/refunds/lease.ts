import { and, eq, lt, sql } from 'drizzle-orm';
import { schema, type DbOrTx, type RefundStatus, prepared } from '@bpay/db';
import { setPlaceholder } from '../../lib/set-placeholder';
import type { AppDeps } from '../../deps';
import { newToken } from '../../lib/ids';

/*
 * A pending refund belongs to one worker at a time: the request that made it, or the sweep that took it over once
 * its lease ran out. Every write that finishes a refund is guarded by the lease and the pending status.
 */

type RefundRow = typeof schema.refunds.$inferSelect;

/** How long a refund's worker owns it without renewing: longer than any one processor call may take. */
export const REFUND_LEASE_MS = 60_000;

export const REFUND_TRANSITIONS: Record<RefundStatus, readonly RefundStatus[]> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

export interface RefundLease {
  refundId: string;
  owner: string;
}

export class RefundLeaseLost extends Error {}

export async function renewRefundLease(deps: AppDeps, lease: RefundLease): Promise<void> {
  const at = deps.clock.now();
  const res = await deps.db
    .update(schema.refunds)
    .set({ leaseUntil: new Date(at.getTime() + REFUND_LEASE_MS) })
    .where(and(eq(schema.refunds.id, lease.refundId), eq(schema.refunds.leaseOwner, lease.owner), eq(schema.refunds.status, 'pending')));
  if (res.rowsAffected !== 1) throw new RefundLeaseLost(`refund ${lease.refundId} is no longer this worker's`);
}

/** finish()'s guarded UPDATE, built once per status and set of columns (db/prepared.ts), each value a placeholder. */
const finishQueries = new Map<string, ReturnType<typeof buildFinish>>();
function buildFinish(to: 'succeeded' | 'failed', keys: Array<keyof RefundRow>) {
  return prepared((db) =>
    db
      .update(schema.refunds)
      .set({ ...Object.fromEntries(keys.map((k) => [k, setPlaceholder(`set_${k}`)])), status: to, updatedAt: setPlaceholder<Date>('updatedAt') })
      .where(
        and(
          eq(schema.refunds.id, sql.placeholder('id')),
          eq(schema.refunds.leaseOwner, sql.placeholder('owner')),
          eq(schema.refunds.status, 'pending'),
        ),
      )
      .returning()
      .prepare(),
  );
}

/** Moves a pending refund to `to` only while this worker holds it. */
export async function finish(tx: DbOrTx, deps: AppDeps, lease: RefundLease, to: 'succeeded' | 'failed', set: Partial<RefundRow> = {}) {
  if (!REFUND_TRANSITIONS.pending?.includes(to)) throw new Error(`a refund cannot go from pending to ${to}`);
  const keys = (Object.keys(set) as Array<keyof RefundRow>).filter((k) => set[k] !== undefined);
  const shape = `${to}|${keys.join(',')}`;
  let query = finishQueries.get(shape);
  if (!query) finishQueries.set(shape, (query = buildFinish(to, keys)));
  const values: Record<string, unknown> = { id: lease.refundId, owner: lease.owner, updatedAt: deps.clock.now() };
  for (const k of keys) values[`set_${k}`] = set[k];
  const row = await query(tx).get(values);
  if (!row) throw new RefundLeaseLost(`refund ${lease.refundId} is no longer this worker's`);
  return row;
}

/** Takes over a pending refund whose worker is gone (its lease ran out); null when it is not (or no longer) one. */
export async function takeOver(deps: AppDeps, id: string): Promise<RefundLease | null> {
  const at = deps.clock.now();
  const owner = newToken();
  const taken = await deps.db
    .update(schema.refunds)
    .set({ leaseOwner: owner, leaseUntil: new Date(at.getTime() + REFUND_LEASE_MS) })
    .where(and(eq(schema.refunds.id, id), eq(schema.refunds.status, 'pending'), lt(schema.refunds.leaseUntil, at)));
  return taken.rowsAffected === 1 ? { refundId: id, owner } : null;
}
