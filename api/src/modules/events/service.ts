import { and, desc, eq, lt } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../errors';
import { createdCondition, type CreatedRange } from '../../lib/created-filter';

type MerchantRow = typeof schema.merchants.$inferSelect;
type EventRow = typeof schema.events.$inferSelect;

export interface EventObject {
  id: string;
  object: 'event';
  type: string;
  /** Unix seconds. */
  created: number;
  livemode: boolean;
  data: { object: Record<string, unknown> };
}

export function toEventObject(e: EventRow): EventObject {
  return {
    id: e.id,
    object: 'event',
    type: e.type,
    created: Math.floor(e.createdAt.getTime() / 1000),
    livemode: e.livemode,
    data: { object: e.data },
  };
}

/** The exact bytes a webhook delivery carries (and signs): the event object as JSON. */
export function eventPayload(e: EventRow): string {
  return JSON.stringify(toEventObject(e));
}

/** The merchant's event in its own mode; anything else is "not found". */
export async function getEvent(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<EventRow> {
  const e = await firstRow(deps.db, schema.events, and(eq(schema.events.id, id), eq(schema.events.merchantId, merchant.id), eq(schema.events.livemode, livemode)));
  if (!e) throw notFound('event', id, 'id');
  return e;
}

export interface ListEventsInput {
  limit: number;
  starting_after?: string;
  type?: string;
  /** Only events created in this range (lib/created-filter.ts). */
  created?: CreatedRange;
}

/** A page size must be an integer from 1 to 100. */
export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
}

/**
 * Newest first (by the merchant's event sequence).
 * Fails with: validation_error (a limit outside 1–100, a cursor that is not this merchant's).
 */
export async function listEvents(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: ListEventsInput) {
  checkLimit(q.limit);
  let cond = and(eq(schema.events.merchantId, merchant.id), eq(schema.events.livemode, livemode));
  if (q.type) cond = and(cond, eq(schema.events.type, q.type));
  if (q.created) cond = and(cond, createdCondition(schema.events.createdAt, q.created));
  if (q.starting_after) {
    const anchor = await getEvent(deps, merchant, livemode, q.starting_after).catch(() => {
      throw invalid('starting_after', 'starting_after is not one of your events.');
    });
    cond = and(cond, lt(schema.events.seq, anchor.seq));
  }
  const rows = await deps.db
    .select()
    .from(schema.events)
    .where(cond)
    .orderBy(desc(schema.events.seq))
    .limit(q.limit + 1);
  return {
    object: 'list' as const,
    url: '/api/v1/events',
    has_more: rows.length > q.limit,
    data: rows.slice(0, q.limit).map(toEventObject),
  };
}
