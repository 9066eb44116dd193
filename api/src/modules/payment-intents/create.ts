import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { hmacHex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { assertPaymentMethodId, confirmIntent, isClaimable, type PaymentMethodInput } from './payment';
import { checkCreateParameters } from './parameters';
import { insertIntent, toIntentObject, type CreateIntentInput } from './service';

type MerchantRow = typeof schema.merchants.$inferSelect;

export interface CardData {
  type: 'card';
  card: { number: string; exp_month: number; exp_year: number; cvc: string };
}

/** A create's body as the route validates it (routes.ts CreateIntentBody). */
export type CreateIntentRequest = CreateIntentInput & { payment_method_data?: CardData };

/** The confirm's payment method from Stripe's two ways of giving one: a bcard id, or the card's details. */
export function paymentMethodOf(input: { payment_method?: string; payment_method_data?: CardData }): PaymentMethodInput | null {
  if (input.payment_method) return { kind: 'bcard', bcardId: input.payment_method };
  const c = input.payment_method_data?.card;
  if (!c) return null;
  return { kind: 'card', number: c.number, expMonth: c.exp_month, expYear: c.exp_year < 100 ? 2000 + c.exp_year : c.exp_year, cvc: c.cvc };
}

/**
 * Stripe's `confirm: true` on create: the intent is created (payment_intent.created, committed on its own), then
 * confirmed exactly as POST /payment_intents/{id}/confirm confirms it. A decline answers as confirm does (402
 * card_error with decline_code and the intent's id), and the intent stays, requires_payment_method with its
 * last_payment_error, as Stripe's does.
 *
 * Run under the request's Idempotency-Key: `scopedKey` (the key's record, the same for a retry that takes over a
 * request that died) names the intent's id, so such a retry finds the intent the first attempt made instead of making
 * a second one, and confirms it if nothing has yet.
 * Fails with: validation_error (any parameter, before anything is made; payment_method must be a bcard issued for
 * this merchant), card_declined or expired_card (402), payment_intent_unexpected_state, idempotency_key_in_use (a
 * retry that took over from an attempt that died mid-payment finds the intent still processing).
 */
export async function createAndConfirmIntent(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  input: CreateIntentRequest,
  scopedKey: string | null,
) {
  checkCreateParameters(input);
  const pm = paymentMethodOf(input)!;
  if (pm.kind === 'bcard') await assertPaymentMethodId(deps, merchant, pm.bcardId);
  const id = scopedKey === null ? newId('pi') : `pi_${hmacHex(deps.idempotencySecret, `create-confirm:${merchant.id}:${scopedKey}`).slice(0, 24)}`;
  const made = await firstRow(deps.db, schema.paymentIntents, eq(schema.paymentIntents.id, id));
  // Still processing: the attempt that died left it so until the money sweep gives it back (recoverStuckIntents).
  // Not an answer to remember (runIdempotent keeps the key in progress), or every retry would hear "processing" for
  // 24 hours of an intent that no event will ever move on; the retry is told to come back, and then pays it.
  if (made?.status === 'processing') {
    throw new AppError(
      'idempotency_key_in_use',
      'The first attempt of this request stopped while paying; bpay is putting its payment intent back. Retry with the same Idempotency-Key after the time given in Retry-After.',
    );
  }
  if (made && !isClaimable(made.status)) return toIntentObject(made);
  if (!made) await deps.db.transaction((tx) => insertIntent(tx, deps, merchant, livemode, input, id));
  return confirmIntent(deps, merchant, livemode, id, pm);
}
