import { Bpay } from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

// A paid intent (in sandbox, paid with a test bcard).
const intent = await bpay.paymentIntents.create({ amount: 3000, currency: 'usd' });
const card = await bpay.testHelpers.bcards.create({ amount: 3000 });
await bpay.paymentIntents.confirm(intent.id, { payment_method: card.id });

// Give back part of it: the money returns to the customer's funding sources, in the proportions they paid.
const partial = await bpay.refunds.create({ payment_intent: intent.id, amount: 1000, reason: 'requested_by_customer' });
console.log(partial.status, partial.amount); // "succeeded" 1000

// No amount: everything not yet refunded.
const rest = await bpay.refunds.create({ payment_intent: intent.id });
console.log(rest.amount); // 2000

const paid = await bpay.paymentIntents.retrieve(intent.id);
console.log(`refunded ${paid.amount_refunded} of ${paid.amount_received}`); // refunded 3000 of 3000

// This intent's refunds, newest first (iterate for every page).
for await (const refund of bpay.refunds.list({ payment_intent: intent.id })) {
  console.log(refund.id, refund.amount, refund.reason ?? '-');
}
