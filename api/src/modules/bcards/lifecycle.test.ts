import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import type { CollectionStatus } from '@bpay/db';
import { COLLECTION_STATUSES } from '@bpay/db/schema';
import { sweepMoney } from '../../boot';
import { luhnValid } from '../../lib/cards';
import { call, forkTestApp, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, login, makePremium, registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { assertTransition, COLLECTION_TRANSITIONS } from './saga';

/*
 * A bcard's life after it is issued: it expires after 30 minutes, can be canceled once, is revealed (and every
 * reveal recorded), is spent once with the remainder going back pro rata; the collection state machine; a source
 * behind a live bcard cannot be removed; the free plan's monthly bcard limit.
 */

const TTL_MS = 30 * 60_000;

let template: TestContext;
let ada: { cookie: string; id: string; email: string; password: string };
let eve: { cookie: string; id: string };

beforeAll(async () => {
  // Users are registered once (argon2 is slow on purpose); every test runs on its own copy of this database.
  template = await makeTestApp();
  const a = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  const e = await registerUser(template, { firstName: 'Eve', lastName: 'Example' });
  ada = { cookie: a.cookie, id: a.user.id, email: a.email, password: a.password };
  eve = { cookie: e.cookie, id: e.user.id };
});
afterAll(() => template.close());

async function withFork(fn: (ctx: TestContext) => Promise<void>): Promise<void> {
  const ctx = await forkTestApp(template);
  try {
    await fn(ctx);
  } finally {
    ctx.close();
  }
}

type Split = Array<{ fundingSourceId: string; percentage: number }>;

async function createBcard(ctx: TestContext, cookie: string, split: Split, balance = '100.00') {
  const res = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie, body: { name: 'Groceries', balance, fundingSources: split } });
  if (res.status !== 201) throw new Error(`bcard failed: ${res.status} ${res.text}`);
  return res.body as { id: string; transactionId: string; last4: string; status: string; fundingSources: Array<{ amount: string }> };
}

async function balances(ctx: TestContext, cookie: string): Promise<Record<string, string | null>> {
  const res = await call(ctx, '/api/funding-sources', { cookie });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body as Array<{ id: string; balance: string | null }>).map((s) => [s.id, s.balance]));
}

async function bcardStatus(ctx: TestContext, cookie: string, id: string) {
  const res = await call(ctx, '/api/virtual-cards', { cookie });
  const card = (res.body as Array<{ id: string; status: string; balance: string }>).find((b) => b.id === id);
  if (!card) throw new Error(`no bcard ${id}`);
  return card;
}

/** The postings of the movements referencing this id, by kind, as { account: cents }. */
async function movements(ctx: TestContext, referenceId: string): Promise<Record<string, Record<string, number>>> {
  const rows = (
    await ctx.handle.client.execute({
      sql: `SELECT m.kind AS kind, p.account AS account, p.amount_cents AS amount
              FROM ledger_movements m JOIN ledger_postings p ON p.movement_id = m.id WHERE m.reference_id = ?`,
      args: [referenceId],
    })
  ).rows;
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows) {
    const kind = String(r.kind);
    out[kind] ??= {};
    out[kind]![String(r.account)] = (out[kind]![String(r.account)] ?? 0) + Number(r.amount);
  }
  return out;
}

async function scalar(ctx: TestContext, sql: string, args: Array<string | number> = []): Promise<unknown> {
  const row = (await ctx.handle.client.execute({ sql, args })).rows[0];
  return row ? Object.values(row)[0] : undefined;
}

async function expectSettled(ctx: TestContext) {
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.unsettledCollections).toBe(0);
  expect(report.heldHolds).toBe(0);
  return report;
}

