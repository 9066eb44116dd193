import { and, eq } from 'drizzle-orm';
import { schema, firstRow, type CollectionStatus } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid } from '../../errors';
import { sharesOf, type ShareView } from './service';

/*
 * What a Create bcard request has got to, while it runs (issue 16: the dialog shows each share's progress instead of
 * a spinner). The request is found by the Idempotency-Key the caller sent with it, within the caller's own keys
 * only: another user's key, or a key that never reached the server, reads as not started. The answer is what the
 * server has recorded, phase by phase (collect.ts: every share is recorded held together, when all holds answered,
 * then captured together), never a guess of what comes next.
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
  const collection = await firstRow(
    deps.db,
    schema.collections,
    and(eq(schema.collections.userId, userId), eq(schema.collections.idempotencyKey, `${key}#${record.id}`)),
  );
  if (!collection) return { stage: 'not_started', shares: [] };
  const shares = await sharesOf(deps.db, [collection.id]);
  return { stage: stageOf(collection.status), shares: shares.get(collection.id) ?? [] };
}
