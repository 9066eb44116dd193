import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { TestClock } from '../../lib/clock';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { countRows, createIntent, deliveriesOf, HOUR, setup, testBcard, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { deliverDueWebhooks, startWebhookWorker } from './worker';

/*
 * The outbox: a restart loses no queued delivery, racing workers never send one twice, the timer delivers on its
 * own, and an event exists only if the change that caused it was committed.
 */

const cleanup: Array<() => void> = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

describe('restart', () => {
  test('events queued before a shutdown are all delivered after it, each once, including one claimed by a worker that died', async () => {
    const clock = new TestClock();
    const first = await makeTestApp({ clock });
    const s = await setup(first);
    cleanup.push(() => s.receiver.stop());
    const pis = [await createIntent(first, s.merchant), await createIntent(first, s.merchant), await createIntent(first, s.merchant)];
    const queued = await deliveriesOf(first, s.endpointId);
    expect(queued).toHaveLength(3);
    // A worker claimed one and the process died before it answered.
    await first.handle.db
      .update(schema.webhookDeliveries)
      .set({ lockedUntil: new Date(clock.now().getTime() + 60_000) })
      .where(eq(schema.webhookDeliveries.id, queued[0]!.id));
    first.handle.close();

    const second = await makeTestApp({ dir: first.dir, clock });
    cleanup.push(() => second.close());
    expect(await deliverDueWebhooks(second.deps)).toMatchObject({ claimed: 2, succeeded: 2 });
    expect(await deliverDueWebhooks(second.deps)).toMatchObject({ claimed: 0 });
    // The dead worker's claim runs out; then its delivery goes too.
    clock.advance(60_001);
    expect(await deliverDueWebhooks(second.deps)).toMatchObject({ claimed: 1, succeeded: 1 });
    clock.advance(HOUR);
    expect(await deliverDueWebhooks(second.deps)).toMatchObject({ claimed: 0 });

    expect(s.receiver.rejected).toHaveLength(0);
    const ids = s.receiver.eventIds();
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(s.receiver.received.map((r) => r.event.data.object.id).sort()).toEqual([...pis].sort());
    expect(await countRows(second, 'webhook_deliveries', "status = 'succeeded'")).toBe(3);
  });
});

describe('concurrency', () => {
  test('workers racing (two apps on one database, two runs each) send every delivery exactly once', async () => {
    const a = await makeTestApp();
    const b = await makeTestApp({ dir: a.dir, clock: a.clock });
    cleanup.push(() => a.close());
    cleanup.push(() => b.handle.close());
    const s = await setup(a);
    cleanup.push(() => s.receiver.stop());
    for (let i = 0; i < 12; i++) await createIntent(a, s.merchant);
    let claimed = 0;
    for (let round = 0; round < 5; round++) {
      const runs = await Promise.all([
        deliverDueWebhooks(a.deps, { limit: 5 }),
        deliverDueWebhooks(b.deps, { limit: 5 }),
        deliverDueWebhooks(a.deps, { limit: 5 }),
        deliverDueWebhooks(b.deps, { limit: 5 }),
      ]);
      claimed += runs.reduce((n, r) => n + r.claimed, 0);
    }
    expect(claimed).toBe(12);
    expect(s.receiver.received).toHaveLength(12);
    expect(new Set(s.receiver.eventIds()).size).toBe(12);
    expect(await countRows(a, 'webhook_attempts')).toBe(12);
  });
});

describe('the worker timer', () => {
  test('startWebhookWorker delivers on its own and stops when told', async () => {
    const ctx = await makeTestApp();
    cleanup.push(() => ctx.close());
    const s = await setup(ctx);
    cleanup.push(() => s.receiver.stop());
    const worker = startWebhookWorker(ctx.deps, { intervalMs: 5 });
    try {
      await createIntent(ctx, s.merchant);
      for (let i = 0; i < 200 && s.receiver.received.length === 0; i++) await Bun.sleep(10);
      expect(s.receiver.received).toHaveLength(1);
    } finally {
      worker.stop();
    }
    await createIntent(ctx, s.merchant);
    await Bun.sleep(50);
    expect(s.receiver.received).toHaveLength(1);
    expect(await countRows(ctx, 'webhook_deliveries', "status = 'pending'")).toBe(1);
  });
});

describe('events are written in the same transaction as the change', () => {
  let ctx: TestContext;
  let m: Merchant;
  let endpointId: string;
  beforeAll(async () => {
    ctx = await makeTestApp();
    const s = await setup(ctx);
    s.receiver.stop();
    m = s.merchant;
    endpointId = s.endpointId;
  });
  afterAll(() => ctx.close());
  const exec = (sql: string) => ctx.handle.client.execute(sql);

  test('when queueing the delivery fails, neither the intent nor its event exist', async () => {
    await exec("CREATE TRIGGER fail_outbox BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'outbox is broken'); END");
    try {
      const res = await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 700, currency: 'usd' } });
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
    } finally {
      await exec('DROP TRIGGER fail_outbox');
    }
    expect(await countRows(ctx, 'payment_intents', 'merchant_id = ?', [m.id])).toBe(0);
    expect(await countRows(ctx, 'events', 'merchant_id = ?', [m.id])).toBe(0);
  });

  test('when writing the succeeded event fails, the payment is not made: no spend, no orphan event; a retry succeeds once', async () => {
    const pi = await createIntent(ctx, m, 1500);
    const { id: bcardId, card } = await testBcard(ctx, m, 1500);
    const confirm = () => v1(ctx, m.key, `/payment_intents/${pi}/confirm`, { method: 'POST', body: { payment_method_data: { type: 'card', card } } });

    await exec(
      "CREATE TRIGGER fail_succeeded BEFORE INSERT ON events WHEN NEW.type = 'payment_intent.succeeded' BEGIN SELECT RAISE(ABORT, 'no'); END",
    );
    try {
      expect((await confirm()).status).toBe(500);
    } finally {
      await exec('DROP TRIGGER fail_succeeded');
    }
    const after = await v1(ctx, m.key, `/payment_intents/${pi}`);
    expect(after.body.status).toBe('requires_payment_method');
    expect(after.body.amount_received).toBe(0);
    const bcard = await ctx.handle.db.query.bcards.findFirst({ where: eq(schema.bcards.id, bcardId) });
    expect(bcard).toMatchObject({ status: 'active', spentCents: 0 });
    expect(await countRows(ctx, 'ledger_movements', "kind = 'bcard.spent' AND reference_id = ?", [bcardId])).toBe(0);
    expect(await countRows(ctx, 'events', "merchant_id = ? AND type = 'payment_intent.succeeded'", [m.id])).toBe(0);

    const ok = await confirm();
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('succeeded');
    expect(await countRows(ctx, 'events', "merchant_id = ? AND type = 'payment_intent.succeeded'", [m.id])).toBe(1);
  });

  test('every event has its state change and every change its event (and one delivery)', async () => {
    const intents = await ctx.handle.client.execute({ sql: 'SELECT status FROM payment_intents WHERE merchant_id = ?', args: [m.id] });
    const created = await countRows(ctx, 'events', "merchant_id = ? AND type = 'payment_intent.created'", [m.id]);
    const succeeded = await countRows(ctx, 'events', "merchant_id = ? AND type = 'payment_intent.succeeded'", [m.id]);
    expect(created).toBe(intents.rows.length);
    expect(succeeded).toBe(intents.rows.filter((r) => r.status === 'succeeded').length);
    expect(await countRows(ctx, 'events', 'merchant_id = ?', [m.id])).toBe(created + succeeded);
    expect(await countRows(ctx, 'webhook_deliveries', 'endpoint_id = ?', [endpointId])).toBe(created + succeeded);
  });
});
