import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sweepMoney } from '../../../boot';
import { IDEMPOTENCY_LOCK_MS } from '../../../plugins/idempotency';
import { merchantCall } from '../../../../test-support/app';
import { REFUND_LEASE_MS } from '../lease';
import { expectMoneyHolds, paidIntent, prepare, q, refund, world, type Prepared } from '../../../../test-support/modules/refunds-hostile';

/*
 * Found in review (high), fixed: createRefund ignores the handler key runIdempotent hands it. A refund whose process dies after
 * transaction 1 (the refund is committed, the Idempotency-Key record is in_progress) is taken over by the client's
 * retry with the SAME key once the key's 2-minute lock lapses, and the retry creates a SECOND refund: the consumer is
 * refunded twice for one refund request, and amount_refunded doubles.
 */
let p: Prepared;
beforeAll(async () => { p = await prepare(); });
afterAll(() => p.template.close());

test('a retry with the same Idempotency-Key after a crash answers the first refund instead of refunding again', async () => {
  // Remote-processor mode: the processor calls happen outside a transaction, as with Stripe.
  const { ctx, hook } = await world(p, { local: false });
  const pi = await paidIntent(p, ctx, '10.00', [60, 40]);
  let release: (() => void) | null = null;
  let calls = 0;
  // The first processor call never answers: the process "dies" there (its in-memory work is lost).
  hook.fault = async (method, _args, run) => {
    if (method === 'refund' && ++calls === 1) {
      await new Promise<void>((r) => { release = r; });
      throw new Error('the process died here');
    }
    return run();
  };
  const headers = { 'idempotency-key': 'refund-300' };
  const first = refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 300 }, headers);
  for (let i = 0; i < 200 && calls === 0; i++) await Bun.sleep(5);
  expect(calls).toBe(1);

  // The client retries (Stripe's libraries do) after the key's lock lapsed.
  ctx.clock.advance(IDEMPOTENCY_LOCK_MS + 1);
  const retry = await refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 300 }, headers);
  release!();
  await first.catch(() => undefined);

  // The sweep finishes whatever is pending.
  ctx.clock.advance(REFUND_LEASE_MS + 1);
  await sweepMoney(ctx.deps);

  const rows = await q(ctx, 'SELECT id, amount, status FROM refunds WHERE payment_intent_id = ?', [pi.id]);
  const intent = await merchantCall(ctx, p.live.secretKey, `/payment_intents/${pi.id}`);
  const back = await q(ctx, 'SELECT coalesce(sum(amount_cents), 0) AS s FROM sim_refunds WHERE idempotency_key LIKE ?', ['refund:re_%']);
  // One request for $3.00 is one refund of $3.00 (+ its part of the fee at the processor).
  expect(rows.length).toBe(1);
  expect(retry.body.id).toBe(rows[0]!.id);
  expect(intent.body.amount_refunded).toBe(300);
  expect(Number(back[0]!.s)).toBeLessThan(400);
  await expectMoneyHolds(ctx);
  ctx.close();
}, 30000);
