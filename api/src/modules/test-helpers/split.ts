import { schema } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../errors';
import { newId, newToken } from '../../lib/ids';
import { addSandboxTestCard, type SandboxBehavior } from '../../vendors/simulated';
import { runCollection } from '../bcards/collect';
import { LEASE_MS, type Lease } from '../bcards/saga';

type MerchantRow = typeof schema.merchants.$inferSelect;

/*
 * A sandbox test bcard funded by a split (issue 28 §3): `allocations` name 2 to 5 magic test sources, and the bcard is
 * collected by the same code as a consumer's (bcards/collect.ts runCollection: hold every share, capture them all,
 * issue the card; any failure voids every hold), through the simulated processor, charging nobody.
 *
 * Each share's source is made for this bcard alone: a card of the simulated processor with the magic source's
 * behaviour (addSandboxTestCard: never from a card number, so no consumer's card can behave so), and a funding source
 * of the merchant's owner recorded as removed from the start (deleted_at set), as removed sources are kept for the
 * collections they funded: it never shows among the owner's sources and can never fund a consumer's bcard. The
 * collection is kind `sandbox`, so, like the one-pool test bcard, it is left out of the owner's consumer screens,
 * plan allowance and bpay's figures; its shares are real ones, so the payment's Charge lists them as allocations, a
 * merchant's refund goes back through them, and the ledger moves `funding_source:<id>` -> `bcard:<id>` as a
 * consumer's collection does.
 */

export interface SandboxSource {
  /** What the simulated processor does with this source (SandboxBehavior, or a decline the simulator already has). */
  behavior: 'normal' | 'declined' | 'insufficient_funds' | SandboxBehavior;
  /** Waits this long (deps.sandboxSlowMs, 5 s by default) before the holds are placed. */
  slow?: true;
  brand: 'visa' | 'mastercard';
  funding: 'credit' | 'debit' | 'prepaid';
  last4: string;
  /** The README's words for it (also the route's description). */
  does: string;
}

/** The magic test sources (README "Sandbox"). Stripe's token names where Stripe has one for the behaviour. */
export const SANDBOX_SOURCES: Record<string, SandboxSource> = {
  tok_visa: { behavior: 'normal', brand: 'visa', funding: 'credit', last4: '4242', does: 'Visa credit: succeeds.' },
  tok_visa_debit: { behavior: 'normal', brand: 'visa', funding: 'debit', last4: '5556', does: 'Visa debit: succeeds.' },
  tok_chargeDeclined: {
    behavior: 'declined',
    brand: 'visa',
    funding: 'credit',
    last4: '0002',
    does: 'Declined at authorization (card_declined): no bcard; every other share is released.',
  },
  tok_chargeDeclinedInsufficientFunds: {
    behavior: 'insufficient_funds',
    brand: 'visa',
    funding: 'credit',
    last4: '9995',
    does: 'Declined at authorization for insufficient funds (402 insufficient_funds, $0.00 available): no bcard; every other share is released.',
  },
  tok_threeDSecure2Required: {
    behavior: 'authentication_required',
    brand: 'visa',
    funding: 'credit',
    last4: '3220',
    does:
      'Needs 3-D Secure: the processor refuses the hold with authentication_required, as it does for a live card that needs ' +
      'authentication at charge time. A test bcard has no cardholder to answer a challenge, so the call answers 402 ' +
      'card_declined with decline_code authentication_required: no bcard; every other share is released.',
  },
  tok_captureFail: {
    behavior: 'capture_fails',
    brand: 'visa',
    funding: 'credit',
    last4: '0259',
    does:
      'Authorizes, then fails at capture: the whole collection is undone (every hold voided, nothing captured, no bcard, ' +
      'no ledger movement) and the call answers 402 processing_error.',
  },
  tok_refundFail: {
    behavior: 'refund_refused',
    brand: 'visa',
    funding: 'credit',
    last4: '5126',
    does:
      "Pays; a merchant's later refund of the payment is refused for this share: the refund succeeds for what went back to " +
      'the other shares, with failure_reason naming this one (if this share is the first one of the split, nothing went ' +
      "back and the refund fails, as the live path's does). The bcard's unspent remainder still goes back to it.",
  },
  tok_slow: {
    behavior: 'normal',
    slow: true,
    brand: 'mastercard',
    funding: 'credit',
    last4: '4444',
    does: 'Succeeds, but the processor answers after 5 seconds: the collection stays holding meanwhile.',
  },
};

