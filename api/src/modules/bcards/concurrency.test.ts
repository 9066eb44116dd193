import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { call, forkTestApp, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, makePremium, registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { REPLAY_HEADER } from '../../plugins/idempotency';

/*
 * Hundreds of requests at once against the same money: the guarded writes (the processor's balance, the plan's
 * limits, a bcard's status) let exactly as many through as the rule allows, and the invariants hold after.
 */

let template: TestContext;
let premium: { cookie: string; id: string };
let free: { cookie: string; id: string };

beforeAll(async () => {
  template = await makeTestApp();
  const p = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  const f = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  premium = { cookie: p.cookie, id: p.user.id };
  free = { cookie: f.cookie, id: f.user.id };
  // Premium so that monthly limits do not interfere, at the 2.9 % fee.
  await makePremium(template, premium.id, 290);
});
afterAll(() => template.close());

const count = async (ctx: TestContext, sql: string, args: Array<string | number> = []) =>
  Number(Object.values((await ctx.handle.client.execute({ sql, args })).rows[0] ?? { n: 0 })[0]);

function expectInvariants(report: Awaited<ReturnType<typeof moneyReport>>) {
  expect(moneyViolations(report)).toEqual([]);
  expect(report.ledgerTotal).toBe(0);
  expect(report.heldHolds).toBe(0);
  expect(report.unsettledCollections).toBe(0);
}

describe('one source, many requests', () => {
  test(
    '200 simultaneous $100.00 bcards on one $10,000.00 source: exactly 97 succeed, the source ends at $18.70',
    async () => {
      const ctx = await forkTestApp(template);
      try {
        const source = await addCard(ctx, premium.cookie, CARDS_OK[0]);
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            call(ctx, '/api/virtual-cards', {
              method: 'POST',
              cookie: premium.cookie,
              body: { name: `Card ${i}`, balance: '100.00', fundingSources: [{ fundingSourceId: source.id, percentage: 100 }] },
            }),
          ),
        );
        const byStatus = new Map<number, number>();
        for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
        // $102.90 each: 97 x 102.90 = 9,981.30 fits in 10,000.00; a 98th does not.
        expect(Object.fromEntries(byStatus)).toEqual({ 201: 97, 402: 103 });
        for (const r of results.filter((x) => x.status === 402)) {
          expect(r.body.error.code).toBe('insufficient_funds');
          const [short] = r.body.error.details.insufficientSources;
          expect(short).toMatchObject({ fundingSourceId: source.id, requiredAmount: '102.90' });
          // What the card had when this request was refused: less than a share, at least what is left at the end.
          const had = Number(short.availableBalance);
          expect(had).toBeLessThan(102.9);
          expect(had).toBeGreaterThanOrEqual(18.7);
        }
        const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id as string));
        expect(ids.size).toBe(97);

        const list = await call(ctx, '/api/funding-sources', { cookie: premium.cookie });
        expect(list.body).toEqual([expect.objectContaining({ id: source.id, balance: '18.70' })]);
        expect(await count(ctx, 'SELECT s.available_cents FROM sim_cards s JOIN funding_sources f ON f.vendor_token = s.token WHERE f.id = ?', [source.id])).toBe(1870);
        expect((await call(ctx, '/api/virtual-cards?limit=100', { cookie: premium.cookie })).body).toHaveLength(97);
        expect(await count(ctx, 'SELECT count(*) FROM bcards')).toBe(97);
        expect(await count(ctx, "SELECT count(*) FROM collections WHERE status = 'completed'")).toBe(97);
        expect(await count(ctx, "SELECT count(*) FROM collections WHERE status = 'failed'")).toBe(103);
        expect(await count(ctx, "SELECT count(*) FROM sim_issued_cards")).toBe(97);

        const report = await moneyReport(ctx);
        expectInvariants(report);
        expect(report.sources).toEqual([{ id: source.id, available: 1870, ledger: -998_130, inPendingCollection: false }]);
        expect(await count(ctx, "SELECT sum(amount_cents) FROM ledger_postings WHERE account = 'bpay:fees'")).toBe(97 * 290);
      } finally {
        ctx.close();
      }
    },
    60_000,
  );
});

