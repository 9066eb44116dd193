import { and, asc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { schema, prepared, preparedPerCount, slots, slotValues, type DbOrTx } from '@bpay/db';

/*
 * The collection saga's statements, built once (issue 29 §3, db/prepared.ts): the SQL text is a constant per
 * statement (per row count for the multi-row ones), and each call only binds its values. A value in a condition has
 * no column encoder (drizzle binds a placeholder there as given): times go in as the milliseconds the column stores.
 * The saga's files (collect.ts, saga.ts) call these; what each statement means is said where it is called.
 */

type CollectionInsert = typeof schema.collections.$inferInsert;
type ShareStatus = (typeof schema.collectionShares.$inferSelect)['status'];

const ph = sql.placeholder;
/**
 * A placeholder as an update's value: drizzle's set() binds it through the column's encoder (mapUpdateSet wraps it in
 * a Param) although its types accept only the column's own type.
 */
const setPh = (name: string) => sql.placeholder(name) as unknown as never;
const c = schema.collections;
const s = schema.collectionShares;

/** Every column of a table named with a placeholder of its property's name (an insert built here fixes nothing). */
function allPlaceholders<T extends Record<string, unknown>>(columns: readonly (keyof T & string)[], suffix = ''): T {
  return Object.fromEntries(columns.map((k) => [k, ph(`${k}${suffix}`)])) as unknown as T;
}

const COLLECTION_COLUMNS = [
  'id', 'userId', 'kind', 'status', 'amountCents', 'feeCents', 'totalCents', 'name', 'cardholderName', 'merchant',
  'description', 'lockedMerchantId', 'lockedDomain', 'extensionTokenId', 'vendor', 'idempotencyKey', 'leaseOwner',
  'leaseUntil', 'createdAt', 'updatedAt',
] as const satisfies readonly (keyof CollectionInsert)[];

/** A new collection, as recorded (returned whole, so the saga's next phase needs not read it back). */
export const insertCollection = prepared((db) =>
  db.insert(c).values(allPlaceholders<CollectionInsert>(COLLECTION_COLUMNS)).returning().prepare(),
);

export function insertCollectionArgs(row: Pick<CollectionInsert, (typeof COLLECTION_COLUMNS)[number]>): Record<string, unknown> {
  return Object.fromEntries(COLLECTION_COLUMNS.map((k) => [k, row[k] ?? null]));
}

const SHARE_COLUMNS = ['id', 'fundingSourceId', 'position', 'percentageBps', 'amountCents'] as const;

/** A collection's shares, one multi-row insert per share count, all pending at `updatedAt`; returned whole. */
export const insertShares = preparedPerCount((db, n) => {
  const cols = Object.fromEntries(SHARE_COLUMNS.map((k) => [k, slots(k, n)]));
  return db
    .insert(s)
    .values(
      Array.from({ length: n }, (_, i) => ({
        id: cols.id![i]!,
        collectionId: ph('collectionId'),
        fundingSourceId: cols.fundingSourceId![i]!,
        position: cols.position![i]!,
        percentageBps: cols.percentageBps![i]!,
        amountCents: cols.amountCents![i]!,
        status: ph('status'),
        updatedAt: ph('updatedAt'),
      })),
    )
    .returning()
    .prepare();
});

export function insertSharesArgs(
  collectionId: string,
  status: ShareStatus,
  updatedAt: Date,
  rows: Array<{ id: string; fundingSourceId: string; position: number; percentageBps: number; amountCents: number }>,
): Record<string, unknown> {
  const args: Record<string, unknown> = { collectionId, status, updatedAt };
  for (const k of SHARE_COLUMNS) slotValues(k, rows.map((r) => r[k]), args);
  return args;
}

/** The user's collection under this Idempotency-Key. */
export const collectionByKey = prepared((db) =>
  db.select().from(c).where(and(eq(c.userId, ph('userId')), eq(c.idempotencyKey, ph('key')))).limit(1).prepare(),
);

export const collectionById = prepared((db) => db.select().from(c).where(eq(c.id, ph('id'))).limit(1).prepare());

/** A collection's shares in order, each with its funding source. */
export const sharesWithSources = prepared((db) =>
  db
    .select({ share: s, source: schema.fundingSources })
    .from(s)
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, s.fundingSourceId))
    .where(eq(s.collectionId, ph('collectionId')))
    .orderBy(asc(s.position))
    .prepare(),
);

/** The user's collections this month that count against the plan (startOfMonth in ms). */
export const collectionsThisMonth = prepared((db) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(c)
    .where(
      and(
        eq(c.userId, ph('userId')),
        sql`${c.status} != 'failed'`,
        // A merchant's sandbox test bcards do not use the owner's consumer plan.
        sql`${c.kind} != 'sandbox'`,
        sql`${c.createdAt} >= ${ph('since')}`,
      ),
    )
    .prepare(),
);

/** Which of these sources are still the user's and not removed, and whether each is active. */
export const liveSources = preparedPerCount((db, n) =>
  db
    .select({ id: schema.fundingSources.id, isActive: schema.fundingSources.isActive })
    .from(schema.fundingSources)
    .where(and(inArray(schema.fundingSources.id, slots('id', n)), eq(schema.fundingSources.userId, ph('userId')), isNull(schema.fundingSources.deletedAt)))
    .prepare(),
);

/**
 * Several shares of one collection to one status, each with its own processor id, in one statement: per count,
 * `SET vendor_hold_id = CASE id WHEN ? THEN ? … END … WHERE id IN (…)`.
 */