describe('expiry', () => {
  test('after 30 minutes the bcard expires and every share goes back, fee included', async () => {
    await withFork(async (ctx) => {
      const a = await addCard(ctx, ada.cookie, CARDS_OK[0]);
      const b = await addCard(ctx, ada.cookie, CARDS_OK[1]);
      const card = await createBcard(ctx, ada.cookie, [
        { fundingSourceId: a.id, percentage: 50 },
        { fundingSourceId: b.id, percentage: 50 },
      ]);
      // $100.00 + 2.9 % = $102.90, $51.45 from each.
      expect(card.fundingSources.map((s) => s.amount)).toEqual(['51.45', '51.45']);
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '9948.55', [b.id]: '9948.55' });

      // One millisecond before the end of its session nothing happens.
      ctx.clock.advance(TTL_MS - 1);
      expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
      expect((await bcardStatus(ctx, ada.cookie, card.id)).status).toBe('active');
      expect((await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: ada.cookie })).status).toBe(200);

      // At the end of the session it can no longer be revealed, even before the sweep has run.
      ctx.clock.advance(1);
      const late = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: ada.cookie });
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('bcard_not_active');
      // And the list says so at once (the tile stops offering Show details and Cancel), nothing left to spend.
      expect(await bcardStatus(ctx, ada.cookie, card.id)).toMatchObject({ status: 'expired', balance: '0.00' });

      expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 1, canceled: 0, bankDebits: 0 });
      expect(await bcardStatus(ctx, ada.cookie, card.id)).toMatchObject({ status: 'expired', balance: '0.00' });
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '10000.00', [b.id]: '10000.00' });

      const mv = await movements(ctx, card.id);
      expect(mv['bcard.refunded']).toEqual({
        [`bcard:${card.id}`]: -10000,
        'bpay:fees': -290,
        [`funding_source:${a.id}`]: 5145,
        [`funding_source:${b.id}`]: 5145,
      });
      expect(await scalar(ctx, 'SELECT status FROM sim_issued_cards WHERE last4 = ?', [card.last4])).toBe('inactive');
      const tx = await call(ctx, `/api/transactions/${card.transactionId}`, { cookie: ada.cookie });
      expect(tx.body).toMatchObject({ status: 'refunded', refunded: '102.90', totalCharged: '102.90' });

      const again = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: ada.cookie });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('bcard_not_active');

      // A later sweep refunds nothing twice, and an expired card cannot be canceled.
      ctx.clock.advance(TTL_MS);
      expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
      expect((await call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: ada.cookie })).status).toBe(409);
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '10000.00', [b.id]: '10000.00' });
      const report = await expectSettled(ctx);
      expect(report.movementsByKind['bcard.refunded']).toBe(1);
      expect(await scalar(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(2);
    });
  });
});

describe('cancel', () => {
  test('cancel early: canceled and refunded; only once; only by its owner', async () => {
    await withFork(async (ctx) => {
      const a = await addCard(ctx, ada.cookie, CARDS_OK[0]);
      const b = await addCard(ctx, ada.cookie, CARDS_OK[1]);
      const card = await createBcard(ctx, ada.cookie, [
        { fundingSourceId: a.id, percentage: 70 },
        { fundingSourceId: b.id, percentage: 30 },
      ], '250.00');
      // $250.00 + $7.25 = $257.25: 70 % is 180.075 -> 180.08 (the larger remainder), 30 % is 77.175 -> 77.17.
      expect(card.fundingSources.map((s) => s.amount)).toEqual(['180.08', '77.17']);

      const stranger = await call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: eve.cookie });
      expect(stranger.status).toBe(404);
      expect((await bcardStatus(ctx, ada.cookie, card.id)).status).toBe('active');

      const res = await call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: ada.cookie });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: card.id, status: 'canceled', balance: '0.00' });
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '10000.00', [b.id]: '10000.00' });
      expect((await movements(ctx, card.id))['bcard.refunded']).toEqual({
        [`bcard:${card.id}`]: -25000,
        'bpay:fees': -725,
        [`funding_source:${a.id}`]: 18008,
        [`funding_source:${b.id}`]: 7717,
      });

      const second = await call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: ada.cookie });
      expect(second.status).toBe(409);
      expect(second.body.error.code).toBe('bcard_not_active');
      const reveal = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: ada.cookie });
      expect(reveal.status).toBe(409);

      // The expiry sweep leaves a canceled card alone.
      ctx.clock.advance(TTL_MS);
      expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
      expect((await bcardStatus(ctx, ada.cookie, card.id)).status).toBe('canceled');
      const report = await expectSettled(ctx);
      expect(report.movementsByKind['bcard.refunded']).toBe(1);
      expect(await scalar(ctx, "SELECT status FROM collections WHERE id = ?", [card.transactionId])).toBe('refunded');
    });
  });
});

