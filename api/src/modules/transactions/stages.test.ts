import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, forkTestApp, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import {
  addBankAccount,
  addCard,
  BANK_OK,
  BANK_RETURNS_R01,
  CARD_DECLINES_CHARGES,
  createMerchant,
  makePremium,
  registerUser,
  type TestMerchant,
} from '../../../test-support/world';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { sweepBankDebits } from '../bcards/sweep';
import { TRANSACTION_FILTERS } from './filters';

/*
 * Issue 25: every stage of a bcard and of a share, reached through the real services (collect, spend at a merchant,
 * authorize, expire, cancel, bank debits settling and returned), as GET /api/transactions, GET /api/transactions/:id
 * and GET /api/virtual-cards answer them; the coarse status never says completed while the money is held unspent or
 * a bank debit can still come back; each status filter returns exactly the rows it names.
 */

const TX = '/api/transactions';
const TTL_MS = 30 * 60_000;

interface Stage {
  code: string;
  held: string | null;
  spent: string | null;
  returned: string | null;
  merchant: string | null;
}
interface Tx {
  id: string;
  status: string;
  stage: Stage;
  bankDebit: string | null;
  totalCharged: string;
  refunded: string;
}
interface Detail extends Tx {
  shares: Array<{ fundingSourceId: string; status: string; stage: string }>;
}

let template: TestContext;
let consumer: { cookie: string; id: string };
let card: string;
let card2: string;
let declining: string;
let bank: string;
let r01: string;
let shop: TestMerchant;

beforeAll(async () => {
  template = await makeTestApp();
  const c = await registerUser(template);
  const o = await registerUser(template);
  await makePremium(template, c.user.id);
  await makePremium(template, o.user.id);
  consumer = { cookie: c.cookie, id: c.user.id };
  card = (await addCard(template, c.cookie)).id;
  card2 = (await addCard(template, c.cookie, '5555555555554444')).id;
  declining = (await addCard(template, c.cookie, CARD_DECLINES_CHARGES)).id;
  bank = (await addBankAccount(template, c.cookie, BANK_OK)).id;
  r01 = (await addBankAccount(template, c.cookie, BANK_RETURNS_R01)).id;
  shop = await createMerchant(template, o.cookie, 'production', { businessName: 'Corner Books' });
});
afterAll(() => template.close());

async function withFork(fn: (ctx: TestContext) => Promise<void>) {
  const ctx = await forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()), rateLimits: false });
  try {
    await fn(ctx);
  } finally {
    ctx.close();
  }
}

async function bcard(ctx: TestContext, split: Array<[string, number]>, balance = '100.00') {
  const res = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: consumer.cookie,
    body: { name: 'Stage', balance, fundingSources: split.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })) },
  });
  return res;
}

async function issued(ctx: TestContext, split: Array<[string, number]>, balance = '100.00') {
  const res = await bcard(ctx, split, balance);
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  ctx.clock.advance(1000);
  return res.body as { id: string; transactionId: string };
}

