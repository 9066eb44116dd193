import { t } from 'elysia';
import { REFUND_REASONS, REFUND_STATUSES } from '@bpay/db';
import { RefundAllocationModel } from '../charges/model';

/* The refunds API's shapes. Refund is a shared model (api/src/models.ts): routes name it. */

export const RefundModel = t.Object(
  {
    id: t.String({ examples: ['re_9b1c2d3e4f5a6b7c8d9e0f1a'] }),
    object: t.Literal('refund'),
    amount: t.Integer({ description: 'In cents: what the merchant refunds' }),
    currency: t.String({ examples: ['usd'] }),
    status: t.UnionEnum(REFUND_STATUSES, {
      description: 'pending until every funding source has its part back (the money sweep finishes a refund the processor did not answer), then succeeded; failed when the processor refused it and nothing went back',
    }),
    reason: t.Union([t.UnionEnum(REFUND_REASONS), t.Null()]),
    payment_intent: t.String(),
    metadata: t.Record(t.String(), t.String()),
    created: t.Integer({ description: 'Unix seconds' }),
    failure_reason: t.Union([t.String(), t.Null()]),
    allocations: t.Array(RefundAllocationModel, {
      description: "How much went back to each funding share of the payment (funding type, brand, last 4 digits), in the payment's order; they sum to amount",
    }),
  },
  { $id: '#/components/schemas/Refund' },
);

export const RefundList = t.Object({
  object: t.Literal('list'),
  url: t.String(),
  has_more: t.Boolean(),
  data: t.Array(t.Ref(RefundModel)),
});