describe('reveal', () => {
  test('each reveal answers the full card and is recorded; no one else can reveal it', async () => {
    await withFork(async (ctx) => {
      const a = await addCard(ctx, ada.cookie, CARDS_OK[0]);
      const card = await createBcard(ctx, ada.cookie, [{ fundingSourceId: a.id, percentage: 100 }]);
      const headers = { 'user-agent': 'bpay-tests/1.0' };
      const first = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: ada.cookie, headers, ip: '198.51.100.4' });
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.body.cardNumber).toMatch(/^\d{16}$/);
      expect(first.body.cardNumber.endsWith(card.last4)).toBe(true);
      expect(luhnValid(first.body.cardNumber)).toBe(true);
      expect(first.body.cvv).toMatch(/^\d{3}$/);
      const second = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: ada.cookie, headers, ip: '198.51.100.5' });
      expect(second.body).toEqual(first.body);

      const foreign = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: eve.cookie, headers });
      expect(foreign.status).toBe(404);
      const anonymous = await call(ctx, `/api/virtual-cards/${card.id}/checkout-details`, { cookie: null });
      expect(anonymous.status).toBe(401);

      const rows = (
        await ctx.handle.client.execute({ sql: 'SELECT user_id, ip, user_agent FROM bcard_reveals WHERE bcard_id = ? ORDER BY ip', args: [card.id] })
      ).rows.map((r) => Object.fromEntries(Object.entries(r)));
      expect(rows).toEqual([
        { user_id: ada.id, ip: '198.51.100.4', user_agent: 'bpay-tests/1.0' },
        { user_id: ada.id, ip: '198.51.100.5', user_agent: 'bpay-tests/1.0' },
      ]);
    });
  });
});

describe('spending', () => {
  test('a purchase below the limit uses the bcard; the remainder goes back pro rata and the ledger balances', async () => {
    await withFork(async (ctx) => {
      await makePremium(ctx, ada.id, 290);
      const [a, b, c] = [
        await addCard(ctx, ada.cookie, CARDS_OK[0]),
        await addCard(ctx, ada.cookie, CARDS_OK[1]),
        await addCard(ctx, ada.cookie, CARDS_OK[2]),
      ];
      const card = await createBcard(ctx, ada.cookie, [
        { fundingSourceId: a.id, percentage: 50 },
        { fundingSourceId: b.id, percentage: 30 },
        { fundingSourceId: c.id, percentage: 20 },
      ]);
      expect(card.fundingSources.map((s) => s.amount)).toEqual(['51.45', '30.87', '20.58']);

      // More than the bcard holds is refused and changes nothing.
      const over = await call(ctx, '/api/process-payment', {
        method: 'POST',
        cookie: ada.cookie,
        body: { amount: '100.01', merchant: 'Acme', virtualCardId: card.id },
      });
      expect(over.status).toBe(400);
      expect((await bcardStatus(ctx, ada.cookie, card.id)).status).toBe('active');

      const paid = await call(ctx, '/api/process-payment', {
        method: 'POST',
        cookie: ada.cookie,
        body: { amount: '33.34', merchant: 'Acme', virtualCardId: card.id },
      });
      expect(paid.status).toBe(200);
      expect(paid.body.virtualCard).toMatchObject({ id: card.id, status: 'used', balance: '0.00' });

      // $66.66 left, and the fee's part of it as a merchant's refund would give: floor(2.90 × 66.66 / 100) = $1.93, so
      // $68.59 goes back pro rata over 51.45/30.87/20.58 (50/30/20 %): 34.295, 20.577, 13.718 -> floors 34.29, 20.57,
      // 13.71 and the two spare cents to the largest fractions (.718, .577): 34.29, 20.58, 13.72. Each card is down
      // 17.16, 10.29, 6.86 = $34.31: the $33.34 spent and the $0.97 of fee that stays with it.
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '9982.84', [b.id]: '9989.71', [c.id]: '9993.14' });
      const mv = await movements(ctx, card.id);
      expect(mv['bcard.spent']).toEqual({ [`bcard:${card.id}`]: -3334, 'external:merchants': 3334 });
      expect(mv['bcard.remainder_refunded']).toEqual({
        [`bcard:${card.id}`]: -6666,
        'bpay:fees': -193,
        [`funding_source:${a.id}`]: 3429,
        [`funding_source:${b.id}`]: 2058,
        [`funding_source:${c.id}`]: 1372,
      });
      expect(await scalar(ctx, 'SELECT status || \':\' || refunded_cents FROM collections WHERE id = ?', [card.transactionId])).toBe(
        'completed:6859',
      );

      // Used once: no second purchase, no cancel, and expiry leaves it alone.
      const twice = await call(ctx, '/api/process-payment', {
        method: 'POST',
        cookie: ada.cookie,
        body: { amount: '1.00', merchant: 'Acme', virtualCardId: card.id },
      });
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe('bcard_not_active');
      expect((await call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: ada.cookie })).status).toBe(409);
      ctx.clock.advance(TTL_MS);
      expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: 0, canceled: 0, bankDebits: 0 });
      expect((await bcardStatus(ctx, ada.cookie, card.id)).status).toBe('used');

      const report = await expectSettled(ctx);
      expect(report.bcards.find((x) => x.id === card.id)?.ledger).toBe(0);
      // bpay keeps the fee on what was spent only: $2.90 - $1.93.
      expect(await scalar(ctx, "SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'bpay:fees'")).toBe(97);
    });
  });

  test('a purchase of the whole limit refunds nothing and deactivates the card', async () => {
    await withFork(async (ctx) => {
      const a = await addCard(ctx, ada.cookie, CARDS_OK[0]);
      const card = await createBcard(ctx, ada.cookie, [{ fundingSourceId: a.id, percentage: 100 }], '40.00');
      const paid = await call(ctx, '/api/process-payment', {
        method: 'POST',
        cookie: ada.cookie,
        body: { amount: '40.00', merchant: 'Acme', virtualCardId: card.id },
      });
      expect(paid.status).toBe(200);
      // $40.00 + $1.16 fee left the card; nothing comes back.
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '9958.84' });
      expect(Object.keys(await movements(ctx, card.id)).sort()).toEqual(['bcard.spent']);
      expect(await scalar(ctx, 'SELECT status FROM sim_issued_cards WHERE last4 = ?', [card.last4])).toBe('inactive');
      expect(await scalar(ctx, 'SELECT status FROM collections WHERE id = ?', [card.transactionId])).toBe('completed');
      await expectSettled(ctx);
    });
  });
});