/** Pays `cents` with the bcard at the shop; `manual` leaves it authorized until the shop captures. */
async function pay(ctx: TestContext, bcardId: string, cents: number, manual = false) {
  const d = await call(ctx, `/api/virtual-cards/${bcardId}/checkout-details`, { cookie: consumer.cookie });
  const pi = await merchantCall(ctx, shop.secretKey, '/payment_intents', {
    method: 'POST',
    body: { amount: cents, currency: 'usd', ...(manual ? { capture_method: 'manual' } : {}) },
  });
  const confirmed = await merchantCall(ctx, shop.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  expect(confirmed.body.status, confirmed.text).toBe(manual ? 'requires_capture' : 'succeeded');
  return pi.body.id as string;
}

const detail = async (ctx: TestContext, id: string) => {
  const res = await call(ctx, `${TX}/${id}`, { cookie: consumer.cookie });
  expect(res.status, res.text).toBe(200);
  return res.body as Detail;
};
const listed = async (ctx: TestContext, filter = 'all') => {
  const res = await call(ctx, `${TX}?status=${filter}&limit=100`, { cookie: consumer.cookie });
  expect(res.status, res.text).toBe(200);
  return res.body as Tx[];
};
const tile = async (ctx: TestContext, id: string) => {
  const res = await call(ctx, '/api/virtual-cards', { cookie: consumer.cookie });
  return (res.body as Array<{ id: string; stage: Stage; status: string }>).find((b) => b.id === id)!;
};
const shareStages = (d: Detail) => d.shares.map((s) => s.stage);

describe('bcard stages', () => {
  test('active: holds its amount; the transaction is pending, never completed; the tile says the same', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 60], [card2, 40]], '40.00');
      const d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'pending', bankDebit: null, stage: { code: 'active', held: '40.00', spent: null, returned: null, merchant: null } });
      expect(shareStages(d)).toEqual(['charged', 'charged']);
      expect((await tile(ctx, b.id)).stage).toEqual(d.stage);
    });
  });

  test('used at a merchant in full: used, the merchant named, completed', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 100]], '25.00');
      await pay(ctx, b.id, 2500);
      const d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'completed', stage: { code: 'used', spent: '25.00', merchant: 'Corner Books', held: null, returned: null } });
      expect(shareStages(d)).toEqual(['charged']);
    });
  });

  test('partly used: what was spent, and what went back; its shares charged with the rest returned', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 50], [card2, 50]], '100.00');
      await pay(ctx, b.id, 6000);
      const d = await detail(ctx, b.transactionId);
      expect(d.status).toBe('completed');
      expect(d.stage).toMatchObject({ code: 'partly_used', spent: '60.00', merchant: 'Corner Books' });
      // At least the unspent $40.00 came back (with its part of the fee when the fee is returned pro rata).
      expect(Number(d.stage.returned)).toBeGreaterThanOrEqual(40);
      expect(d.stage.returned).toBe(d.refunded);
      expect(shareStages(d)).toEqual(['partly_refunded', 'partly_refunded']);
    });
  });

  test('authorized by a merchant: held for it, pending, and active in the filter', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 100]], '30.00');
      await pay(ctx, b.id, 3000, true);
      const d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'pending', stage: { code: 'authorized', held: '30.00' } });
      expect((await listed(ctx, 'active')).map((t) => t.id)).toEqual([b.transactionId]);
      expect((await listed(ctx, 'completed')).map((t) => t.id)).toEqual([]);
    });
  });

  test('expired: expiring (pending) once its session ends, then expired with everything returned (refunded, never completed)', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 100]], '20.00');
      ctx.clock.advance(TTL_MS);
      const before = await detail(ctx, b.transactionId);
      expect(before).toMatchObject({ status: 'pending', stage: { code: 'expiring', held: null } });
      expect((await listed(ctx, 'active')).map((t) => t.id)).toEqual([]);
      await sweepMoney(ctx.deps);
      const d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'refunded', stage: { code: 'expired', returned: d.totalCharged } });
      expect(shareStages(d)).toEqual(['refunded']);
      expect((await tile(ctx, b.id)).stage.code).toBe('expired');
      expect((await listed(ctx, 'returned')).map((t) => t.id)).toEqual([b.transactionId]);
    });
  });

  test('canceled: everything returned, fee included', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 100]], '10.00');
      expect((await call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: consumer.cookie })).status).toBe(200);
      const d = await detail(ctx, b.transactionId);
      expect(d.status).toBe('refunded');
      expect(d.stage).toEqual({ code: 'canceled', held: null, spent: null, returned: d.totalCharged, merchant: null });
      expect(shareStages(d)).toEqual(['refunded']);
    });
  });

  test('not issued: a declined share, the other share released', async () => {
    await withFork(async (ctx) => {
      const res = await bcard(ctx, [[card, 50], [declining, 50]], '10.00');
      expect(res.status).toBe(402);
      const [t] = await listed(ctx, 'failed');
      const d = await detail(ctx, t!.id);
      expect(d).toMatchObject({ status: 'failed', stage: { code: 'not_issued' } });
      expect(shareStages(d).sort()).toEqual(['declined', 'released']);
    });
  });
});

describe('bank shares', () => {
  test('used while the debit settles: pending (never completed), the bank share bank_pending; charged and completed once it settles', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 50], [bank, 50]], '50.00');
      await pay(ctx, b.id, 5000);
      let d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'pending', bankDebit: 'pending', stage: { code: 'used' } });
      expect(shareStages(d)).toEqual(['charged', 'bank_pending']);
      expect((await listed(ctx, 'bank_pending')).map((t) => t.id)).toEqual([b.transactionId]);
      expect((await listed(ctx, 'pending')).map((t) => t.id)).toEqual([b.transactionId]);
      expect((await listed(ctx, 'completed')).map((t) => t.id)).toEqual([]);
      expect((await listed(ctx, 'used')).map((t) => t.id)).toEqual([b.transactionId]);

      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      expect(await sweepBankDebits(ctx.deps)).toBe(1);
      d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'completed', bankDebit: 'settled', stage: { code: 'used' } });
      expect(shareStages(d)).toEqual(['charged', 'charged']);
      expect((await listed(ctx, 'bank_pending')).map((t) => t.id)).toEqual([]);
      expect((await listed(ctx, 'completed')).map((t) => t.id)).toEqual([b.transactionId]);
    });
  });

  test('returned by the bank with the bcard unused: the share returned, the bcard canceled, the card share refunded', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 50], [r01, 50]], '50.00');
      expect((await detail(ctx, b.transactionId)).bankDebit).toBe('pending');
      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      await sweepBankDebits(ctx.deps);
      const d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ status: 'failed', bankDebit: 'returned', stage: { code: 'canceled' } });
      expect(shareStages(d)).toEqual(['refunded', 'returned']);
      expect((await listed(ctx, 'bank_returned')).map((t) => t.id)).toEqual([b.transactionId]);
    });
  });

  test('returned by the bank after the bcard was used: used, and returned by the bank', async () => {
    await withFork(async (ctx) => {
      const b = await issued(ctx, [[card, 50], [r01, 50]], '50.00');
      await pay(ctx, b.id, 5000);
      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      await sweepMoney(ctx.deps);
      const d = await detail(ctx, b.transactionId);
      expect(d).toMatchObject({ bankDebit: 'returned', stage: { code: 'used', merchant: 'Corner Books' } });
      expect(d.status).not.toBe('pending');
      expect(shareStages(d)).toEqual(['charged', 'returned']);
    });
  });
});

