import {
  Bpay,
  BpayAuthenticationError,
  BpayCardError,
  BpayConnectionError,
  BpayError,
  BpayInvalidRequestError,
  BpayRateLimitError,
} from '@bpay/sdk';

const bpay = new Bpay(process.env.BPAY_SECRET_KEY ?? '', {
  baseUrl: process.env.BPAY_BASE_URL,
  timeoutMs: 10_000, // per attempt
  maxRetries: 3, // network errors, timeouts, 409, 429 and 5xx; POSTs keep one Idempotency-Key across retries
});

const intent = await bpay.paymentIntents.create({ amount: 2000, currency: 'usd' });
const smallCard = await bpay.testHelpers.bcards.create({ amount: 500 });

try {
  await bpay.paymentIntents.confirm(intent.id, { payment_method: smallCard.id });
} catch (e) {
  if (e instanceof BpayCardError) {
    console.log(`declined: ${e.code} / ${e.declineCode}`); // card_declined / insufficient_funds
  } else if (e instanceof BpayInvalidRequestError) {
    console.log(`bad request: ${e.message} (param ${e.param})`);
  } else if (e instanceof BpayAuthenticationError) {
    console.log('check your API key');
  } else if (e instanceof BpayRateLimitError) {
    console.log(`slow down; retry after ${e.headers?.get('retry-after')} s`);
  } else if (e instanceof BpayConnectionError) {
    console.log(`no answer: ${e.message}`); // BpayTimeoutError is one of these
  } else {
    throw e;
  }
  // Every BpayError carries the request id to quote to support.
  if (e instanceof BpayError) console.log(e.statusCode, e.type, e.requestId);
}

// Per-request options: your own Idempotency-Key (a retry of the same order cannot charge twice), timeout, retries.
const order = await bpay.paymentIntents.create(
  { amount: 2000, currency: 'usd', metadata: { order_id: '1002' } },
  { idempotencyKey: `order-1002-${intent.id}`, timeoutMs: 5_000, maxRetries: 1 },
);
console.log(order.id);
