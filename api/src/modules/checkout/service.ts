import { formatDecimal, type Cents } from '@bpay/db/money';
import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, notFound } from '../../errors';
import { constantTimeEqual } from '../../lib/crypto';
import { collectAndIssue } from '../bcards/service';
import { planCollection, type SplitInput } from '../bcards/plan';
import { viewOfBcard } from '../bcards/views';
import { refundUnusedBcard } from '../bcards/refund';
import { claimIntent, confirmIntent, isClaimable, releaseClaim, type IntentClaim } from '../payment-intents/payment';
import { toIntentObject } from '../payment-intents/service';
import { createTestBcard } from '../test-helpers/service';
import { collectSplitTestBcard, type AllocationInput } from '../test-helpers/split';
import { allocate } from '../../lib/split';

type UserRow = typeof schema.users.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;
type MerchantRow = typeof schema.merchants.$inferSelect;

/** An intent found by its client secret (what the merchant's page holds); anything else is "not found". */
async function intentByClientSecret(deps: AppDeps, id: string, clientSecret: string) {
  const pi = await firstRow(deps.db, schema.paymentIntents, eq(schema.paymentIntents.id, id));
  if (!pi || !constantTimeEqual(pi.clientSecret, clientSecret)) throw notFound('payment_intent');
  const merchant = await firstRow(deps.db, schema.merchants, eq(schema.merchants.id, pi.merchantId));
  // A deactivated merchant takes no payments, through its API or through the widget.
  if (!merchant || !merchant.isActive) throw notFound('payment_intent');
  return { pi, merchant };
}

/** What the checkout widget may show to anyone holding the client secret: no customer data. */
export async function publicIntent(deps: AppDeps, id: string, clientSecret: string) {
  const { pi, merchant } = await intentByClientSecret(deps, id, clientSecret);
  return {
    id: pi.id,
    amount: pi.amount,
    currency: pi.currency,
    status: pi.status,
    livemode: pi.livemode,
    description: pi.description,
    merchant: { businessName: merchant.businessName, website: merchant.website },
  };
}

/** What the consumer is told when the intent is not (or no longer) theirs to pay. */
function notPayable(status: IntentRow['status']): AppError {
  if (isClaimable(status)) {
    // Another payment held it a moment ago and gave it back (its collection failed): trying again may well work.
    return new AppError('payment_intent_unexpected_state', 'Another payment of this was under way. Please try again.');
  }
  const shown = status === 'processing' ? 'being processed' : status.replaceAll('_', ' ');
  return new AppError('payment_intent_unexpected_state', `This payment is already ${shown}.`);
}

/**
 * Claims the intent for this payment before anything is collected: of many payments at once (double clicks, several
 * windows), one goes on; the others are refused here, before their consumer's cards are held or a monthly bcard
 * is used. Fails with: payment_intent_unexpected_state.
 */
async function claimForCheckout(deps: AppDeps, pi: IntentRow): Promise<IntentClaim> {
  if (!isClaimable(pi.status)) throw notPayable(pi.status);
  try {
    return await claimIntent(deps, pi);
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'payment_intent_unexpected_state') throw e;
    const now = await firstRow(deps.db, schema.paymentIntents, eq(schema.paymentIntents.id, pi.id));
    throw notPayable(now?.status ?? 'processing');
  }
}

type PurchaseInput = { splits: SplitInput[]; idempotencyKey: string | null };

/**
 * The bcard that will pay: for a production intent, the consumer's split collected into a bcard locked to the
 * merchant; for a sandbox one, the split checked, then a sandbox test bcard collected from test sources standing for
 * the consumer's shares (sandboxMirror), charging nobody.
 */
async function fundPayment(deps: AppDeps, user: UserRow, pi: IntentRow, merchant: MerchantRow, input: PurchaseInput): Promise<BcardRow> {
  const purchase = {
    kind: 'purchase' as const,
    name: `${merchant.businessName} checkout`,
    amountCents: pi.amount,
    splits: input.splits,
    merchant: merchant.businessName,
    // The merchant's own words, or none: "Checkout at <merchant>" is written when read, in the reader's language.
    description: pi.description,
    idempotencyKey: input.idempotencyKey,
    lockedMerchantId: merchant.id,
  };
  if (pi.livemode) return collectAndIssue(deps, user, purchase);
  // The split is validated (sources are the consumer's, active, add up to 100 %) but nothing is collected from them.
  const { plan } = await planCollection(deps, user, purchase);
  const mirror = sandboxMirror(pi.amount, plan.shares.map((s) => s.amountCents));
  if (!mirror) {
    const test = await createTestBcard(deps, merchant, pi.livemode, { amount: pi.amount });
    return (await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, test.id)))!;
  }
  // A split test bcard whose shares stand for the consumer's, in their order, collected by the live collection code
  // under the consumer's key: their page follows it share by share (bcards/progress.ts).
  const { bcardId } = await collectSplitTestBcard(deps, merchant, pi.amount, mirror, { idempotencyKey: input.idempotencyKey });
  return (await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, bcardId)))!;
}

