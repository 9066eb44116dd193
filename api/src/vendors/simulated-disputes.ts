import { eq, sql } from 'drizzle-orm';
import { firstRow, schema, type DbOrTx } from '@bpay/db';

/*
 * The simulated card issuer's side of a dispute (issue 26): a chargeback gives the disputed amount back to the card
 * (or bank account) the hold charged; a dispute bpay wins takes it from the card again. Written in the caller's
 * transaction, with the dispute's ledger movement, so the simulator's balances and the ledger never disagree.
 */

/** Moves `deltaCents` into (positive) or out of (negative) the funding behind a simulated hold. */
export async function simulateChargeback(tx: DbOrTx, holdId: string, deltaCents: number): Promise<void> {
  const hold = await firstRow(tx, schema.simHolds, eq(schema.simHolds.id, holdId));
  if (!hold) throw new Error(`simulated processor: no hold ${holdId}`);
  // The token names a card or a bank account: one of these updates finds it.
  await tx
    .update(schema.simCards)
    .set({ availableCents: sql`${schema.simCards.availableCents} + ${deltaCents}` })
    .where(eq(schema.simCards.token, hold.token));
  await tx
    .update(schema.simBankAccounts)
    .set({ availableCents: sql`${schema.simBankAccounts.availableCents} + ${deltaCents}` })
    .where(eq(schema.simBankAccounts.token, hold.token));
}