describe('status filters', () => {
  test('each filter returns exactly the rows its status or stage names, newest first, and pages keep to it', async () => {
    await withFork(async (ctx) => {
      const ids: Record<string, string> = {};
      ids.used = (await issued(ctx, [[card, 100]], '5.00')).transactionId;
      ctx.clock.advance(1000);
      const usedCard = (await call(ctx, `${TX}/${ids.used}`, { cookie: consumer.cookie })).body.virtualCardId as string;
      await pay(ctx, usedCard, 500);
      const canceled = await issued(ctx, [[card, 100]], '6.00');
      ids.returned = canceled.transactionId;
      await call(ctx, `/api/virtual-cards/${canceled.id}/cancel`, { method: 'POST', cookie: consumer.cookie });
      ctx.clock.advance(1000);
      const bankUsed = await issued(ctx, [[card, 50], [bank, 50]], '8.00');
      ids.bankPending = bankUsed.transactionId;
      await pay(ctx, bankUsed.id, 800);
      ctx.clock.advance(1000);
      const bad = await bcard(ctx, [[declining, 100]], '3.00');
      expect(bad.status).toBe(402);
      ctx.clock.advance(1000);
      ids.active = (await issued(ctx, [[card, 100]], '7.00')).transactionId;

      const all = await listed(ctx);
      ids.failed = all.find((t) => t.status === 'failed')!.id;
      expect(all).toHaveLength(5);
      const expected: Record<(typeof TRANSACTION_FILTERS)[number], string[]> = {
        all: all.map((t) => t.id),
        completed: [ids.used!],
        pending: [ids.active!, ids.bankPending!],
        failed: [ids.failed],
        active: [ids.active!],
        used: [ids.bankPending!, ids.used!],
        returned: [ids.returned!],
        bank_pending: [ids.bankPending!],
        bank_returned: [],
      };
      for (const f of TRANSACTION_FILTERS) {
        expect((await listed(ctx, f)).map((t) => t.id), f).toEqual(expected[f]);
        // Every row a filter returns says so in its status or stage.
        for (const t of await listed(ctx, f)) {
          if (f === 'completed' || f === 'pending' || f === 'failed') expect(t.status).toBe(f);
          if (f === 'active') expect(['active', 'authorized']).toContain(t.stage.code);
          if (f === 'used') expect(['used', 'partly_used']).toContain(t.stage.code);
          if (f === 'bank_pending') expect(t.bankDebit).toBe('pending');
        }
        // The same rows one at a time through the cursor.
        const paged: string[] = [];
        let cursor: string | null = null;
        do {
          const res: CallResult<Tx[]> = await call(ctx, `${TX}?status=${f}&limit=1${cursor ? `&cursor=${cursor}` : ''}`, { cookie: consumer.cookie });
          paged.push(...res.body.map((t) => t.id));
          cursor = res.headers.get('bpay-next-cursor');
        } while (cursor && paged.length < 10);
        expect(paged, f).toEqual(expected[f]);
      }
      // Unknown filters are refused naming the parameter; the CSV takes the same filters.
      const badFilter = await call(ctx, `${TX}?status=held_somewhere`, { cookie: consumer.cookie });
      expect(badFilter.status).toBe(400);
      expect(badFilter.body.error).toMatchObject({ code: 'validation_error', param: 'status' });
      const csv = await call(ctx, `${TX}/export.csv?status=bank_pending`, { cookie: consumer.cookie });
      expect(csv.text.trim().split('\r\n').slice(1).map((l) => l.split(',')[0])).toEqual([ids.bankPending]);
    });
  });
});
