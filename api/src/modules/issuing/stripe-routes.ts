import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { DECLINE_REASONS } from './decide';
import { receiveStripeEvent, STRIPE_API_VERSION } from './stripe-webhook';

const AuthorizationAnswerModel = t.Object(
  {
    approved: t.Boolean({ description: 'Whether bpay, as the bcard’s issuer, approves the authorization.' }),
    metadata: t.Object({
      bpay_authorization: t.String({ description: "bpay's record of the authorization (iauth_…)." }),
      bpay_decline_reason: t.Optional(t.UnionEnum([...DECLINE_REASONS], { description: 'Why it was declined.' })),
    }),
  },
  { description: 'The answer to issuing_authorization.request (sent with the Stripe-Version header).' },
);

const ReceivedModel = t.Object(
  {
    received: t.Literal(true),
    duplicate: t.Optional(t.Literal(true, { description: 'The event was applied before: nothing was applied again.' })),
  },
  { description: 'The answer to every other event.' },
);

/** Stripe's webhook (see stripe-webhook.ts). The body reaches the route as the raw text Stripe signed (app.ts rawBodyPaths). */
export function stripeWebhookRoutes(deps: AppDeps) {
  return new Elysia({ tags: ['Card network'] })
    .use(sharedModels)
    .post(
      '/api/stripe/webhook',
      async ({ body, request, set }) => {
        const answer = await receiveStripeEvent(deps, typeof body === 'string' ? body : '', request.headers.get('stripe-signature'));
        set.headers['cache-control'] = 'no-store';
        if (answer.kind === 'authorization') set.headers['stripe-version'] = STRIPE_API_VERSION;
        return answer.body;
      },
      {
        response: { 200: t.Union([AuthorizationAnswerModel, ReceivedModel]), ...errors(400, 404, 413, 415, 503) },
        detail: {
          summary: "Stripe's webhook: Issuing authorizations of bcards, their captures, reversals and refunds; bank debits' and refunds' outcomes",
          description:
            'Called by Stripe, signed with the endpoint\'s secret (Stripe-Signature; BPAY_STRIPE_WEBHOOK_SECRET or the one ' +
            'saved in Admin → Vendors). An unsigned, altered or more than 5 minutes old event is refused (400 ' +
            'stripe_signature_invalid) and changes nothing. issuing_authorization.request is answered at once with ' +
            '{approved, metadata} by the same decision as the simulated network (decline reasons: ' +
            `${DECLINE_REASONS.join(', ')}); issuing_authorization.created/updated and issuing_transaction.created ` +
            'reconcile the hold, captures and refunds (what comes back goes to the funding sources pro rata), each ' +
            'event once ({received: true, duplicate: true} for a replay). payment_intent.succeeded, ' +
            'payment_intent.payment_failed and charge.failed settle or return a bank share\'s ACH debit; refund.failed, ' +
            'refund.updated and charge.refund.updated (status failed or canceled) record a refund to a card that did not ' +
            'reach it (bpay owes the consumer). An event about a debit or refund bpay does not know is answered 200 and ' +
            'changes nothing. charge.dispute.created/updated/closed/' +
            'funds_withdrawn/funds_reinstated record a dispute (chargeback) of a funding share, found by its ' +
            'PaymentIntent: open, the amount is owed and new bcards are refused; won, all of it is reversed; lost, it ' +
            'stays owed; inquiries (warning_*) move nothing; a dispute of a charge that is no bpay share is acknowledged ' +
            'and nothing is written. Other events are acknowledged and ignored. ' +
            '404 when no signing secret is configured; 503 asks Stripe to send the event again.',
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', description: 'A Stripe event, as Stripe sends it (verified over its exact bytes).' },
                example: {
                  id: 'evt_1Q2w3E4r5T6y7U8i',
                  object: 'event',
                  type: 'issuing_authorization.request',
                  data: { object: { id: 'iauth_1Q2w3E4r5T6y7U8i', object: 'issuing.authorization', card: { id: 'ic_1Q2w3E4r5T6y7U8i' } } },
                },
              },
            },
          },
        },
      },
    );
}
