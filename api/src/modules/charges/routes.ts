import { Elysia, t } from 'elysia';
import { laggingReads, type AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { ChargeList, ChargeModel } from './model';
import { getCharge, listCharges } from './service';

const security = [{ secretKey: [] }];

/** Stripe's Charges at /api/v1/charges (and /v1/charges), read-only: one per paid payment intent, with its split. */
export function chargeRoutes(deps: AppDeps) {
  // Lists, history and figures read where they may lag (issue 30 §3); money decisions never do.
  const lagging = laggingReads(deps);
  return new Elysia({ prefix: '/api/v1', tags: ['Charges'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .get(
      '/charges',
      ({ merchant, livemode, query }) =>
        listCharges(lagging, merchant, livemode, {
          limit: query.limit ?? 10,
          starting_after: query.starting_after,
          ending_before: query.ending_before,
          payment_intent: query.payment_intent,
        }),
      {
        merchant: true,
        query: t.Object({
          // The range is checked by listCharges (a range error here would name no param).
          limit: t.Optional(t.Numeric({ description: 'An integer from 1 to 100 (10 if left out)', error: 'limit must be an integer from 1 to 100.' })),
          starting_after: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'starting_after must be the id of one of your charges.' })),
          ending_before: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'ending_before must be the id of one of your charges.' })),
          payment_intent: t.Optional(
            t.String({ minLength: 1, maxLength: 64, description: "Only this payment intent's charge", error: 'payment_intent must be the id of one of your payment intents.' }),
          ),
        }),
        response: { 200: ChargeList, ...errors(400, 401, 403, 404, 429) },
        detail: {
          summary: 'List charges, newest first',
          description:
            'One charge per payment intent a bcard has paid or authorized, newest intent first, each with its allocations (how the ' +
            "consumer's bcard was funded). payment_intent keeps that intent's charge (an empty list before it is paid; another " +
            "merchant's intent is 404).",
          security,
        },
      },
    )
    .get('/charges/:id', ({ merchant, livemode, params }) => getCharge(deps, merchant, livemode, params.id), {
      merchant: true,
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      response: { 200: ChargeModel, ...errors(401, 403, 404, 429) },
      detail: {
        summary: 'Retrieve a charge',
        description:
          "A paid (or authorized) payment intent's charge: ch_ plus the intent id's tail. allocations lists each funding share of " +
          "the consumer's bcard (funding type, brand, last 4 digits, amount, amount refunded, status: pending while a bank debit " +
          'settles, failed when the bank returned it); they sum to amount_captured (amount before capture). Another merchant\'s ' +
          'or the other mode\'s charge is 404.',
        security,
      },
    });
}
