import { and, eq, gt, inArray, lt, notInArray, sql } from 'drizzle-orm';
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
  /**
   * Growing delays instead of a hard stop: once `limit` weight is inside the window, one more is allowed only
   * `baseMs` after the latest event, doubling with every further event inside the window, at most `maxMs` (and never
   * later than the window alone would allow).
   */
  backoff?: { baseMs: number; maxMs: number };
}

export interface ThrottleHit {
  rule: ThrottleRule;
  key: string;
  /** How much this event counts (default 1). */
  weight?: number;
}

/**
 * Allowed: the ids of the inserted events, in the order of the hits. Refused: the longest wait, and each refusing
 * rule's own wait by scope (a caller may treat one rule differently, e.g. a cap that trusted requests may pass).
 */
export type ThrottleOutcome =
  | { allowed: true; ids: number[] }
  | { allowed: false; retryAfterSeconds: number; blocked: Record<string, number> };

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Milliseconds until enough of the oldest events leave the window for `weight` more to fit under the limit. */
function windowWaitMs(events: { at: Date; weight: number }[], rule: ThrottleRule, weight: number, nowMs: number): number {
  let total = events.reduce((s, e) => s + e.weight, 0);
  let pivotMs = nowMs;
  for (const e of events) {
    if (total + weight <= rule.limit) break;
    total -= e.weight;
    pivotMs = e.at.getTime() + rule.windowMs;
  }
  return pivotMs - nowMs;
}

/** Seconds to wait before `weight` more fits under the rule (events oldest first), or 0 when it fits now. */
function secondsToWait(events: { at: Date; weight: number }[], rule: ThrottleRule, weight: number, nowMs: number): number {
  const used = events.reduce((s, e) => s + e.weight, 0);
  if (used + weight <= rule.limit) return 0;
  let waitMs = windowWaitMs(events, rule, weight, nowMs);
  const latest = events.at(-1);
  if (rule.backoff && latest) {
    const over = Math.min(Math.max(0, used - rule.limit), 40);
    const delayMs = Math.min(rule.backoff.maxMs, rule.backoff.baseMs * 2 ** over);
    const sinceLatestMs = latest.at.getTime() + delayMs - nowMs;
    if (sinceLatestMs <= 0) return 0;
    waitMs = Math.min(waitMs, sinceLatestMs);
  }
  return Math.max(1, Math.ceil(waitMs / 1000));
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
    const blocked: Record<string, number> = {};
    for (const hit of hits) {
      const wait = secondsToWait(await eventsInWindow(tx, hit, nowMs), hit.rule, hit.weight ?? 1, nowMs);
      if (wait > 0) blocked[hit.rule.scope] = Math.max(blocked[hit.rule.scope] ?? 0, wait);
    }
    const waits = Object.values(blocked);
    if (waits.length > 0) return { allowed: false as const, retryAfterSeconds: Math.max(...waits), blocked };
    // One insert per hit, so the ids are in the order of the hits (a caller may release some of them only).
    const ids: number[] = [];
    for (const h of hits) {
      const [row] = await tx
        .insert(schema.throttleEvents)
        .values({ scope: h.rule.scope, key: h.key, at, weight: h.weight ?? 1 })
        .returning({ id: schema.throttleEvents.id });
      ids.push(row!.id);
    }
    return { allowed: true as const, ids };
  });
}

/**
 * hitThrottle where one rule, the cap, may be full without refusing: the event then counts against the other rules
 * only (atomically, in a second transaction), and `cappedFor` says how long the cap stays full, for the caller to
 * decide (a sign-in cap that only a trusted request passes). Refused when any other rule is full: the longest wait.
 */
export async function hitThrottleWithCap(
  db: Db,
  clock: Clock,
  hits: ThrottleHit[],
  cap: ThrottleRule,
): Promise<
  { allowed: true; ids: number[]; cappedFor: number | null } | { allowed: false; retryAfterSeconds: number; blocked: Record<string, number> }
> {
  const first = await hitThrottle(db, clock, hits);
  if (first.allowed) return { allowed: true, ids: first.ids, cappedFor: null };
  const { [cap.scope]: capWait, ...others } = first.blocked;
  if (Object.keys(others).length === 0 && capWait !== undefined) {
    const second = await hitThrottle(db, clock, hits.filter((h) => h.rule.scope !== cap.scope));
    if (second.allowed) return { allowed: true, ids: second.ids, cappedFor: capWait };
    Object.assign(others, second.blocked);
  }
  // `blocked`: the full rules other than the cap and their waits, so the caller can say which limit it was.
  return { allowed: false, retryAfterSeconds: Math.max(1, ...Object.values(others)), blocked: others };
}

/** Read-only: seconds to wait before `weight` more would fit under every rule, or null when it fits now. */
export async function throttleWait(db: Db, clock: Clock, hits: ThrottleHit[]): Promise<number | null> {
  const nowMs = clock.now().getTime();
  let wait = 0;
  for (const hit of hits) {
    wait = Math.max(wait, secondsToWait(await eventsInWindow(db, hit, nowMs), hit.rule, hit.weight ?? 1, nowMs));
  }
  return wait > 0 ? wait : null;
}

/** The weight of one key's events inside the rule's window (a record read back, e.g. "has this happened lately"). */
export async function throttleUsed(db: Db, clock: Clock, hit: ThrottleHit): Promise<number> {
  const events = await eventsInWindow(db, hit, clock.now().getTime());
  return events.reduce((s, e) => s + e.weight, 0);
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

/**
 * Drops events older than the longest window in use. Rules in `keepLonger` (records meant to last longer than every
 * limit, such as the addresses an account signed in from) keep their events for their own window instead.
 */
export async function pruneThrottle(
  db: Db,
  clock: Clock,
  longestWindowMs: number,
  keepLonger: ThrottleRule[] = [],
): Promise<number> {
  const nowMs = clock.now().getTime();
  const longer = keepLonger.filter((r) => r.windowMs > longestWindowMs);
  const cutoff = new Date(nowMs - longestWindowMs);
  let gone = (
    await db
      .delete(schema.throttleEvents)
      .where(
        longer.length > 0
          ? and(lt(schema.throttleEvents.at, cutoff), notInArray(schema.throttleEvents.scope, longer.map((r) => r.scope)))
          : lt(schema.throttleEvents.at, cutoff),
      )
      .returning({ n: sql<number>`1` })
  ).length;
  for (const r of longer) {
    gone += (
      await db
        .delete(schema.throttleEvents)
        .where(and(eq(schema.throttleEvents.scope, r.scope), lt(schema.throttleEvents.at, new Date(nowMs - r.windowMs))))
        .returning({ n: sql<number>`1` })
    ).length;
  }
  return gone;
}
