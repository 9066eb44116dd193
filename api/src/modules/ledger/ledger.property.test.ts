import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { applyBps, formatDecimal, type Cents } from '@bpay/db/money';
import { sweepMoney } from '../../boot';
import { allocate } from '../../lib/split';
import { call, forkTestApp, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, CARD_DECLINES_CHARGES, CARD_OK, makePremium, registerUser } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { ledgerTotal } from './service';

/*
 * The ledger sums to zero after any sequence of what a user can do with money: add cards, collect a random split,
 * fail (a shortfall, a card that declines charges), spend a bcard, cancel it, let time pass and the sweep expire
 * it. A small model predicts every answer and every card's balance to the cent; after each sequence the money
 * invariants are checked against the database (api/test-support/money-invariants.ts, moneyViolations).
 */

const START = 1_000_000;
const TTL_MS = 30 * 60_000;
/** Premium's own fee, so this test also covers a rate other than the free plan's. */
const FEE_BPS = 190;
const MAX_SOURCES = 5;

type Op =
  | { op: 'addCard'; declining: boolean }
  | { op: 'collect'; amountCents: number; picks: number[]; weights: number[] }
  | { op: 'spend'; pick: number; permille: number }
  | { op: 'cancel'; pick: number }
  | { op: 'wait'; minutes: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('addCard' as const), declining: fc.boolean() }), weight: 2 },
  {
    arbitrary: fc.record({
      op: fc.constant('collect' as const),
      // Mostly affordable; sometimes more than any card holds (the shortfall path).
      amountCents: fc.oneof(
        // From the $1.00 minimum (MIN_BCARD_CENTS).
        { arbitrary: fc.integer({ min: 100, max: 80_000 }), weight: 4 },
        { arbitrary: fc.integer({ min: 900_000, max: 2_500_000 }), weight: 1 },
      ),
      picks: fc.array(fc.nat(MAX_SOURCES - 1), { minLength: 1, maxLength: 4 }),
      weights: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 4, maxLength: 4 }),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ op: fc.constant('spend' as const), pick: fc.nat(20), permille: fc.integer({ min: 1, max: 1000 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('cancel' as const), pick: fc.nat(20) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 40 }) }), weight: 2 },
);

interface ModelSource {
  id: string;
  declining: boolean;
  available: number;
}
interface ModelBcard {
  id: string;
  limit: number;
  shares: Array<{ source: ModelSource; amount: number }>;
  /** The fee's part the remainder took back when it was spent (0 until then). */
  feeBack: number;
  status: 'active' | 'used' | 'expired' | 'canceled';
  expiresAt: number;
}

let template: TestContext;
let cookie: string;

beforeAll(async () => {
  template = await makeTestApp();
  const u = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  cookie = u.cookie;
  await makePremium(template, u.user.id);
  // Every run starts with one ordinary card.
  await addCard(template, cookie, CARD_OK);
});
afterAll(() => template.close());

const money = (c: number) => formatDecimal(c as Cents);

function refundTo(b: ModelBcard, amounts: number[]) {
  b.shares.forEach((s, i) => (s.source.available += amounts[i] ?? 0));
}