describe('plan limits under concurrency', () => {
  test('four simultaneous cards for a free user who has one: exactly one more is added (limit 2)', async () => {
    const ctx = await forkTestApp(template);
    try {
      await addCard(ctx, free.cookie, CARDS_OK[0]);
      const results = await Promise.all(
        CARDS_OK.slice(1, 5).map((number) =>
          call(ctx, '/api/funding-sources', {
            method: 'POST',
            cookie: free.cookie,
            body: { cardNumber: number, expiryMonth: '12', expiryYear: '2030', cvv: '123', name: 'Ada Lovelace', type: 'credit_card', last4: number.slice(-4), brand: 'visa', defaultSplitPercentage: 50 },
          }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
      for (const r of results.filter((x) => x.status === 403)) expect(r.body.error.code).toBe('funding_source_limit_reached');
      expect((await call(ctx, '/api/funding-sources', { cookie: free.cookie })).body).toHaveLength(2);
      expect(await count(ctx, 'SELECT count(*) FROM funding_sources WHERE user_id = ?', [free.id])).toBe(2);
      // The verifications of the refused cards were released.
      expect(await count(ctx, "SELECT count(*) FROM sim_holds WHERE status = 'held'")).toBe(0);
    } finally {
      ctx.close();
    }
  });

  test('two simultaneous cards for a free user who has one: one 201, one 403', async () => {
    const ctx = await forkTestApp(template);
    try {
      await addCard(ctx, free.cookie, CARDS_OK[0]);
      const results = await Promise.all([
        addCard(ctx, free.cookie, CARDS_OK[1]).then(() => 201, (e: Error) => e.message),
        addCard(ctx, free.cookie, CARDS_OK[2]).then(() => 201, (e: Error) => e.message),
      ]);
      expect(results.filter((r) => r === 201)).toHaveLength(1);
      expect(results.find((r) => r !== 201)).toContain('403');
      expect(await count(ctx, 'SELECT count(*) FROM funding_sources WHERE user_id = ?', [free.id])).toBe(2);
    } finally {
      ctx.close();
    }
  });

  test('30 simultaneous bcards for a free user: exactly 10 are issued this month', async () => {
    const ctx = await forkTestApp(template);
    try {
      const source = await addCard(ctx, free.cookie, CARDS_OK[0]);
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(ctx, '/api/virtual-cards', {
            method: 'POST',
            cookie: free.cookie,
            body: { name: `Card ${i}`, balance: '10.00', fundingSources: [{ fundingSourceId: source.id, percentage: 100 }] },
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(results.filter((r) => r.status === 403 && r.body.error.code === 'plan_limit_reached')).toHaveLength(20);
      expect(await count(ctx, 'SELECT count(*) FROM collections')).toBe(10);
      expectInvariants(await moneyReport(ctx));
    } finally {
      ctx.close();
    }
  });
});

describe('one bcard, many requests', () => {
  async function oneBcard(ctx: TestContext) {
    const a = await addCard(ctx, premium.cookie, CARDS_OK[0]);
    const b = await addCard(ctx, premium.cookie, CARDS_OK[1]);
    const res = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: premium.cookie,
      body: { name: 'Shared', balance: '100.00', fundingSources: [{ fundingSourceId: a.id, percentage: 50 }, { fundingSourceId: b.id, percentage: 50 }] },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  }

  test('20 simultaneous cancels and the expiry sweep: refunded exactly once', async () => {
    const ctx = await forkTestApp(template);
    try {
      const card = await oneBcard(ctx);
      ctx.clock.advance(30 * 60_000);
      const [sweep, ...cancels] = await Promise.all([
        sweepMoney(ctx.deps),
        ...Array.from({ length: 20 }, () => call(ctx, `/api/virtual-cards/${card.id}/cancel`, { method: 'POST', cookie: premium.cookie })),
      ]);
      const won = cancels.filter((r) => r.status === 200).length + sweep.expired;
      expect(won).toBe(1);
      expect(cancels.filter((r) => r.status === 409 && r.body.error.code === 'bcard_not_active')).toHaveLength(20 - (1 - sweep.expired));
      expect(await count(ctx, 'SELECT count(*) FROM sim_refunds')).toBe(2);
      const report = await moneyReport(ctx);
      expectInvariants(report);
      expect(report.movementsByKind['bcard.refunded']).toBe(1);
      expect(report.sources.map((s) => s.available)).toEqual([1_000_000, 1_000_000]);
    } finally {
      ctx.close();
    }
  });

  test('20 simultaneous purchases with the same bcard: one is paid, the rest are refused', async () => {
    const ctx = await forkTestApp(template);
    try {
      const card = await oneBcard(ctx);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(ctx, '/api/process-payment', {
            method: 'POST',
            cookie: premium.cookie,
            body: { amount: `${20 + i}.00`, merchant: 'Acme', virtualCardId: card.id },
          }),
        ),
      );
      const paid = results.flatMap((r, i) => (r.status === 200 ? [i] : []));
      expect(paid).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.error.code === 'bcard_not_active')).toHaveLength(19);
      const spent = (20 + paid[0]!) * 100;
      expect(await count(ctx, 'SELECT spent_cents FROM bcards')).toBe(spent);
      expect(await count(ctx, "SELECT sum(amount_cents) FROM ledger_postings WHERE account = 'external:merchants'")).toBe(spent);
      const report = await moneyReport(ctx);
      expectInvariants(report);
      expect(report.movementsByKind).toEqual({ 'collection.captured': 1, 'bcard.spent': 1, 'bcard.remainder_refunded': 1 });
      // What left the cards: the purchase and the fee on it, nothing more (the remainder took its part of the fee back).
      expect(report.sources.reduce((a, s) => a + (1_000_000 - s.available), 0)).toBe(spent + 290 - Math.floor((290 * (10_000 - spent)) / 10_000));
    } finally {
      ctx.close();
    }
  });

  test('10 simultaneous requests with one Idempotency-Key: one collection, one charge, and the replay answers it', async () => {
    const ctx = await forkTestApp(template);
    try {
      const a = await addCard(ctx, premium.cookie, CARDS_OK[0]);
      const send = () =>
        call(ctx, '/api/virtual-cards', {
          method: 'POST',
          cookie: premium.cookie,
          headers: { 'idempotency-key': 'order-42' },
          body: { name: 'Once', balance: '100.00', fundingSources: [{ fundingSourceId: a.id, percentage: 100 }] },
        });
      const results = await Promise.all(Array.from({ length: 10 }, send));
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.error.code === 'idempotency_key_in_use')).toHaveLength(9);
      expect(await count(ctx, 'SELECT count(*) FROM collections')).toBe(1);
      expect(await count(ctx, 'SELECT available_cents FROM sim_cards s JOIN funding_sources f ON f.vendor_token = s.token')).toBe(1_000_000 - 10290);
      const replay = await send();
      expect(replay.status).toBe(201);
      expect(replay.headers.get(REPLAY_HEADER)).toBe('true');
      expect(replay.body).toEqual(created[0]!.body);
      expectInvariants(await moneyReport(ctx));
    } finally {
      ctx.close();
    }
  });
});

