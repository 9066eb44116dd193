import { and, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { schema, firstRow, prepared, preparedPerCount, slots, slotValues } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { sharesOf, type ShareView } from '../bcards/views';
import { bankDebitSummary, bcardStageOf, type BankDebitSummary, type BcardStageView } from '../bcards/stage';
import { filterParts, transactionStatusOf, type TransactionFilter, type TransactionStatus } from './filters';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { csvCell } from '../../lib/csv';
import { collectionFailureText, describeCollection, type WordsLanguage } from '../../lib/server-words';
import { spendingSummary } from '../spending/kept';

type CollectionRow = typeof schema.collections.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

export { TRANSACTION_FILTERS, type TransactionFilter, type TransactionStatus } from './filters';

export interface TransactionView {
  id: string;
  createdAt: string;
  merchant: string;
  amount: string;
  fee: string;
  totalCharged: string;
  /** Everything that has come back to the sources: an unused bcard, what a purchase left on it, merchants' refunds. */
  refunded: string;
  /** Coarse, for old clients: never completed while the bcard holds its money unspent or a bank debit settles. */
  status: TransactionStatus;
  /** Where its bcard stands, with the figures its words need (bcards/stage.ts). */
  stage: BcardStageView;
  /** Its bank debits as one word (returned, else pending, else settled); null when no bank account funded it. */
  bankDebit: BankDebitSummary;
  virtualCardId: string | null;
  virtualCardName: string;
  description: string;
  failureMessage: string | null;
}

const money = (c: number) => formatDecimal(c as Cents);

interface Related {
  bcard: BcardRow | null;
  shareCount: number;
  merchantRefunded: number;
  bankDebit: BankDebitSummary;
  /** Where a card network said the shop is, for a bcard spent through one. */
  network: { city: string | null; category: string | null } | null;
  /** A returned bank debit of the collection: its facts (the reason is written from its ACH code). */
  bankReturn: { amount: string; code: string | null; message: string | null } | null;
}

/*
 * Descriptions and failure reasons bpay writes itself are written here, in the reader's language, from the facts
 * kept (lib/server-words.ts); a description someone wrote (a merchant's, the payer's) is shown as written, and rows
 * stored before this kept their English text, shown as stored.
 */
function toView(
  c: CollectionRow,
  { bcard, shareCount, merchantRefunded, bankDebit, network, bankReturn }: Related,
  now: Date,
  lang: WordsLanguage,
): TransactionView {
  const stage = bcardStageOf(c, bcard, now);
  return {
    id: c.id,
    createdAt: c.createdAt.toISOString(),
    merchant: c.merchant ?? 'bpay',
    amount: money(c.amountCents),
    fee: money(c.feeCents),
    totalCharged: money(c.totalCents),
    refunded: money(c.refundedCents + merchantRefunded),
    status: transactionStatusOf(c, stage, bankDebit),
    stage,
    bankDebit,
    virtualCardId: bcard?.id ?? null,
    virtualCardName: c.name,
    description:
      c.description ??
      describeCollection({ merchant: c.merchant, sourceCount: shareCount, checkout: c.kind === 'purchase' && !!c.lockedMerchantId, network }, lang),
    failureMessage:
      c.failureCode === null
        ? c.failureMessage
        : (collectionFailureText({ code: c.failureCode, details: c.failureDetails ?? null, bankReturn }, lang) ?? c.failureMessage),
  };
}

/*
 * A page's statements, built once (db/prepared.ts): the page itself (first or after a cursor, every status), and
 * what its views read, one build per number of collections (or spent bcards) on the page.
 */
const pageOfAll = prepared((db) =>
  db
    .select()
    .from(schema.collections)
    .where(and(eq(schema.collections.userId, sql.placeholder('userId')), ne(schema.collections.kind, 'sandbox')))
    .orderBy(desc(schema.collections.createdAt), desc(schema.collections.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);
const pageOfAllAfter = prepared((db) =>
  db
    .select()
    .from(schema.collections)
    .where(
      and(
        eq(schema.collections.userId, sql.placeholder('userId')),
        ne(schema.collections.kind, 'sandbox'),
        // A row value, not an OR of two conditions: SQLite seeks the index's (created_at, id) to it.
        sql`(${schema.collections.createdAt}, ${schema.collections.id}) < (${sql.placeholder('t')}, ${sql.placeholder('id')})`,
      ),
    )
    .orderBy(desc(schema.collections.createdAt), desc(schema.collections.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);
const bcardsOfCollections = preparedPerCount((db, n) =>
  db.select().from(schema.bcards).where(inArray(schema.bcards.collectionId, slots('c', n))).prepare(),
);
/** The collections' shares, each with its bank debit if it is a bank share (by its share, the debit's primary key). */
const sharesWithDebits = preparedPerCount((db, n) =>
  db
    .select({
      id: schema.collectionShares.id,
      collectionId: schema.collectionShares.collectionId,
      debit: {
        status: schema.bankDebits.status,
        amountCents: schema.bankDebits.amountCents,
        returnCode: schema.bankDebits.returnCode,
        returnMessage: schema.bankDebits.returnMessage,
      },
    })
    .from(schema.collectionShares)
    .leftJoin(schema.bankDebits, eq(schema.bankDebits.shareId, schema.collectionShares.id))
    .where(inArray(schema.collectionShares.collectionId, slots('c', n)))
    .prepare(),
);
const refundedToCollections = preparedPerCount((db, n) =>
  db
    .select({ collectionId: schema.collectionShares.collectionId, sum: sql<number>`sum(${schema.refundParts.amountCents})` })
    .from(schema.refundParts)
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.id, schema.refundParts.shareId))
    .where(and(inArray(schema.collectionShares.collectionId, slots('c', n)), eq(schema.refundParts.status, 'succeeded')))
    .groupBy(schema.collectionShares.collectionId)
    .prepare(),
);
const placesOfBcards = preparedPerCount((db, n) =>
  db
    .select({ bcardId: schema.issuerAuthorizations.bcardId, city: schema.issuerAuthorizations.merchantCity, category: schema.issuerAuthorizations.merchantCategory })
    .from(schema.issuerAuthorizations)
    .where(and(inArray(schema.issuerAuthorizations.bcardId, slots('b', n)), eq(schema.issuerAuthorizations.decision, 'approved')))
    .prepare(),
);

async function views(deps: AppDeps, rows: CollectionRow[], lang: WordsLanguage): Promise<TransactionView[]> {
  if (rows.length === 0) return [];
  const ids = slotValues('c', rows.map((r) => r.id));
  const n = rows.length;
  const cards = await bcardsOfCollections(deps.db, n).all(ids);
  const shares = await sharesWithDebits(deps.db, n).all(ids);
  // A bank share's debit: pending, settled or returned.
  const debits = shares.flatMap((s) => (s.debit ? [{ collectionId: s.collectionId, ...s.debit }] : []));
  // What merchants' refunds have sent back to this collection's sources (parts of succeeded refunds).
  const refunded = await refundedToCollections(deps.db, n).all(ids);
  // A spend through a card network: the approved authorization says where the shop is.
  const spentCards = cards.filter((c) => c.spentCents > 0).map((c) => c.id);
  const places = spentCards.length === 0 ? [] : await placesOfBcards(deps.db, spentCards.length).all(slotValues('b', spentCards));
  const placeOf = new Map(places.map((p) => [p.bcardId, { city: p.city, category: p.category }]));
  const cardOf = new Map(cards.map((c) => [c.collectionId, c]));
  const returnOf = new Map<string, Related['bankReturn']>();
  for (const d of debits) {
    if (d.status === 'returned' && !returnOf.has(d.collectionId)) {
      returnOf.set(d.collectionId, { amount: money(d.amountCents), code: d.returnCode, message: d.returnMessage });
    }
  }
  const countOf = new Map<string, number>();
  for (const s of shares) countOf.set(s.collectionId, (countOf.get(s.collectionId) ?? 0) + 1);
  const debitsOf = new Map<string, Array<(typeof debits)[number]['status']>>();
  for (const d of debits) debitsOf.set(d.collectionId, [...(debitsOf.get(d.collectionId) ?? []), d.status]);
  const refundedOf = new Map(refunded.map((c) => [c.collectionId, Number(c.sum)]));
  const now = deps.clock.now();
  return rows.map((r) =>
    toView(
      r,
      {
        bcard: cardOf.get(r.id) ?? null,
        shareCount: countOf.get(r.id) ?? 0,
        merchantRefunded: refundedOf.get(r.id) ?? 0,
        bankDebit: bankDebitSummary(debitsOf.get(r.id) ?? []),
        network: placeOf.get(cardOf.get(r.id)?.id ?? '') ?? null,
        bankReturn: returnOf.get(r.id) ?? null,
      },
      now,
      lang,
    ),
  );
}

/** The owner's transactions, newest first, filtered, one page at a time. */
/** The list's name in its cursors (lib/cursor.ts). */
export const TRANSACTIONS_LIST = 'transactions';

export async function listTransactions(
  deps: AppDeps,
  userId: string,
  q: { status: TransactionFilter; limit: number; cursor: string | null },
  /** The reader's language: bpay's own descriptions and reasons are written in it. */
  lang: WordsLanguage = 'en',
): Promise<{ data: TransactionView[]; nextCursor: string | null }> {
  // Merchants' sandbox test bcards (kind sandbox) are no consumer money: never in the owner's history.
  const conds: SQL[] = [eq(schema.collections.userId, userId), ne(schema.collections.kind, 'sandbox')];
  // A part read by id (filters.ts): `+user_id` keeps SQLite off the user's indexes, so it reads the few ids and
  // sorts them instead of walking the user's whole history in order to test each row against them.
  const byIdConds: SQL[] = [sql`+${schema.collections.userId} = ${userId}`, ne(schema.collections.kind, 'sandbox')];
  const cursor = q.cursor ? decodeCursor(q.cursor, { list: TRANSACTIONS_LIST, owner: userId }) : null;
  if (cursor) {
    const c = cursor;
    // A row value, not an OR of two conditions: SQLite seeks the index's (created_at, id) to it.
    const after = sql`(${schema.collections.createdAt}, ${schema.collections.id}) < (${c.t}, ${c.id})`;
    conds.push(after);
    byIdConds.push(after);
  }
  const newestFirst = (where: SQL[]) =>
    deps.db
      .select()
      .from(schema.collections)
      .where(and(...where))
      .orderBy(desc(schema.collections.createdAt), desc(schema.collections.id))
      .limit(q.limit + 1);
  // A filter reads each of its parts newest first on its own (an ordered seek of collections_user_status_idx, or a
  // small set read through bcards or bank_debits: filters.ts) and merges them: SQLite cannot keep an IN list of
  // statuses in created_at order, and walking the user's every row to find a rare one costs what the whole history costs.
  const rows =
    q.status === 'all'
      ? cursor
        ? await pageOfAllAfter(deps.db).all({ userId, limit: q.limit + 1, t: cursor.t, id: cursor.id })
        : await pageOfAll(deps.db).all({ userId, limit: q.limit + 1 })
      : [
          ...new Map(
            (await Promise.all(filterParts(q.status, userId, deps.clock.now()).map((p) => newestFirst([...(p.byId ? byIdConds : conds), p.where]))))
              .flat()
              .map((r) => [r.id, r] as const),
          ).values(),
        ]
          .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
          .slice(0, q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: await views(deps, page, lang),
    nextCursor: rows.length > q.limit && last ? encodeCursor({ t: last.createdAt.getTime(), id: last.id }, { list: TRANSACTIONS_LIST, owner: userId }) : null,
  };
}

/** A merchant's refund of the purchase, as its consumer sees it: what went back to which source. */
export interface MerchantRefundView {
  id: string;
  createdAt: string;
  /** The purchase amount refunded. */
  amount: string;
  /** The part of the bpay fee returned with it. */
  fee: string;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string | null;
  parts: Array<{ fundingSourceId: string; name: string; last4: string; amount: string }>;
}

async function merchantRefundsOf(deps: AppDeps, collectionId: string): Promise<MerchantRefundView[]> {
  const rows = await deps.db
    .select({ refund: schema.refunds, part: schema.refundParts, source: { name: schema.fundingSources.name, last4: schema.fundingSources.last4 } })
    .from(schema.refundParts)
    .innerJoin(schema.refunds, eq(schema.refunds.id, schema.refundParts.refundId))
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.id, schema.refundParts.shareId))
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.refundParts.fundingSourceId))
    .where(eq(schema.collectionShares.collectionId, collectionId))
    .orderBy(desc(schema.refunds.createdAt), desc(schema.refunds.id), schema.collectionShares.position);
  const out = new Map<string, MerchantRefundView>();
  for (const { refund: r, part, source } of rows) {
    let v = out.get(r.id);
    if (!v) {
      v = { id: r.id, createdAt: r.createdAt.toISOString(), amount: money(r.amount), fee: money(r.feeCents), status: r.status, reason: r.reason, parts: [] };
      out.set(r.id, v);
    }
    v.parts.push({ fundingSourceId: part.fundingSourceId, name: source.name, last4: source.last4, amount: money(part.amountCents) });
  }
  return [...out.values()];
}

