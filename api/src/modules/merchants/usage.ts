import { and, eq, like, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, firstRow, prepared } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, isStorageFailure } from '../../errors';
import { currentTier } from '../subscription/service';

type MerchantRow = typeof schema.merchants.$inferSelect;

/** Requests one merchant may make per second (a sliding one-second window, per process). */
export const REQUESTS_PER_SECOND = 25;

const windows = new Map<string, number[]>();

function allowThisSecond(merchantId: string, nowMs: number): number | null {
  const recent = (windows.get(merchantId) ?? []).filter((t) => t > nowMs - 1000);
  if (recent.length >= REQUESTS_PER_SECOND) {
    windows.set(merchantId, recent);
    return Math.max(1, Math.ceil((recent[0]! + 1000 - nowMs) / 1000));
  }
  recent.push(nowMs);
  windows.set(merchantId, recent);
  return null;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

/** The merchant's requests this month, as its dashboard shows them: this process's unused leased calls are not requests. */
export async function monthlyRequests(db: Db, merchantId: string, at: Date): Promise<number> {
  return lessUnused(db, merchantId, (lease) => lease.day.startsWith(monthOf(at)), async () => {
    const [row] = await db
      .select({ n: sql<number>`coalesce(sum(${schema.merchantUsage.requests}), 0)` })
      .from(schema.merchantUsage)
      .where(and(eq(schema.merchantUsage.merchantId, merchantId), like(schema.merchantUsage.day, `${monthOf(at)}-%`)));
    return Number(row?.n ?? 0);
  });
}

const ownerMonthQuery = prepared((db) =>
  db
    .select({ n: sql<number>`coalesce(sum(${schema.merchantUsage.requests}), 0)` })
    .from(schema.merchantUsage)
    .innerJoin(schema.merchants, eq(schema.merchants.id, schema.merchantUsage.merchantId))
    .where(and(eq(schema.merchants.userId, sql.placeholder('userId')), like(schema.merchantUsage.day, sql.placeholder('month'))))
    .prepare(),
);

/**
 * Requests this month by every merchant account of one user: the plan's allowance is the user's, not each account's.
 * Built once (db/prepared.ts), as the count below: every merchant API request runs both.
 */
export async function ownerMonthlyRequests(db: DbOrTx, userId: string, at: Date): Promise<number> {
  const row = await ownerMonthQuery(db).get({ userId, month: `${monthOf(at)}-%` });
  return Number(row?.n ?? 0);
}

/** `n` more requests of a merchant on a day (a lease taken). */
const countRequests = prepared((db) =>
  db
    .insert(schema.merchantUsage)
    .values({ merchantId: sql.placeholder('merchantId'), day: sql.placeholder('day'), requests: sql.placeholder('n') })
    .onConflictDoUpdate({
      target: [schema.merchantUsage.merchantId, schema.merchantUsage.day],
      set: { requests: sql`${schema.merchantUsage.requests} + excluded.requests` },
    })
    .prepare(),
);

/** A lease's `n` unused calls given back: its day's row lowered (the lease raised it, so the row is there). */
const uncountRequests = prepared((db) =>
  db
    .update(schema.merchantUsage)
    .set({ requests: sql`${schema.merchantUsage.requests} - ${sql.placeholder('n')}` })
    .where(and(eq(schema.merchantUsage.merchantId, sql.placeholder('merchantId')), eq(schema.merchantUsage.day, sql.placeholder('day'))))
    .prepare(),
);

/** The merchant's requests today, as its dashboard shows them (less this process's unused leased calls). */
export async function dailyRequests(db: Db, merchantId: string, at: Date): Promise<number> {
  return lessUnused(db, merchantId, (lease) => lease.day === dayOf(at), async () => {
    const row = await firstRow(db, schema.merchantUsage, and(eq(schema.merchantUsage.merchantId, merchantId), eq(schema.merchantUsage.day, dayOf(at))));
    return row?.requests ?? 0;
  });
}

/**
 * A count read from the rows, less this process's unused calls of the merchant's lease when `counted` says its day is
 * in the count. The rows and the lease change apart while a block is taken, given back or reclaimed (the lease is
 * emptied before its unit commits, the new block held after it), so the read waits for any such change of this
 * merchant's and is made again if one began or ended meanwhile (hostile audit of issue 29 part 4: a plan change's
 * give-back showed the whole old block as calls made).
 */
async function lessUnused(db: Db, merchantId: string, counted: (lease: Lease) => boolean, read: () => Promise<number>): Promise<number> {
  const leases = leasesOf(db);
  let n = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const busy = leases.taking.get(merchantId) ?? leases.reclaiming.get(merchantId) ?? leases.settling;
    if (busy) {
      await busy.catch(() => undefined);
      continue;
    }
    const seen = leases.changes;
    n = await read();
    if (leases.changes === seen) break;
  }
  const lease = leases.held.get(merchantId);
  return Math.max(0, n - (lease && counted(lease) ? lease.left : 0));
}