describe('collection state machine', () => {
  const allowed = (from: CollectionStatus, to: CollectionStatus) => COLLECTION_TRANSITIONS[from].includes(to);

  test('assertTransition refuses every pair not in the table and accepts every pair in it', () => {
    let refused = 0;
    for (const from of COLLECTION_STATUSES) {
      for (const to of COLLECTION_STATUSES) {
        if (allowed(from, to)) expect(() => assertTransition(from, to)).not.toThrow();
        else {
          expect(() => assertTransition(from, to)).toThrow(`collection cannot go from ${from} to ${to}`);
          refused++;
        }
      }
    }
    // 36 pairs, 8 allowed: a table that grew by accident fails here.
    expect(refused).toBe(28);
  });

  test('the table: failed and refunded are final, nothing returns to holding, everything is reachable', () => {
    expect(COLLECTION_TRANSITIONS.failed).toEqual([]);
    expect(COLLECTION_TRANSITIONS.refunded).toEqual([]);
    for (const s of COLLECTION_STATUSES) {
      expect(COLLECTION_TRANSITIONS[s]).not.toContain('holding');
      expect(COLLECTION_TRANSITIONS[s]).not.toContain(s);
    }
    // A bcard is only issued from capturing; a collection that held nothing can only fail.
    expect(COLLECTION_TRANSITIONS.holding).toEqual(['capturing', 'failed']);
    const seen = new Set<CollectionStatus>(['holding']);
    const queue: CollectionStatus[] = ['holding'];
    while (queue.length) for (const n of COLLECTION_TRANSITIONS[queue.shift()!]) if (!seen.has(n)) (seen.add(n), queue.push(n));
    expect([...seen].sort()).toEqual([...COLLECTION_STATUSES].sort());
  });

  test('any walk through the machine passes assertTransition exactly where the table allows it', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...COLLECTION_STATUSES), { minLength: 1, maxLength: 12 }), (steps) => {
        let at: CollectionStatus = 'holding';
        for (const to of steps) {
          let threw = false;
          try {
            assertTransition(at, to);
          } catch {
            threw = true;
          }
          expect(threw).toBe(!allowed(at, to));
          if (!threw) at = to;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('funding sources behind a bcard', () => {
  test('a source backing an active bcard cannot be removed; once the bcard expires it can', async () => {
    await withFork(async (ctx) => {
      const a = await addCard(ctx, ada.cookie, CARDS_OK[0]);
      const b = await addCard(ctx, ada.cookie, CARDS_OK[1]);
      const card = await createBcard(ctx, ada.cookie, [{ fundingSourceId: a.id, percentage: 100 }]);

      // The source not in the split can go at once.
      expect((await call(ctx, `/api/funding-sources/${b.id}`, { method: 'DELETE', cookie: ada.cookie })).status).toBe(200);
      const refused = await call(ctx, `/api/funding-sources/${a.id}`, { method: 'DELETE', cookie: ada.cookie });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('funding_source_in_use');
      expect(Object.keys(await balances(ctx, ada.cookie))).toEqual([a.id]);

      ctx.clock.advance(TTL_MS);
      expect((await sweepMoney(ctx.deps)).expired).toBe(1);
      expect((await call(ctx, `/api/funding-sources/${a.id}`, { method: 'DELETE', cookie: ada.cookie })).status).toBe(200);
      expect(await balances(ctx, ada.cookie)).toEqual({});
      // The history still names the removed source.
      const list = await call(ctx, '/api/virtual-cards', { cookie: ada.cookie });
      expect(list.body[0]).toMatchObject({ id: card.id, status: 'expired' });
      expect(list.body[0].fundingSources).toEqual([expect.objectContaining({ fundingSourceId: a.id, last4: '4242', amount: '102.90' })]);
      await expectSettled(ctx);
    });
  });
});

describe('plan limits', () => {
  test('the free plan allows 10 bcards a month: the 11th is 403 plan_limit_reached; failed ones do not count', async () => {
    await withFork(async (ctx) => {
      const a = await addCard(ctx, ada.cookie, CARDS_OK[0]);
      const split = [{ fundingSourceId: a.id, percentage: 100 }];
      // A collection that fails does not use up the month's allowance.
      const failed = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: ada.cookie, body: { name: 'Too much', balance: '20000.00', fundingSources: split } });
      expect(failed.status).toBe(402);
      for (let i = 0; i < 10; i++) await createBcard(ctx, ada.cookie, split, '10.00');

      const eleventh = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: ada.cookie, body: { name: 'One more', balance: '10.00', fundingSources: split } });
      expect(eleventh.status).toBe(403);
      expect(eleventh.body.error.code).toBe('plan_limit_reached');
      // Refused before anything was recorded or held.
      expect(await scalar(ctx, 'SELECT count(*) FROM collections WHERE user_id = ?', [ada.id])).toBe(11);
      expect(await balances(ctx, ada.cookie)).toEqual({ [a.id]: '9897.10' }); // 10 x ($10.00 + $0.29)

      // Canceling does not give the allowance back.
      const first = (await call(ctx, '/api/virtual-cards', { cookie: ada.cookie })).body[0] as { id: string };
      expect((await call(ctx, `/api/virtual-cards/${first.id}/cancel`, { method: 'POST', cookie: ada.cookie })).status).toBe(200);
      expect((await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: ada.cookie, body: { name: 'x', balance: '10.00', fundingSources: split } })).status).toBe(403);

      // Another user's allowance is their own.
      const e = await addCard(ctx, eve.cookie, CARDS_OK[0], { name: 'Eve Example' });
      await createBcard(ctx, eve.cookie, [{ fundingSourceId: e.id, percentage: 100 }], '10.00');

      // A new month, a new allowance (the clock starts on 15 January; the session has lapsed by then).
      ctx.clock.advance(17 * 24 * 3600_000);
      await sweepMoney(ctx.deps);
      const signedIn = await login(ctx, ada.email, ada.password);
      expect(signedIn.status).toBe(200);
      const feb = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: signedIn.cookie, body: { name: 'February', balance: '10.00', fundingSources: split } });
      expect(feb.status).toBe(201);
      await expectSettled(ctx);
    });
  });
});
