import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, prepared } from '@bpay/db';
import { notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { maskedNumber } from '../../lib/cards';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { bcardStageOf, shareStageOf, type BcardStageView, type ShareStage } from './stage';
import { money } from './plan';

/*
 * A bcard as its holder sees it (BcardView, with each funding share's ShareView), and the reads: the list, one card.
 */

type BcardRow = typeof schema.bcards.$inferSelect;
type CollectionRow = typeof schema.collections.$inferSelect;

export interface BcardView {
  id: string;
  name: string;
  cardholderName: string;
  cardNumber: string;
  last4: string;
  brand: string;
  expiryMonth: number;
  expiryYear: number;
  balance: string;
  spendingLimit: string;
  interval: 'single_use';
  status: 'active' | 'used' | 'expired' | 'canceled';
  expiresAt: string;
  createdAt: string;
  amount: string;
  fee: string;
  totalCharged: string;
  transactionId: string;
  fundingSources: ShareView[];
  lockedDomain: string | null;
  closedReason: 'too_many_incorrect_attempts' | null;
  /** Where it stands, with the figures its words need (stage.ts). */
  stage: BcardStageView;
}

export interface ShareView {
  fundingSourceId: string;
  name: string;
  last4: string;
  brand: string;
  percentage: number;
  amount: string;
  status: string;
  /** Its status in words' terms: a captured bank share whose debit still settles is bank_pending (stage.ts). */
  stage: ShareStage;
}

/**
 * Internal in-between states show as where they are heading; an authorized card is spoken for (used). An active card
 * past its expiry is expired already (nothing can spend it: spendBcard and revealBcard check the time), even before
 * the sweep has refunded it.
 */
const publicStatus = (b: BcardRow, now: Date): BcardView['status'] => {
  const s = b.status;
  if (s === 'active' && b.expiresAt <= now) return 'expired';
  return s === 'expiring' ? 'expired' : s === 'canceling' ? 'canceled' : s === 'authorized' ? 'used' : s;
};

/** The shares of the collections `where` picks, in position order, with what their stages need. */
const sharesQuery = (db: DbOrTx, where: SQL | undefined) =>
  db
    .select({
      // What a share's view shows, and no more (a page carries up to 100 cards' shares).
      share: {
        collectionId: schema.collectionShares.collectionId,
        percentageBps: schema.collectionShares.percentageBps,
        amountCents: schema.collectionShares.amountCents,
        status: schema.collectionShares.status,
      },
      source: { id: schema.fundingSources.id, name: schema.fundingSources.name, last4: schema.fundingSources.last4, brand: schema.fundingSources.brand },
      debit: schema.bankDebits.status,
      bcardStatus: schema.bcards.status,
      // The share's latest dispute (issue 26), if any: one row per share, unlike a join.
      dispute: sql<'open' | 'won' | 'lost' | null>`(SELECT d.status FROM share_disputes d WHERE d.share_id = ${schema.collectionShares.id} ORDER BY d.opened_at DESC, d.id DESC LIMIT 1)`,
    })
    .from(schema.collectionShares)
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .leftJoin(schema.bankDebits, eq(schema.bankDebits.shareId, schema.collectionShares.id))
    .leftJoin(schema.bcards, eq(schema.bcards.collectionId, schema.collectionShares.collectionId))
    .where(where)
    .orderBy(asc(schema.collectionShares.position));

/** One collection's shares (a bcard's view, a transaction's detail, a collection's progress): built once. */
const sharesOfOne = prepared((db) => sharesQuery(db, eq(schema.collectionShares.collectionId, sql.placeholder('id'))).prepare());

export async function sharesOf(db: DbOrTx, collectionIds: string[]): Promise<Map<string, ShareView[]>> {
  const out = new Map<string, ShareView[]>();
  if (collectionIds.length === 0) return out;
  // A list's page has any number of collections: built per call (one build per page size would keep up to 100).
  const rows =
    collectionIds.length === 1
      ? await sharesOfOne(db).all({ id: collectionIds[0] })
      : await sharesQuery(db, inArray(schema.collectionShares.collectionId, collectionIds));
  for (const { share, source, debit, bcardStatus, dispute } of rows) {
    const list = out.get(share.collectionId) ?? [];
    list.push({
      fundingSourceId: source.id,
      name: source.name,
      last4: source.last4,
      brand: source.brand,
      percentage: share.percentageBps / 100,
      amount: money(share.amountCents),
      status: share.status,
      stage: shareStageOf(share, debit, bcardStatus === 'used', dispute),
    });
    out.set(share.collectionId, list);
  }
  return out;
}

function toBcardView(b: BcardRow, c: CollectionRow, shares: ShareView[], now: Date): BcardView {
  const status = publicStatus(b, now);
  const live = status === 'active';
  return {
    id: b.id,
    name: b.name,
    cardholderName: b.cardholderName,
    cardNumber: maskedNumber(b.last4),
    last4: b.last4,
    brand: b.brand,
    expiryMonth: b.expMonth,
    expiryYear: b.expYear,
    balance: money(live ? b.limitCents - b.spentCents : 0),
    spendingLimit: money(b.limitCents),
    interval: 'single_use',
    status,
    expiresAt: b.expiresAt.toISOString(),
    createdAt: b.createdAt.toISOString(),
    amount: money(c.amountCents),
    fee: money(c.feeCents),
    totalCharged: money(c.totalCents),
    transactionId: c.id,
    fundingSources: shares,
    lockedDomain: b.lockedDomain,
    closedReason: b.closedReason === 'too_many_incorrect_attempts' ? 'too_many_incorrect_attempts' : null,
    stage: bcardStageOf(c, b, now),
  };
}

const collectionById = prepared((db) => db.select().from(schema.collections).where(eq(schema.collections.id, sql.placeholder('id'))).prepare());

async function bcardViews(db: Db, cards: BcardRow[], now: Date): Promise<BcardView[]> {
  if (cards.length === 0) return [];
  const cols =
    cards.length === 1
      ? await collectionById(db).all({ id: cards[0]!.collectionId })
      : await db.select().from(schema.collections).where(inArray(schema.collections.id, cards.map((b) => b.collectionId)));
  const byId = new Map(cols.map((c) => [c.id, c]));
  const shares = await sharesOf(db, cols.map((c) => c.id));
  return cards.map((b) => toBcardView(b, byId.get(b.collectionId)!, shares.get(b.collectionId) ?? [], now));
}

/** A page of the bcards list: the spec's call (no parameters) gets the first page, the 50 newest; 100 at most. */
export const BCARDS_PAGE_DEFAULT = 50;
export const BCARDS_PAGE_MAX = 100;

/**
 * The user's bcards, newest first, a page at a time (keyset: `cursor` is the last card's time and id). A bcard is
 * live for a short session (an authorized one until its merchant captures, 7 days at most), so the first page
 * holds the live cards unless fifty newer ones were made meanwhile; the rest is history, as in Transactions.
 */
/** The list's name in its cursors (lib/cursor.ts). */
export const BCARDS_LIST = 'bcards';

export async function listBcards(
  deps: AppDeps,
  userId: string,
  q: { limit: number; cursor: string | null } = { limit: BCARDS_PAGE_DEFAULT, cursor: null },
): Promise<{ data: BcardView[]; nextCursor: string | null }> {
  // A merchant's sandbox test bcards belong to the merchant's owner but are not the owner's cards to see or use.
  const conds: SQL[] = [eq(schema.bcards.userId, userId), eq(schema.bcards.sandbox, false)];
  if (q.cursor) {
    const c = decodeCursor(q.cursor, { list: BCARDS_LIST, owner: userId });
    // A row value: SQLite seeks bcards_user_idx (user_id, created_at, id) to it.
    conds.push(sql`(${schema.bcards.createdAt}, ${schema.bcards.id}) < (${c.t}, ${c.id})`);
  }
  const rows = await deps.db
    .select()
    .from(schema.bcards)
    .where(and(...conds))
    .orderBy(desc(schema.bcards.createdAt), desc(schema.bcards.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: await bcardViews(deps.db, page, deps.clock.now()),
    nextCursor: rows.length > q.limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }, { list: BCARDS_LIST, owner: userId }) : null,
  };
}

const ownedBcard = prepared((db) =>
  db
    .select()
    .from(schema.bcards)
    // sandbox = false is a constant of the build, encoded once (0).
    .where(and(eq(schema.bcards.id, sql.placeholder('id')), eq(schema.bcards.userId, sql.placeholder('userId')), eq(schema.bcards.sandbox, false)))
    .limit(1)
    .prepare(),
);

export async function getOwnedBcard(db: Db, userId: string, id: string): Promise<BcardRow> {
  const b = await ownedBcard(db).get({ id, userId });
  if (!b) throw notFound('bcard');
  return b;
}

/** The view of any bcard row, whoever holds it (the checkout's answer about the sandbox test bcard that paid). */
export async function viewOfBcard(deps: AppDeps, bcard: BcardRow): Promise<BcardView> {
  const [view] = await bcardViews(deps.db, [bcard], deps.clock.now());
  return view!;
}

export async function getBcardView(deps: AppDeps, userId: string, id: string): Promise<BcardView> {
  const [view] = await bcardViews(deps.db, [await getOwnedBcard(deps.db, userId, id)], deps.clock.now());
  return view!;
}