/*
 * Leases (issue 29 part 4). Counting each request in its own unit of work cost every merchant GET a commit (an fsync).
 * Instead one unit reserves a block of calls for this process: it reads the owner's month (every process's leases
 * included, as used), refuses if the plan is used up, and adds the block to the merchant's row for the day, as if
 * those calls were made. Requests then count against the block in memory, one at a time on the one thread. A block
 * left unused is given back (its row lowered) when the day or the plan changes, and at shutdown (settleApiLeases); a
 * process that dies with a block out leaves it counted as used: conservative, never over the limit. Near the limit
 * blocks shrink with what is left (at most a quarter of it, at least one call), so the limit is reached exactly, and
 * a block is at most 1 % of the plan's month so a crash costs a merchant little. The dashboard subtracts this
 * process's unused calls, so in one process it is exact; with several, each other process's unused block shows as
 * used until it is spent or given back.
 */

/** The largest block of calls one lease reserves. */
export const LEASE_MAX_CALLS = 100;
/** A lease takes at most 1/LEASE_SHARE of what is left of the month, so other processes still find calls near the end. */
export const LEASE_SHARE = 4;

/** How many calls one lease reserves for a plan of `limit` calls a month (-1: unlimited) with `remaining` left. */
export function leaseSize(limit: number, remaining: number): number {
  if (limit === -1) return LEASE_MAX_CALLS;
  return Math.max(1, Math.min(LEASE_MAX_CALLS, Math.floor(limit / 100), Math.floor(remaining / LEASE_SHARE)));
}

interface Lease {
  /** The UTC day whose row holds the block. */
  day: string;
  /** The plan's monthly allowance the block was taken under (-1 unlimited): another plan takes a new block. */
  limit: number;
  /** Calls of the block not yet made. */
  left: number;
  /** The merchant's owner: the allowance is theirs, so another of their accounts may take these calls back. */
  userId: string;
}

interface Leases {
  held: Map<string, Lease>;
  /** A lease being taken, per merchant: the requests meanwhile wait for it rather than taking their own. */
  taking: Map<string, Promise<unknown>>;
  /** Merchants whose unused calls another account of their owner is giving back (until its unit ends). */
  reclaiming: Map<string, Promise<unknown>>;
  /** settleApiLeases at work. */
  settling: Promise<unknown> | null;
  /** Counts every change of a lease other than a call spent (a block emptied or held): the dashboard's reads check it. */
  changes: number;
  /** Shutting down (closeApiLeases): a lease is then the one call of the request that takes it, nothing left unused. */
  closing: boolean;
}

/** This process's leases on one database (per handle: tests open many databases in one process). */
const leasesByDb = new WeakMap<object, Leases>();
function leasesOf(db: Db): Leases {
  let leases = leasesByDb.get(db);
  if (!leases) leasesByDb.set(db, (leases = { held: new Map(), taking: new Map(), reclaiming: new Map(), settling: null, changes: 0, closing: false }));
  return leases;
}

/** Gives a block's unused calls back, in the caller's unit; the lease is emptied at once so no request spends them. */
async function giveBack(tx: DbOrTx, merchantId: string, lease: Lease, unused: number): Promise<void> {
  if (unused > 0) await uncountRequests(tx).run({ merchantId, day: lease.day, n: unused });
}

/**
 * Takes a new lease for the merchant (giving back what `stale` has left in the same unit). Returns false, with nothing
 * reserved, when the owner's plan is used up this month. When the rows say it is used up, this process's unused calls
 * of the owner's other merchant accounts are given back first, in the same unit, and leased here: the allowance is
 * the owner's, and an account that made one call must not hold the others' last calls (hostile audit of issue 29
 * part 4). Another process's unused calls cannot be reached: they count as used until spent or given back.
 * If the unit fails, nothing was given back: the emptied blocks get their calls again.
 */
