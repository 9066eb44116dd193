import { and, eq } from 'drizzle-orm';
import { schema, firstRow, type CollectionStatus } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid } from '../../errors';
import { sharesOf, type ShareView } from './views';

/*
 * What a Create bcard request has got to, while it runs (issue 16: the dialog shows each share's progress instead of
 * a spinner). The request is found by the Idempotency-Key the caller sent with it, within the caller's own keys
 * only: another user's key, or a key that never reached the server, reads as not started. The answer is what the
 * server has recorded, phase by phase (collect.ts: every share is recorded held together, when all holds answered,
 * then captured together), never a guess of what comes next. A checkout payment of a sandbox intent is followed the
 * same way: its split test bcard's shares, in the order of the consumer's split (test sources stand for their cards).
 */

export type ProgressStage = 'not_started' | 'holding' | 'capturing' | 'completed' | 'failed';

export interface CollectionProgress {
  stage: ProgressStage;
  shares: ShareView[];
}

/** The collection's status as the caller follows it: a refund of a card already issued is past this request. */
function stageOf(status: CollectionStatus): ProgressStage {
  switch (status) {
    case 'holding':
      return 'holding';
    case 'capturing':
      return 'capturing';
    case 'failed':
      return 'failed';
    case 'completed':
    case 'refunding':
    case 'refunded':
      return 'completed';
  }
}

const CHECKOUT_PAY_PATH = /^\/api\/checkout\/payment_intents\/([^/]{1,64})\/pay$/;

/**
 * A checkout payment of a sandbox intent (checkout/service.ts fundPayment): the split test bcard standing for the
 * consumer's shares belongs to the merchant's owner, recorded under the consumer's scoped key. Only a key of the
 * caller's own (the record was found in their scope) leads here, and the key holds that record's id, so no other
 * user's collection can be reached: another user's key reads as not started.
 */
async function sandboxPaymentCollection(deps: AppDeps, path: string, scopedKey: string) {
  const intentId = CHECKOUT_PAY_PATH.exec(path)?.[1];
  if (!intentId) return undefined;
  const pi = await firstRow(deps.db, schema.paymentIntents, eq(schema.paymentIntents.id, intentId));
  if (!pi || pi.livemode) return undefined;
  const merchant = await firstRow(deps.db, schema.merchants, eq(schema.merchants.id, pi.merchantId));
  if (!merchant) return undefined;
  return firstRow(
    deps.db,
    schema.collections,
    and(eq(schema.collections.userId, merchant.userId), eq(schema.collections.idempotencyKey, scopedKey), eq(schema.collections.kind, 'sandbox')),
  );
}

/**
 * The progress of the caller's collection started with Idempotency-Key `key`.
 * Fails with: validation_error (a key that is not one: 1 to 255 printable ASCII characters).
 */
export async function collectionProgress(deps: AppDeps, userId: string, key: string): Promise<CollectionProgress> {
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalid('key', 'key must be the Idempotency-Key sent with the request (1 to 255 printable characters).');
  }
  const record = await firstRow(
    deps.db,
    schema.idempotencyKeys,
    and(eq(schema.idempotencyKeys.scope, `user:${userId}`), eq(schema.idempotencyKeys.key, key)),
  );
  if (!record) return { stage: 'not_started', shares: [] };
  // The handler's key (plugins/idempotency.ts): the caller's key and the record's id, stored on the collection.
  const scopedKey = `${key}#${record.id}`;
  const collection =
    (await firstRow(deps.db, schema.collections, and(eq(schema.collections.userId, userId), eq(schema.collections.idempotencyKey, scopedKey)))) ??
    (await sandboxPaymentCollection(deps, record.path, scopedKey));
  if (!collection) return { stage: 'not_started', shares: [] };
  const shares = await sharesOf(deps.db, [collection.id]);
  return { stage: stageOf(collection.status), shares: shares.get(collection.id) ?? [] };
}