async function run(ctx: TestContext, ops: Op[]) {
  const list = await call(ctx, '/api/funding-sources', { cookie });
  const sources: ModelSource[] = (list.body as Array<{ id: string }>).map((s) => ({ id: s.id, declining: false, available: START }));
  const bcards: ModelBcard[] = [];
  const sweep = async () => {
    const now = ctx.clock.now().getTime();
    const due = bcards.filter((b) => b.status === 'active' && b.expiresAt <= now);
    expect(await sweepMoney(ctx.deps)).toEqual({ recovered: 0, expired: due.length, canceled: 0, bankDebits: 0 });
    for (const b of due) {
      b.status = 'expired';
      refundTo(b, b.shares.map((s) => s.amount));
    }
  };

  for (const step of ops) {
    switch (step.op) {
      case 'addCard': {
        if (sources.length >= MAX_SOURCES) break;
        const s = await addCard(ctx, cookie, step.declining ? CARD_DECLINES_CHARGES : CARD_OK);
        sources.push({ id: s.id, declining: step.declining, available: START });
        break;
      }
      case 'collect': {
        const chosen = [...new Set(step.picks.map((p) => p % sources.length))].map((i) => sources[i]!);
        const bps = allocate(10_000, step.weights.slice(0, chosen.length));
        const fee = applyBps(step.amountCents as Cents, FEE_BPS);
        const amounts = allocate(step.amountCents + fee, bps);
        // Shares that round to nothing are left out; the rest are held in order until one fails.
        const shares = chosen.map((source, i) => ({ source, amount: amounts[i]! })).filter((s) => s.amount > 0);
        const failing = shares.find((s) => s.source.declining || s.source.available < s.amount);
        const res = await call(ctx, '/api/virtual-cards', {
          method: 'POST',
          cookie,
          body: {
            name: 'Prop',
            balance: money(step.amountCents),
            fundingSources: chosen.map((s, i) => ({ fundingSourceId: s.id, percentage: bps[i]! / 100 })),
          },
        });
        if (failing) {
          expect(res.status).toBe(402);
          expect(res.body.error.code).toBe(failing.source.declining ? 'card_declined' : 'insufficient_funds');
          break;
        }
        expect(res.status).toBe(201);
        expect(res.body.fundingSources.map((s: { amount: string }) => s.amount)).toEqual(shares.map((s) => money(s.amount)));
        for (const s of shares) s.source.available -= s.amount;
        bcards.push({ id: res.body.id, limit: step.amountCents, shares, feeBack: 0, status: 'active', expiresAt: ctx.clock.now().getTime() + TTL_MS });
        break;
      }
      case 'spend': {
        const b = bcards[step.pick % Math.max(bcards.length, 1)];
        if (!b) break;
        const amount = Math.max(1, Math.floor((b.limit * step.permille) / 1000));
        const res = await call(ctx, '/api/process-payment', {
          method: 'POST',
          cookie,
          body: { amount: money(amount), merchant: 'Shop', virtualCardId: b.id },
        });
        if (b.status !== 'active') {
          expect(res.status).toBe(409);
          break;
        }
        expect(res.status).toBe(200);
        b.status = 'used';
        const remainder = b.limit - amount;
        // The remainder goes back with the fee's pro-rata part of it, rounded down, as a merchant's refund gives it.
        const fee = b.shares.reduce((x, s) => x + s.amount, 0) - b.limit;
        b.feeBack = Math.floor((fee * remainder) / b.limit);
        if (remainder > 0) refundTo(b, allocate(remainder + b.feeBack, b.shares.map((s) => s.amount)));
        break;
      }
      case 'cancel': {
        const b = bcards[step.pick % Math.max(bcards.length, 1)];
        if (!b) break;
        const res = await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie });
        if (b.status !== 'active') {
          expect(res.status).toBe(409);
          break;
        }
        expect(res.status).toBe(200);
        b.status = 'canceled';
        refundTo(b, b.shares.map((s) => s.amount));
        break;
      }
      case 'wait': {
        ctx.clock.advance(step.minutes * 60_000);
        await sweep();
        break;
      }
    }
  }

  // The model and the processor agree on every card, to the cent; the API shows the same.
  const shown = await call(ctx, '/api/funding-sources', { cookie });
  expect(Object.fromEntries((shown.body as Array<{ id: string; balance: string }>).map((s) => [s.id, s.balance]))).toEqual(
    Object.fromEntries(sources.map((s) => [s.id, money(s.available)])),
  );
  const cards = await call(ctx, '/api/virtual-cards', { cookie });
  expect(Object.fromEntries((cards.body as Array<{ id: string; status: string }>).map((b) => [b.id, b.status]))).toEqual(
    Object.fromEntries(bcards.map((b) => [b.id, b.status])),
  );

  expect(await ledgerTotal(ctx.deps.db)).toBe(0);
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.badMovements).toEqual([]);
  expect(report.heldHolds).toBe(0);
  expect(report.unsettledCollections).toBe(0);
  for (const s of report.sources) {
    expect(s.inPendingCollection).toBe(false);
    expect(s.available).toBe(START + s.ledger);
  }
  for (const b of report.bcards) {
    expect(b.ledger).toBeGreaterThanOrEqual(0);
    if (b.status === 'expired' || b.status === 'canceled' || b.status === 'used') expect(b.ledger).toBe(0);
  }
  // bpay keeps the fee of every bcard that was not given back whole, less what a used one's remainder took back.
  const kept = bcards.filter((b) => b.status === 'active' || b.status === 'used');
  const fees = kept.reduce((a, b) => a + b.shares.reduce((x, s) => x + s.amount, 0) - b.limit - b.feeBack, 0);
  const [feeRow] = (await ctx.handle.client.execute("SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings WHERE account = 'bpay:fees'")).rows;
  expect(Number(feeRow?.s)).toBe(fees);
}

describe('ledger', () => {
  test(
    'sums to zero, movement by movement, and agrees with the processor after any sequence of operations',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
          const ctx = await forkTestApp(template);
          try {
            await run(ctx, ops);
          } finally {
            ctx.close();
          }
        }),
        { numRuns: 30 },
      );
    },
    60_000,
  );
});
