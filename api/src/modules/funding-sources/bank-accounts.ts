import { and, eq, isNull, sql } from 'drizzle-orm';
import { BANK_SENTINEL_EXP_MONTH, BANK_SENTINEL_EXP_YEAR, schema, firstRow } from '@bpay/db';
import { AppError, invalid } from '../../errors';
import type { AppDeps } from '../../deps';
import { abaRoutingValid } from '../../lib/cards';
import { hmacHex } from '../../lib/crypto';
import { newId, newToken } from '../../lib/ids';
import { VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { bankStanding, type BankStanding } from './bank-standing';
import { currentTier } from '../subscription/service';
import {
  assertNameAllowed,
  assertUnderLimit,
  BANK_VERIFICATION_MAX_ATTEMPTS,
  getOwnedSource,
  withBalance,
  type FundingSourceView,
} from './service';

type UserRow = typeof schema.users.$inferSelect;

/*
 * US bank accounts as funding sources. The account number goes to the processor only; bpay keeps the processor's
 * token, the last 4, the routing number and a keyed fingerprint (the same account cannot be linked twice). An
 * account funds bcards only once its two micro-deposits are confirmed.
 */

export interface CreateBankAccountInput {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  name: string;
  defaultSplitPercentage: number;
}

const digitsOnly = (s: string) => s.replace(/[\s-]/g, '');

function validate(input: CreateBankAccountInput) {
  const routing = digitsOnly(input.routingNumber);
  if (!/^\d{9}$/.test(routing)) throw invalid('routingNumber', 'routingNumber must be the 9-digit ABA routing number.');
  if (!abaRoutingValid(routing)) {
    throw invalid('routingNumber', 'routingNumber is not a valid ABA routing number (check digit failed). Check it on a cheque or with your bank.');
  }
  const account = digitsOnly(input.accountNumber);
  if (!/^\d{4,17}$/.test(account)) throw invalid('accountNumber', 'accountNumber must be 4 to 17 digits.');
  const name = input.name.trim().replace(/\s+/g, ' ');
  if (!name) throw invalid('name', 'name (the account holder name) is required.');
  const splitBps = Math.round(input.defaultSplitPercentage * 100);
  if (!Number.isFinite(input.defaultSplitPercentage) || splitBps < 0 || splitBps > 10000) {
    throw invalid('defaultSplitPercentage', 'defaultSplitPercentage must be a number between 0 and 100.');
  }
  return { routing, account, name, splitBps, accountType: input.accountType };
}

/** Keyed, so the fingerprint reveals nothing about the number to someone holding the database alone. */
const fingerprintOf = (deps: AppDeps, routing: string, account: string) =>
  hmacHex(deps.idempotencySecret, `bank-account-fingerprint:${routing}:${account}`);

/**
 * Links a bank account: validates it (ABA checksum, 4-17 digits, the holder-name rule of cards), checks the plan's
 * source limit and duplicates, and hands it to the processor, which sends two micro-deposits. The source is stored
 * with verification pending.
 * Fails with: validation_error, funding_source_limit_reached, name_mismatch, funding_source_duplicate,
 * card_declined (the processor refused the account), vendor_unavailable.
 */
export async function createBankAccount(
  deps: AppDeps,
  user: UserRow,
  input: CreateBankAccountInput,
  idempotencyKey: string | null,
  mandate: { ipAddress: string; userAgent: string },
): Promise<FundingSourceView> {
  const v = validate(input);
  await assertUnderLimit(deps.db, user);
  assertNameAllowed(user, v.name, 'bank account');
  const fingerprint = fingerprintOf(deps, v.routing, v.account);
  const duplicate = async (db: Parameters<typeof firstRow>[0]) => {
    const dup = await firstRow(
      db,
      schema.fundingSources,
      and(eq(schema.fundingSources.userId, user.id), eq(schema.fundingSources.bankFingerprint, fingerprint), isNull(schema.fundingSources.deletedAt)),
    );
    if (dup) throw new AppError('funding_source_duplicate', `This bank account (•••• ${dup.last4}) is already linked as ${dup.name}.`, 'accountNumber');
  };
  await duplicate(deps.db);
  let pending;
  try {
    pending = await deps.vendor.addBankAccount(
      { routingNumber: v.routing, accountNumber: v.account, accountType: v.accountType, name: v.name },
      { idempotencyKey: `bank:${user.id}:${idempotencyKey ?? newToken()}`, customerRef: user.id, mandate },
    );
  } catch (e) {
    if (e instanceof VendorDeclineError) throw new AppError('card_declined', `The bank account was refused: ${e.message}`, 'accountNumber');
    if (e instanceof VendorUnavailableError) throw new AppError('vendor_unavailable');
    throw e;
  }
  const id = newId('fs');
  await deps.db.transaction(async (tx) => {
    // Checked again where the source is written, so two concurrent adds cannot both pass.
    await assertUnderLimit(tx, user);
    await duplicate(tx);
    await tx.insert(schema.fundingSources).values({
      id,
      userId: user.id,
      name: v.name,
      type: 'bank_account',
      brand: 'unknown',
      last4: pending.last4,
      expMonth: BANK_SENTINEL_EXP_MONTH,
      expYear: BANK_SENTINEL_EXP_YEAR,
      vendor: deps.vendor.name,
      vendorToken: pending.token,
      defaultSplitBps: v.splitBps,
      isActive: true,
      createdAt: deps.clock.now(),
      bankRoutingNumber: v.routing,
      bankAccountType: v.accountType,
      bankFingerprint: fingerprint,
      bankVerificationStatus: 'pending',
      bankVerificationAttempts: 0,
      bankVerificationRef: pending.verificationRef,
    });
  });
  return withBalance(deps, await getOwnedSource(deps.db, user.id, id));
}

/** "0.32" or "32" (cents) -> 32; anything else is refused with the field named. */
function toCents(raw: string): number {
  const s = raw.trim().replace(/^\$/, '');
  let cents: number;
  if (/^0?\.\d{2}$/.test(s)) cents = Math.round(Number(`0${s.startsWith('.') ? s : s.slice(1)}`) * 100);
  else if (/^\d{1,2}$/.test(s)) cents = Number(s);
  else throw invalid('amounts', 'Each amount is a micro-deposit under $1.00, such as 0.32.');
  if (cents < 1 || cents > 99) throw invalid('amounts', 'Each amount is a micro-deposit under $1.00, such as 0.32.');
  return cents;
}

/**
 * Confirms the two micro-deposits. Each answer is counted before the processor is asked (so concurrent answers
 * cannot get past the limit); BANK_VERIFICATION_MAX_ATTEMPTS wrong answers fail the verification for good.
 * Confirming an account already verified answers it as it is.
 * Fails with: resource_not_found, validation_error, verification_not_pending (not a bank account awaiting it),
 * microdeposit_mismatch (tries left in the message), bank_verification_failed, vendor_unavailable.
 */
export async function verifyMicrodeposits(deps: AppDeps, user: UserRow, id: string, amounts: string[]): Promise<FundingSourceView> {
  const source = await getOwnedSource(deps.db, user.id, id);
  if (source.type !== 'bank_account') throw new AppError('verification_not_pending', 'Only a bank account is verified with micro-deposits.');
  if (amounts.length !== 2) throw invalid('amounts', 'Enter both micro-deposit amounts.');
  const cents = amounts.map(toCents) as [number, number];
  const claimed = await deps.db
    .update(schema.fundingSources)
    .set({ bankVerificationAttempts: sql`${schema.fundingSources.bankVerificationAttempts} + 1` })
    .where(
      and(
        eq(schema.fundingSources.id, id),
        eq(schema.fundingSources.bankVerificationStatus, 'pending'),
        sql`${schema.fundingSources.bankVerificationAttempts} < ${BANK_VERIFICATION_MAX_ATTEMPTS}`,
      ),
    )
    .returning({ attempts: schema.fundingSources.bankVerificationAttempts });
  const attempt = claimed[0]?.attempts;
  if (attempt === undefined) {
    const now = await getOwnedSource(deps.db, user.id, id);
    if (now.bankVerificationStatus === 'verified') return withBalance(deps, now);
    throw new AppError('bank_verification_failed');
  }
  const setStatus = (status: 'verified' | 'failed') =>
    deps.db.update(schema.fundingSources).set({ bankVerificationStatus: status }).where(eq(schema.fundingSources.id, id));
  try {
    await deps.vendorFor(source.vendor).verifyMicrodeposits(source.bankVerificationRef ?? source.vendorToken, cents);
  } catch (e) {
    if (e instanceof VendorDeclineError && e.code === 'microdeposit_mismatch') {
      const left = BANK_VERIFICATION_MAX_ATTEMPTS - attempt;
      if (left <= 0) {
        await setStatus('failed');
        throw new AppError(
          'bank_verification_failed',
          `That was the ${BANK_VERIFICATION_MAX_ATTEMPTS}rd wrong answer: this bank account cannot be verified. Remove it and add it again to get new micro-deposits.`,
          'amounts',
        );
      }
      throw new AppError(
        'microdeposit_mismatch',
        `The amounts do not match the two micro-deposits sent to •••• ${source.last4}. ${left} ${left === 1 ? 'try' : 'tries'} left.`,
        'amounts',
      );
    }
    if (e instanceof VendorDeclineError) {
      await setStatus('failed');
      throw new AppError('bank_verification_failed', `${e.message} Remove this bank account; it cannot fund bcards.`);
    }
    if (e instanceof VendorUnavailableError) {
      // Not an answer: the try is given back.
      await deps.db
        .update(schema.fundingSources)
        .set({ bankVerificationAttempts: sql`max(0, ${schema.fundingSources.bankVerificationAttempts} - 1)` })
        .where(eq(schema.fundingSources.id, id));
      throw new AppError('vendor_unavailable');
    }
    throw e;
  }
  await setStatus('verified');
  return withBalance(deps, await getOwnedSource(deps.db, user.id, id));
}

/** What the consumer owes for returned bank debits, whether bcards are restricted, and the unsettled bank exposure. */
export async function getBankStanding(deps: AppDeps, userId: string): Promise<BankStanding> {
  const tier = await currentTier(deps.db, userId);
  return bankStanding(deps, userId, tier.name);
}
