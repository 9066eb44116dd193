import { Bpay } from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

// Authorize now, capture later (up to the authorized amount).
const intent = await bpay.paymentIntents.create({ amount: 5000, currency: 'usd', capture_method: 'manual' });
const card = await bpay.testHelpers.bcards.create({ amount: 5000 });
// Card details work as well as a bcard id.
const authorized = await bpay.paymentIntents.confirm(intent.id, {
  payment_method_data: {
    type: 'card',
    card: { number: card.number, exp_month: Number(card.exp_month), exp_year: Number(card.exp_year), cvc: card.cvc },
  },
});
console.log(authorized.status); // "requires_capture"

const captured = await bpay.paymentIntents.capture(intent.id, { amount_to_capture: 4000 });
console.log(captured.amount_received); // 4000

// An intent you no longer need:
const unused = await bpay.paymentIntents.create({ amount: 1000, currency: 'usd' });
const canceled = await bpay.paymentIntents.cancel(unused.id, { cancellation_reason: 'abandoned' });
console.log(canceled.status); // "canceled"