async function takeLease(deps: AppDeps, merchant: MerchantRow, limit: number, at: Date, stale: Lease | undefined): Promise<boolean> {
  const leases = leasesOf(deps.db);
  const { held } = leases;
  const unused = stale?.left ?? 0;
  if (stale) stale.left = 0;
  leases.changes++;
  const day = dayOf(at);
  const reclaimed: Array<{ merchantId: string; lease: Lease; unused: number }> = [];
  let unitEnded!: () => void;
  const ended = new Promise<void>((resolve) => (unitEnded = resolve));
  let size: number;
  try {
    // The month's count is read and raised in one unit of work: requests at once, in this process or another, cannot
    // all lease on the same count.
    size = await deps.db.transaction(async (tx) => {
      if (stale) await giveBack(tx, merchant.id, stale, unused);
      let remaining = limit === -1 ? Infinity : limit - (await ownerMonthlyRequests(tx, merchant.userId, at));
      if (remaining <= 0) {
        for (const [merchantId, lease] of held) {
          if (merchantId === merchant.id || lease.userId !== merchant.userId || lease.left <= 0) continue;
          reclaimed.push({ merchantId, lease, unused: lease.left });
          leases.reclaiming.set(merchantId, ended);
          lease.left = 0;
          leases.changes++;
        }
        for (const r of reclaimed) {
          await giveBack(tx, r.merchantId, r.lease, r.unused);
          // A block of another month (held since, unused) gave nothing back to this one.
          if (r.lease.day.startsWith(monthOf(at))) remaining += r.unused;
        }
      }
      if (remaining <= 0) return 0;
      const n = leases.closing ? 1 : leaseSize(limit, remaining);
      await countRequests(tx).run({ merchantId: merchant.id, day, n });
      return n;
    });
  } catch (e) {
    if (stale) stale.left = unused;
    for (const r of reclaimed) r.lease.left = r.unused;
    throw e;
  } finally {
    for (const r of reclaimed) leases.reclaiming.delete(r.merchantId);
    unitEnded();
  }
  leases.changes++;
  if (size === 0) {
    held.delete(merchant.id);
    return false;
  }
  held.set(merchant.id, { day, limit, left: size, userId: merchant.userId });
  return true;
}

/**
 * Gives back every unused leased call of this process on `db`, in one unit of work, and forgets the leases (at
 * shutdown; tests, before they read the usage rows). Blocks being taken are waited for and given back with the
 * others. A failure leaves those calls counted as used.
 */
export async function settleApiLeases(db: Db): Promise<void> {
  const leases = leasesOf(db);
  const work = settle(leases, db);
  leases.settling = work;
  try {
    await work;
  } finally {
    if (leases.settling === work) leases.settling = null;
  }
}

async function settle(leases: Leases, db: Db): Promise<void> {
  const { held, taking } = leases;
  // A block taken while its unit is in flight would be held after the snapshot below, and never given back.
  while (taking.size > 0) await Promise.all([...taking.values()].map((p) => p.catch(() => undefined)));
  const out = [...held].map(([merchantId, lease]) => ({ merchantId, lease, unused: lease.left }));
  held.clear();
  for (const o of out) o.lease.left = 0;
  leases.changes++;
  if (out.every((o) => o.unused === 0)) return;
  try {
    await db.transaction(async (tx) => {
      for (const o of out) await giveBack(tx, o.merchantId, o.lease, o.unused);
    });
  } finally {
    leases.changes++;
  }
}

/**
 * At shutdown (SIGINT/SIGTERM, server.ts): from now on a lease is the one call of the request that takes it, so a
 * request still in flight leaves nothing leased and unmade when the process exits; then every unused call goes back.
 */
export async function closeApiLeases(db: Db): Promise<void> {
  leasesOf(db).closing = true;
  await settleApiLeases(db);
}

/**
 * Counts one API request and enforces the limits. Fails with: api_rate_limited (per second; not checked when the
 * request-rate limits are off, BPAY_RATE_LIMITS=off), monthly_quota_exceeded (the owner's plan's apiCallsPerMonth,
 * shared by all the owner's merchant accounts; -1 is unlimited; always checked: it is the plan, not a rate).
 */
export async function recordApiRequest(deps: AppDeps, merchant: MerchantRow): Promise<void> {
  const at = deps.clock.now();
  const wait = deps.rateLimits ? allowThisSecond(merchant.id, at.getTime()) : null;
  if (wait !== null) throw new AppError('api_rate_limited', undefined, undefined, { 'retry-after': String(wait) });
  const tier = await currentTier(deps.db, merchant.userId);
  const limit = tier.apiCallsPerMonth;
  const day = dayOf(at);
  const { held, taking } = leasesOf(deps.db);
  try {
    for (;;) {
      const lease = held.get(merchant.id);
      if (lease && lease.left > 0 && lease.day === day && lease.limit === limit) {
        lease.left--;
        return;
      }
      const pending = taking.get(merchant.id);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      const take = takeLease(deps, merchant, limit, at, lease);
      taking.set(merchant.id, take);
      let leased: boolean;
      try {
        leased = await take;
      } finally {
        taking.delete(merchant.id);
      }
      if (!leased) {
        const nextMonth = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
        throw new AppError(
          'monthly_quota_exceeded',
          `The ${tier.displayName} plan allows ${limit} API requests a month across all of its owner's merchant accounts.`,
          undefined,
          { 'retry-after': String(Math.ceil((nextMonth - at.getTime()) / 1000)) },
        );
      }
    }
  } catch (e) {
    // A full or failing disk (issue 27): the count cannot be written, and refusing every request for it would stop
    // the merchant's reads too. The request goes on uncounted (its own writes, if any, meet the same disk and answer
    // 503); a quota already reached is still refused (a read).
    if (!isStorageFailure(e)) throw e;
    deps.log.warn('an API request was not counted: the database refused the write', { merchantId: merchant.id });
  }
}

/** For tests: forget the per-second windows. */
export function resetRateWindows(): void {
  windows.clear();
}