export async function getTransaction(
  deps: AppDeps,
  userId: string,
  id: string,
  lang: WordsLanguage = 'en',
): Promise<TransactionView & { shares: ShareView[]; refunds: MerchantRefundView[] }> {
  const row = await firstRow(deps.db, schema.collections, and(eq(schema.collections.id, id), eq(schema.collections.userId, userId), ne(schema.collections.kind, 'sandbox')));
  if (!row) throw notFound('transaction');
  const [view] = await views(deps, [row], lang);
  const shares = await sharesOf(deps.db, [id]);
  return { ...view!, shares: shares.get(id) ?? [], refunds: await merchantRefundsOf(deps, id) };
}

export const CSV_COLUMNS = [
  'id',
  'created_at',
  'merchant',
  'amount',
  'fee',
  'total_charged',
  'refunded',
  'status',
  'stage',
  'bank_debit',
  'virtual_card',
  'description',
] as const;

/** Every transaction matching the filter, as CSV (newest first). */
export async function exportTransactionsCsv(
  deps: AppDeps,
  userId: string,
  status: TransactionFilter,
  lang: WordsLanguage = 'en',
): Promise<string> {
  const lines = [CSV_COLUMNS.join(',')];
  let cursor: string | null = null;
  do {
    const page = await listTransactions(deps, userId, { status, limit: 500, cursor }, lang);
    for (const t of page.data) {
      lines.push(
        [t.id, t.createdAt, t.merchant, t.amount, t.fee, t.totalCharged, t.refunded, t.status, t.stage.code, t.bankDebit ?? '', t.virtualCardName, t.description]
          .map(csvCell)
          .join(','),
      );
    }
    cursor = page.nextCursor;
  } while (cursor);
  return `${lines.join('\r\n')}\r\n`;
}

