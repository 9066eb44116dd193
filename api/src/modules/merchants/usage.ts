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

export async function monthlyRequests(db: Db, merchantId: string, at: Date): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${schema.merchantUsage.requests}), 0)` })
    .from(schema.merchantUsage)
    .where(and(eq(schema.merchantUsage.merchantId, merchantId), like(schema.merchantUsage.day, `${monthOf(at)}-%`)));
  return Number(row?.n ?? 0);
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

/** One more request of a merchant on a day. */
const countRequest = prepared((db) =>
  db
    .insert(schema.merchantUsage)
    .values({ merchantId: sql.placeholder('merchantId'), day: sql.placeholder('day'), requests: 1 })
    .onConflictDoUpdate({
      target: [schema.merchantUsage.merchantId, schema.merchantUsage.day],
      set: { requests: sql`${schema.merchantUsage.requests} + 1` },
    })
    .prepare(),
);

export async function dailyRequests(db: Db, merchantId: string, at: Date): Promise<number> {
  const row = await firstRow(db, schema.merchantUsage, and(eq(schema.merchantUsage.merchantId, merchantId), eq(schema.merchantUsage.day, dayOf(at))));
  return row?.requests ?? 0;
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
  const count = (db: DbOrTx) => countRequest(db).run({ merchantId: merchant.id, day: dayOf(at) });
  try {
    if (tier.apiCallsPerMonth === -1) return void (await count(deps.db));
    // The month's count is read and raised in one unit of work: requests at once cannot all pass on the same count.
    await deps.db.transaction(async (tx) => {
      if ((await ownerMonthlyRequests(tx, merchant.userId, at)) >= tier.apiCallsPerMonth) {
        const nextMonth = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
        throw new AppError(
          'monthly_quota_exceeded',
          `The ${tier.displayName} plan allows ${tier.apiCallsPerMonth} API requests a month across all of its owner's merchant accounts.`,
          undefined,
          { 'retry-after': String(Math.ceil((nextMonth - at.getTime()) / 1000)) },
        );
      }
      await count(tx);
    });
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
