import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sweepMoney } from '../../../boot';
import { merchantCall } from '../../../../test-support/app';
import { moneyReport, moneyViolations } from '../../../../test-support/money-invariants';
import { createStripeVendor, StripeIntegrationError } from '../../../vendors/stripe';
import { startStripeStub, stripeError, TEST_CARDS, type StripeStub } from '../../../../test-support/stripe-stub';
import { VendorDeclineError, type PaymentVendor } from '../../../vendors/types';
import { REFUND_LEASE_MS } from '../lease';
import { paidIntent, prepare, q, refund, world, type Prepared } from '../../../../test-support/modules/refunds-hostile';

/*
 * Found in review (medium), fixed: "a processor refusing the first part fails the refund and releases the reservation" only holds
 * for VendorDeclineError. Stripe refuses a refund with an invalid_request_error (charge_disputed, amount_too_large,
 * charge_already_refunded ...), which the Stripe vendor turns into StripeIntegrationError. The refund then stays
 * pending for ever: the sweep retries it every minute (logging an error each time), the merchant's amount_refunded
 * stays reserved, and the merchant can neither see it fail nor refund the amount another way.
 *
 * Found in review (low), fixed: the Stripe vendor answers a refund Stripe reports as failed/canceled as a success (refundId), so
 * bpay records the part as succeeded and credits the consumer's funding source in the ledger.
 */
const SECRET = 'sk_test_51bpayStubKey000000000000';
let p: Prepared;
let stub: StripeStub;
beforeAll(async () => {
  p = await prepare();
  stub = startStripeStub({ secretKey: SECRET });
});
afterAll(async () => {
  p.template.close();
  await stub.stop();
});

function stripe(): PaymentVendor {
  return createStripeVendor({ secretKey: SECRET, host: 'localhost', port: stub.port, protocol: 'http', maxNetworkRetries: 0, timeoutMs: 3000 });
}

async function capturedHold(v: PaymentVendor, amount: number): Promise<string> {
  const r = await v.verifyCard({ number: TEST_CARDS.visa, expMonth: 12, expYear: 2031, cvc: '123', name: 'Ada Lovelace' }, { idempotencyKey: `v-${Math.random()}`, customerRef: 'u1' });
  if (r.status !== 'verified') throw new Error('not verified');
  const { holdId } = await v.hold(r.card.token, amount, { idempotencyKey: `h-${Math.random()}`, description: 'x' });
  await v.capture(holdId);
  return holdId;
}

test('Stripe refusing a refund (invalid_request_error) is a refusal (VendorDeclineError), not an integration error', async () => {
  const v = stripe();
  const holdId = await capturedHold(v, 2000);
  stub.override({ method: 'POST', path: '/v1/refunds' }, stripeError(400, { type: 'invalid_request_error', code: 'charge_disputed', message: 'Charge ch_1 has been charged back; cannot issue a refund.' }));
  const err = await v.refund(holdId, 500, { idempotencyKey: 'refund:re_x:shr_y' }).catch((e) => e);
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(StripeIntegrationError);
  expect(err).toBeInstanceOf(VendorDeclineError);
});

test('a refund that Stripe answers as failed is not reported as done', async () => {
  const v = stripe();
  const holdId = await capturedHold(v, 2000);
  stub.override({ method: 'POST', path: '/v1/refunds' }, { status: 200, body: { id: 're_failed1', object: 'refund', amount: 500, payment_intent: holdId, status: 'failed', failure_reason: 'expired_or_canceled_card', metadata: {} } });
  const outcome = await v.refund(holdId, 500, { idempotencyKey: 'refund:re_f:shr_f' }).then((r) => r, (e) => e);
  expect(outcome).toBeInstanceOf(Error);
});

test('with the refusal Stripe gives, the refund fails and the reservation is released (not pending for ever)', async () => {
  const { ctx, hook } = await world(p, { local: false });
  const pi = await paidIntent(p, ctx, '10.00', [100]);
  // What the Stripe vendor throws for Stripe's refusal of a refund (the first test).
  hook.fault = async (method, _args, run) => {
    if (method === 'refund') throw new VendorDeclineError('processing_error', 'Charge has been charged back.', 'charge_disputed');
    return run();
  };
  const res = await refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 600 });
  for (let i = 0; i < 3; i++) {
    ctx.clock.advance(REFUND_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
  }
  const now = await merchantCall(ctx, p.live.secretKey, `/refunds/${res.body.id}`);
  const intent = await merchantCall(ctx, p.live.secretKey, `/payment_intents/${pi.id}`);
  const parts = await q(ctx, 'SELECT status FROM refund_parts WHERE refund_id = ?', [res.body.id]);
  expect({ status: now.body.status, reserved: intent.body.amount_refunded, parts: parts.map((r) => r.status) }).toEqual({
    status: 'failed',
    reserved: 0,
    parts: ['failed'],
  });
  ctx.close();
}, 30000);

/*
 * Found in review (medium, same root), fixed: a permanent refusal of a LATER part (the first part already went back) leaves the
 * refund pending for ever by design ("retried"): the consumer's first source has its money at the processor, but
 * the ledger never records it, so bpay's books and the processor disagree indefinitely, with nothing terminal
 * (no failed/partially-refunded state, no alert beyond a log line each minute).
 */
test('a later part refused for good: the books end up agreeing with the processor', async () => {
  const { ctx, hook } = await world(p, { local: false });
  const pi = await paidIntent(p, ctx, '10.00', [50, 50]);
  let n = 0;
  hook.fault = async (method, _args, run) => {
    if (method === 'refund' && ++n >= 2) {
      // The second source's part is refused (a closed card account), on every retry.
      const key = String((_args[2] as { idempotencyKey: string }).idempotencyKey);
      if (!key.endsWith((await shareKeys(pi.bcardId))[1]!)) return run();
      throw new VendorDeclineError('card_declined', 'The card account is closed.');
    }
    return run();
  };
  const shareKeys = async (bcardId: string) =>
    (await q(ctx, 'SELECT cs.id FROM collection_shares cs JOIN bcards b ON b.collection_id = cs.collection_id WHERE b.id = ? ORDER BY cs.position', [bcardId])).map((r) => String(r.id));
  const res = await refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 1000 });
  for (let i = 0; i < 3; i++) {
    ctx.clock.advance(REFUND_LEASE_MS + 1);
    await sweepMoney(ctx.deps);
  }
  const now = await merchantCall(ctx, p.live.secretKey, `/refunds/${res.body.id}`);
  const violations = moneyViolations(await moneyReport(ctx));
  expect({ status: now.body.status, violations }).toEqual({ status: expect.not.stringMatching(/^pending$/), violations: [] });
  ctx.close();
}, 30000);
