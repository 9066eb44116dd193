import { Bpay } from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

// Every payment intent, newest first: the SDK fetches page after page (100 per request here) as you iterate.
let total = 0;
for await (const pi of bpay.paymentIntents.list({ limit: 100 })) {
  if (pi.status === 'succeeded') total += Number(pi.amount_received);
}
console.log(`received ${total} cents`);

// Just one page, as the API answers it: { object: 'list', data, has_more }.
const page = await bpay.paymentIntents.list({ limit: 10 }).firstPage();
console.log(page.data.length, page.has_more);

// Or collect up to a number of items.
const latest = await bpay.events.list({ type: 'payment_intent.succeeded' }).toArray(50);
console.log(latest.map((e) => e.id));
