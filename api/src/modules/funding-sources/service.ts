import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, firstRow, preparedPerCount, slots, slotValues } from '@bpay/db';
import { formatDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { brandOf, digitsOnly, luhnValid } from '../../lib/cards';
import { newId, newToken } from '../../lib/ids';
import { currentTier, maxFundingSources } from '../subscription/service';
import { assertCardAddingUnlocked, countCardAttempt, recordCardAccepted, recordCardDecline, releaseCardAttempt } from './attempts';
import { VendorDeclineError, VendorUnavailableError, type CardFunding, type TokenizedCard } from '../../vendors/types';
import type { FundingSourceType } from '@bpay/db';

type UserRow = typeof schema.users.$inferSelect;
type SourceRow = typeof schema.fundingSources.$inferSelect;

export const CHALLENGE_TTL_MS = 15 * 60_000;

export interface BankAccountView {
  routingNumber: string;
  accountType: 'checking' | 'savings';
  verificationStatus: 'pending' | 'verified' | 'failed';
  /** Wrong micro-deposit answers still allowed before the verification fails. */
  verificationAttemptsLeft: number;
}

export interface FundingSourceView {
  id: string;
  name: string;
  type: FundingSourceType;
  /** A card's funding as the processor answered it; null for a bank account (and cards added before it was kept). */
  funding: CardFunding | null;
  last4: string;
  brand: SourceRow['brand'];
  expiryMonth: number | null;
  expiryYear: number | null;
  defaultSplitPercentage: number;
  isActive: boolean;
  balance: string | null;
  bankAccount: BankAccountView | null;
  createdAt: string;
}

/** Wrong micro-deposit answers allowed: the third wrong one fails the verification (Stripe allows 10). */
export const BANK_VERIFICATION_MAX_ATTEMPTS = 3;

/** The processor's funding decides a card's type; a card whose funding is unknown is taken as credit. */
export function cardTypeFor(funding: CardFunding): FundingSourceType {
  return funding === 'debit' ? 'debit_card' : funding === 'prepaid' ? 'prepaid_card' : 'credit_card';
}

export function toView(s: SourceRow, availableCents: number | null): FundingSourceView {
  const bank = s.type === 'bank_account';
  return {
    id: s.id,
    name: s.name,
    type: s.type,
    funding: s.cardFunding ?? null,
    last4: s.last4,
    brand: s.brand,
    // A bank account's stored expiry is the sentinel 12/9999 (db/schema/money.ts): never shown.
    expiryMonth: bank ? null : s.expMonth,
    expiryYear: bank ? null : s.expYear,
    defaultSplitPercentage: s.defaultSplitBps / 100,
    isActive: s.isActive,
    // A bank account's balance is the bank's to know, not bpay's (an ACH debit is checked when it is made and can
    // still come back days later): none is shown, verified or not (issue 25).
    balance: bank || availableCents === null ? null : formatDecimal(availableCents as Cents),
    bankAccount: bank
      ? {
          routingNumber: s.bankRoutingNumber ?? '',
          accountType: s.bankAccountType ?? 'checking',
          verificationStatus: s.bankVerificationStatus ?? 'pending',
          verificationAttemptsLeft: Math.max(0, BANK_VERIFICATION_MAX_ATTEMPTS - s.bankVerificationAttempts),
        }
      : null,
    createdAt: s.createdAt.toISOString(),
  };
}

export async function withBalance(deps: AppDeps, s: SourceRow): Promise<FundingSourceView> {
  let available: number | null = null;
  if (s.type === 'bank_account') return toView(s, null);
  try {
    available = await deps.vendorFor(s.vendor).availableBalance(s.vendorToken);
  } catch (error) {
    deps.log.warn('could not read a funding source balance', { fundingSourceId: s.id, error });
  }
  return toView(s, available);
}

export async function listFundingSources(deps: AppDeps, userId: string): Promise<FundingSourceView[]> {
  const rows = await deps.db
    .select()
    .from(schema.fundingSources)
    .where(and(eq(schema.fundingSources.userId, userId), isNull(schema.fundingSources.deletedAt)))
    .orderBy(schema.fundingSources.createdAt, schema.fundingSources.id);
  return Promise.all(rows.map((r) => withBalance(deps, r)));
}

/** The caller's own, not removed; anyone else's id is "not found". */
export async function getOwnedSource(db: Db, userId: string, id: string): Promise<SourceRow> {
  const row = await firstRow(db, schema.fundingSources, and(eq(schema.fundingSources.id, id), eq(schema.fundingSources.userId, userId), isNull(schema.fundingSources.deletedAt)));
  if (!row) throw notFound('funding source');
  return row;
}

const normalizeName = (s: string) => s.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/** Unverified accounts may only add cards in their own name (spec §5, fraud prevention). */
export function assertNameAllowed(user: UserRow, name: string, what = 'card'): void {
  if (user.kycStatus === 'verified') return;
  const first = user.firstName?.trim() ?? '';
  const last = user.lastName?.trim() ?? '';
  if (!first || !last) {
    throw new AppError(
      'name_mismatch',
      `Add your first and last name to your profile before adding a ${what}: until you verify your identity, ` +
        `${what}s must be in your own name.`,
      'name',
    );
  }
  if (normalizeName(name) !== normalizeName(`${first} ${last}`)) {
    throw new AppError(
      'name_mismatch',
      `The name on the ${what} must match the name on your account (${first} ${last}) until you verify your identity.`,
      'name',
    );
  }
}

export async function assertUnderLimit(db: DbOrTx, user: UserRow): Promise<void> {
  const tier = await currentTier(db, user.id);
  const max = maxFundingSources(tier, user.kycStatus === 'verified');
  if (max === -1) return;
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(schema.fundingSources)
    .where(and(eq(schema.fundingSources.userId, user.id), isNull(schema.fundingSources.deletedAt)));
  if (Number(row?.n ?? 0) >= max) {
    const upgrade =
      tier.name === 'free'
        ? user.kycStatus === 'verified'
          ? ' Upgrade to Pro for 5 sources or Premium for unlimited.'
          : ' Verify your ID for a 3rd, or upgrade to Pro for 5 sources or Premium for unlimited.'
        : tier.name === 'pro'
          ? ' Upgrade to Premium for unlimited sources.'
          : '';
    throw new AppError(
      'funding_source_limit_reached',
      `Limit reached: your ${tier.displayName} plan allows ${max} funding sources.${upgrade}`,
    );
  }
}

export interface CreateSourceInput {
  cardNumber: string;
  expiryMonth: string | number;
  expiryYear: string | number;
  cvv: string;
  name: string;
  defaultSplitPercentage: number;
}

interface ValidCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
  splitBps: number;
}