export interface TransactionSummary {
  /** Spent at merchants (what they charged your bcards less what they refunded), all time, in dollars. */
  totalSpent: string;
  /** The same for purchases since `monthStart`. */
  thisMonth: string;
  activeBcards: number;
  /** What merchants charged, and refunded of it, all time. */
  charged: string;
  refunded: string;
  /** Money on bcards now (not spent, not yet back). */
  heldOnBcards: string;
  /** Money collected onto bcards and never spent, back with the sources (fee apart). */
  returned: string;
  fees: string;
  feesReturned: string;
  /** Plan charges, apart from spending: all time and since `monthStart`. */
  planCharges: string;
  thisMonthPlanCharges: string;
  purchases: number;
}

/** The Overview's figures, from the one definition of spending (modules/spending), summed by the database. */
export async function transactionSummary(deps: AppDeps, userId: string, monthStart: Date): Promise<TransactionSummary> {
  const s = await spendingSummary(deps, userId, monthStart);
  return {
    totalSpent: money(s.total.spent),
    thisMonth: money(s.thisMonth.spent),
    activeBcards: s.activeBcards,
    charged: money(s.total.charged),
    refunded: money(s.total.refunded),
    heldOnBcards: money(s.heldOnBcards),
    returned: money(s.total.returned),
    fees: money(s.total.fees),
    feesReturned: money(s.total.feesReturned),
    planCharges: money(s.total.planCharges),
    thisMonthPlanCharges: money(s.thisMonth.planCharges),
    purchases: s.total.purchases,
  };
}
