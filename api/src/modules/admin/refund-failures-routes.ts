import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { adminAuthPlugin } from '../../plugins/admin-auth';
import { listRefundFailures } from '../issuing/stripe-money-events';
import { ADMIN_SECURITY } from './routes';

const RefundFailureModel = t.Object(
  {
    id: t.String(),
    refundId: t.String({ description: "The processor's refund (Stripe re_…)" }),
    user: t.Object({ id: t.String(), email: t.Union([t.String(), t.Null()]) }),
    fundingSource: t.Object({ id: t.String(), name: t.String(), last4: t.String() }),
    amount: t.String({ description: 'Dollars that did not reach the card', examples: ['30.90'] }),
    currency: t.String(),
    failureReason: t.Union([t.String(), t.Null()], { description: "Stripe's failure_reason (expired_or_canceled_card, lost_or_stolen_card, declined …)" }),
    transactionId: t.String({ description: 'The collection (bcard) the refund belonged to' }),
    createdAt: t.String({ format: 'date-time' }),
    owedToUser: t.String({ description: 'What bpay owes this user in all now (the ledger account payable:<user>), dollars' }),
  },
  { $id: '#/components/schemas/AdminRefundFailure' },
);

/** Refunds to a consumer's card that the processor failed after bpay made them (issue 26): what bpay owes consumers. */
export function adminRefundFailureRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/admin', tags: ['Admin'] })
    .use(sharedModels)
    .use(adminAuthPlugin(deps))
    .get('/refund-failures', async ({ query }) => listRefundFailures(deps.db, { userId: query.userId ?? null }), {
      admin: true,
      query: t.Object({ userId: t.Optional(t.String({ maxLength: 100, description: 'Only this user’s' })) }),
      response: { 200: t.Array(RefundFailureModel), ...errors(400, 401) },
      detail: {
        summary: 'Refunds that did not reach a consumer’s card, newest first (at most 100)',
        description:
          'A refund bpay made to a funding share that Stripe failed or canceled later (refund.failed, charge.refund.updated). ' +
          'Its ledger credit to the card was reversed into payable:<user>: bpay owes the consumer the amount until support ' +
          'pays it another way.',
        security: ADMIN_SECURITY,
      },
    });
}
