import { Bpay } from '@bpay/sdk';

// Your secret key (sk_test_… in sandbox) and, when not http://localhost:3000, the server's URL.
const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

// Amounts are integer cents.
const intent = await bpay.paymentIntents.create({
  amount: 2500,
  currency: 'usd',
  description: 'Order #1001',
  metadata: { order_id: '1001' },
});

// In sandbox, make a test bcard to pay with (a customer pays with their own bcard at checkout).
const card = await bpay.testHelpers.bcards.create({ amount: 2500 });
const paid = await bpay.paymentIntents.confirm(intent.id, { payment_method: card.id });
console.log(paid.status); // "succeeded"

const again = await bpay.paymentIntents.retrieve(intent.id);
console.log(again.amount_received); // 2500
