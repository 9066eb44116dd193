import { and, eq, sql, type SQL } from 'drizzle-orm';
import { schema, type DbOrTx, prepared, preparedPerCount, slots, slotValues } from '@bpay/db';
import { newId } from '../../lib/ids';
import { recordBroadcast, wakeBroadcasts } from './broadcast';

/** Every event type bpay emits. Webhook endpoints subscribe to these (all but the targeted ones) or to '*'. */
export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.succeeded',
  'payment_intent.failed',
  /** Stripe's name for payment_intent.failed: emitted beside it, the same object (EVENT_TWINS). */
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.amount_capturable_updated',
  'refund.created',
  'refund.updated',
  /** A refund succeeded: the payment intent's Charge (as Stripe's), with amount_refunded in all and per funding share. */
  'charge.refunded',
  'webhook_endpoint.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Events recorded twice, under bpay's name and under Stripe's, so code written for either runs unchanged: a failed
 * payment is `payment_intent.failed` (bpay's name since the start) and `payment_intent.payment_failed` (the name
 * Stripe's examples switch on). Two events with their own ids, the same data object, written together; an endpoint
 * subscribed to one name gets that one, '*' gets both. A receiver handles one of the two names
 * (docs/DECISIONS.md, issue 28).
 */
export const EVENT_TWINS: Partial<Record<EventType, EventType>> = { 'payment_intent.failed': 'payment_intent.payment_failed' };

/**
 * Types sent only to the endpoint they are made for (the dashboard's "send a test event"): never fanned out,
 * not even to '*' subscribers, and not subscribable.
 */
export const TARGETED_EVENT_TYPES: readonly EventType[] = ['webhook_endpoint.test'];
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => !TARGETED_EVENT_TYPES.includes(t));

/** Whether an endpoint with these enabled_events receives events of this type. */
export function isSubscribed(enabledEvents: readonly string[], type: string): boolean {
  if ((TARGETED_EVENT_TYPES as readonly string[]).includes(type)) return false;
  return enabledEvents.includes('*') || enabledEvents.includes(type);
}

export interface EventInput {
  merchantId: string;
  livemode: boolean;
  type: EventType;
  object: Record<string, unknown>;
  at: Date;
}

/*
 * The statements every event costs, built once (db/prepared.ts): the event row, the merchant's enabled endpoints, the
 * broadcast row.
 */
