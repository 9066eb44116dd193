import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, notFound } from '../../errors';
import { constantTimeEqual } from '../../lib/crypto';
import { collectAndIssue, planCollection, viewOfBcard, type SplitInput } from '../bcards/service';
import { refundUnusedBcard } from '../bcards/collect';
import { confirmIntent, toIntentObject } from '../payment-intents/service';
import { createTestBcard } from '../test-helpers/service';

type UserRow = typeof schema.users.$inferSelect;
type BcardRow = typeof schema.bcards.$inferSelect;

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

/**
 * The consumer pays a merchant's intent from bpay's checkout page: the split is collected into a bcard locked to
 * that merchant, and the intent is confirmed with it. If the confirmation fails, the bcard is canceled and every
 * share refunded.
 *
 * A sandbox intent never charges the consumer's sources (nor would it take a real bcard: test_mode_live_card). The
 * consumer's split is still checked exactly as for a real payment, so the flow is exercised, but the intent is paid
 * with a fresh sandbox test bcard funded from `sandbox:test_funds` (the test helpers' own), and the answer says
 * `testMode: true`.
 * Fails with: resource_not_found, payment_intent_unexpected_state, everything a bcard fails with.
 */
export async function payIntent(
  deps: AppDeps,
  user: UserRow,
  input: { id: string; clientSecret: string; splits: SplitInput[]; idempotencyKey: string | null },
) {
  const { pi, merchant } = await intentByClientSecret(deps, input.id, input.clientSecret);
  if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') {
    throw new AppError('payment_intent_unexpected_state', `This payment is already ${pi.status.replaceAll('_', ' ')}.`);
  }
  const purchase = {
    kind: 'purchase' as const,
    name: `${merchant.businessName} checkout`,
    amountCents: pi.amount,
    splits: input.splits,
    merchant: merchant.businessName,
    description: pi.description ?? `Checkout at ${merchant.businessName}`,
    idempotencyKey: input.idempotencyKey,
    lockedMerchantId: merchant.id,
  };
  let bcard: BcardRow;
  if (pi.livemode) {
    bcard = await collectAndIssue(deps, user, purchase);
  } else {
    // The split is validated (sources are the consumer's, active, add up to 100 %) but nothing is collected.
    await planCollection(deps, user, purchase);
    const test = await createTestBcard(deps, merchant, pi.livemode, { amount: pi.amount });
    bcard = (await firstRow(deps.db, schema.bcards, eq(schema.bcards.id, test.id)))!;
  }
  try {
    const intent = await confirmIntent(deps, merchant, pi.livemode, pi.id, { kind: 'bcard', bcardId: bcard.id });
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
