import { and, eq, sql } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { newId } from '../../lib/ids';

/** Every event type bpay emits. Webhook endpoints subscribe to these or to '*'. */
export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.succeeded',
  'payment_intent.failed',
  'payment_intent.canceled',
  'payment_intent.amount_capturable_updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records an event and queues one delivery per subscribed endpoint, in the caller's transaction: the event
 * exists if and only if the change that caused it was committed. The delivery worker sends them after commit.
 */
export async function emitEvent(
  tx: DbOrTx,
  e: { merchantId: string; livemode: boolean; type: EventType; object: Record<string, unknown>; at: Date },
): Promise<string> {
  const id = newId('evt');
  const [row] = await tx
    .select({ next: sql<number>`coalesce(max(${schema.events.seq}), 0) + 1` })
    .from(schema.events)
    .where(eq(schema.events.merchantId, e.merchantId));
  await tx.insert(schema.events).values({
    id,
    merchantId: e.merchantId,
    livemode: e.livemode,
    type: e.type,
    data: e.object,
    seq: Number(row?.next ?? 1),
    createdAt: e.at,
  });
  const endpoints = await tx
    .select({ id: schema.webhookEndpoints.id, enabledEvents: schema.webhookEndpoints.enabledEvents })
    .from(schema.webhookEndpoints)
    .where(
      and(
        eq(schema.webhookEndpoints.merchantId, e.merchantId),
        eq(schema.webhookEndpoints.livemode, e.livemode),
        eq(schema.webhookEndpoints.status, 'enabled'),
      ),
    );
  const subscribed = endpoints.filter((ep) => ep.enabledEvents.includes('*') || ep.enabledEvents.includes(e.type));
  if (subscribed.length > 0) {
    await tx.insert(schema.webhookDeliveries).values(
      subscribed.map((ep) => ({
        id: newId('whd'),
        eventId: id,
        endpointId: ep.id,
        status: 'pending' as const,
        nextAttemptAt: e.at,
        createdAt: e.at,
      })),
    );
  }
  return id;
}
