import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TestClock } from '../../lib/clock';
import { makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { bcardCard, type TestCardDetails, type TestMerchant, merchantWorld } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { REQUESTS_PER_SECOND, resetRateWindows } from '../merchants/usage';

/*
 * Many requests at once against one intent or one bcard: the guarded writes (the intent's status, the bcard's
 * status) let exactly one through, the bcard is spent once, the merchant is paid once and one event is written.
 *
 * The per-second limit (REQUESTS_PER_SECOND a merchant) would refuse most of a burst at one frozen instant, so
 * during a burst this clock moves on by a little more than 1/REQUESTS_PER_SECOND of a second at every reading:
 * every request gets through authentication and the race is between the confirms themselves.
 */
class SteppingClock extends TestClock {
  stepMs = 0;
  override now(): Date {
    const at = super.now();
    if (this.stepMs) this.advance(this.stepMs);
    return at;
  }
}

let clock: SteppingClock;
let ctx: TestContext;
let consumer: { cookie: string; id: string };
let sourceId: string;
let merchant: TestMerchant;

beforeAll(async () => {
  clock = new SteppingClock();
  ctx = await makeTestApp({ clock });
  // Production: a consumer's bcard pays only production intents.
  ({ consumer, sourceId, live: merchant } = await merchantWorld(ctx));
});
afterAll(() => ctx.close());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const one = async (sql: string, args: Array<string | number> = []) => Number(Object.values((await q(sql, args))[0]!)[0]);
const withCard = (card: TestCardDetails) => ({ payment_method_data: { type: 'card', card } });
const create = async (body: Record<string, unknown> = {}) => {
  const res = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', ...body } });
  expect(res.status).toBe(200);
  return res.body as { id: string };
};
const post = (path: string, body: unknown) => merchantCall(ctx, merchant.secretKey, path, { method: 'POST', body });

/** Runs the requests at once, with the clock stepping so the per-second limit lets every one through. */
async function burst(requests: Array<() => Promise<CallResult>>): Promise<CallResult[]> {
  resetRateWindows();
  clock.stepMs = Math.floor(1000 / REQUESTS_PER_SECOND) + 1;
  try {
    return await Promise.all(requests.map((r) => r()));
  } finally {
    clock.stepMs = 0;
    resetRateWindows();
  }
}

const tally = (results: CallResult[]) => {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === 200 ? `200 ${r.body.status}` : `${r.status} ${r.body.error.code}${r.body.error.decline_code ? `/${r.body.error.decline_code}` : ''}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};

describe('confirm races', () => {
  test('50 simultaneous confirms of one intent with the same bcard: one succeeds, the bcard is spent once', async () => {
    const pi = await create({ amount: 2500 });
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    const results = await burst(Array.from({ length: 50 }, () => () => post(`/payment_intents/${pi.id}/confirm`, withCard(bcard.card))));

    expect(tally(results)).toEqual({ '200 succeeded': 1, '400 payment_intent_unexpected_state': 49 });
    const winner = results.find((r) => r.status === 200)!;
    expect(winner.body).toMatchObject({ id: pi.id, amount_received: 2500, payment_method: bcard.id });

    expect((await q('SELECT status, spent_cents FROM bcards WHERE id = ?', [bcard.id]))[0]).toMatchObject({ status: 'used', spent_cents: 2500 });
    expect(await one("SELECT count(*) FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = ?", [bcard.id])).toBe(1);
    expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = ?', [`merchant:${merchant.id}`])).toBe(2500);
    expect(await one("SELECT count(*) FROM events WHERE type = 'payment_intent.succeeded' AND json_extract(data, '$.id') = ?", [pi.id])).toBe(1);
    expect(await one("SELECT count(*) FROM events WHERE type = 'payment_intent.failed' AND json_extract(data, '$.id') = ?", [pi.id])).toBe(0);
    const [row] = await q('SELECT status, amount_received, bcard_id FROM payment_intents WHERE id = ?', [pi.id]);
    expect(row).toMatchObject({ status: 'succeeded', amount_received: 2500, bcard_id: bcard.id });
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  }, 30_000);

  test('20 simultaneous confirms of 20 intents with one bcard: exactly one succeeds, the others are declined', async () => {
    const merchantBefore = await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = ?', [`merchant:${merchant.id}`]);
    const intents: Array<{ id: string }> = [];
    for (let i = 0; i < 20; i++) intents.push(await create({ amount: 2500 }));
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    const results = await burst(intents.map((pi) => () => post(`/payment_intents/${pi.id}/confirm`, withCard(bcard.card))));

    expect(tally(results)).toEqual({ '200 succeeded': 1, '402 card_declined/card_not_active': 19 });
    const winner = results.find((r) => r.status === 200)!.body.id as string;
    const rows = await q(
      `SELECT id, status, bcard_id, amount_received, json_extract(last_payment_error, '$.decline_code') AS decline
         FROM payment_intents WHERE id IN (${intents.map(() => '?').join(',')})`,
      intents.map((p) => p.id),
    );
    for (const r of rows) {
      if (r.id === winner) expect(r).toMatchObject({ status: 'succeeded', bcard_id: bcard.id, amount_received: 2500 });
      else expect(r).toMatchObject({ status: 'requires_payment_method', bcard_id: null, amount_received: 0, decline: 'card_not_active' });
    }
    expect((await q('SELECT status, spent_cents FROM bcards WHERE id = ?', [bcard.id]))[0]).toMatchObject({ status: 'used', spent_cents: 2500 });
    expect(await one("SELECT count(*) FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = ?", [bcard.id])).toBe(1);
    expect((await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = ?', [`merchant:${merchant.id}`])) - merchantBefore).toBe(2500);
    const ids = intents.map((p) => p.id);
    const events = await q(
      `SELECT type, count(*) AS n FROM events WHERE type IN ('payment_intent.succeeded', 'payment_intent.failed')
          AND json_extract(data, '$.id') IN (${ids.map(() => '?').join(',')}) GROUP BY type ORDER BY type`,
      ids,
    );
    expect(events.map((e) => [e.type, Number(e.n)])).toEqual([
      ['payment_intent.failed', 19],
      ['payment_intent.succeeded', 1],
    ]);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  }, 30_000);

  test('20 captures racing 20 cancels of one authorized intent: exactly one wins and the money adds up', async () => {
    const pi = await create({ amount: 2500, capture_method: 'manual' });
    const bcard = await bcardCard(ctx, consumer.cookie, sourceId, '25.00');
    expect((await post(`/payment_intents/${pi.id}/confirm`, withCard(bcard.card))).body.status).toBe('requires_capture');
    const merchantBefore = await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = ?', [`merchant:${merchant.id}`]);
    const results = await burst(
      Array.from({ length: 40 }, (_, i) => () => post(`/payment_intents/${pi.id}/${i % 2 ? 'capture' : 'cancel'}`, {})),
    );
    const wins = results.filter((r) => r.status === 200);
    expect(wins).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect([400, 409]).toContain(r.status);
      expect(['payment_intent_unexpected_state', 'bcard_not_active']).toContain(r.body.error.code);
    }
    const [row] = await q('SELECT status FROM payment_intents WHERE id = ?', [pi.id]);
    const [card] = await q('SELECT status, spent_cents FROM bcards WHERE id = ?', [bcard.id]);
    const paid = (await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = ?', [`merchant:${merchant.id}`])) - merchantBefore;
    if (wins[0]!.body.status === 'succeeded') {
      expect({ intent: row!.status, card: card!.status, spent: card!.spent_cents, paid }).toEqual({ intent: 'succeeded', card: 'used', spent: 2500, paid: 2500 });
    } else {
      expect(wins[0]!.body.status).toBe('canceled');
      expect({ intent: row!.status, card: card!.status, spent: card!.spent_cents, paid }).toEqual({ intent: 'canceled', card: 'canceled', spent: 0, paid: 0 });
    }
    expect(await one("SELECT count(*) FROM events WHERE type IN ('payment_intent.succeeded', 'payment_intent.canceled') AND json_extract(data, '$.id') = ?", [pi.id])).toBe(1);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  }, 30_000);
});