/** How long the processor takes for a `tok_slow` share unless deps.sandboxSlowMs says otherwise. */
export const SANDBOX_SLOW_MS = 5_000;

export const MIN_ALLOCATIONS = 2;
export const MAX_ALLOCATIONS = 5;

export interface AllocationInput {
  amount: number;
  source: string;
}

const sourceList = Object.keys(SANDBOX_SOURCES).join(', ');

/**
 * Reads `allocations` as Stripe's libraries send them (JSON numbers, or form-encoded strings of digits): 2 to 5
 * shares of at least 1 cent on a magic source, summing to `amount`. Errors name the parameter as Stripe does
 * (`allocations[2][source]`). Fails with: validation_error.
 */
export function parseAllocations(raw: unknown, amount: number): AllocationInput[] {
  if (!Array.isArray(raw)) throw invalid('allocations', `allocations must be a list of ${MIN_ALLOCATIONS} to ${MAX_ALLOCATIONS} shares, each { amount, source }.`);
  if (raw.length < MIN_ALLOCATIONS || raw.length > MAX_ALLOCATIONS) {
    throw invalid('allocations', `allocations must have ${MIN_ALLOCATIONS} to ${MAX_ALLOCATIONS} shares; it has ${raw.length}.`);
  }
  const out = raw.map((item, i): AllocationInput => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(`allocations[${i}]`, `allocations[${i}] must be an object { amount, source }.`);
    const { amount: a, source, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) {
      throw new AppError('parameter_unknown', `allocations[${i}][${extra.slice(0, 40)}] is not an allowed field.`, `allocations[${i}][${extra.slice(0, 40)}]`);
    }
    const cents = typeof a === 'string' && /^[0-9]{1,9}$/.test(a) ? Number(a) : a;
    if (typeof cents !== 'number' || !Number.isSafeInteger(cents) || cents < 1) {
      throw invalid(`allocations[${i}][amount]`, `allocations[${i}][amount] must be a positive integer number of cents.`);
    }
    if (typeof source !== 'string' || !Object.hasOwn(SANDBOX_SOURCES, source)) {
      throw invalid(`allocations[${i}][source]`, `allocations[${i}][source] must be one of the sandbox test sources: ${sourceList}.`);
    }
    return { amount: cents, source };
  });
  const sum = out.reduce((s, x) => s + x.amount, 0);
  if (sum !== amount) throw invalid('allocations', `The allocations' amounts add up to ${sum} cents; they must add up to amount (${amount}).`);
  return out;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Collects a split sandbox test bcard: records the collection, its shares and their test sources in one transaction
 * (status holding), waits for a `tok_slow` share, then runs the live collection (holds, capture, card). Answers the
 * bcard's id and expiry. `opts.idempotencyKey`: the consumer's scoped key when a checkout's sandbox payment mirrors
 * their split (bcards/progress.ts finds the collection by it).
 * Fails with: card_declined (a decline, or authentication_required: 402 with decline_code), insufficient_funds,
 * processing_error (capture failed; everything was released), vendor_unavailable; each naming the share's
 * `allocations[i][source]`.
 */
