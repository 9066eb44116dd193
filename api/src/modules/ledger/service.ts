import { eq, sql } from 'drizzle-orm';
import { schema, type DbOrTx, prepared, preparedPerCount, slots, slotValues } from '@bpay/db';
import { newId } from '../../lib/ids';

export interface Posting {
  account: string;
  /** Signed cents: positive into the account. */
  amountCents: number;
}

export const accounts = {
  fundingSource: (id: string) => `funding_source:${id}`,
  bcard: (id: string) => `bcard:${id}`,
  fees: 'bpay:fees',
  /** Plan charges bpay collected (issue 16): the other side of each paid upgrade or renewal. */
  subscriptions: 'bpay:subscriptions',
  merchant: (id: string) => `merchant:${id}`,
  externalMerchants: 'external:merchants',
  /** Where merchants' sandbox test bcards are funded from and returned to (play money; it runs negative). */
  sandboxTestFunds: 'sandbox:test_funds',
  /**
   * What a consumer owes bpay: a bank debit returned after its bcard was used, or a funding share disputed with the
   * card's issuer (modules/disputes) (negative: owed). Money that would have
   * gone back to a returned bank share (a remainder, a refund) goes here instead and reduces what is owed.
   */
  receivable: (userId: string) => `receivable:${userId}`,
  /**
   * What bpay owes a consumer (positive: owed to them): a refund to one of their cards that the processor failed after
   * bpay made it (issue 26, `refund.failed`), or money due back to a returned bank share after its debt was settled
   * (creditOwed). Settled by an admin who paid it another way (`payable.settled`, against bpay:payouts).
   */
  payable: (userId: string) => `payable:${userId}`,
  /**
   * What bpay paid consumers outside the card processor (an admin's `paid_outside` settlement of a payable, issue 26:
   * a bank transfer, a cheque): the other side of each `payable.settled`. Its balance is the sum of those payouts.
   */
  payouts: 'bpay:payouts',
  /** What bpay forgave of receivables (an admin's waiver, issue 26): the other side of each `receivable.waived`. */
  writtenOff: 'bpay:written_off',
} as const;

export class UnbalancedMovementError extends Error {}

/**
 * Writes one movement: postings that sum to zero, in the caller's transaction (the same one as the state change
 * they record). A movement is unique per (kind, reference), so recording the same event twice is refused.
 */
export async function postMovement(
  tx: DbOrTx,
  movement: { kind: string; referenceId: string; at: Date; postings: Posting[] },
): Promise<string> {
  const nonZero = movement.postings.filter((p) => p.amountCents !== 0);
  if (nonZero.some((p) => !Number.isSafeInteger(p.amountCents))) throw new UnbalancedMovementError('postings must be integer cents');
  const sum = nonZero.reduce((a, p) => a + p.amountCents, 0);
  if (sum !== 0 || nonZero.length < 2) {
    throw new UnbalancedMovementError(`movement ${movement.kind} ${movement.referenceId} does not balance (sum ${sum})`);
  }
  const id = newId('mv');
  await insertMovement(tx).run({ id, kind: movement.kind, referenceId: movement.referenceId, createdAt: movement.at });
  // One multi-row insert, built once per posting count (2 for most movements, one per share more for a split).
  const args: Record<string, unknown> = { movementId: id };
  slotValues('account', nonZero.map((p) => p.account), args);
  slotValues('amount', nonZero.map((p) => p.amountCents), args);
  await insertPostings(tx, nonZero.length).run(args);
  return id;
}

/* Built once (db/prepared.ts): every money path writes these two. */
const insertMovement = prepared((db) =>
  db
    .insert(schema.ledgerMovements)
    .values({ id: sql.placeholder('id'), kind: sql.placeholder('kind'), referenceId: sql.placeholder('referenceId'), createdAt: sql.placeholder('createdAt') })
    .prepare(),
);
const insertPostings = preparedPerCount((db, n) => {
  const amounts = slots('amount', n);
  return db
    .insert(schema.ledgerPostings)
    .values(slots('account', n).map((account, i) => ({ movementId: sql.placeholder('movementId'), account, amountCents: amounts[i]! })))
    .prepare();
});
const balanceOf = prepared((db) =>
  db
    .select({ sum: sql<number>`coalesce(sum(${schema.ledgerPostings.amountCents}), 0)` })
    .from(schema.ledgerPostings)
    .where(eq(schema.ledgerPostings.account, sql.placeholder('account')))
    .prepare(),
);

export async function accountBalance(db: DbOrTx, account: string): Promise<number> {
  const row = await balanceOf(db).get({ account });
  return Number(row?.sum ?? 0);
}

/** The sum of every posting ever written: zero, always. */
export async function ledgerTotal(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ sum: sql<number>`coalesce(sum(${schema.ledgerPostings.amountCents}), 0)` })
    .from(schema.ledgerPostings);
  return Number(row?.sum ?? 0);
}
