import { sql } from 'drizzle-orm';
import {
  schema,
  type DbOrTx,
  isUniqueViolationAt,
  rowAsInserted,
  slots,
  slotValues,
  sqlOnce,
  writeUnit,
} from '@bpay/db';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { newId, newToken } from '../../lib/ids';
import { accounts } from '../ledger/service';
import { assertBankStanding } from './bank-debits';
import {
  collectionByKey,
  collectionsThisMonth,
  insertCollection,
  insertCollectionArgs,
  insertShares,
  insertSharesArgs,
  liveSources,
} from './statements';
import { LEASE_MS, now, phase, type Lease, type Loaded } from './saga';
import type { CollectionPlan, PlannedShare } from './collect';

type CollectionRow = typeof schema.collections.$inferSelect;

/*
 * Recording a collection (the saga's first phase): its rows built here, the plan's monthly cap and its sources checked
 * where it is recorded, as one unit of work as data where it can be (issue 30), else in one transaction.
 */

const startOfMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * Records the collection and its shares (status holding) in one transaction, after checking the plan's monthly
 * limits inside it, so concurrent requests cannot pass a limit together. Returns the lease to work under.
 * Fails with: plan_limit_reached.
 */
export async function recordCollection(
  deps: AppDeps,
  userId: string,
  plan: CollectionPlan,
  limits: RecordLimits,
): Promise<{ lease: Lease; existing: boolean; recorded?: Loaded }> {
  const owner = newToken();
  const at = now(deps);
  const id = newId('col');
  const bankCents = plan.shares.filter((s) => s.source.type === 'bank_account').reduce((a, s) => a + s.amountCents, 0);
  // Without bank shares every check is one assertion: the record is a unit of work as data (issue 30 §2).
  if (bankCents === 0) return recordAsUnit(deps, userId, plan, limits, { id, owner, at });
  return deps.db.transaction(async (tx) => {
    if (plan.idempotencyKey) {
      const prior = await collectionByKey(tx).get({ userId, key: plan.idempotencyKey });
      if (prior) return { lease: { collectionId: prior.id, owner: prior.leaseOwner }, existing: true };
    }
    await checkRecord(tx, userId, plan, limits, at, bankCents);
    const { collection, shares } = newCollectionRows(deps, userId, plan, { id, owner, at });
    await insertCollection(tx).run(insertCollectionArgs(collection));
    await insertShares(tx, shares.length).run(insertSharesArgs(id, 'pending', at, shares));
    return { lease: { collectionId: id, owner }, existing: false, recorded: loadedOf(plan, collection, shares) };
  });
}

interface RecordLimits {
  monthlyTransactions: number;
  bcardGenerationLimit: number;
  planName: string;
  tierName: string;
}

/** The plan's monthly cap on collections: the lower of its two limits (-1 is unlimited), or Infinity. */
const monthlyCap = (limits: RecordLimits) =>
  Math.min(...[limits.monthlyTransactions, limits.bcardGenerationLimit].filter((l) => l !== -1), Number.POSITIVE_INFINITY);

/**
 * What recording a collection rests on, checked where it is recorded, so concurrent requests cannot pass a limit
 * together: the sources still the user's and active, nothing owed (and the bank exposure under the cap), the month's
 * collections under the plan's cap. Fails with: resource_not_found, validation_error (a paused source),
 * account_restricted, bank_exposure_limit_reached, plan_limit_reached.
 */
async function checkRecord(tx: DbOrTx, userId: string, plan: CollectionPlan, limits: RecordLimits, at: Date, bankCents: number): Promise<void> {
  await assertSourcesStillUsable(tx, userId, plan.shares);
  await assertBankStanding(tx, userId, bankCents, { name: limits.tierName, displayName: limits.planName });
  const row = await collectionsThisMonth(tx).get({ userId, since: startOfMonth(at).getTime() });
  const cap = monthlyCap(limits);
  if (Number(row?.n ?? 0) >= cap) {
    throw new AppError(
      'plan_limit_reached',
      `Your ${limits.planName} plan allows ${cap} bcards a month, and you have used them all. ` + 'Upgrade your plan or wait for next month.',
    );
  }
}

/** The collection's and its shares' rows as they are inserted (pending, holding): built here, never read back. */
function newCollectionRows(deps: AppDeps, userId: string, plan: CollectionPlan, made: { id: string; owner: string; at: Date }) {
  const { id, owner, at } = made;
  const collection = rowAsInserted(schema.collections, {
    id,
    userId,
    kind: plan.kind,
    status: 'holding',
    amountCents: plan.amountCents,
    feeCents: plan.feeCents,
    totalCents: plan.amountCents + plan.feeCents,
    name: plan.name,
    cardholderName: plan.cardholderName,
    merchant: plan.merchant,
    description: plan.description,
    lockedMerchantId: plan.lockedMerchantId,
    lockedDomain: plan.lockedDomain,
    extensionTokenId: plan.extensionTokenId,
    vendor: deps.vendor.name,
    idempotencyKey: plan.idempotencyKey,
    leaseOwner: owner,
    leaseUntil: new Date(at.getTime() + LEASE_MS),
    createdAt: at,
    updatedAt: at,
  });
  const shares = plan.shares.map((s, position) => ({ id: newId('shr'), fundingSourceId: s.source.id, position, percentageBps: s.percentageBps, amountCents: s.amountCents }));
  return { collection, shares };
}

