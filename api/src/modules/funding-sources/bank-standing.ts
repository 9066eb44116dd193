import { and, eq, inArray, sql } from 'drizzle-orm';
import { schema, type DbOrTx } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import type { AppDeps } from '../../deps';
import { accountBalance, accounts, type Posting } from '../ledger/service';

/*
 * A consumer's standing with their bank accounts (docs/DECISIONS.md, "Bank accounts in a split"): the bank debits
 * still settling, counted against the plan's cap, and what is owed for debits returned after their bcard was used.
 * Read by the Create bcard check (bcards/bank-debits.ts, assertBankStanding) and by GET /api/funding-sources/bank-standing.
 */

/** Unsettled bank debits a plan allows at once, in cents. A constant per plan, not a tier column: nothing else varies it. */
export const BANK_EXPOSURE_CAP_CENTS: Record<string, number> = {
  free: 50_000,
  pro: 250_000,
  premium: 1_000_000,
};
export const DEFAULT_BANK_EXPOSURE_CAP_CENTS = 50_000;
export const bankExposureCap = (tierName: string) => BANK_EXPOSURE_CAP_CENTS[tierName] ?? DEFAULT_BANK_EXPOSURE_CAP_CENTS;

const money = (c: number) => formatDecimal(c as Cents);

export async function unsettledBankExposure(db: DbOrTx, userId: string): Promise<number> {
  const [row] = await db
    .select({ sum: sql<number>`coalesce(sum(${schema.bankDebits.amountCents}), 0)` })
    .from(schema.bankDebits)
    .where(and(eq(schema.bankDebits.userId, userId), eq(schema.bankDebits.status, 'pending')));
  // Collections still on their way (holding, capturing) have no debit row yet: their bank shares count too, or bcards
  // made at once would each see nothing settling and pass the cap together. (Hostile review of issue 16.)
  const [inFlight] = await db
    .select({ sum: sql<number>`coalesce(sum(${schema.collectionShares.amountCents}), 0)` })
    .from(schema.collections)
    .innerJoin(schema.collectionShares, eq(schema.collectionShares.collectionId, schema.collections.id))
    .innerJoin(schema.fundingSources, eq(schema.fundingSources.id, schema.collectionShares.fundingSourceId))
    .where(
      and(
        eq(schema.collections.userId, userId),
        inArray(schema.collections.status, ['holding', 'capturing']),
        eq(schema.fundingSources.type, 'bank_account'),
      ),
    );
  return Number(row?.sum ?? 0) + Number(inFlight?.sum ?? 0);
}

/** What the consumer owes bpay (returned debits after use), in cents, never negative. */
export async function owedCents(db: DbOrTx, userId: string): Promise<number> {
  return Math.max(0, -(await accountBalance(db, accounts.receivable(userId))));
}

/**
 * Money credited to what a consumer owes (a returned bank share's part of a refund or remainder, a won dispute's
 * reversal) reduces the debt only while there is one: once it was repaid or waived, the rest is money bpay owes the
 * consumer (`payable:<user>`, as a refund the processor failed later is), never a positive receivable that nothing
 * pays out. Rewrites the receivable credits of `postings` (read in the caller's transaction; the movement still
 * balances). Found by the hostile review of issue 26: repay a returned debit, then the merchant refunds the purchase.
 */
export async function creditOwed(tx: DbOrTx, userId: string, postings: Posting[]): Promise<Posting[]> {
  const receivable = accounts.receivable(userId);
  const isCredit = (p: Posting) => p.account === receivable && p.amountCents > 0;
  const credit = postings.filter(isCredit).reduce((a, p) => a + p.amountCents, 0);
  if (credit === 0) return postings;
  const toDebt = Math.min(credit, await owedCents(tx, userId));
  return [
    ...postings.filter((p) => !isCredit(p)),
    { account: receivable, amountCents: toDebt },
    { account: accounts.payable(userId), amountCents: credit - toDebt },
  ];
}

/** What bpay owes the consumer (refunds the processor failed, money due back after a debt was settled), in cents. */
export async function payableCents(db: DbOrTx, userId: string): Promise<number> {
  return Math.max(0, await accountBalance(db, accounts.payable(userId)));
}

export interface BankStanding {
  owed: string;
  restricted: boolean;
  /** What bpay owes the consumer (payable:<user>), dollars. */
  owedToYou: string;
  unsettledBankExposure: string;
  bankExposureCap: string;
  returnedDebits: Array<{ bcardName: string; amount: string; returnCode: string; returnMessage: string; fundingSourceId: string; returnedAt: string }>;
}

/** What the consumer owes, whether they are restricted, and how much bank money is still settling. */
export async function bankStanding(deps: AppDeps, userId: string, tierName: string): Promise<BankStanding> {
  const owed = await owedCents(deps.db, userId);
  const returned = await deps.db
    .select({ debit: schema.bankDebits, name: schema.collections.name })
    .from(schema.bankDebits)
    .innerJoin(schema.collections, eq(schema.collections.id, schema.bankDebits.collectionId))
    .where(and(eq(schema.bankDebits.userId, userId), eq(schema.bankDebits.status, 'returned')))
    .orderBy(sql`${schema.bankDebits.resolvedAt} desc`)
    .limit(50);
  return {
    owed: money(owed),
    restricted: owed > 0,
    owedToYou: money(await payableCents(deps.db, userId)),
    unsettledBankExposure: money(await unsettledBankExposure(deps.db, userId)),
    bankExposureCap: money(bankExposureCap(tierName)),
    returnedDebits: returned.map(({ debit, name }) => ({
      bcardName: name,
      amount: money(debit.amountCents),
      returnCode: debit.returnCode ?? '',
      returnMessage: debit.returnMessage ?? '',
      fundingSourceId: debit.fundingSourceId,
      returnedAt: (debit.resolvedAt ?? debit.initiatedAt).toISOString(),
    })),
  };
}
