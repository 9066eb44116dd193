import { Bpay } from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', { baseUrl: process.env.BPAY_BASE_URL });

// Sandbox accepts http://localhost URLs; production needs a public https URL.
const endpoint = await bpay.webhookEndpoints.create({
  url: 'http://localhost:4242/webhooks',
  enabled_events: ['payment_intent.succeeded', 'payment_intent.failed'],
  description: 'Order fulfilment',
});
// The signing secret is in this answer (and rollSecret's) only: store it.
console.log(endpoint.secret);

for await (const ep of bpay.webhookEndpoints.list()) console.log(ep.id, ep.url, ep.status);

await bpay.webhookEndpoints.update(endpoint.id, { enabled_events: ['*'] });
await bpay.webhookEndpoints.update(endpoint.id, { disabled: true }); // pause deliveries
const rolled = await bpay.webhookEndpoints.rollSecret(endpoint.id); // the old secret stops working at once
console.log(rolled.secret);

const retrieved = await bpay.webhookEndpoints.retrieve(endpoint.id);
console.log(retrieved.status); // "disabled"
await bpay.webhookEndpoints.delete(endpoint.id);