/** Every rule of spec §5 plus Luhn and a future expiry. Messages never repeat the card number. */
function validateCard(input: CreateSourceInput, now: Date): ValidCard {
  const number = digitsOnly(input.cardNumber);
  if (!/^\d{12,19}$/.test(number)) throw invalid('cardNumber', 'cardNumber must be 12 to 19 digits.');
  if (!luhnValid(number)) throw invalid('cardNumber', 'cardNumber is not a valid card number (check digit failed).');
  const expMonth = Number(input.expiryMonth);
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12) {
    throw invalid('expiryMonth', 'expiryMonth must be between 01 and 12.');
  }
  let expYear = Number(input.expiryYear);
  if (Number.isInteger(expYear) && expYear >= 0 && expYear < 100) expYear += 2000;
  if (!Number.isInteger(expYear) || expYear < 2000 || expYear > 2100) {
    throw invalid('expiryYear', 'expiryYear must be a 4-digit year such as 2028.');
  }
  // A card is valid through the last day of its expiry month.
  if (Date.UTC(expYear, expMonth, 1) <= now.getTime()) throw invalid('expiryYear', 'The card has expired.');
  const amex = brandOf(number) === 'amex';
  if (!(amex ? /^\d{4}$/ : /^\d{3}$/).test(input.cvv)) {
    throw invalid('cvv', amex ? 'cvv must be 4 digits for American Express cards.' : 'cvv must be 3 digits.');
  }
  const name = input.name.trim().replace(/\s+/g, ' ');
  if (!name) throw invalid('name', 'name (the cardholder name) is required.');
  const splitBps = Math.round(input.defaultSplitPercentage * 100);
  if (!Number.isFinite(input.defaultSplitPercentage) || splitBps < 0 || splitBps > 10000) {
    throw invalid('defaultSplitPercentage', 'defaultSplitPercentage must be a number between 0 and 100.');
  }
  return { number, expMonth, expYear, cvc: input.cvv, name, splitBps };
}

export function declineToAppError(e: VendorDeclineError): AppError {
  const known = ['card_declined', 'insufficient_funds', 'expired_card', 'incorrect_cvc', 'authentication_failed', 'processing_error'] as const;
  const code = (known as readonly string[]).includes(e.code) ? (e.code as (typeof known)[number]) : 'card_declined';
  return new AppError(code, e.message);
}

