import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { getOwnedMerchant } from '../merchants/service';
import { ChargeList, ChargeModel } from './model';
import { getCharge, listCharges } from './service';

/*
 * The merchant dashboard's charges (issue 28 §2): the payment detail shows how a payment was funded. The same services
 * as GET /api/v1/charges, behind the owner's session: another user's merchant is a 404, and so is another merchant's
 * (or the other mode's) charge or payment intent.
 */
export function chargeDashboardRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/merchants', tags: ['Merchants'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '/:id/charges',
      async ({ user, params, query }) => {
        const m = await getOwnedMerchant(deps, user.id, params.id);
        return listCharges(
          deps,
          m,
          m.environment === 'production',
          { limit: query.limit ?? 10, starting_after: query.starting_after, ending_before: query.ending_before, payment_intent: query.payment_intent },
          `/api/merchants/${m.id}/charges`,
        );
      },
      {
        auth: true,
        params: t.Object({ id: t.String() }),
        query: t.Object({
          limit: t.Optional(t.Numeric({ description: 'An integer from 1 to 100 (10 if left out)', error: 'limit must be an integer from 1 to 100.' })),
          starting_after: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'starting_after must be the id of one of your charges.' })),
          ending_before: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'ending_before must be the id of one of your charges.' })),
          payment_intent: t.Optional(
            t.String({ minLength: 1, maxLength: 64, description: "Only this payment intent's charge", error: 'payment_intent must be the id of one of your payment intents.' }),
          ),
        }),
        response: { 200: ChargeList, ...errors(400, 401, 404) },
        detail: {
          summary: "A merchant's charges (the dashboard; the same list as GET /api/v1/charges)",
          description:
            "The payment detail reads a payment's charge here (payment_intent=pi_…): its allocations, one per funding share of the " +
            "consumer's bcard. An empty list before the payment is paid; another merchant's intent is 404.",
        },
      },
    )
    .get(
      '/:id/charges/:chargeId',
      async ({ user, params }) => {
        const m = await getOwnedMerchant(deps, user.id, params.id);
        return getCharge(deps, m, m.environment === 'production', params.chargeId);
      },
      {
        auth: true,
        params: t.Object({ id: t.String(), chargeId: t.String({ maxLength: 64 }) }),
        response: { 200: ChargeModel, ...errors(401, 404) },
        detail: {
          summary: "One of a merchant's charges (the dashboard; the same as GET /api/v1/charges/{id})",
          description: "A paid payment's charge with its allocations. Another merchant's charge is 404.",
        },
      },
    );
}
