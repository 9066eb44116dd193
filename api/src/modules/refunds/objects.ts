import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import { schema, type DbOrTx, type RefundReason, type RefundStatus, firstRow, prepared } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../errors';
import { createdCondition, type CreatedRange } from '../../lib/created-filter';
import { refundAllocationsOf } from '../charges/service';
import type { RefundAllocation } from '../charges/allocations';
import { intentOfMerchant } from '../payment-intents/service';

/*
 * A refund as the merchant sees it (Stripe's Refund object, with its allocations), and the reads: one refund, and the
 * list. The saga that makes refunds is service.ts (start) and settle.ts (processor, outcome, sweep).
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;
type RefundRow = typeof schema.refunds.$inferSelect;

export interface RefundObject {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  status: RefundStatus;
  reason: RefundReason | null;
  payment_intent: string;
  metadata: Record<string, string>;
  created: number;
  failure_reason: string | null;
  /** How much went back to each funding share of the payment (charges/allocations.ts); they sum to amount. */
  allocations: RefundAllocation[];
}

export function toRefundObject(r: RefundRow, allocations: RefundAllocation[]): RefundObject {
  return {
    id: r.id,
    object: 'refund',
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    payment_intent: r.paymentIntentId,
    metadata: r.metadata,
    created: Math.floor(r.createdAt.getTime() / 1000),
    failure_reason: r.failureReason,
    allocations,
  };
}

/** Refund objects with their allocations (one statement for all of them). */
export async function toRefundObjects(db: DbOrTx, rows: RefundRow[]): Promise<RefundObject[]> {
  const allocations = await refundAllocationsOf(db, rows);
  return rows.map((r) => toRefundObject(r, allocations.get(r.id) ?? []));
}

export async function refundObject(db: DbOrTx, row: RefundRow): Promise<RefundObject> {
  return (await toRefundObjects(db, [row]))[0]!;
}

export const money = (c: number) => `$${formatDecimal(c as Cents)}`;

/** A payment intent by id (the refund's saga reads it again under the write lock), built once (db/prepared.ts). */
export const intentById = prepared((db) =>
  db.select().from(schema.paymentIntents).where(eq(schema.paymentIntents.id, sql.placeholder('id'))).limit(1).prepare(),
);
/** A merchant's payment intent in this mode. Fails with: resource_not_found (payment_intent). */
export async function intentOf(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<IntentRow> {
  const pi = await intentOfMerchant(deps.db).get({ id, merchantId: merchant.id, livemode });
  if (!pi) throw new AppError('resource_not_found', `No such payment_intent: '${id}'`, 'payment_intent');
  return pi;
}

export async function getRefund(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<RefundObject> {
  const row = await firstRow(
    deps.db,
    schema.refunds,
    and(eq(schema.refunds.id, id), eq(schema.refunds.merchantId, merchant.id), eq(schema.refunds.livemode, livemode)),
  );
  if (!row) throw new AppError('resource_not_found', `No such refund: '${id}'`, 'id');
  return refundObject(deps.db, row);
}

export interface ListRefundsInput {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  payment_intent?: string;
  /** Only refunds created in this range (lib/created-filter.ts). */
  created?: CreatedRange;
}

/** Newest first, Stripe's cursor pagination, optionally one payment intent's. Fails with: validation_error. */
export async function listRefunds(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: ListRefundsInput, url = '/api/v1/refunds') {
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
  if (q.starting_after && q.ending_before) throw invalid('ending_before', 'Give starting_after or ending_before, not both.');
  const r = schema.refunds;
  const anchorOf = async (param: 'starting_after' | 'ending_before', id: string) => {
    const a = await firstRow(deps.db, r, and(eq(r.id, id), eq(r.merchantId, merchant.id), eq(r.livemode, livemode)));
    if (!a) throw invalid(param, `${param} is not one of your refunds: '${id}'.`);
    return a.seq;
  };
  const c = q.created ?? {};
  // One intent's refunds are read from its own index, once the intent is known to be this merchant's (and mode's):
  // never by walking the merchant's whole history for them.
  if (q.payment_intent) await intentOf(deps, merchant, livemode, q.payment_intent);
  const scope = and(
    q.payment_intent ? eq(r.paymentIntentId, q.payment_intent) : and(eq(r.merchantId, merchant.id), eq(r.livemode, livemode)),
    createdCondition(r.createdAt, c),
  );
  if (q.ending_before) {
    const seq = await anchorOf('ending_before', q.ending_before);
    let rows = (await deps.db.select().from(r).where(and(scope, gt(r.seq, seq))).orderBy(asc(r.seq)).limit(q.limit + 1)).reverse();
    const hasMore = rows.length > q.limit;
    if (hasMore) rows = rows.slice(1);
    return { object: 'list' as const, url, has_more: hasMore, data: await toRefundObjects(deps.db, rows) };
  }
  const after = q.starting_after ? await anchorOf('starting_after', q.starting_after) : null;
  const rows = await deps.db
    .select()
    .from(r)
    .where(and(scope, after === null ? undefined : lt(r.seq, after)))
    .orderBy(desc(r.seq))
    .limit(q.limit + 1);
  return { object: 'list' as const, url, has_more: rows.length > q.limit, data: await toRefundObjects(deps.db, rows.slice(0, q.limit)) };
}
