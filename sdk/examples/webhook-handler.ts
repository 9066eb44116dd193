import { Bpay, BpayWebhookSignatureError } from '@bpay/sdk';

// The endpoint's signing secret (whsec_…), from webhookEndpoints.create or rollSecret.
const secret = process.env.BPAY_WEBHOOK_SECRET ?? '';

// A receiver: verify the raw body (before any JSON parsing) against the Bpay-Signature header.
const server = Bun.serve({
  port: 0,
  async fetch(req) {
    const rawBody = await req.text();
    try {
      const event = Bpay.webhooks.constructEvent(rawBody, req.headers.get('bpay-signature') ?? '', secret);
      if (event.type === 'payment_intent.succeeded') {
        console.log('fulfil order for', event.data.object.id);
      }
      return new Response('ok');
    } catch (e) {
      if (e instanceof BpayWebhookSignatureError) return new Response(e.message, { status: 400 });
      throw e;
    }
  },
});

// In your tests, sign a payload yourself with generateTestHeader.
const payload = JSON.stringify({
  id: 'evt_test_1',
  object: 'event',
  type: 'payment_intent.succeeded',
  created: Math.floor(Date.now() / 1000),
  livemode: false,
  data: { object: { id: 'pi_test_1', object: 'payment_intent' } },
});
const signature = Bpay.webhooks.generateTestHeader({ payload, secret });
const ok = await fetch(server.url, { method: 'POST', body: payload, headers: { 'bpay-signature': signature } });
const forged = await fetch(server.url, { method: 'POST', body: payload.replace('pi_test_1', 'pi_other'), headers: { 'bpay-signature': signature } });
console.log(ok.status, forged.status); // 200 400
server.stop(true);
