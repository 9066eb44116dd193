import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, IdempotencyHeader, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import { lineText } from '../../lib/text';
import { MAX_AMOUNT, MIN_AMOUNT } from '../payment-intents/service';
import { createDemoCheckoutIntent } from './service';

export const DemoCheckoutIntentModel = t.Object({
  id: t.String(),
  clientSecret: t.String({ description: 'Pay it with POST /api/checkout/payment_intents/{id}/pay, as the widget does.' }),
  amount: t.Integer({ description: 'Cents', examples: [14577] }),
  currency: t.String({ examples: ['usd'] }),
  livemode: t.Boolean({ description: 'Always false: a sandbox intent, nothing is charged.' }),
  merchant: t.String({ examples: ['TechStore'] }),
  description: t.String({ examples: ['Premium Laptop Stand'] }),
});

export function demoRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/demo', tags: ['Demos'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .post(
      '/checkout-intent',
      async ({ user, body, headers, request }) => {
        // A retried start (same key) answers the same intent instead of making, and counting, another.
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key: headers['idempotency-key'] ?? null, method: 'POST', path: new URL(request.url).pathname, body },
          async () => ({ status: 201, body: await createDemoCheckoutIntent(deps, user.id, { amountCents: body.amount, label: body.label }) }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        headers: IdempotencyHeader,
        body: t.Object(
          {
            amount: t.Optional(
              t.Integer({
                minimum: MIN_AMOUNT,
                maximum: MAX_AMOUNT,
                description: "Cents: the payment demo's amount. Absent: the checkout demos' fixed order ($145.77).",
                error: `amount must be a whole number of cents from ${MIN_AMOUNT} to ${MAX_AMOUNT}.`,
              }),
            ),
            label: t.Optional(
              lineText('label', 120, {
                description: "The merchant name the payment demo's user typed: only the test payment's description, never a merchant that is charged.",
              }),
            ),
          },
          { additionalProperties: false, examples: [{}, { amount: 5000, label: 'Corner Coffee' }], description: "Empty: the checkout demos' fixed order." },
        ),
        response: { 201: DemoCheckoutIntentModel, ...errors(400, 401, 415, 429, 503) },
        detail: {
          summary: 'A sandbox payment intent of the built-in demo merchant TechStore, for the demos',
          description:
            'The Merchant and Customer demos (the fixed order) and the payment demo (its amount, and the merchant name ' +
            'typed there as a label only) pay it through the checkout widget\'s own endpoint; being a sandbox intent, ' +
            "it is paid with a sandbox test bcard and the consumer's sources are not charged. At most 30 an hour per user.",
        },
      },
    );
}
