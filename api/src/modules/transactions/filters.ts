import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { schema } from '@bpay/db';
import type { BankDebitSummary, BcardStageView } from '../bcards/stage';

/*
 * What a transaction's coarse `status` says, and the history's status filters, as one rule: a filter returns exactly
 * the rows whose status (or stage) it names. Each filter is a few index seeks merged in created_at order by the list
 * (listTransactions); none walks the user's whole history to find a rare row:
 * - by collection status: collections_user_status_idx (user_id, status, created_at, id);
 * - bcards still live (active, authorized, expiring, canceling: deactivated_at IS NULL): bcards_user_deactivated_idx;
 * - bank debits by state: bank_debits_user_idx (user_id, status).
 * The sets read through bcards and bank_debits are small by nature (a bcard lives for a session, a debit settles in
 * days, returns restrict the account), so their collections are read by id and sorted, never walked.
 */

type CollectionRow = typeof schema.collections.$inferSelect;

/** all, completed, pending, failed: the original values (SDK, CLI); the rest are the stages people look for. */
export const TRANSACTION_FILTERS = [
  'all',
  'completed',
  'pending',
  'failed',
  'active',
  'used',
  'returned',
  'bank_pending',
  'bank_returned',
] as const;
export type TransactionFilter = (typeof TRANSACTION_FILTERS)[number];
export type TransactionStatus = 'completed' | 'pending' | 'failed' | 'refunded';

export const FILTER_DESCRIPTION =
  'all; completed (used, every bank debit settled); pending (being collected, a bcard still holding its money, ' +
  'money on its way back, or a bank debit still settling); failed; active (a bcard holding money now, or authorized ' +
  'by a merchant); used (spent at a merchant, in full or in part); returned (an unused bcard expired or canceled, its ' +
  'money back); bank_pending (a bank debit still settling); bank_returned (a bank debit the bank returned).';

/**
 * The coarse status (kept for old clients): never `completed` while the bcard still holds its money unspent, nor
 * while a bank share's debit can still come back; an unused bcard whose money went back is `refunded`.
 */
export function transactionStatusOf(c: CollectionRow, stage: BcardStageView, bank: BankDebitSummary): TransactionStatus {
  switch (c.status) {
    case 'completed':
      return stage.code === 'active' || stage.code === 'authorized' || stage.code === 'expiring' || bank === 'pending'
        ? 'pending'
        : 'completed';
    case 'failed':
      return 'failed';
    case 'refunded':
      return 'refunded';
    default:
      return 'pending';
  }
}

const c = schema.collections;
const isStatus = (s: CollectionRow['status']) => eq(c.status, s);
/** The same inside a part read by id: `+status` keeps SQLite off collections_status_idx (every user's rows). */
const byIdStatus = (s: CollectionRow['status']) => sql`+${c.status} = ${s}`;

/** Collections of the user's bcards not ended yet (bcards_user_deactivated_idx), optionally only those still spendable. */
const liveBcardCollections = (userId: string, spendableAt?: Date) => sql`${c.id} IN (
  SELECT ${schema.bcards.collectionId} FROM ${schema.bcards}
  WHERE ${and(
    eq(schema.bcards.userId, userId),
    isNull(schema.bcards.deactivatedAt),
    spendableAt
      ? sql`((${schema.bcards.status} = 'active' AND ${schema.bcards.expiresAt} > ${spendableAt.getTime()}) OR ${schema.bcards.status} = 'authorized')`
      : undefined,
  )})`;

/** Collections with a bank debit in this state (bank_debits_user_idx). */
const debitCollections = (userId: string, status: 'pending' | 'returned') => sql`${c.id} IN (
  SELECT ${schema.bankDebits.collectionId} FROM ${schema.bankDebits}
  WHERE ${schema.bankDebits.userId} = ${userId} AND ${schema.bankDebits.status} = ${status})`;

/** The collection's bcard is in one of these states (bcards_collection_unique: one seek per row). */
const bcardIs = (statuses: string[]) =>
  sql`EXISTS (SELECT 1 FROM ${schema.bcards} WHERE ${schema.bcards.collectionId} = ${c.id} AND ${schema.bcards.status} IN (${sql.join(
    statuses.map((s) => sql`${s}`),
    sql`, `,
  )}))`;

/**
 * One part of a filter. `byId`: the part names a small set of collection ids (through bcards or bank_debits); the
 * list must read those by id and sort them, not walk the user's collections in order testing each against the set
 * (which SQLite prefers without statistics, to save the sort): see listTransactions.
 */
export interface FilterPart {
  where: SQL;
  byId: boolean;
}

const seek = (where: SQL | undefined): FilterPart => ({ where: where!, byId: false });
const byId = (where: SQL | undefined): FilterPart => ({ where: where!, byId: true });

/**
 * The parts of a filter: each is read newest first on its own (one seek), then merged. A row may be in two parts
 * (a live bcard with a debit settling): the list drops the repeat.
 */
export function filterParts(filter: Exclude<TransactionFilter, 'all'>, userId: string, now: Date): FilterPart[] {
  switch (filter) {
    case 'completed':
      // Read in order from the completed rows; the few still live or settling are skipped.
      return [
        seek(and(
          isStatus('completed'),
          sql`NOT EXISTS (SELECT 1 FROM ${schema.bcards} WHERE ${schema.bcards.collectionId} = ${c.id} AND ${schema.bcards.deactivatedAt} IS NULL)`,
          sql`NOT EXISTS (SELECT 1 FROM ${schema.bankDebits} WHERE ${schema.bankDebits.userId} = ${userId} AND ${schema.bankDebits.status} = 'pending' AND ${schema.bankDebits.collectionId} = ${c.id})`,
        )),
      ];
    case 'pending':
      return [
        seek(isStatus('holding')),
        seek(isStatus('capturing')),
        seek(isStatus('refunding')),
        byId(and(byIdStatus('completed'), liveBcardCollections(userId))),
        byId(and(byIdStatus('completed'), debitCollections(userId, 'pending'))),
      ];
    case 'failed':
      return [seek(isStatus('failed'))];
    case 'active':
      return [byId(liveBcardCollections(userId, now))];
    case 'used':
      // Most completed rows are used bcards: the walk skips only the few still live.
      return [seek(and(isStatus('completed'), bcardIs(['used']))), seek(and(isStatus('refunding'), bcardIs(['used'])))];
    case 'returned':
      return [seek(isStatus('refunded'))];
    case 'bank_pending':
      return [byId(debitCollections(userId, 'pending'))];
    case 'bank_returned':
      return [byId(debitCollections(userId, 'returned'))];
  }
}