/**
 * The shares of a sandbox payment's test bcard (issue 28 §3): the intent's amount split in the proportions of the
 * consumer's shares (their fee is not charged in the sandbox), each on `tok_visa` whatever the consumer's source is,
 * so the merchant's Charge shows nothing of their cards beyond the split's proportions. Null when a share would come
 * to less than a cent: the one-pool test bcard pays instead.
 */
export function sandboxMirror(amount: number, shareCents: number[]): AllocationInput[] | null {
  const amounts = allocate(amount, shareCents);
  return amounts.every((a) => a >= 1) ? amounts.map((a) => ({ amount: a, source: 'tok_visa' })) : null;
}

/**
 * The consumer pays a merchant's intent from bpay's checkout page. The intent is claimed first (processing), then
 * the split is collected into a bcard locked to that merchant, and the intent is confirmed with it under the claim.
 * If the collection fails, the claim is given back (the intent returns to its status, no event) so the consumer can
 * try again; if the confirmation fails, the bcard is canceled and every share refunded. A crash between claim and
 * confirm leaves the intent processing until the money sweep restores it (recoverStuckIntents, 2 minutes); a bcard
 * collected meanwhile is refunded when it expires.
 *
 * A sandbox intent never charges the consumer's sources (nor would it take a real bcard: test_mode_live_card). The
 * consumer's split is still checked exactly as for a real payment, so the flow is exercised, but the intent is paid
 * with a split sandbox test bcard of the merchant's owner whose shares are test sources standing for the consumer's
 * (test-helpers/split.ts), collected under the consumer's Idempotency-Key so their page can poll its progress; the
 * answer says `testMode: true`.
 * Fails with: resource_not_found, payment_intent_unexpected_state, everything a bcard fails with.
 */
export async function payIntent(
  deps: AppDeps,
  user: UserRow,
  input: { id: string; clientSecret: string; amount?: number } & PurchaseInput,
) {
  const found = await intentByClientSecret(deps, input.id, input.clientSecret);
  const { merchant } = found;
  const claim = await claimForCheckout(deps, found.pi);
  // From here on the claimed row is the truth: the merchant may have updated the intent after the page was read.
  const pi = claim.intent;
  if (input.amount !== undefined && pi.amount !== input.amount) {
    // The merchant changed the amount after the consumer saw it: nothing is collected for an amount they did not see.
    await releaseClaim(deps, claim).catch((error: unknown) => deps.log.error('releasing a checkout claim failed', { paymentIntentId: pi.id, error }));
    throw new AppError(
      'amount_changed',
      `The amount of this payment changed from $${formatDecimal(input.amount as Cents)} to $${formatDecimal(pi.amount as Cents)}. Check it and pay again.`,
      'amount',
    );
  }
  let bcard: BcardRow;
  try {
    bcard = await fundPayment(deps, user, pi, merchant, input);
  } catch (e) {
    // Nothing stays charged when a collection fails (it is undone whole, or by the sweep): the intent is payable again.
    await releaseClaim(deps, claim).catch((error: unknown) => deps.log.error('releasing a checkout claim failed', { paymentIntentId: pi.id, error }));
    throw e;
  }
  try {
    const intent = await confirmIntent(deps, merchant, pi.livemode, pi.id, { kind: 'bcard', bcardId: bcard.id }, claim);
    const paidWith = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, bcard.id));
    return {
      paymentIntent: { id: intent.id, status: intent.status, amount: intent.amount },
      bcard: await viewOfBcard(deps, paidWith!),
      testMode: !pi.livemode,
    };
  } catch (e) {
    const fresh = await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, bcard.id));
    if (fresh?.status === 'active') await refundUnusedBcard(deps, fresh, 'canceled');
    throw e;
  }
}

export { toIntentObject };
