import { and, eq, sql } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../errors';
import { MAX_METADATA_KEYS } from '../payment-intents/service';
import { checkMetadataPatch } from '../payment-intents/update';
import { refundObject, type RefundObject } from './objects';

type MerchantRow = typeof schema.merchants.$inferSelect;

export interface UpdateRefundInput {
  /** Stripe's semantics: merged into the refund's metadata, a key set to "" is removed, metadata "" (or null) clears it. */
  metadata?: Record<string, string> | '' | null;
}

/**
 * Updates a refund's metadata, the one field Stripe's refund update changes (`stripe.refunds.update`), whatever the
 * refund's status. One UPDATE: the merge is SQLite's json_patch in the statement itself, so two updates at once each
 * keep the other's keys, and the key limit is checked on the merged result. Emits no event (a refund.updated says its
 * status changed: docs/DECISIONS.md). Fails with: resource_not_found (param id), validation_error (metadata).
 */
export async function updateRefund(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string, input: UpdateRefundInput): Promise<RefundObject> {
  const r = schema.refunds;
  const scope = and(eq(r.id, id), eq(r.merchantId, merchant.id), eq(r.livemode, livemode));
  if (input.metadata === undefined) {
    const row = await firstRow(deps.db, r, scope);
    if (!row) throw notFound('refund', id, 'id');
    return refundObject(deps.db, row);
  }
  let metadata = sql`'{}'`;
  if (input.metadata !== '' && input.metadata !== null) {
    checkMetadataPatch(input.metadata);
    const patch = Object.fromEntries(Object.entries(input.metadata).map(([k, v]) => [k, v === '' ? null : v]));
    metadata = sql`json_patch(${r.metadata}, ${JSON.stringify(patch)})`;
  }
  const [row] = await deps.db
    .update(r)
    .set({ metadata, updatedAt: deps.clock.now() })
    .where(and(scope, sql`(select count(*) from json_each(${metadata})) <= ${MAX_METADATA_KEYS}`))
    .returning();
  if (row) return refundObject(deps.db, row);
  const now = await firstRow(deps.db, r, scope);
  if (!now) throw notFound('refund', id, 'id');
  throw invalid('metadata', `metadata can have at most ${MAX_METADATA_KEYS} keys; this update would leave it with more.`);
}