describe('a funding source removed while bcards are being made from it', () => {
  test('removal and bcards at once: if the removal succeeds, no collection recorded after it charges the card', async () => {
    const ctx = await forkTestApp(template);
    try {
      for (let round = 0; round < 6; round++) {
        const source = await addCard(ctx, premium.cookie, CARDS_OK[round % CARDS_OK.length]);
        const bcard = () =>
          call(ctx, '/api/virtual-cards', {
            method: 'POST',
            cookie: premium.cookie,
            body: { name: 'Race', balance: '5.00', fundingSources: [{ fundingSourceId: source.id, percentage: 100 }] },
          });
        const before = Array.from({ length: 4 }, bcard);
        const removal = call(ctx, `/api/funding-sources/${source.id}`, { method: 'DELETE', cookie: premium.cookie });
        const answers = await Promise.all([...before, ...Array.from({ length: 4 }, bcard)]);
        const removed = await removal;
        // Each request either made its bcard before the removal (which then refuses: the source is in use) or was
        // refused because the source is gone.
        for (const a of answers) expect([201, 404]).toContain(a.status);
        const charged = await count(
          ctx,
          `SELECT count(*) FROM collection_shares cs JOIN collections c ON c.id = cs.collection_id
            WHERE cs.funding_source_id = ? AND c.status != 'failed'`,
          [source.id],
        );
        if (removed.status === 200) expect(charged).toBe(0);
        else expect(charged).toBeGreaterThan(0);
      }
      expectInvariants(await moneyReport(ctx));
    } finally {
      ctx.close();
    }
  });
});
