import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, prepared } from '@bpay/db';
import type { Clock } from '../../lib/clock';
import { wakeChannel } from '../../lib/wake';

/*
 * The feed behind GET /api/v1/events/stream. Each row says "this event should reach live listeners now" (created,
 * or resent by the merchant). Rows are written in the transaction of the event itself, so a listener never sees
 * an event that was rolled back; open streams poll the table, so every process sharing the database sees them.
 */

export type BroadcastReason = (typeof schema.eventBroadcasts.$inferSelect)['reason'];

/** How long rows are kept; a stream reads every new row within a poll interval, so this only bounds the table. */
export const BROADCAST_RETENTION_MS = 60 * 60_000;

const broadcasts = wakeChannel();

/** Calls `fn` when this process records a broadcast (a hint to poll now; the poll itself is the truth). */
export const onBroadcast = (fn: () => void): (() => void) => broadcasts.on(fn);

/** How many streams of this process wait for wake-ups (tests check that closed streams leave none behind). */
export const broadcastListenerCount = (): number => broadcasts.count();

/** Every event's broadcast row, built once (db/prepared.ts). */
const insertBroadcast = prepared((db) =>
  db
    .insert(schema.eventBroadcasts)
    .values({
      merchantId: sql.placeholder('merchantId'),
      livemode: sql.placeholder('livemode'),
      eventId: sql.placeholder('eventId'),
      reason: sql.placeholder('reason'),
      at: sql.placeholder('at'),
    })
    .prepare(),
);

/** Wakes this process's open streams (a caller that wrote broadcast rows itself: emitEvents). */
export const wakeBroadcasts = (): void => broadcasts.wake();

/** Records one broadcast in the caller's transaction and wakes this process's open streams. */
export async function recordBroadcast(
  tx: DbOrTx,
  b: { merchantId: string; livemode: boolean; eventId: string; reason: BroadcastReason; at: Date },
): Promise<void> {
  await insertBroadcast(tx).run(b);
  broadcasts.wake();
}

/** The newest seq so far (0 for none): a stream starts after it, so it sends no backlog. */
export async function latestBroadcastSeq(db: Db): Promise<number> {
  const [row] = await db.select({ seq: sql<number | null>`max(${schema.eventBroadcasts.seq})` }).from(schema.eventBroadcasts);
  return Number(row?.seq ?? 0);
}

/**
 * Where a stream that last received `eventId` resumes: the newest broadcast of that event for this merchant and
 * mode, or null when there is none (unknown id, another merchant's, or older than the retention).
 */
export async function broadcastSeqOf(db: Db, merchantId: string, livemode: boolean, eventId: string): Promise<number | null> {
  const [row] = await db
    .select({ seq: sql<number | null>`max(${schema.eventBroadcasts.seq})` })
    .from(schema.eventBroadcasts)
    .where(
      and(
        eq(schema.eventBroadcasts.merchantId, merchantId),
        eq(schema.eventBroadcasts.livemode, livemode),
        eq(schema.eventBroadcasts.eventId, eventId),
      ),
    );
  return row?.seq == null ? null : Number(row.seq);
}

/** Broadcasts after `seq` for one merchant and mode, oldest first, with their events. */
export async function broadcastsAfter(db: Db, merchantId: string, livemode: boolean, seq: number, limit = 100) {
  return db
    .select({ seq: schema.eventBroadcasts.seq, event: schema.events })
    .from(schema.eventBroadcasts)
    .innerJoin(schema.events, eq(schema.events.id, schema.eventBroadcasts.eventId))
    .where(
      and(
        eq(schema.eventBroadcasts.merchantId, merchantId),
        eq(schema.eventBroadcasts.livemode, livemode),
        gt(schema.eventBroadcasts.seq, seq),
      ),
    )
    .orderBy(asc(schema.eventBroadcasts.seq))
    .limit(limit);
}

/** Housekeeping: drops rows older than the retention. Returns how many. */
export async function pruneBroadcasts(db: Db, clock: Clock, retentionMs = BROADCAST_RETENTION_MS): Promise<number> {
  const res = await db.delete(schema.eventBroadcasts).where(lt(schema.eventBroadcasts.at, new Date(clock.now().getTime() - retentionMs)));
  return res.rowsAffected;
}