/** The saga's next phase starts from what was recorded, with the sources the plan read (checked again on recording). */
function loadedOf(plan: CollectionPlan, collection: CollectionRow, shares: ReturnType<typeof newCollectionRows>['shares']): Loaded {
  const rows = shares.map((sh) => rowAsInserted(schema.collectionShares, { ...sh, collectionId: collection.id, status: 'pending', updatedAt: collection.updatedAt }));
  return { collection, shares: rows.map((share) => ({ ...share, source: plan.shares[share.position]!.source })) };
}

/** The record's checks, read again inside its unit: one assertion per share count, its SQL built once. */
const recordConditions = new Map<number, () => { sql: string; params: unknown[] }>();
function recordCondition(n: number) {
  let built = recordConditions.get(n);
  if (!built) {
    const fs = schema.fundingSources;
    const lp = schema.ledgerPostings;
    const col = schema.collections;
    const ph = sql.placeholder;
    built = sqlOnce(
      () => sql`(SELECT count(*) FROM ${fs} WHERE ${fs.userId} = ${ph('userId')} AND ${fs.isActive} = 1 AND ${fs.deletedAt} IS NULL
          AND ${fs.id} IN (${sql.join(slots('src', n), sql`, `)})) = ${ph('distinct')}
        AND coalesce((SELECT sum(${lp.amountCents}) FROM ${lp} WHERE ${lp.account} = ${ph('receivable')}), 0) >= 0
        AND (${ph('cap')} < 0 OR (SELECT count(*) FROM ${col} WHERE ${col.userId} = ${ph('userId')} AND ${col.status} != 'failed'
          AND ${col.kind} != 'sandbox' AND ${col.createdAt} >= ${ph('since')}) <= ${ph('cap')})`,
    );
    recordConditions.set(n, built);
  }
  return built();
}

/** The record's assertion failed: something it rested on changed since it was checked. */
class RecordRaced extends Error {}

/**
 * recordCollection without bank shares as ONE unit of work as data, nothing read first: the collection and its shares
 * written, then an assertion that reads inside the unit what the record rests on (the sources still the user's and
 * active, nothing owed, this month's count with this one within the plan's cap). When it fails, nothing was written
 * and the checks run on the database to say which fact does not hold; the same Idempotency-Key already recorded fails
 * the insert (its UNIQUE index) and that collection is the answer.
 */
async function recordAsUnit(
  deps: AppDeps,
  userId: string,
  plan: CollectionPlan,
  limits: RecordLimits,
  made: { id: string; owner: string; at: Date },
): Promise<{ lease: Lease; existing: boolean; recorded?: Loaded }> {
  const prior = async () => {
    const row = plan.idempotencyKey ? await collectionByKey(deps.db).get({ userId, key: plan.idempotencyKey }) : undefined;
    return row ? { lease: { collectionId: row.id, owner: row.leaseOwner }, existing: true } : null;
  };
  for (let attempt = 1; ; attempt++) {
    const { collection, shares } = newCollectionRows(deps, userId, plan, made);
    const unit = writeUnit(deps.db);
    const at = unit.size;
    await insertCollection(unit.tx).run(insertCollectionArgs(collection));
    await insertShares(unit.tx, shares.length).run(insertSharesArgs(collection.id, 'pending', made.at, shares));
    // After the insert: this month's count includes the collection just written.
    const ids = plan.shares.map((s) => s.source.id);
    const cap = monthlyCap(limits);
    unit.assert(
      recordCondition(ids.length),
      slotValues('src', ids, {
        userId,
        distinct: new Set(ids).size,
        receivable: accounts.receivable(userId),
        cap: cap === Number.POSITIVE_INFINITY ? -1 : cap,
        since: startOfMonth(made.at).getTime(),
      }),
      () => new RecordRaced(),
    );
    try {
      await unit.commit();
      return { lease: { collectionId: collection.id, owner: made.owner }, existing: false, recorded: loadedOf(plan, collection, shares) };
    } catch (e) {
      if (isUniqueViolationAt(e, at)) {
        const raced = await prior();
        if (raced) return raced;
      }
      if (!(e instanceof RecordRaced)) throw e;
      // The checks say which fact does not hold (they throw); one that changed back meanwhile is tried again.
      await checkRecord(deps.db, userId, plan, limits, made.at, 0);
      // Three times the month's count was at the cap inside the unit and under it outside: collections in progress
      // that failed meanwhile count while they run. Said as the limit it is.
      if (attempt >= 3) {
        throw new AppError('plan_limit_reached', `Your ${limits.planName} plan's bcards for this month are all in use or being made. Try again in a moment.`);
      }
    }
  }
}

/**
 * The plan's sources were checked when it was made, outside this transaction; a source removed or paused since
 * (a DELETE racing the request) must not be charged. Checked again here, where the collection is recorded: a
 * removal commits either before (this request fails) or after (the removal sees a live collection and is refused).
 */
async function assertSourcesStillUsable(tx: DbOrTx, userId: string, shares: PlannedShare[]): Promise<void> {
  if (shares.length === 0) return;
  const rows = await liveSources(tx, shares.length).all(slotValues('id', shares.map((s) => s.source.id), { userId }));
  const now = new Map(rows.map((r) => [r.id, r.isActive]));
  for (const [i, { source }] of shares.entries()) {
    if (!now.has(source.id)) throw notFound('funding source');
    if (!now.get(source.id)) {
      throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source ${source.name} (•••• ${source.last4}) is paused.`);
    }
  }
}

