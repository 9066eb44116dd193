import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, IdempotencyHeader, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
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
          async () => ({ status: 201, body: await createDemoCheckoutIntent(deps, user.id) }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        headers: IdempotencyHeader,
        body: t.Object({}, { additionalProperties: false, examples: [{}], description: 'Empty: the order is the demo\'s fixed one.' }),
        response: { 201: DemoCheckoutIntentModel, ...errors(400, 401, 415, 429, 503) },
        detail: {
          summary: "A sandbox payment intent of the built-in demo merchant TechStore, for the checkout demos",
          description:
            'The Merchant and Customer demos pay it through the checkout widget\'s own endpoint; being a sandbox intent, ' +
            "it is paid with a sandbox test bcard and the consumer's sources are not charged. At most 30 an hour per user.",
        },
      },
    );
}
