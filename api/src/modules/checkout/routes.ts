import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { sessionPlugin } from '../../plugins/session';
import { BcardModel, fixedDecimal } from '../bcards/model';
import { parseFixedAmount } from '../bcards/plan';
import { payIntent, publicIntent } from './service';

/*
 * The checkout widget. A merchant page includes bpay's widget.js and a container holding a payment intent's
 * client secret. The widget reads the intent with a cross-origin GET (public fields only, no cookies, CORS for
 * any origin) and opens bpay's checkout page in a popup: a first-party bpay page, so the consumer's session cookie
 * (SameSite=Lax) works there, and the payment below is a same-origin request protected like every other.
 */
export function checkoutRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/checkout', tags: ['Checkout'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '/payment_intents/:id',
      ({ params, query, set }) => {
        set.headers['access-control-allow-origin'] = '*';
        set.headers['cache-control'] = 'no-store';
        return publicIntent(deps, params.id, query.client_secret);
      },
      {
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        query: t.Object({ client_secret: t.String({ maxLength: 200, error: 'client_secret is required.' }) }),
        response: {
          200: t.Object({
            id: t.String(),
            amount: t.Integer(),
            currency: t.String(),
            status: t.String(),
            livemode: t.Boolean(),
            description: t.Union([t.String(), t.Null()]),
            merchant: t.Object({ businessName: t.String(), website: t.Union([t.String(), t.Null()]) }),
          }),
          ...errors(400, 404),
        },
        detail: {
          summary: 'A payment intent as the checkout widget shows it (by client secret; CORS, no credentials)',
          description:
            'What the checkout widget shows a shopper about a payment intent: amount, currency, status, mode, ' +
            "description and the merchant's name and website. Needs the intent's client secret, not a key; " +
            'callable from any origin (CORS); read only.',
          security: [],
        },
      },
    )
    .post(
      '/payment_intents/:id/pay',
      async ({ user, params, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => ({
            status: 200,
            body: await payIntent(deps, user, {
              id: params.id,
              clientSecret: body.client_secret,
              amount: body.amount,
              splits: body.splits.map((s, i) => ({
                fundingSourceId: s.fundingSourceId,
                percentage: s.percentage ?? null,
                fixedCents: parseFixedAmount(s.fixedAmount, `splits.${i}.fixedAmount`),
              })),
              idempotencyKey: scopedKey,
            }),
          }),
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        headers: t.Object({ 'idempotency-key': t.Optional(t.String()) }),
        body: t.Object(
          {
            client_secret: t.String({ maxLength: 200 }),
            amount: t.Optional(
              t.Number({
                multipleOf: 1,
                minimum: 1,
                maximum: 99_999_999,
                description:
                  'The amount (cents) the checkout showed the consumer. When given, a payment whose amount the merchant has changed since is refused (409 amount_changed) before anything is collected; bpay\'s checkout always sends it.',
                error: 'amount must be the integer number of cents the checkout showed.',
              }),
            ),
            splits: t.Array(
              t.Object(
                {
                  fundingSourceId: t.String({ maxLength: 64 }),
                  percentage: t.Optional(t.Number({ minimum: 0, maximum: 100, error: 'percentage must be between 0 and 100.' })),
                  fixedAmount: t.Optional(fixedDecimal('fixedAmount')),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: 20 },
            ),
          },
          {
            additionalProperties: false,
            examples: [
              {
                client_secret: 'pi_1a2b3c4d5e6f7a8b9c0d1e2f_secret_…',
                splits: [
                  { fundingSourceId: 'fs_1a2b3c4d5e6f7a8b9c0d1e2f', percentage: 60 },
                  { fundingSourceId: 'fs_2b3c4d5e6f7a8b9c0d1e2f3a', percentage: 40 },
                ],
              },
            ],
          },
        ),
        response: {
          200: t.Object({
            paymentIntent: t.Object({ id: t.String(), status: t.String(), amount: t.Integer() }),
            bcard: BcardModel,
            testMode: t.Boolean({
              description:
                "True for a sandbox intent: it was paid with a sandbox test bcard and the consumer's cards were not charged " +
                '(the split is still checked).',
            }),
          }),
          ...errors(400, 401, 402, 403, 404, 409, 415, 503),
        },
        detail: {
          summary: "Pay a merchant's payment intent: split into a bcard locked to the merchant, then confirm",
          description:
            "A sandbox intent charges nothing: the split is checked as usual, then a sandbox test bcard pays it and the " +
            'answer has testMode: true.',
        },
      },
    );
}
