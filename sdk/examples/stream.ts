import { Bpay } from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

// Events as they happen (server-sent events), without a webhook endpoint. Only events recorded after the stream
// opened arrive; `opened()` resolves once the server has accepted it.
const controller = new AbortController();
const stream = bpay.events.stream({ events: ['payment_intent.created'], signal: controller.signal });
await stream.opened();

const intent = await bpay.paymentIntents.create({ amount: 990, currency: 'usd' });

for await (const event of stream) {
  console.log(`${event.id} ${event.type}`);
  if (event.data.object.id === intent.id) break; // leaving the loop closes the stream (so does controller.abort())
}
