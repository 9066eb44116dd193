import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../errors';
import { newId, newToken } from '../../lib/ids';
import { issueKey } from '../bcards/saga';
import { accounts, postMovement } from '../ledger/service';
import { MAX_AMOUNT, MIN_AMOUNT } from '../payment-intents/service';
import { collectSplitTestBcard, parseAllocations } from './split';

type MerchantRow = typeof schema.merchants.$inferSelect;

/*
 * Sandbox test helpers (`bpay trigger`). A test bcard is a real bcard of the built-in simulated processor, locked to
 * the calling merchant, so confirming a payment intent with it runs the same code as a consumer's bcard (the spend,
 * the ledger credit to the merchant, payment_intent.succeeded). It belongs to the merchant's owner but is marked
 * `sandbox` (collection kind `sandbox`, no shares): it is funded from the ledger account `sandbox:test_funds`
 * instead of any consumer source, returns there when it expires or leaves a remainder, and is left out of the
 * owner's consumer screens and of bpay's figures.
 */

export interface TestBcardObject {
  id: string;
  object: 'test_bcard';
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  /** The spending limit, in cents. */
  limit: number;
  currency: 'usd';
  /** Unix seconds: after this the card is deactivated and its money returns to the sandbox. */
  expires_at: number;
  livemode: false;
}

/** What the Idempotency-Key record keeps: no number or CVC (they are revealed again for each answer). */
export type StoredTestBcard = Omit<TestBcardObject, 'number' | 'cvc' | 'exp_month' | 'exp_year'>;

/** Fails with: test_mode_only (a production key). */
export function assertSandbox(livemode: boolean): void {
  if (livemode) throw new AppError('test_mode_only');
}

/**
 * Issues a fresh single-use sandbox bcard with `amount` cents on it, locked to this merchant: the simulator issues
 * the card first (never inside a transaction), then the collection, the bcard and the funding movement
 * (`sandbox:test_funds` → `bcard:<id>`) commit together. If that commit fails the card is deactivated.
 * With `allocations`, the bcard is a split collected from magic test sources instead (split.ts).
 * Fails with: test_mode_only, validation_error (amount, currency, allocations), and with allocations the collection's
 * card_declined, insufficient_funds, processing_error, vendor_unavailable (naming `allocations[i][source]`).
 */
export async function createTestBcard(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  input: { amount: number; currency?: string; allocations?: unknown },
): Promise<StoredTestBcard> {
  assertSandbox(livemode);
  if (!Number.isSafeInteger(input.amount) || input.amount < MIN_AMOUNT || input.amount > MAX_AMOUNT) {
    throw invalid('amount', `amount must be an integer number of cents from ${MIN_AMOUNT} to ${MAX_AMOUNT}.`);
  }
  if (input.currency !== undefined && input.currency.toLowerCase() !== 'usd') throw invalid('currency', 'currency must be usd.');
  if (input.allocations !== undefined) {
    // A split across magic test sources, collected as a consumer's bcard is (split.ts).
    const allocations = parseAllocations(input.allocations, input.amount);
    const { bcardId, expiresAt } = await collectSplitTestBcard(deps, merchant, input.amount, allocations);
    return { id: bcardId, object: 'test_bcard', limit: input.amount, currency: 'usd', expires_at: Math.floor(expiresAt.getTime() / 1000), livemode: false };
  }
  const vendor = deps.vendorFor('simulated');
  const at = deps.clock.now();
  const expiresAt = new Date(at.getTime() + deps.bcardTtlMs);
  const collectionId = newId('col');
  const bcardId = newId('bc');
  const cardholderName = merchant.businessName.slice(0, 100);
  const card = await vendor.issueCard({
    limitCents: input.amount,
    expiresAt,
    cardholderName,
    singleUse: true,
    idempotencyKey: issueKey(collectionId),
  });
  try {
    await deps.db.transaction(async (tx) => {
      await tx.insert(schema.collections).values({
        id: collectionId,
        userId: merchant.userId,
        kind: 'sandbox',
        status: 'completed',
        amountCents: input.amount,
        feeCents: 0,
        totalCents: input.amount,
        name: 'Sandbox test bcard',
        cardholderName,
        merchant: merchant.businessName,
        description: null,
        lockedMerchantId: merchant.id,
        vendor: 'simulated',
        leaseOwner: newToken(),
        leaseUntil: at,
        createdAt: at,
        updatedAt: at,
      });
      await tx.insert(schema.bcards).values({
        id: bcardId,
        userId: merchant.userId,
        collectionId,
        name: 'Sandbox test bcard',
        cardholderName,
        vendor: 'simulated',
        vendorCardId: card.cardId,
        brand: card.brand,
        last4: card.last4,
        expMonth: card.expMonth,
        expYear: card.expYear,
        limitCents: input.amount,
        status: 'active',
        lockedMerchantId: merchant.id,
        sandbox: true,
        expiresAt,
        createdAt: at,
      });
      await postMovement(tx, {
        kind: 'sandbox.funded',
        referenceId: bcardId,
        at,
        postings: [
          { account: accounts.sandboxTestFunds, amountCents: -input.amount },
          { account: accounts.bcard(bcardId), amountCents: input.amount },
        ],
      });
    });
  } catch (e) {
    await vendor.deactivateCard(card.cardId).catch(() => undefined);
    throw e;
  }
  return {
    id: bcardId,
    object: 'test_bcard',
    limit: input.amount,
    currency: 'usd',
    expires_at: Math.floor(expiresAt.getTime() / 1000),
    livemode: false,
  };
}

/**
 * Adds the card's number, expiry and CVC to a test bcard's answer (fresh or replayed): they come from the simulated
 * issuer, which derives them and stores none, and every reveal is recorded like a consumer's.
 * Fails with: resource_not_found (not this merchant's test bcard).
 */
export async function withCardDetails(
  deps: AppDeps,
  merchant: MerchantRow,
  stored: StoredTestBcard,
  meta: { ip: string; userAgent: string | null },
): Promise<TestBcardObject> {
  const b = await deps.db.query.bcards.findFirst({
    where: and(eq(schema.bcards.id, stored.id), eq(schema.bcards.lockedMerchantId, merchant.id), eq(schema.bcards.sandbox, true)),
  });
  if (!b) throw notFound('test bcard');
  const card = await deps.vendorFor('simulated').revealCard(b.vendorCardId);
  await deps.db.insert(schema.bcardReveals).values({
    id: `rv_${newToken().slice(0, 24)}`,
    bcardId: b.id,
    userId: b.userId,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
    at: deps.clock.now(),
  });
  return {
    id: stored.id,
    object: 'test_bcard',
    number: card.number,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    cvc: card.cvc,
    limit: stored.limit,
    currency: 'usd',
    expires_at: stored.expires_at,
    livemode: false,
  };
}
