import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { bankReturnText, declineText, type WordsLanguage } from '../../lib/server-words';
import { stillComingBack } from '../bcards/bank-debits';
import { owedCents } from '../funding-sources/bank-standing';
import { payablesOf } from './payables';

/*
 * What a consumer owes bpay and why (issue 26). The amount owed is the ledger account `receivable:<user>` (negative:
 * owed), moved by a bank debit returned after its bcard was used, a funding share disputed with the card's issuer
 * (share_disputes), a repayment from a card (receivable_payments) and an admin's waiver (receivable_waivers).
 *
 * Of what is owed, the part under an open dispute is not repayable (nor waivable) until the dispute is resolved: won,
 * it is given back; lost, it stays owed and becomes repayable. Repayments still running count against what can be
 * repaid, so two repayments sent together cannot both take the same dollars.
 */

const money = (c: number) => formatDecimal(c as Cents);
/** How many of each kind of item the consumer's answer lists (newest first). */
export const RECEIVABLE_ITEMS_LIMIT = 50;

/** The sum of the user's open disputes, in cents. */
export async function openDisputeCents(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<number>`coalesce(sum(${schema.shareDisputes.amountCents}), 0)` })
    .from(schema.shareDisputes)
    .where(and(eq(schema.shareDisputes.userId, userId), eq(schema.shareDisputes.status, 'open')));
  return Number(row?.sum ?? 0);
}

/** The sum of the user's repayments still running (pending), in cents. */
export async function pendingRepaymentCents(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<number>`coalesce(sum(${schema.receivablePayments.amountCents}), 0)` })
    .from(schema.receivablePayments)
    .where(and(eq(schema.receivablePayments.userId, userId), eq(schema.receivablePayments.status, 'pending')));
  return Number(row?.sum ?? 0);
}

/**
 * Of what is owed, what returned debits' bcards will still give back to the receivable: all of a returned share while
 * its unused bcard is being canceled, its part of a purchase's remainder not yet refunded (bcards/bank-debits.ts).
 * Not repayable or waivable: that refund clears it, and repaid too it would leave the receivable positive.
 */
export async function comingBackCents(db: DbOrTx, userId: string): Promise<number> {
  // Only debits whose bcard's money is still moving (unused and alive, or a remainder being refunded): every other
  // returned debit gives back nothing more, and a user's returned debits only accumulate, so they are not read one by one.
  const returned = (
    await db
      .select({ debit: schema.bankDebits })
      .from(schema.bankDebits)
      .innerJoin(schema.bcards, eq(schema.bcards.collectionId, schema.bankDebits.collectionId))
      .innerJoin(schema.collections, eq(schema.collections.id, schema.bankDebits.collectionId))
      .where(
        and(
          eq(schema.bankDebits.userId, userId),
          eq(schema.bankDebits.status, 'returned'),
          or(inArray(schema.bcards.status, ['active', 'expiring', 'canceling']), eq(schema.collections.status, 'refunding')),
        ),
      )
  ).map((r) => r.debit);
  let sum = 0;
  for (const debit of returned) sum += await stillComingBack(db, debit);
  return sum;
}

export interface OwedFigures {
  /** What is owed in all (the receivable's balance, as a positive number). */
  owed: number;
  /** Of it, under open disputes: not repayable or waivable until resolved. */
  underDispute: number;
  /** Of it, what a returned debit's bcard still gives back (a cancel's or remainder's refund): cleared by that refund. */
  comingBack: number;
  /** owed - underDispute - comingBack, never negative. */
  repayable: number;
}

/** What is owed, under dispute, coming back, and repayable, read in `db` (a transaction's, to guard a write). */
export async function owedFigures(db: DbOrTx, userId: string): Promise<OwedFigures> {
  const owed = await owedCents(db, userId);
  const underDispute = await openDisputeCents(db, userId);
  const comingBack = await comingBackCents(db, userId);
  return { owed, underDispute, comingBack, repayable: Math.max(0, owed - underDispute - comingBack) };
}

const sourceRef = (s: { id: string; name: string; last4: string; brand: string; type: string } | null) =>
  s ? { id: s.id, name: s.name, last4: s.last4, brand: s.brand, type: s.type } : null;

/**
 * The consumer's answer: the figures, whether new bcards are refused (anything owed), and the items behind them:
 * bank debits returned after their bcard was used, disputes open or lost, repayments and waivers. Reasons are in
 * words, in `lang`.
 */