export async function collectSplitTestBcard(
  deps: AppDeps,
  merchant: MerchantRow,
  amount: number,
  allocations: AllocationInput[],
  opts: { idempotencyKey?: string | null } = {},
): Promise<{ bcardId: string; expiresAt: Date }> {
  const sim = deps.vendorFor('simulated');
  const at = deps.clock.now();
  const collectionId = newId('col');
  const owner = newToken();
  const cardholderName = merchant.businessName.slice(0, 100);
  const shareIds = allocations.map(() => newId('shr'));
  await deps.db.transaction(async (tx) => {
    await tx.insert(schema.collections).values({
      id: collectionId,
      userId: merchant.userId,
      kind: 'sandbox',
      status: 'holding',
      amountCents: amount,
      feeCents: 0,
      totalCents: amount,
      name: 'Sandbox test bcard',
      cardholderName,
      merchant: merchant.businessName,
      description: null,
      lockedMerchantId: merchant.id,
      vendor: 'simulated',
      // The checkout's sandbox payment (checkout/service.ts): the consumer's key, so they can follow its progress.
      idempotencyKey: opts.idempotencyKey ?? null,
      leaseOwner: owner,
      leaseUntil: new Date(at.getTime() + LEASE_MS),
      createdAt: at,
      updatedAt: at,
    });
    for (const [position, a] of allocations.entries()) {
      const magic = SANDBOX_SOURCES[a.source]!;
      const token = await addSandboxTestCard(tx, at, {
        behavior: magic.behavior,
        brand: magic.brand,
        funding: magic.funding,
        last4: magic.last4,
        availableCents: magic.behavior === 'insufficient_funds' ? 0 : a.amount,
      });
      const sourceId = newId('fs');
      await tx.insert(schema.fundingSources).values({
        id: sourceId,
        userId: merchant.userId,
        name: `Sandbox ${a.source}`,
        type: magic.funding === 'debit' ? 'debit_card' : magic.funding === 'prepaid' ? 'prepaid_card' : 'credit_card',
        brand: magic.brand,
        last4: magic.last4,
        expMonth: 12,
        expYear: at.getUTCFullYear() + 3,
        vendor: 'simulated',
        vendorToken: token,
        defaultSplitBps: 0,
        isActive: false,
        createdAt: at,
        // Removed from the start: kept for this collection's history only (see the file's comment).
        deletedAt: at,
        cardFunding: magic.funding,
      });
      await tx.insert(schema.collectionShares).values({
        id: shareIds[position]!,
        collectionId,
        fundingSourceId: sourceId,
        position,
        percentageBps: Math.round((a.amount * 10_000) / amount),
        amountCents: a.amount,
        status: 'pending',
        updatedAt: at,
      });
    }
  });
  const lease: Lease = { collectionId, owner };
  // The simulator's calls run inside the phase's write transaction (saga.ts phase()): a slow answer is waited for
  // here, before it, so that no other request waits on the database meanwhile.
  if (allocations.some((a) => SANDBOX_SOURCES[a.source]!.slow)) await sleep(deps.sandboxSlowMs ?? SANDBOX_SLOW_MS);
  try {
    const bcard = await runCollection({ ...deps, vendor: sim }, lease, deps.bcardTtlMs);
    return { bcardId: bcard.id, expiresAt: bcard.expiresAt };
  } catch (e) {
    throw e instanceof AppError ? nameTheShare(e, allocations, await failedShare(deps, collectionId)) : e;
  }
}

/** The position of the share that refused (declined, or the first one when the capture failed), if any. */
async function failedShare(deps: AppDeps, collectionId: string): Promise<{ position: number; code: string | null } | null> {
  const shares = await deps.db.query.collectionShares.findMany({ where: (s, { eq }) => eq(s.collectionId, collectionId) });
  const declined = shares.find((s) => s.status === 'declined');
  return declined ? { position: declined.position, code: declined.declineCode } : null;
}

/**
 * The collection's error speaks of the consumer's funding sources (param `fundingSources`, their ids in details): a
 * test bcard's caller named allocations, so the answer names `allocations[i][source]` and the magic source instead.
 */
function nameTheShare(e: AppError, allocations: AllocationInput[], failed: { position: number; code: string | null } | null): AppError {
  let position = failed?.position ?? null;
  if (position === null && e.code === 'processing_error') {
    position = allocations.findIndex((a) => SANDBOX_SOURCES[a.source]!.behavior === 'capture_fails');
  }
  if (position === null || position < 0) return e;
  const source = allocations[position]!.source;
  const param = `allocations[${position}][source]`;
  switch (e.code) {
    case 'insufficient_funds':
      return new AppError('insufficient_funds', `The test source ${source} (${param}) has insufficient funds. Every other share was released.`, param, undefined, {
        decline_code: 'insufficient_funds',
      });
    case 'card_declined':
      return new AppError(
        'card_declined',
        failed?.code === 'authentication_required'
          ? `The test source ${source} (${param}) requires authentication (3-D Secure), which a test bcard cannot answer. Every other share was released.`
          : `The test source ${source} (${param}) was declined. Every other share was released.`,
        param,
        undefined,
        // Stripe's decline_code for a plain decline (tok_chargeDeclined).
        { decline_code: !failed?.code || failed.code === 'card_declined' ? 'generic_decline' : failed.code },
      );
    case 'processing_error':
      return new AppError(
        'processing_error',
        `The test source ${source} (${param}) failed at capture. The whole collection was voided: every share was released and no bcard was issued.`,
        param,
      );
    default:
      return new AppError(e.code, e.message, param, e.headers);
  }
}