/** `alsoInTx` runs in the same transaction, after the insert: what it throws undoes the insert. */
async function insertSource(
  deps: AppDeps,
  user: UserRow,
  card: TokenizedCard,
  name: string,
  splitBps: number,
  alsoInTx?: (tx: DbOrTx, id: string) => Promise<void>,
) {
  const id = newId('fs');
  // The limit is checked again inside the writing transaction, so two concurrent adds cannot both pass it.
  await deps.db.transaction(async (tx) => {
    await assertUnderLimit(tx, user);
    await tx.insert(schema.fundingSources).values({
      id,
      userId: user.id,
      name,
      type: cardTypeFor(card.funding),
      cardFunding: card.funding,
      brand: card.brand,
      last4: card.last4,
      expMonth: card.expMonth,
      expYear: card.expYear,
      vendor: deps.vendor.name,
      vendorToken: card.token,
      defaultSplitBps: splitBps,
      isActive: true,
      createdAt: deps.clock.now(),
    });
    await alsoInTx?.(tx, id);
  });
  return withBalance(deps, await getOwnedSource(deps.db, user.id, id));
}

export type CreateSourceResult =
  | { status: 201; body: FundingSourceView }
  | { status: 202; body: { status: 'requires_action'; verificationId: string; message: string } };

/**
 * Adds a card: validates it, checks the plan's limit and (unverified accounts) the name, counts the attempt
 * (attempts.ts: card testing), then has the processor tokenize it and verify it with a $1.00 hold that is released
 * at once. Stores only the token, brand, last 4, expiry and name. A 3-D Secure card answers 202 with a verification
 * to complete. `address` is the client's, for the per-address attempt limit.
 * Fails with: card_adding_locked, validation_error, funding_source_limit_reached, name_mismatch,
 * card_attempts_exceeded, card_error codes, vendor_unavailable.
 */
export async function createFundingSource(
  deps: AppDeps,
  user: UserRow,
  input: CreateSourceInput,
  idempotencyKey: string | null,
  address: string,
): Promise<CreateSourceResult> {
  await assertCardAddingUnlocked(deps, user.id);
  const card = validateCard(input, deps.clock.now());
  await assertUnderLimit(deps.db, user);
  assertNameAllowed(user, card.name);
  // Counted before the processor sees the card, so a parallel burst cannot outrun the limit.
  const attempt = await countCardAttempt(deps, user.id, address);
  let result;
  try {
    result = await deps.vendor.verifyCard(
      { number: card.number, expMonth: card.expMonth, expYear: card.expYear, cvc: card.cvc, name: card.name },
      { idempotencyKey: `verify:${user.id}:${idempotencyKey ?? newToken()}`, customerRef: user.id },
    );
  } catch (e) {
    if (e instanceof VendorDeclineError) {
      await recordCardDecline(deps, user.id, attempt);
      throw declineToAppError(e);
    }
    if (e instanceof VendorUnavailableError) {
      await releaseCardAttempt(deps, attempt);
      throw new AppError('vendor_unavailable');
    }
    await recordCardAccepted(deps, attempt); // not a decline: an attempt made, as it always counted
    throw e;
  }
  await recordCardAccepted(deps, attempt);
  if (result.status === 'requires_action') {
    const id = newId('cv');
    const now = deps.clock.now();
    await deps.db.insert(schema.cardVerifications).values({
      id,
      userId: user.id,
      vendor: deps.vendor.name,
      challengeId: result.challengeId,
      pending: { name: card.name, defaultSplitBps: card.splitBps },
      status: 'pending',
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
    });
    return {
      status: 202,
      body: {
        status: 'requires_action',
        verificationId: id,
        message: 'Your bank asks you to confirm this card (3-D Secure). Enter the 6-digit code it sent you.',
      },
    };
  }
  return { status: 201, body: await insertSource(deps, user, result.card, card.name, card.splitBps) };
}

/**
 * Completes a 3-D Secure verification. The completion is an attempt of its own (another call to the card's issuer)
 * and a failed one is a decline, as in createFundingSource.
 * Fails with: resource_not_found, verification_not_pending, card_adding_locked, card_attempts_exceeded,
 * authentication_failed.
 */