export const setSharesHeldOrCaptured = preparedPerCount((db, n) => {
  const ids = slots('id', n);
  const holds = slots('hold', n);
  const cases = sql.join(ids.map((id, i) => sql`WHEN ${id} THEN ${holds[i]}`), sql` `);
  const vendorHoldId: SQL<string | null> = sql`CASE ${s.id} ${cases} END`;
  return db.update(s).set({ status: setPh('status'), vendorHoldId, updatedAt: setPh('updatedAt') }).where(inArray(s.id, ids)).prepare();
});

export function setSharesArgs(status: ShareStatus, updatedAt: Date, holds: Array<[shareId: string, holdId: string | null]>) {
  const args: Record<string, unknown> = { status, updatedAt };
  slotValues('id', holds.map(([id]) => id), args);
  slotValues('hold', holds.map(([, h]) => h), args);
  return args;
}

/**
 * A guarded status change under the lease (saga.ts setStatus), built once per set of extra columns it writes: the
 * phases' own (none, leaseUntil) are two builds, the rarer ones (failure fields) one each.
 */
const statusChanges = new Map<string, (db: DbOrTx) => { run(values: Record<string, unknown>): Promise<{ rowsAffected: number }> }>();
export function statusChange(extraColumns: readonly string[]) {
  const key = extraColumns.join(',');
  let q = statusChanges.get(key);
  if (!q) {
    q = prepared((db) =>
      db
        .update(c)
        .set({ status: setPh('to'), updatedAt: setPh('updatedAt'), ...Object.fromEntries(extraColumns.map((k) => [k, setPh(`x_${k}`)])) })
        .where(and(eq(c.id, ph('id')), eq(c.status, ph('from')), eq(c.leaseOwner, ph('owner'))))
        .prepare(),
    );
    statusChanges.set(key, q);
  }
  return q;
}

export const leaseRenewal = prepared((db) =>
  db
    .update(c)
    .set({ leaseUntil: setPh('leaseUntil') })
    .where(and(eq(c.id, ph('id')), eq(c.leaseOwner, ph('owner'))))
    .prepare(),
);

const BCARD_COLUMNS = [
  'id', 'userId', 'collectionId', 'name', 'cardholderName', 'vendor', 'vendorCardId', 'brand', 'last4', 'expMonth',
  'expYear', 'limitCents', 'status', 'lockedMerchantId', 'lockedDomain', 'extensionTokenId', 'sandbox', 'expiresAt',
  'createdAt',
] as const satisfies readonly (keyof typeof schema.bcards.$inferInsert)[];

/** The issued bcard, returned whole. */
export const insertBcard = prepared((db) =>
  db.insert(schema.bcards).values(allPlaceholders<typeof schema.bcards.$inferInsert>(BCARD_COLUMNS)).returning().prepare(),
);

export function insertBcardArgs(row: Pick<typeof schema.bcards.$inferInsert, (typeof BCARD_COLUMNS)[number]>): Record<string, unknown> {
  return Object.fromEntries(BCARD_COLUMNS.map((k) => [k, row[k] ?? null]));
}

const b = schema.bcards;

/**
 * A bcard spent (issue 29 §3, the confirm path): used, with what was spent and when, only while it can be spent
 * (active in its session, or authorized by a manual-capture payment), unspent, and holding the amount. `at` and
 * `amount` go in the conditions as given (milliseconds, cents).
 */
export const spendBcardRow = prepared((db) =>
  db
    .update(b)
    .set({ status: 'used', spentCents: setPh('amount'), deactivatedAt: setPh('deactivatedAt') })
    .where(
      and(
        eq(b.id, ph('id')),
        // An authorized card (a manual-capture payment) is captured after its session may have ended.
        sql`((${b.status} = 'active' AND ${b.expiresAt} > ${ph('at')}) OR ${b.status} = 'authorized')`,
        eq(b.spentCents, 0),
        sql`${b.limitCents} >= ${ph('amount')}`,
      ),
    )
    .prepare(),
);

/** The spent bcard's collection: the purchase named, and its remainder on its way back under the caller's lease. */
export const collectionSpent = prepared((db) =>
  db
    .update(c)
    .set({
      merchant: setPh('merchant'),
      description: setPh('description'),
      updatedAt: setPh('updatedAt'),
      status: 'refunding',
      leaseOwner: setPh('leaseOwner'),
      leaseUntil: setPh('leaseUntil'),
    })
    .where(eq(c.id, ph('id')))
    .prepare(),
);

/** A share's status (setShare in saga.ts, by what it sets). */
export const shareStatus = prepared((db) =>
  db.update(s).set({ status: setPh('status'), updatedAt: setPh('updatedAt') }).where(eq(s.id, ph('id'))).prepare(),
);
export const shareStatusAndHold = prepared((db) =>
  db.update(s).set({ status: setPh('status'), vendorHoldId: setPh('vendorHoldId'), updatedAt: setPh('updatedAt') }).where(eq(s.id, ph('id'))).prepare(),
);
export const shareDeclined = prepared((db) =>
  db
    .update(s)
    .set({ status: setPh('status'), declineCode: setPh('declineCode'), declineMessage: setPh('declineMessage'), updatedAt: setPh('updatedAt') })
    .where(eq(s.id, ph('id')))
    .prepare(),
);

/** The bcard a collection issued, if any (one at most: bcards_collection_unique). */
export const bcardOfCollection = prepared((db) => db.select().from(b).where(eq(b.collectionId, ph('collectionId'))).limit(1).prepare());
