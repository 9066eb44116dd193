import { and, eq, gt, sql } from 'drizzle-orm';
import { prepared, schema, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { ReturnedPart } from '../notifications/kinds';
import { notify, type NotifyDeps, type Recipient } from '../notifications/service';
import { remainderBack } from './remainder';

/*
 * The notices about a bcard's money (issue 25), each written by the transaction that commits its change (the saga's
 * guarded step, so a retry, a replay or the recovery sweep finishing the step cannot write a second one). A merchant's
 * sandbox test bcard is the merchant's play money: it gets none.
 */

type BcardRow = typeof schema.bcards.$inferSelect;

const money = (c: number) => formatDecimal(c as Cents);

/**
 * A bot trying one bcard again and again gets it declined every time, but its owner hears of it once per reason in
 * this window: enough to act on, not a flood.
 */
export const DECLINE_NOTICE_WINDOW_MS = 5 * 60_000;

/** Money that went back to one source, as a notice lists it. */
export function returnedPart(source: { name: string; last4: string }, cents: number): ReturnedPart {
  return { name: source.name, last4: source.last4, amount: money(cents) };
}

/** The bcard was issued: its split collected. Not for a purchase's bcard (its spend follows at once: see DECISIONS). */
export async function noticeBcardIssued(
  tx: DbOrTx,
  deps: NotifyDeps,
  bcard: BcardRow,
  collection: { id: string; kind: string; amountCents: number },
  sourceCount: number,
  at: Date,
  /** The owner, read before (a unit of work as data); read here when not given. */
  known?: Recipient | null,
): Promise<void> {
  if (bcard.sandbox || collection.kind !== 'bcard') return;
  await notify(
    tx,
    deps,
    bcard.userId,
    'bcard_issued',
    { bcardId: bcard.id, bcardName: bcard.name, amount: money(collection.amountCents), sourceCount, transactionId: collection.id },
    at,
    known,
  );
}

/** What a collection collected and its fee (the spend notice's figure of what goes back). */
const collectionAmounts = prepared((db) =>
  db
    .select({ amountCents: schema.collections.amountCents, feeCents: schema.collections.feeCents })
    .from(schema.collections)
    .where(eq(schema.collections.id, sql.placeholder('id')))
    .limit(1)
    .prepare(),
);

/**
 * The bcard was spent at a merchant; what the purchase left on it goes back to its sources, with its part of the fee
 * (remainder.ts: the figure settleRefund moves after the commit).
 */
export async function noticeBcardSpent(
  tx: DbOrTx,
  deps: NotifyDeps,
  bcard: BcardRow,
  spend: { merchant: string; amountCents: number },
  at: Date,
): Promise<void> {
  if (bcard.sandbox) return;
  const collection = await collectionAmounts(tx).get({ id: bcard.collectionId });
  const remainder = bcard.limitCents - bcard.spentCents - spend.amountCents;
  const returned = collection ? remainderBack(collection, remainder, [1]).totalCents : Math.max(0, remainder);
  await notify(
    tx,
    deps,
    bcard.userId,
    'bcard_spent',
    {
      bcardId: bcard.id,
      bcardName: bcard.name,
      merchant: spend.merchant,
      amount: money(spend.amountCents),
      returned: money(returned),
      transactionId: bcard.collectionId,
    },
    at,
  );
}

/**
 * A charge on the bcard was refused. At most one notice per bcard and reason within DECLINE_NOTICE_WINDOW_MS: the
 * check and the write are in the caller's write transaction, which SQLite runs one at a time, so parallel declines
 * cannot both pass it. Returns whether a notice was written.
 */
export async function noticeBcardDeclined(
  tx: DbOrTx,
  deps: NotifyDeps,
  bcard: BcardRow,
  decline: { merchant: string; amountCents: number; reason: string },
  at: Date,
): Promise<boolean> {
  if (bcard.sandbox) return false;
  const n = schema.notifications;
  const [recent] = await tx
    .select({ id: n.id })
    .from(n)
    .where(
      and(
        eq(n.userId, bcard.userId),
        eq(n.kind, 'bcard_declined'),
        gt(n.createdAt, new Date(at.getTime() - DECLINE_NOTICE_WINDOW_MS)),
        sql`json_extract(${n.params}, '$.bcardId') = ${bcard.id}`,
        sql`json_extract(${n.params}, '$.reason') = ${decline.reason}`,
      ),
    )
    .limit(1);
  if (recent) return false;
  const id = await notify(
    tx,
    deps,
    bcard.userId,
    'bcard_declined',
    { bcardId: bcard.id, bcardName: bcard.name, merchant: decline.merchant, amount: money(Math.max(0, decline.amountCents)), reason: decline.reason },
    at,
  );
  return id !== null;
}

/**
 * The bcard's session ended unused (expired) or it was canceled, and its money went back: `parts` lists each source
 * and what it got (a bank share whose debit was returned gets nothing: it never paid).
 */
export async function noticeBcardEnded(
  tx: DbOrTx,
  deps: NotifyDeps,
  bcard: BcardRow,
  ended: 'expired' | 'canceled',
  parts: ReturnedPart[],
  returnedCents: number,
  at: Date,
): Promise<void> {
  if (bcard.sandbox) return;
  const common = { bcardId: bcard.id, bcardName: bcard.name, returned: money(returnedCents), parts, transactionId: bcard.collectionId };
  if (ended === 'expired') await notify(tx, deps, bcard.userId, 'bcard_expired', common, at);
  else await notify(tx, deps, bcard.userId, 'bcard_canceled', { ...common, closedReason: bcard.closedReason ?? null }, at);
}