export async function receivablesOf(db: DbOrTx, userId: string, lang: WordsLanguage) {
  const figures = await owedFigures(db, userId);
  const pending = await pendingRepaymentCents(db, userId);

  const debits = await db
    .select({ debit: schema.bankDebits, collection: schema.collections, bcard: schema.bcards, source: schema.fundingSources })
    .from(schema.bankDebits)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.bankDebits.collectionId))
    .innerJoin(schema.bcards, eq(schema.bcards.collectionId, schema.bankDebits.collectionId))
    .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.bankDebits.fundingSourceId))
    // Returned after the bcard was used: a return on an unused bcard cancels it and leaves nothing owed.
    .where(and(eq(schema.bankDebits.userId, userId), eq(schema.bankDebits.status, 'returned'), sql`${schema.bcards.spentCents} > 0`))
    .orderBy(desc(schema.bankDebits.resolvedAt))
    .limit(RECEIVABLE_ITEMS_LIMIT);

  const disputes = await db
    .select({ dispute: schema.shareDisputes, collection: schema.collections, bcard: schema.bcards, source: schema.fundingSources })
    .from(schema.shareDisputes)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.shareDisputes.collectionId))
    .leftJoin(schema.bcards, eq(schema.bcards.collectionId, schema.shareDisputes.collectionId))
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.id, schema.shareDisputes.shareId))
    .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .where(and(eq(schema.shareDisputes.userId, userId), inArray(schema.shareDisputes.status, ['open', 'lost'])))
    .orderBy(desc(schema.shareDisputes.openedAt))
    .limit(RECEIVABLE_ITEMS_LIMIT);

  const payments = await db
    .select({ payment: schema.receivablePayments, source: schema.fundingSources })
    .from(schema.receivablePayments)
    .leftJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.receivablePayments.fundingSourceId))
    .where(eq(schema.receivablePayments.userId, userId))
    .orderBy(desc(schema.receivablePayments.createdAt), desc(schema.receivablePayments.id))
    .limit(RECEIVABLE_ITEMS_LIMIT);

  const waivers = await db
    .select()
    .from(schema.receivableWaivers)
    .where(eq(schema.receivableWaivers.userId, userId))
    .orderBy(desc(schema.receivableWaivers.createdAt))
    .limit(RECEIVABLE_ITEMS_LIMIT);

  return {
    owed: money(figures.owed),
    underDispute: money(figures.underDispute),
    repayable: money(Math.max(0, figures.repayable - pending)),
    repaying: money(pending),
    restricted: figures.owed > 0,
    returnedDebits: debits.map(({ debit, collection, bcard, source }) => ({
      id: debit.shareId,
      amount: money(debit.amountCents),
      returnedAt: (debit.resolvedAt ?? debit.initiatedAt).toISOString(),
      transactionId: collection.id,
      bcard: { id: bcard.id, name: bcard.name },
      bankAccount: sourceRef(source),
      returnCode: debit.returnCode ?? '',
      reason: bankReturnText(debit.returnCode, lang, debit.returnMessage) ?? '',
    })),
    disputes: disputes.map(({ dispute, collection, bcard, source }) => ({
      id: dispute.id,
      amount: money(dispute.amountCents),
      status: dispute.status as 'open' | 'lost',
      openedAt: dispute.openedAt.toISOString(),
      closedAt: dispute.closedAt?.toISOString() ?? null,
      transactionId: collection.id,
      bcard: bcard ? { id: bcard.id, name: bcard.name } : { id: null, name: collection.name },
      card: sourceRef(source),
      reason: dispute.reason,
    })),
    repayments: payments.map(({ payment, source }) => repaymentView(payment, source, lang)),
    waivers: waivers.map((w) => ({ id: w.id, amount: money(w.amountCents), reason: w.reason, createdAt: w.createdAt.toISOString() })),
    // What bpay owes the consumer (payable:<user>), the other way round from all of the above.
    ...(await payablesOf(db, userId, lang)),
  };
}

export type ReceivablesView = Awaited<ReturnType<typeof receivablesOf>>;

type PaymentRow = typeof schema.receivablePayments.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;

/** A repayment as the consumer reads it; a decline's reason in words in `lang` when bpay has words for its code. */
export function repaymentView(p: PaymentRow, source: SourceRow | null, lang: WordsLanguage) {
  const interrupted = lang === 'ar' ? 'انقطعت العملية قبل أن تكتمل. لم يُخصم شيء.' : 'The payment was interrupted before it completed. Nothing was charged.';
  return {
    id: p.id,
    amount: money(p.amountCents),
    status: p.status,
    createdAt: p.createdAt.toISOString(),
    fundingSource: sourceRef(source),
    failureCode: p.failureCode,
    failureMessage: p.failureCode === 'interrupted' ? interrupted : (declineText(p.failureCode, lang) ?? p.failureMessage),
  };
}