const insertEventRow = prepared((db) => {
  // The next seq is read in the insert itself: one statement.
  const next = sql<number>`(select coalesce(max(${schema.events.seq}), 0) + 1 from ${schema.events}
    where ${schema.events.merchantId} = ${sql.placeholder('merchantId')} and ${schema.events.livemode} = ${sql.placeholder('livemode')})`;
  return db
    .insert(schema.events)
    .values({
      id: sql.placeholder('id'),
      merchantId: sql.placeholder('merchantId'),
      livemode: sql.placeholder('livemode'),
      type: sql.placeholder('type'),
      data: sql.placeholder('data'),
      seq: next,
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare();
});
/**
 * One delivery per enabled endpoint of the event's merchant and mode subscribed to its type ('*' or the type itself),
 * queued by one statement that reads the endpoints where it writes (a new one included, whatever commits meanwhile):
 * nothing read first, so an event costs the same statements inside a unit of work as data (issue 30). The delivery id is
 * made as newId('whd') makes it: 'whd_' and 24 hex digits of randomness.
 */
const insertDeliveries = prepared((db) => {
  const e = schema.webhookEndpoints;
  const p = sql.placeholder;
  return db
    .insert(schema.webhookDeliveries)
    .select(
      db
        .select({
          id: sql<string>`'whd_' || lower(hex(randomblob(12)))`.as('id'),
          eventId: sql<string>`${p('eventId')}`.as('event_id'),
          endpointId: e.id,
          merchantId: e.merchantId,
          livemode: e.livemode,
          status: sql<'pending'>`'pending'`.as('status'),
          attempts: sql<number>`0`.as('attempts'),
          nextAttemptAt: sql<number>`${p('at')}`.as('next_attempt_at'),
          lockedUntil: sql<null>`null`.as('locked_until'),
          lastAttemptAt: sql<null>`null`.as('last_attempt_at'),
          createdAt: sql<number>`${p('at')}`.as('created_at'),
        })
        .from(e)
        .where(
          and(
            eq(e.merchantId, p('merchantId')),
            eq(e.livemode, p('livemode')),
            eq(e.status, 'enabled'),
            sql`exists (select 1 from json_each(${e.enabledEvents}) where value in ('*', ${p('type')}))`,
          ),
        ),
    )
    .prepare();
});

/**
 * Writes the event row (the next seq of its merchant and mode) and returns its id. With the mode, max(seq) is one
 * step down events_merchant_idx (merchant_id, livemode, seq); lists never compare seqs across modes.
 */
async function insertEvent(tx: DbOrTx, e: EventInput, given?: string): Promise<string> {
  const id = given ?? newId('evt');
  // In the seq's subquery the mode is bound raw (no column to encode it): as 0 or 1, as the column stores it.
  await insertEventRow(tx).run({ id, merchantId: e.merchantId, livemode: e.livemode ? 1 : 0, type: e.type, data: e.object, createdAt: e.at });
  return id;
}

/** Whose deliveries these are: the merchant and mode of the event and of every endpoint it goes to. */
export interface DeliveryOwner {
  merchantId: string;
  livemode: boolean;
}

/** Queues one pending delivery of an event per endpoint (the outbox), due at once. */
export async function queueDeliveries(
  tx: DbOrTx,
  owner: DeliveryOwner,
  eventId: string,
  endpointIds: string[],
  at: Date,
): Promise<string[]> {
  if (endpointIds.length === 0) return [];
  const rows = endpointIds.map((endpointId) => ({
    id: newId('whd'),
    eventId,
    endpointId,
    merchantId: owner.merchantId,
    livemode: owner.livemode,
    status: 'pending' as const,
    nextAttemptAt: at,
    createdAt: at,
  }));
  await tx.insert(schema.webhookDeliveries).values(rows);
  return rows.map((r) => r.id);
}

/**
 * Records an event and queues one delivery per subscribed enabled endpoint, in the caller's transaction: the event
 * exists if and only if the change that caused it was committed. The delivery worker sends them after commit; the
 * event is also broadcast to live listeners (the events stream) in the same transaction.
 */
export async function emitEvent(
  tx: DbOrTx,
  e: { merchantId: string; livemode: boolean; type: EventType; object: Record<string, unknown>; at: Date },
): Promise<string> {
  // One event (and its twin, if its type has one) is emitEvents' case of one: the same rows, the twin in the same
  // three statements.
  const [id] = await emitEvents(tx, { merchantId: e.merchantId, livemode: e.livemode, at: e.at }, [{ type: e.type, object: e.object }]);
  return id!;
}

/**
 * Several events of one merchant and mode, in order, in the caller's transaction, each with its twin when its type has
 * one (a refund's settlement tells refund.updated and charge.refunded together), in three statements whatever their
 * number (issue 29 §3, multi-row): the events with consecutive seqs, their deliveries, their broadcast rows.
 */
export async function emitEvents(
  tx: DbOrTx,
  owner: { merchantId: string; livemode: boolean; at: Date },
  events: Array<{ type: EventType; object: Record<string, unknown> }>,
): Promise<string[]> {
  const rows: Array<{ id: string; type: EventType; object: Record<string, unknown> }> = [];
  const ids: string[] = [];
  for (const { type, object } of events) {
    for (const t of EVENT_TWINS[type] ? [type, EVENT_TWINS[type]!] : [type]) {
      const id = newId('evt');
      rows.push({ id, type: t, object });
      if (t === type) ids.push(id);
    }
  }
  if (rows.length === 0) return [];
  if (rows.some((r) => (TARGETED_EVENT_TYPES as readonly string[]).includes(r.type))) throw new Error('a targeted event is sent by emitEventTo');
  if (rows.length === 1) {
    await emitOne(tx, { ...owner, type: rows[0]!.type, object: rows[0]!.object }, rows[0]!.id);
    return ids;
  }
  const args: Record<string, unknown> = { merchantId: owner.merchantId, livemode: owner.livemode ? 1 : 0, at: owner.at.getTime() };
  slotValues('id', rows.map((r) => r.id), args);
  slotValues('type', rows.map((r) => r.type), args);
  slotValues('data', rows.map((r) => JSON.stringify(r.object)), args);
  await insertEventRows(tx, rows.length).run(args);
  await insertDeliveriesOf(tx, rows.length).run(args);
  await insertBroadcasts(tx, rows.length).run(args);
  wakeBroadcasts();
  return ids;
}

/**
 * `(SELECT ? AS id, 1 AS k, ? AS type, ? AS data UNION ALL SELECT ?, 2, ?, ? …)`: the n events as a table, in order.
 * SQLite reads a UNION ALL's arms in turn and a CROSS JOIN's left table as the outer loop, so the rows written below
 * come in the events' order without a sort (emit.test.ts holds the order).
 */
function eventValues(n: number): SQL {
  const [id, type, data] = [slots('id', n), slots('type', n), slots('data', n)];
  return sql.join(
    id.map((_, i) => (i === 0 ? sql`SELECT ${id[0]} AS id, 1 AS k, ${type[0]} AS type, ${data[0]} AS data` : sql`SELECT ${id[i]}, ${i + 1}, ${type[i]}, ${data[i]}`)),
    sql` UNION ALL `,
  );
}

/*
 * The n events with seqs next after the merchant's (and mode's) latest. The latest is read in the INSERT's own SELECT:
 * SQLite runs an INSERT … SELECT that reads its own table to the end before it writes a row, so every row adds its
 * k to the same latest (consecutive seqs, as n single inserts give).
 */
const insertEventRows = preparedPerCount((db, n) => {
  const p = sql.placeholder;
  // Columns in the table's order (an INSERT … SELECT of raw SQL names every column): id, merchant_id, livemode, type, data, seq, created_at.
  return db
    .insert(schema.events)
    .select(
      sql`SELECT v.id, ${p('merchantId')}, ${p('livemode')}, v.type, v.data, m.s + v.k, ${p('at')}
        FROM (${eventValues(n)}) v,
          (SELECT coalesce(max(${schema.events.seq}), 0) AS s FROM ${schema.events}
            WHERE ${schema.events.merchantId} = ${p('merchantId')} AND ${schema.events.livemode} = ${p('livemode')}) m`,
    )
    .prepare();
});

/** Their deliveries, as insertDeliveries queues one event's: each subscribed enabled endpoint, event by event. */
const insertDeliveriesOf = preparedPerCount((db, n) => {
  const p = sql.placeholder;
  const e = schema.webhookEndpoints;
  // id, event_id, endpoint_id, merchant_id, livemode, status, attempts, next_attempt_at, locked_until, last_attempt_at, created_at.
  return db
    .insert(schema.webhookDeliveries)
    .select(
      sql`SELECT 'whd_' || lower(hex(randomblob(12))), v.id, ${e.id}, ${e.merchantId}, ${e.livemode}, 'pending', 0, ${p('at')}, NULL, NULL, ${p('at')}
        FROM (${eventValues(n)}) v CROSS JOIN ${e}
        WHERE ${e.merchantId} = ${p('merchantId')} AND ${e.livemode} = ${p('livemode')} AND ${e.status} = 'enabled'
          AND exists (select 1 from json_each(${e.enabledEvents}) where value in ('*', v.type))`,
    )
    .prepare();
});

/** Their broadcast rows (recordBroadcast's, reason created), in order. */
const insertBroadcasts = preparedPerCount((db, n) => {
  const p = sql.placeholder;
  // seq (NULL: the next rowid), merchant_id, livemode, event_id, reason, at.
  return db
    .insert(schema.eventBroadcasts)
    .select(sql`SELECT NULL, ${p('merchantId')}, ${p('livemode')}, v.id, 'created', ${p('at')} FROM (${eventValues(n)}) v`)
    .prepare();
});

async function emitOne(tx: DbOrTx, e: EventInput, given?: string): Promise<string> {
  const id = await insertEvent(tx, e, given);
  // Targeted types (a test event) go only where emitEventTo sends them.
  if (!(TARGETED_EVENT_TYPES as readonly string[]).includes(e.type)) {
    await insertDeliveries(tx).run({ eventId: id, at: e.at.getTime(), merchantId: e.merchantId, livemode: e.livemode, type: e.type });
  }
  // Live listeners (GET /api/v1/events/stream) get every event their filter matches, endpoints or not.
  await recordBroadcast(tx, { merchantId: e.merchantId, livemode: e.livemode, eventId: id, reason: 'created', at: e.at });
  return id;
}

/** Records an event meant for one endpoint only (a test event) and queues its one delivery. */
export async function emitEventTo(tx: DbOrTx, e: EventInput, endpointId: string): Promise<{ eventId: string; deliveryId: string }> {
  const eventId = await insertEvent(tx, e);
  const [deliveryId] = await queueDeliveries(tx, e, eventId, [endpointId], e.at);
  return { eventId, deliveryId: deliveryId! };
}
