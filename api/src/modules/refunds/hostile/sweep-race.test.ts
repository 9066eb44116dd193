import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sweepMoney } from '../../../boot';
import { merchantCall } from '../../../../test-support/app';
import { REFUND_LEASE_MS } from '../lease';
import { expectMoneyHolds, paidIntent, prepare, q, refund, world, type Prepared } from '../../../../test-support/modules/refunds-hostile';

/* Evidence (passes): a live worker whose lease runs out inside a remote processor call and the sweep that takes the
 * refund over never refund a part twice, and only one of them records. */
let p: Prepared;
beforeAll(async () => { p = await prepare(); });
afterAll(() => p.template.close());

test('the sweep takes over from a worker stuck in a processor call; nothing is refunded twice', async () => {
  const { ctx, hook } = await world(p, { local: false });
  const pi = await paidIntent(p, ctx, '30.00', [50, 30, 20]);
  let release: (() => void) | null = null;
  let n = 0;
  hook.fault = async (method, _args, run) => {
    if (method === 'refund' && ++n === 2) await new Promise<void>((r) => { release = r; });
    return run();
  };
  const live = refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 1000 });
  for (let i = 0; i < 200 && !release; i++) await Bun.sleep(5);
  ctx.clock.advance(REFUND_LEASE_MS + 1);
  await sweepMoney(ctx.deps);
  release!();
  const answer = await live;
  expect(answer.body.status).toBe('succeeded');
  const sims = await q(ctx, "SELECT count(*) AS n, sum(amount_cents) AS s FROM sim_refunds WHERE idempotency_key LIKE 'refund:re_%'");
  expect(Number(sims[0]!.n)).toBe(3);
  expect(Number(sims[0]!.s)).toBe(1025);
  expect((await merchantCall(ctx, p.live.secretKey, `/payment_intents/${pi.id}`)).body.amount_refunded).toBe(1000);
  const moves = await q(ctx, "SELECT count(*) AS n FROM ledger_movements WHERE kind = 'refund.succeeded'");
  expect(Number(moves[0]!.n)).toBe(1);
  await expectMoneyHolds(ctx);
  ctx.close();
}, 30000);
