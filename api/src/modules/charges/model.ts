import { t } from 'elysia';

/*
 * The Charge API's shapes (issue 28 §2): Stripe's Charge, with what bpay alone can tell, how the payment was funded
 * (allocations: one per funding share of the consumer's bcard). Nothing in them names the consumer or a funding
 * source beyond its funding type, brand and last 4 digits.
 */

const FUNDING = ['credit', 'debit', 'prepaid', 'bank_account'] as const;

const face = {
  funding: t.UnionEnum(FUNDING, { description: "The share's funding type: a credit, debit or prepaid card, or a bank account (ACH debit)" }),
  brand: t.Union([t.String(), t.Null()], { description: 'The card brand (visa, mastercard, amex, unknown); null for a bank account', examples: ['visa'] }),
  last4: t.String({ description: 'The last 4 digits of the card or account number (never more)', examples: ['4242'] }),
};

export const AllocationModel = t.Object(
  {
    amount: t.Integer({ description: "In cents: this share's part of the payment (the allocations sum to amount_captured, or to amount before capture)" }),
    amount_refunded: t.Integer({ description: "In cents: refunded to this share so far, pending refunds included (for a canceled authorization, all of it)" }),
    ...face,
    status: t.UnionEnum(['succeeded', 'pending', 'failed'] as const, {
      description: 'pending while a bank debit settles; failed when the bank returned it (bpay has paid you all the same); succeeded otherwise',
    }),
  },
  { description: 'One funding share of a payment, in the order the shares were collected' },
);

export const RefundAllocationModel = t.Object(
  {
    amount: t.Integer({ description: "In cents: this share's part of the refund (the allocations sum to the refund's amount)" }),
    ...face,
    status: t.UnionEnum(['pending', 'succeeded', 'failed'] as const, {
      description: 'pending until it has gone back, succeeded when it has, failed when the processor refused it (the refund then covers the other shares)',
    }),
  },
  { description: 'How much of a refund went back to one funding share' },
);

export const ChargeModel = t.Object(
  {
    id: t.String({ examples: ['ch_3f2a9c1d0b7e6f5a4c3b2a19'], description: "The payment intent's id with ch_ for pi_: stable, one per paid intent" }),
    object: t.Literal('charge'),
    amount: t.Integer({ description: 'In cents: the amount authorized (the payment intent\'s amount)' }),
    amount_captured: t.Integer({ description: 'In cents: 0 until captured (capture_method manual)' }),
    amount_refunded: t.Integer({ description: 'In cents: refunded so far, pending refunds included; the whole amount for a canceled authorization' }),
    currency: t.String({ examples: ['usd'] }),
    created: t.Integer({ description: 'Unix seconds: when the bcard paid or was authorized' }),
    livemode: t.Boolean(),
    paid: t.Boolean({ description: 'true: the bcard paid or was authorized' }),
    captured: t.Boolean(),
    refunded: t.Boolean({ description: 'true when all that was captured has been refunded (or the authorization was canceled)' }),
    status: t.UnionEnum(['succeeded', 'pending', 'failed'] as const, { description: 'pending while a capture is under way; succeeded otherwise' }),
    payment_intent: t.String(),
    description: t.Union([t.String(), t.Null()]),
    metadata: t.Record(t.String(), t.String(), { description: "The payment intent's metadata" }),
    payment_method_details: t.Object(
      { type: t.Literal('bcard'), bcard: t.Object({ last4: t.String({ description: "The bcard's last 4 digits" }) }) },
      { description: 'The bcard that paid' },
    ),
    allocations: t.Array(AllocationModel, { description: "How the consumer's bcard was funded: one entry per funding share" }),
  },
  { description: 'A paid payment intent, with the split that funded it (bpay\'s own field: allocations)' },
);

export const ChargeList = t.Object({
  object: t.Literal('list'),
  url: t.String({ examples: ['/v1/charges'] }),
  has_more: t.Boolean(),
  data: t.Array(ChargeModel),
});
