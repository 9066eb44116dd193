import { t } from 'elysia';
import { PAYMENT_INTENT_STATUSES } from '@bpay/db';
import { ChargeModel } from '../charges/model';

/* The payment intent API's shapes. PaymentIntent is a shared model (api/src/models.ts): routes name it. */

export const PaymentIntentModel = t.Object(
  {
    id: t.String({ examples: ['pi_3f2a9c1d0b7e6f5a4c3b2a19'] }),
    object: t.Literal('payment_intent'),
    amount: t.Integer({ description: 'In cents' }),
    amount_capturable: t.Integer(),
    amount_received: t.Integer(),
    amount_refunded: t.Integer({ description: 'Refunded so far, pending refunds included' }),
    currency: t.String({ examples: ['usd'] }),
    status: t.UnionEnum(PAYMENT_INTENT_STATUSES),
    capture_method: t.UnionEnum(['automatic', 'manual']),
    client_secret: t.String(),
    created: t.Integer({ description: 'Unix seconds' }),
    description: t.Union([t.String(), t.Null()]),
    metadata: t.Record(t.String(), t.String()),
    livemode: t.Boolean(),
    payment_method: t.Union([t.String(), t.Null()], { description: 'The bcard that paid' }),
    last_payment_error: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
    canceled_at: t.Union([t.Integer(), t.Null()]),
    cancellation_reason: t.Union([t.String(), t.Null()], {
      description:
        'duplicate, fraudulent, requested_by_customer or abandoned (given by the merchant), or automatic: bpay canceled ' +
        'an authorization left uncaptured for 7 days',
    }),
    customer: t.Union([t.String(), t.Null()], { description: 'The customer (cus_…) given on create' }),
    receipt_email: t.Union([t.String(), t.Null()]),
    statement_descriptor: t.Union([t.String(), t.Null()], { description: "Shown (in capitals) on the consumer's transaction" }),
    statement_descriptor_suffix: t.Union([t.String(), t.Null()], { description: "Shown after your prefix on the consumer's transaction: PREFIX* SUFFIX" }),
    automatic_payment_methods: t.Union([t.Object({ enabled: t.Boolean() }), t.Null()], {
      description: 'As given on create (null when not sent): bcards are the one payment method either way',
    }),
    payment_method_types: t.Array(t.String(), { description: "Always ['bcard']: bcards are bpay's one payment method" }),
    latest_charge: t.Union([t.String(), ChargeModel, t.Null()], {
      description:
        "The intent's Charge (ch_…) once a bcard has paid or been authorized for it, else null; the Charge object itself with " +
        'expand[]=latest_charge on retrieve, and in the payment_intent.succeeded event',
    }),
  },
  { $id: '#/components/schemas/PaymentIntent' },
);

export const PaymentIntentList = t.Object({
  object: t.Literal('list'),
  url: t.String(),
  has_more: t.Boolean(),
  data: t.Array(t.Ref(PaymentIntentModel)),
});

export const UsageModel = t.Object({
  object: t.Literal('usage'),
  totalRequests: t.Integer({ description: 'Requests today (UTC)' }),
  totalRequestsToday: t.Integer(),
  totalRequestsThisMonth: t.Integer(),
});

export const PaymentIntentSearchResult = t.Object({
  object: t.Literal('search_result'),
  url: t.String({ examples: ['/v1/payment_intents/search'] }),
  has_more: t.Boolean(),
  next_page: t.Union([t.String(), t.Null()], { description: 'Give it as page, with the same query, for the next page; null on the last' }),
  data: t.Array(t.Ref(PaymentIntentModel)),
});
