import { and, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import type { Clock } from './clock';

/**
 * Durable counters for the abuse limits (throttle_events): sign-in throttling, two-factor failures, card attempts,
 * registrations. A rule allows at most `limit` weight per key inside a sliding `windowMs`.
 */
export interface ThrottleRule {
  scope: string;
  limit: number;
  windowMs: number;
}

export interface ThrottleHit {
  rule: ThrottleRule;
  key: string;
  /** How much this event counts (default 1). */
  weight?: number;
}

export type ThrottleOutcome = { allowed: true; ids: number[] } | { allowed: false; retryAfterSeconds: number };

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Seconds until enough of the oldest events leave the window for `weight` more to fit under the limit. */
function retryAfter(events: { at: Date; weight: number }[], rule: ThrottleRule, weight: number, nowMs: number): number {
  let total = events.reduce((s, e) => s + e.weight, 0);
  let pivotMs = nowMs;
  for (const e of events) {
    if (total + weight <= rule.limit) break;
    total -= e.weight;
    pivotMs = e.at.getTime() + rule.windowMs;
  }
  return Math.max(1, Math.ceil((pivotMs - nowMs) / 1000));
}

async function eventsInWindow(tx: Tx | Db, hit: ThrottleHit, nowMs: number) {
  return tx
    .select({ at: schema.throttleEvents.at, weight: schema.throttleEvents.weight })
    .from(schema.throttleEvents)
    .where(
      and(
        eq(schema.throttleEvents.scope, hit.rule.scope),
        eq(schema.throttleEvents.key, hit.key),
        gt(schema.throttleEvents.at, new Date(nowMs - hit.rule.windowMs)),
      ),
    )
    .orderBy(schema.throttleEvents.at, schema.throttleEvents.id);
}

/**
 * Counts one event against every hit's rule, or refuses it when any rule has no room left. Reading the sums and
 * inserting the event are one write transaction (BEGIN IMMEDIATE), so parallel requests cannot all see room under a
 * limit. A refused event leaves no row. The returned ids let the caller release the event (releaseThrottle) when it
 * turns out not to count, for example a sign-in attempt whose password was right.
 */
export async function hitThrottle(db: Db, clock: Clock, hits: ThrottleHit[]): Promise<ThrottleOutcome> {
  const at = clock.now();
  const nowMs = at.getTime();
  return db.transaction(async (tx) => {
    let wait = 0;
    for (const hit of hits) {
      const weight = hit.weight ?? 1;
      const events = await eventsInWindow(tx, hit, nowMs);
      const used = events.reduce((s, e) => s + e.weight, 0);
      if (used + weight > hit.rule.limit) wait = Math.max(wait, retryAfter(events, hit.rule, weight, nowMs));
    }
    if (wait > 0) return { allowed: false as const, retryAfterSeconds: wait };
    if (hits.length === 0) return { allowed: true as const, ids: [] };
    const ids = (
      await tx
        .insert(schema.throttleEvents)
        .values(hits.map((h) => ({ scope: h.rule.scope, key: h.key, at, weight: h.weight ?? 1 })))
        .returning({ id: schema.throttleEvents.id })
    ).map((r) => r.id);
    return { allowed: true as const, ids };
  });
}

/** Read-only: seconds to wait before `weight` more would fit under every rule, or null when it fits now. */
export async function throttleWait(db: Db, clock: Clock, hits: ThrottleHit[]): Promise<number | null> {
  const nowMs = clock.now().getTime();
  let wait = 0;
  for (const hit of hits) {
    const weight = hit.weight ?? 1;
    const events = await eventsInWindow(db, hit, nowMs);
    const used = events.reduce((s, e) => s + e.weight, 0);
    if (used + weight > hit.rule.limit) wait = Math.max(wait, retryAfter(events, hit.rule, weight, nowMs));
  }
  return wait > 0 ? wait : null;
}

/** Counts events without checking any limit (an outcome learnt after the fact, such as a decline). */
export async function recordThrottle(db: Db, clock: Clock, hits: ThrottleHit[]): Promise<void> {
  if (hits.length === 0) return;
  const at = clock.now();
  await db
    .insert(schema.throttleEvents)
    .values(hits.map((h) => ({ scope: h.rule.scope, key: h.key, at, weight: h.weight ?? 1 })));
}

/** The events no longer count. */
export async function releaseThrottle(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(schema.throttleEvents).where(inArray(schema.throttleEvents.id, ids));
}

/** Forgets every event of one key under one rule (for example an account's failures after a good sign-in). */
export async function clearThrottle(db: Db, rule: ThrottleRule, key: string): Promise<void> {
  await db
    .delete(schema.throttleEvents)
    .where(and(eq(schema.throttleEvents.scope, rule.scope), eq(schema.throttleEvents.key, key)));
}

/** Drops events older than the longest window in use. */
export async function pruneThrottle(db: Db, clock: Clock, longestWindowMs: number): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - longestWindowMs);
  const gone = await db
    .delete(schema.throttleEvents)
    .where(lt(schema.throttleEvents.at, cutoff))
    .returning({ n: sql<number>`1` });
  return gone.length;
}
