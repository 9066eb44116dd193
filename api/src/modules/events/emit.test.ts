import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { schema } from '@bpay/db';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { createMerchant, registerUser } from '../../../test-support/world';
import { emitEvent, emitEvents } from './emit';

/*
 * Several events written together (issue 29 §3, multi-row): three statements whatever their number, and the same rows
 * as one emitEvent each would write: consecutive seqs after the merchant's latest (per mode), Stripe's twin beside
 * bpay's name, one delivery per subscribed enabled endpoint of the event's mode, one broadcast each, all in order.
 */

let ctx: TestContext;
let merchantId: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  const owner = await registerUser(ctx);
  merchantId = (await createMerchant(ctx, owner.cookie, 'production')).id;
  const at = ctx.clock.now();
  const endpoint = (id: string, livemode: boolean, enabledEvents: string[], status: 'enabled' | 'disabled' = 'enabled') => ({
    id,
    merchantId,
    livemode,
    url: `https://hooks.example.com/${id}`,
    enabledEvents,
    secretSealed: 'sealed',
    status,
    createdAt: at,
    updatedAt: at,
  });
  await ctx.handle.db.insert(schema.webhookEndpoints).values([
    endpoint('we_all', true, ['*']),
    endpoint('we_refund', true, ['refund.updated']),
    endpoint('we_stripe_name', true, ['payment_intent.payment_failed']),
    endpoint('we_off', true, ['*'], 'disabled'),
    endpoint('we_test_mode', false, ['*']),
  ]);
});
afterAll(() => ctx.close());

const q = async (sql: string, args: unknown[] = []) => (await ctx.handle.client.execute({ sql, args: args as never })).rows.map((r) => ({ ...r }));

describe('emitEvents', () => {
  test('consecutive seqs after the latest, twins, deliveries and broadcasts in order, in three statements', async () => {
    const at = ctx.clock.now();
    const owner = { merchantId, livemode: true, at };
    const first = await ctx.handle.db.transaction((tx) => emitEvent(tx, { ...owner, type: 'payment_intent.created', object: { id: 'pi_1' } }));
    // Another mode's events never move this mode's seqs.
    await ctx.handle.db.transaction((tx) => emitEvent(tx, { ...owner, livemode: false, type: 'payment_intent.created', object: { id: 'pi_t' } }));

    const before = ctx.handle.stats.statements;
    const ids = await ctx.handle.db.transaction((tx) =>
      emitEvents(tx, owner, [
        { type: 'refund.updated', object: { id: 're_1', status: 'failed' } },
        { type: 'payment_intent.failed', object: { id: 'pi_1', status: 'requires_payment_method' } },
        { type: 'charge.refunded', object: { id: 'ch_pi_1' } },
      ]),
    );
    // Four events (the failure's twin too), their deliveries and broadcasts: three statements (was 12).
    expect(ctx.handle.stats.statements - before).toBe(3);
    expect(ids).toHaveLength(3);

    const events = await q('SELECT id, type, seq, data, created_at FROM events WHERE merchant_id = ? AND livemode = 1 ORDER BY seq', [merchantId]);
    expect(events.map((e) => [e.type, e.seq])).toEqual([
      ['payment_intent.created', 1],
      ['refund.updated', 2],
      ['payment_intent.failed', 3],
      ['payment_intent.payment_failed', 4],
      ['charge.refunded', 5],
    ]);
    expect(events[0]!.id).toBe(first);
    // The ids answered are bpay's names, in order; the twin carries the same object.
    expect(ids).toEqual([events[1]!.id, events[2]!.id, events[4]!.id].map(String));
    expect(JSON.parse(String(events[3]!.data))).toEqual({ id: 'pi_1', status: 'requires_payment_method' });
    expect(events.every((e) => Number(e.created_at) === at.getTime())).toBe(true);

    const deliveries = await q(
      `SELECT d.endpoint_id AS endpoint, e.type AS type, d.status, d.attempts, d.next_attempt_at AS due, d.merchant_id AS merchant, d.livemode
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.seq > 1 AND e.livemode = 1 ORDER BY d.rowid`,
    );
    expect(deliveries.map((d) => [d.endpoint, d.type])).toEqual([
      ['we_all', 'refund.updated'],
      ['we_refund', 'refund.updated'],
      ['we_all', 'payment_intent.failed'],
      ['we_all', 'payment_intent.payment_failed'],
      ['we_stripe_name', 'payment_intent.payment_failed'],
      ['we_all', 'charge.refunded'],
    ]);
    for (const d of deliveries) expect(d).toMatchObject({ status: 'pending', attempts: 0, due: at.getTime(), merchant: merchantId, livemode: 1 });

    const broadcasts = await q('SELECT event_id, reason, livemode FROM event_broadcasts WHERE livemode = 1 ORDER BY seq');
    expect(broadcasts.map((b) => b.event_id)).toEqual(events.map((e) => e.id));
    expect(broadcasts.every((b) => b.reason === 'created')).toBe(true);
  });
});
