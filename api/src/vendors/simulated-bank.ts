import { and, eq, sql } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import type { Clock } from '../lib/clock';
import { sha256Hex } from '../lib/crypto';
import { newId } from '../lib/ids';
import { VendorDeclineError, type BankAccountDetails, type BankDebitState, type PendingBankAccount } from './types';

/*
 * The simulated processor's US bank accounts (ACH), after Stripe's test accounts (routing 110000000 is Stripe's
 * test bank; any routing number that passes the ABA checksum works here). The table is in README.md ("Test bank
 * accounts"). No account number is stored: only the behaviour it selects and its last 4.
 */

type BankBehavior = 'normal' | 'fails_verification' | 'returns_r01' | 'low_balance';

/** Stripe's test account numbers, and one of the simulator's own (a low balance, for the balance check). */
export const TEST_BANK_ACCOUNTS: Record<string, BankBehavior> = {
  // Stripe: "The payment succeeds."
  '000123456789': 'normal',
  // Stripe: "no account is found": the micro-deposits never arrive, so the account cannot be verified.
  '000111111116': 'fails_verification',
  // Stripe: "The payment fails due to insufficient funds": verifies, then every debit comes back R01.
  '000222222227': 'returns_r01',
  // The simulator's own: verifies, and has only $5.00 (the balance check refuses a larger share up front).
  '000999999991': 'low_balance',
};

/** Stripe's test micro-deposits: 32 and 45 cents (either order is accepted). */
export const SIM_MICRODEPOSITS_CENTS: [number, number] = [32, 45];
export const SIM_BANK_STARTING_BALANCE_CENTS = 1_000_000;
export const SIM_LOW_BANK_BALANCE_CENTS = 500;
/** A debit is pending this long, then settles (or comes back returned). Stripe: usually 4 business days. */
export const SIM_ACH_SETTLEMENT_MS = 4 * 24 * 3_600_000;

const BANK_TOKEN_PREFIX = 'sim_ba_';

export function simulatedBankMethods(db: DbOrTx, clock: Clock) {
  async function account(token: string) {
    return firstRow(db, schema.simBankAccounts, eq(schema.simBankAccounts.token, token));
  }

  return {
    async bankBalance(token: string): Promise<number | null> {
      if (!token.startsWith(BANK_TOKEN_PREFIX)) return null;
      return (await account(token))?.availableCents ?? null;
    },

    async addBankAccount(details: BankAccountDetails, opts: { idempotencyKey: string }): Promise<PendingBankAccount> {
      const behavior = TEST_BANK_ACCOUNTS[details.accountNumber] ?? 'normal';
      // The same idempotency key always names the same account.
      const token = `${BANK_TOKEN_PREFIX}${sha256Hex(`bank:${opts.idempotencyKey}`).slice(0, 24)}`;
      await db
        .insert(schema.simBankAccounts)
        .values({
          token,
          behavior,
          routingNumber: details.routingNumber,
          last4: details.accountNumber.slice(-4),
          accountType: details.accountType,
          status: 'pending',
          availableCents: behavior === 'low_balance' ? SIM_LOW_BANK_BALANCE_CENTS : SIM_BANK_STARTING_BALANCE_CENTS,
          createdAt: clock.now(),
        })
        .onConflictDoNothing();
      return { token, last4: details.accountNumber.slice(-4), verificationRef: token };
    },

    async verifyMicrodeposits(ref: string, amounts: [number, number]): Promise<void> {
      const a = await account(ref);
      if (!a || a.status === 'failed') throw new VendorDeclineError('bank_verification_failed', 'This bank account cannot be verified.');
      if (a.status === 'verified') return;
      if (a.behavior === 'fails_verification') {
        await db.update(schema.simBankAccounts).set({ status: 'failed' }).where(eq(schema.simBankAccounts.token, ref));
        throw new VendorDeclineError('bank_verification_failed', 'The bank could not find this account: the micro-deposits were returned.');
      }
      const sorted = [...amounts].sort((x, y) => x - y);
      if (sorted[0] !== SIM_MICRODEPOSITS_CENTS[0] || sorted[1] !== SIM_MICRODEPOSITS_CENTS[1]) {
        throw new VendorDeclineError('microdeposit_mismatch', 'The amounts do not match the micro-deposits sent to this account.');
      }
      await db.update(schema.simBankAccounts).set({ status: 'verified' }).where(eq(schema.simBankAccounts.token, ref));
    },

    /** A debit is a sim_holds row, captured at once (nothing to hold), taken from the balance in one guarded statement. */
    async debitBank(token: string, amountCents: number, opts: { idempotencyKey: string }): Promise<{ debitId: string }> {
      if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new RangeError('debit amount must be positive cents');
      return db.transaction(async (tx) => {
        const again = await firstRow(tx, schema.simHolds, eq(schema.simHolds.idempotencyKey, opts.idempotencyKey));
        if (again) return { debitId: again.id };
        const a = await firstRow(tx, schema.simBankAccounts, eq(schema.simBankAccounts.token, token));
        if (!a) throw new VendorDeclineError('card_declined', 'No such bank account.');
        if (a.status !== 'verified') throw new VendorDeclineError('card_declined', 'This bank account is not verified.');
        const debit = await tx
          .update(schema.simBankAccounts)
          .set({ availableCents: sql`${schema.simBankAccounts.availableCents} - ${amountCents}` })
          .where(and(eq(schema.simBankAccounts.token, token), sql`${schema.simBankAccounts.availableCents} >= ${amountCents}`));
        if (debit.rowsAffected !== 1) throw new VendorDeclineError('insufficient_funds', 'The bank account has insufficient funds.');
        const id = newId('sim_debit');
        await tx.insert(schema.simHolds).values({ id, idempotencyKey: opts.idempotencyKey, token, amountCents, status: 'captured', createdAt: clock.now() });
        return { debitId: id };
      });
    },

    /** Pending for SIM_ACH_SETTLEMENT_MS (by the clock), then settled, or returned R01 for 000222222227 (balance restored). */
    async getBankDebit(debitId: string): Promise<BankDebitState> {
      const h = await firstRow(db, schema.simHolds, eq(schema.simHolds.id, debitId));
      if (!h) throw new Error(`simulated processor: no bank debit ${debitId}`);
      const a = await account(h.token);
      if (!a) throw new Error(`simulated processor: debit ${debitId} is not from a bank account`);
      if (clock.now().getTime() < h.createdAt.getTime() + SIM_ACH_SETTLEMENT_MS) return { status: 'pending' };
      if (a.behavior !== 'returns_r01') return { status: 'succeeded' };
      // The money never left the account: the first time the return is seen, the debit is undone (voided: it can no
      // longer be refunded) and the balance restored, in one guarded transaction.
      await db.transaction(async (tx) => {
        const undone = await tx
          .update(schema.simHolds)
          .set({ status: 'voided' })
          .where(and(eq(schema.simHolds.id, debitId), eq(schema.simHolds.status, 'captured')));
        if (undone.rowsAffected !== 1) return;
        await tx
          .update(schema.simBankAccounts)
          .set({ availableCents: sql`${schema.simBankAccounts.availableCents} + ${h.amountCents - h.refundedCents}` })
          .where(eq(schema.simBankAccounts.token, h.token));
      });
      return { status: 'returned', code: 'R01', message: 'Insufficient funds' };
    },
  };
}
