import { Bpay } from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

await bpay.paymentIntents.create({ amount: 1500, currency: 'usd' });

// Events, newest first, optionally of one type.
const [latest] = await bpay.events.list({ type: 'payment_intent.created', limit: 1 }).toArray(1);
if (latest) {
  const event = await bpay.events.retrieve(latest.id);
  console.log(event.type, event.data.object.id);

  // Send it again to every endpoint that subscribes to it (or pass endpoint_id for one endpoint).
  const deliveries = await bpay.events.resend(event.id);
  console.log(deliveries.data.map((d) => `${d.webhook_endpoint}: ${d.status}`));
}

// API requests today and this month.
const usage = await bpay.usage.retrieve();
console.log(usage.totalRequestsToday, usage.totalRequestsThisMonth);