export async function completeVerification(
  deps: AppDeps,
  user: UserRow,
  verificationId: string,
  code: string,
  address: string,
): Promise<FundingSourceView> {
  const v = await firstRow(deps.db, schema.cardVerifications, and(eq(schema.cardVerifications.id, verificationId), eq(schema.cardVerifications.userId, user.id)));
  if (!v) throw notFound('card verification');
  if (v.status === 'succeeded' && v.fundingSourceId) return withBalance(deps, await getOwnedSource(deps.db, user.id, v.fundingSourceId));
  if (v.status !== 'pending' || v.expiresAt <= deps.clock.now()) throw new AppError('verification_not_pending');
  await assertCardAddingUnlocked(deps, user.id);
  const attempt = await countCardAttempt(deps, user.id, address);
  let card: TokenizedCard;
  try {
    card = await deps.vendorFor(v.vendor).completeChallenge(v.challengeId, code);
  } catch (e) {
    if (e instanceof VendorDeclineError) {
      await deps.db.update(schema.cardVerifications).set({ status: 'failed' }).where(eq(schema.cardVerifications.id, v.id));
      await recordCardDecline(deps, user.id, attempt);
      throw declineToAppError(e);
    }
    if (e instanceof VendorUnavailableError) {
      await releaseCardAttempt(deps, attempt);
      throw new AppError('vendor_unavailable');
    }
    await recordCardAccepted(deps, attempt); // not a decline: an attempt made, as it always counted
    throw e;
  }
  await recordCardAccepted(deps, attempt);
  try {
    // The source and the verification's success commit together, and only for the first completion: a second
    // one sent at the same time (a double click, a retry) cannot add the same card twice.
    return await insertSource(deps, user, card, v.pending.name, v.pending.defaultSplitBps, async (tx, id) => {
      const claimed = await tx
        .update(schema.cardVerifications)
        .set({ status: 'succeeded', fundingSourceId: id })
        .where(and(eq(schema.cardVerifications.id, v.id), eq(schema.cardVerifications.status, 'pending')))
        .returning({ id: schema.cardVerifications.id });
      if (claimed.length !== 1) throw new AppError('verification_not_pending');
    });
  } catch (e) {
    if (!(e instanceof AppError && e.code === 'verification_not_pending')) throw e;
    const done = await firstRow(deps.db, schema.cardVerifications, eq(schema.cardVerifications.id, v.id));
    if (done?.status === 'succeeded' && done.fundingSourceId) return withBalance(deps, await getOwnedSource(deps.db, user.id, done.fundingSourceId));
    throw e;
  }
}

export interface UpdateSourceInput {
  name?: string;
  defaultSplitPercentage?: number;
  isActive?: boolean;
}

/** Fails with: resource_not_found, validation_error, name_mismatch (unverified accounts keep cards in their name). */
export async function updateFundingSource(
  deps: AppDeps,
  user: UserRow,
  id: string,
  input: UpdateSourceInput,
): Promise<FundingSourceView> {
  await getOwnedSource(deps.db, user.id, id);
  const set: Partial<typeof schema.fundingSources.$inferInsert> = {};
  if (input.name !== undefined) {
    const name = input.name.trim().replace(/\s+/g, ' ');
    if (!name) throw invalid('name', 'name must not be blank.');
    assertNameAllowed(user, name);
    set.name = name;
  }
  if (input.defaultSplitPercentage !== undefined) set.defaultSplitBps = Math.round(input.defaultSplitPercentage * 100);
  if (input.isActive !== undefined) set.isActive = input.isActive;
  if (Object.keys(set).length > 0) {
    await deps.db.update(schema.fundingSources).set(set).where(eq(schema.fundingSources.id, id));
  }
  return withBalance(deps, await getOwnedSource(deps.db, user.id, id));
}

/** Collections whose money is still in play: a source behind one of them cannot be removed. */
const LIVE_COLLECTION = sql`(
  ${schema.collections.status} IN ('holding', 'capturing', 'refunding')
  OR EXISTS (SELECT 1 FROM ${schema.bcards} WHERE ${schema.bcards.collectionId} = ${schema.collections.id}
             AND ${schema.bcards.status} IN ('active', 'authorized', 'expiring', 'canceling'))
)`;

/** Removes a source (kept for history). Fails with: resource_not_found, funding_source_in_use. */
export async function deleteFundingSource(deps: AppDeps, user: UserRow, id: string): Promise<{ id: string; deleted: true }> {
  await getOwnedSource(deps.db, user.id, id);
  await deps.db.transaction(async (tx) => {
    const inUse = await tx
      .select({ id: schema.collectionShares.id })
      .from(schema.collectionShares)
      .innerJoin(schema.collections, eq(schema.collections.id, schema.collectionShares.collectionId))
      .where(and(eq(schema.collectionShares.fundingSourceId, id), LIVE_COLLECTION))
      .limit(1);
    if (inUse.length > 0) throw new AppError('funding_source_in_use');
    await tx
      .update(schema.fundingSources)
      .set({ deletedAt: deps.clock.now(), isActive: false })
      .where(eq(schema.fundingSources.id, id));
  });
  return { id, deleted: true };
}

/** The caller's sources by id, for a split; any id that is not theirs (or removed) is "not found". */
/** The user's live sources among these ids: one build per count of ids (db/prepared.ts), the Create bcard's read. */
const ownedSources = preparedPerCount((db, n) =>
  db
    .select()
    .from(schema.fundingSources)
    .where(and(inArray(schema.fundingSources.id, slots('id', n)), eq(schema.fundingSources.userId, sql.placeholder('userId')), isNull(schema.fundingSources.deletedAt)))
    .prepare(),
);

export async function getOwnedSources(db: Db, userId: string, ids: string[]): Promise<Map<string, SourceRow>> {
  const rows = ids.length ? await ownedSources(db, ids.length).all(slotValues('id', ids, { userId })) : [];
  return new Map(rows.map((r) => [r.id, r]));
}
