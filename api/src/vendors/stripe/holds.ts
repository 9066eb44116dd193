import Stripe from 'stripe';
import { VendorDeclineError, VendorUnavailableError, type PaymentVendor } from '../types';
import { assertPositiveCents, CURRENCY, metadataQuery, type StripeContext } from './client';
import { declineFromIntent, guard, isUnexpectedState, redact, StripeIntegrationError, unknownOutcome } from './errors';
import { customerOfMethod } from './customers';

const HOLD_PURPOSE = 'share_hold';

/** A share of a split on a card: held (a manual-capture PaymentIntent), captured, voided or refunded. */
export function holdOperations({ stripe }: StripeContext): Pick<
  PaymentVendor,
  'hold' | 'findHold' | 'getHold' | 'capture' | 'voidHold' | 'refund'
> {
  return {
    hold: (token, amountCents, { idempotencyKey: key, description }) =>
      guard(async () => {
        assertPositiveCents(amountCents);
        const customer = await customerOfMethod(stripe, token);
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: CURRENCY,
            payment_method: token,
            ...(customer ? { customer } : {}),
            capture_method: 'manual',
            confirm: true,
            off_session: true,
            allowed_payment_method_types: ['card'],
            description,
            metadata: { bpay_idempotency_key: key, bpay_purpose: HOLD_PURPOSE },
          },
          { idempotencyKey: `${key}:hold` },
        );
        switch (pi.status) {
          case 'requires_capture':
            return { holdId: pi.id };
          case 'requires_action':
            await cancelIntent(stripe, pi.id, `${key}:hold-cancel`);
            throw new VendorDeclineError('authentication_required', 'The card asks for authentication (3-D Secure).');
          case 'requires_payment_method':
            throw declineFromIntent(pi);
          case 'processing':
            throw new VendorUnavailableError('Stripe is still processing the hold; resolve it with findHold.');
          default:
            throw unknownOutcome('hold', pi);
        }
      }),

    /**
     * Stripe Search lags writes by up to a minute (longer during incidents), so a hold placed just before a crash
     * may not be found yet; calling hold again with the same key replays it within Stripe's 24 hours.
     */
    findHold: (idempotencyKey) =>
      guard(async () => {
        const found = await stripe.paymentIntents.search({
          query: metadataQuery('bpay_idempotency_key', idempotencyKey),
          limit: 10,
        });
        // Several intents share a key only if a hold was retried after Stripe forgot the key: the one that moved
        // or holds money wins.
        const rank: Record<string, number> = { succeeded: 4, requires_capture: 3, processing: 2, canceled: 1 };
        const best = found.data
          .filter((pi) => (rank[pi.status] ?? 0) > 0)
          .sort((a, b) => (rank[b.status] ?? 0) - (rank[a.status] ?? 0))[0];
        if (!best) return null;
        if (best.status === 'processing') {
          throw new VendorUnavailableError('Stripe is still processing this hold; ask again later.');
        }
        const status = best.status === 'succeeded' ? 'captured' : best.status === 'requires_capture' ? 'held' : 'voided';
        return { holdId: best.id, status };
      }),

    getHold: (holdId) =>
      guard(async () => {
        let pi: Stripe.PaymentIntent;
        try {
          pi = await stripe.paymentIntents.retrieve(holdId);
        } catch (err) {
          if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing') return null;
          throw err;
        }
        if (pi.status === 'processing') throw new VendorUnavailableError('Stripe is still processing this hold; ask again later.');
        const status = pi.status === 'succeeded' ? 'captured' : pi.status === 'requires_capture' ? 'held' : 'voided';
        return { holdId: pi.id, status };
      }),

    capture: (holdId) =>
      guard(async () => {
        try {
          await stripe.paymentIntents.capture(holdId, {}, { idempotencyKey: `capture:${holdId}` });
        } catch (err) {
          if (!isUnexpectedState(err)) throw err;
          const pi = await stripe.paymentIntents.retrieve(holdId);
          if (pi.status === 'succeeded') return; // captured before
          if (pi.status === 'canceled') {
            throw new VendorDeclineError('processing_error', 'The hold was released or expired before it was captured.');
          }
          throw err;
        }
      }),

    voidHold: (holdId) => guard(() => cancelIntent(stripe, holdId, `void:${holdId}`)),

    refund: (holdId, amountCents, { idempotencyKey: key }) =>
      guard(async () => {
        assertPositiveCents(amountCents);
        // Stripe forgets idempotency keys after 24 hours; the key in the refund's metadata does not. Every page is
        // read: a hold refunded in many parts has more than one.
        let done: Stripe.Refund | undefined;
        for await (const r of stripe.refunds.list({ payment_intent: holdId, limit: 100 })) {
          if (r.metadata?.bpay_idempotency_key === key) {
            done = r;
            break;
          }
        }
        const made =
          done ??
          (await stripe.refunds
            .create({ payment_intent: holdId, amount: amountCents, metadata: { bpay_idempotency_key: key } }, { idempotencyKey: `${key}:refund` })
            .catch((err: unknown) => {
              // Stripe refusing this refund (a disputed charge, one too old to refund, an amount above what is left):
              // a refusal of the money's return, not bpay's request being malformed.
              if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code && REFUND_REFUSALS.has(err.code)) {
                throw new VendorDeclineError('processing_error', redact(err.message) || 'Stripe refused the refund.', err.code);
              }
              throw err;
            }));
        return refundOutcome(made);
      }),
  };
}

/** Cancels an intent; cancelling one that is already cancelled is a no-op. A captured one cannot be cancelled. */
export async function cancelIntent(stripe: Stripe, id: string, idempotencyKey: string): Promise<void> {
  try {
    await stripe.paymentIntents.cancel(id, {}, { idempotencyKey });
  } catch (err) {
    if (!isUnexpectedState(err)) throw err;
    const pi = await stripe.paymentIntents.retrieve(id);
    if (pi.status === 'canceled') return;
    throw new StripeIntegrationError(`Stripe PaymentIntent ${id} is ${pi.status} and cannot be released by cancelling it.`);
  }
}

/** Stripe's codes for a refund it will not make (https://docs.stripe.com/error-codes). */
const REFUND_REFUSALS = new Set([
  'charge_disputed',
  'charge_already_refunded',
  'charge_expired_for_refund',
  'charge_not_refundable',
  'amount_too_large',
  'refund_disputed_payment',
]);

/**
 * A Stripe refund as the vendor interface needs it: its id once it has gone through (or is on its way: `pending`,
 * which Stripe completes by itself); a failed or canceled one is a refusal; one that needs the customer's action
 * is not finished, and is asked about again (the same key finds it) when the sweep comes back.
 */
export function refundOutcome(r: Pick<Stripe.Refund, 'id' | 'status' | 'failure_reason'>): { refundId: string } {
  if (r.status === 'failed' || r.status === 'canceled') {
    throw new VendorDeclineError('processing_error', `Stripe ${r.status === 'failed' ? 'failed' : 'canceled'} the refund${r.failure_reason ? ` (${r.failure_reason})` : ''}.`, r.failure_reason ?? undefined);
  }
  if (r.status === 'requires_action') throw new VendorUnavailableError(`Stripe refund ${r.id} waits for the customer's action.`);
  return { refundId: r.id };
}
