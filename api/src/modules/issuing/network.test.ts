import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, forkTestApp, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { addCard, bcardCard, CARDS_OK, createMerchant, registerUser, type TestCardDetails } from '../../../test-support/world';
import { ledgerBalance, moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { accounts } from '../ledger/service';

/*
 * The simulated card network (issue 24): a shop's processor charges a bcard by its number, expiry and CVC, and bpay
 * as the issuer approves or declines by the one decision function. Single use holds under parallel authorizations,
 * what the purchase left goes back pro rata, three wrong CVCs or expiries close the card, and bad input changes nothing.
 */

let template: TestContext;
let ada: { cookie: string; id: string };
let sources: { id: string }[];

beforeAll(async () => {
  template = await makeTestApp();
  const a = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  ada = { cookie: a.cookie, id: a.user.id };
  sources = [await addCard(template, ada.cookie, CARDS_OK[0]), await addCard(template, ada.cookie, CARDS_OK[2])];
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

/** A $50.00 bcard split 60/40 over Ada's two cards, with its full details. */
async function splitBcard(ctx: TestContext, balance = '50.00') {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: ada.cookie,
    body: {
      name: 'Shoes',
      balance,
      fundingSources: [
        { fundingSourceId: sources[0]!.id, percentage: 60 },
        { fundingSourceId: sources[1]!.id, percentage: 40 },
      ],
    },
  });
  expect(made.status).toBe(201);
  const details = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: ada.cookie });
  const card: TestCardDetails = { number: details.body.cardNumber, exp_month: details.body.expiryMonth, exp_year: details.body.expiryYear, cvc: details.body.cvv };
  return { id: made.body.id as string, card };
}

function authorize(ctx: TestContext, card: TestCardDetails, amount: number, over: Record<string, unknown> = {}, ip?: string) {
  return call(ctx, '/api/simulator/authorizations', {
    method: 'POST',
    origin: null,
    ip,
    body: {
      card_number: card.number,
      exp_month: card.exp_month,
      exp_year: card.exp_year,
      cvc: card.cvc,
      amount,
      currency: 'usd',
      merchant: { name: 'Corner Shoes', url: 'https://www.corner-shoes.example/checkout', city: 'Springfield', category: 'shoe_stores' },
      ...over,
    },
  });
}

const bcardOf = async (ctx: TestContext, id: string) => {
  const list = await call(ctx, '/api/virtual-cards', { cookie: ada.cookie });
  return (list.body as Array<Record<string, unknown>>).find((b) => b.id === id)!;
};

async function expectMoneyIntact(ctx: TestContext) {
  expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
}

describe('POST /api/simulator/authorizations', () => {
  test('approves a spend below the amount: the card is used and locked to the shop, the rest goes back 60/40', () =>
    withFork(async (ctx) => {
      const { id, card } = await splitBcard(ctx);
      const before = [await ledgerBalance(ctx, accounts.fundingSource(sources[0]!.id)), await ledgerBalance(ctx, accounts.fundingSource(sources[1]!.id))];
      const res = await authorize(ctx, card, 4000);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'issuing.authorization', approved: true, amount: 4000, currency: 'usd', status: 'closed' });
      expect(res.body.id).toMatch(/^iauth_/);
      const b = await bcardOf(ctx, id);
      expect(b).toMatchObject({ status: 'used', balance: '0.00', lockedDomain: 'corner-shoes.example', closedReason: null });
      // $10.00 not spent goes back by the split with its part of the fee (issue 25: floor(fee × 10 / 50) = $0.29):
      // $10.29 as $6.17 and $4.12.
      const after = [await ledgerBalance(ctx, accounts.fundingSource(sources[0]!.id)), await ledgerBalance(ctx, accounts.fundingSource(sources[1]!.id))];
      expect([after[0]! - before[0]!, after[1]! - before[1]!]).toEqual([617, 412]);
      expect(await ledgerBalance(ctx, accounts.externalMerchants)).toBe(4000);
      // The consumer's Transactions list shows the spend at that shop.
      const tx = await call(ctx, '/api/transactions', { cookie: ada.cookie });
      const row = (tx.body.transactions ?? tx.body) as Array<Record<string, string>>;
      const spend = row.find((t) => t.virtualCardId === id)!;
      expect(spend.merchant).toBe('Corner Shoes');
      expect(spend.description).toContain('Springfield');
      expect(spend.refunded).toBe('10.29');
      // The authorization is recorded with the merchant as the network gave it; no card number is stored.
      const [auth] = await ctx.deps.db.select().from(schema.issuerAuthorizations).where(eq(schema.issuerAuthorizations.bcardId, id));
      expect(auth).toMatchObject({ decision: 'approved', merchantName: 'Corner Shoes', merchantCity: 'Springfield', merchantCategory: 'shoe_stores', merchantDomain: 'corner-shoes.example', capturedCents: 4000 });
      expect(JSON.stringify(auth)).not.toContain(card.number);
      await expectMoneyIntact(ctx);
    }));

  test('single use: a second authorization is declined already_used, and of parallel ones exactly one is approved', () =>
    withFork(async (ctx) => {
      const first = await splitBcard(ctx);
      expect((await authorize(ctx, first.card, 1000)).status).toBe(201);
      const again = await authorize(ctx, first.card, 1000);
      expect(again.status).toBe(402);
      expect(again.body.error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'already_used' });

      const { id, card } = await splitBcard(ctx);
      const results = await Promise.all(Array.from({ length: 12 }, () => authorize(ctx, card, 2500)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 402).every((r) => r.body.error.decline_code === 'already_used')).toBe(true);
      expect(await bcardOf(ctx, id)).toMatchObject({ status: 'used' });
      expect(await ledgerBalance(ctx, accounts.externalMerchants)).toBe(1000 + 2500);
      await expectMoneyIntact(ctx);
    }));

  test('declines change nothing: unknown number, amount above the card, another currency, wrong expiry', () =>
    withFork(async (ctx) => {
      const { id, card } = await splitBcard(ctx);
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ card_number: '4000 0000 0000 0002' }, 1000, 'incorrect_number'],
        [{}, 5001, 'insufficient_funds'],
        [{ currency: 'eur' }, 1000, 'currency_mismatch'],
        [{ exp_year: card.exp_year + 1 }, 1000, 'incorrect_expiry'],
      ];
      for (const [over, amount, code] of cases) {
        const res = await authorize(ctx, card, amount, over);
        expect(res.status).toBe(402);
        expect(res.body.error.decline_code).toBe(code);
        expect(res.body.error.message.length).toBeGreaterThan(10);
      }
      expect(await bcardOf(ctx, id)).toMatchObject({ status: 'active', balance: '50.00' });
      expect(await ledgerBalance(ctx, accounts.externalMerchants)).toBe(0);
      // The card still works for the right details afterwards (one wrong expiry is below the limit).
      expect((await authorize(ctx, card, 5000)).status).toBe(201);
      await expectMoneyIntact(ctx);
    }));

  test('a wrong CVC at a bpay merchant counts too: the third closes the card; a site-locked card never pays there', () =>
    withFork(async (ctx) => {
      const owner = await registerUser(ctx, { firstName: 'Mal', lastName: 'Lory' });
      const merchant = await createMerchant(ctx, owner.cookie, 'production');
      const { id, card } = await splitBcard(ctx);
      const wrong = card.cvc === '999' ? '998' : '999';
      const confirm = async (cvc: string) => {
        const pi = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } });
        return merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
          method: 'POST',
          body: { payment_method_data: { type: 'card', card: { number: card.number, exp_month: card.exp_month, exp_year: card.exp_year, cvc } } },
        });
      };
      for (let i = 0; i < 3; i++) expect((await confirm(wrong)).status).toBe(402);
      expect(await bcardOf(ctx, id)).toMatchObject({ status: 'canceled', closedReason: 'too_many_incorrect_attempts' });
      expect((await confirm(card.cvc)).status).toBe(402);

      const locked = await splitBcard(ctx);
      await ctx.deps.db.update(schema.bcards).set({ lockedDomain: 'shop.example' }).where(eq(schema.bcards.id, locked.id));
      const pi = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } });
      const res = await merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
        method: 'POST',
        body: { payment_method_data: { type: 'card', card: { number: locked.card.number, exp_month: locked.card.exp_month, exp_year: locked.card.exp_year, cvc: locked.card.cvc } } },
      });
      expect(res.status).toBe(402);
      expect(res.body.error.decline_code).toBe('merchant_not_allowed');
      expect(await bcardOf(ctx, locked.id)).toMatchObject({ status: 'active' });
      await expectMoneyIntact(ctx);
    }));

  test('three wrong CVCs or expiries close the card, refund its sources and tell its owner why', () =>
    withFork(async (ctx) => {
      const { id, card } = await splitBcard(ctx);
      const wrong = card.cvc === '999' ? '998' : '999';
      expect((await authorize(ctx, card, 1000, { cvc: wrong })).body.error.decline_code).toBe('incorrect_cvc');
      expect((await authorize(ctx, card, 1000, { exp_month: (card.exp_month % 12) + 1 })).body.error.decline_code).toBe('incorrect_expiry');
      const third = await authorize(ctx, card, 1000, { cvc: wrong });
      expect(third.body.error.decline_code).toBe('incorrect_cvc');
      expect(third.body.error.message).toContain('closed');
      // Now even the right details are refused: the card is closed.
      const right = await authorize(ctx, card, 1000);
      expect(right.status).toBe(402);
      expect(right.body.error.decline_code).toBe('card_inactive');
      expect(await bcardOf(ctx, id)).toMatchObject({ status: 'canceled', closedReason: 'too_many_incorrect_attempts', balance: '0.00' });
      expect(await ledgerBalance(ctx, accounts.externalMerchants)).toBe(0);
      await expectMoneyIntact(ctx);
    }));

  test('parallel wrong CVCs each count: the card closes exactly once', () =>
    withFork(async (ctx) => {
      const { id, card } = await splitBcard(ctx);
      const wrong = card.cvc === '111' ? '112' : '111';
      const res = await Promise.all(Array.from({ length: 6 }, () => authorize(ctx, card, 1000, { cvc: wrong })));
      expect(res.every((r) => r.status === 402)).toBe(true);
      expect(await bcardOf(ctx, id)).toMatchObject({ status: 'canceled', closedReason: 'too_many_incorrect_attempts' });
      const [row] = await ctx.deps.db.select().from(schema.bcards).where(eq(schema.bcards.id, id));
      // Every guess read before the third was counted counts; the one that reached three closed the card, once.
      expect(row!.badAuthAttempts).toBeGreaterThanOrEqual(3);
      expect((await moneyReport(ctx)).movementsByKind['bcard.refunded']).toBe(1);
      await expectMoneyIntact(ctx);
    }));

  test('a bcard made for a site is charged only there; a checkout-widget bcard never through the network', () =>
    withFork(async (ctx) => {
      const { id, card } = await splitBcard(ctx);
      await ctx.deps.db.update(schema.bcards).set({ lockedDomain: 'shop.example' }).where(eq(schema.bcards.id, id));
      const elsewhere = await authorize(ctx, card, 1000, { merchant: { name: 'Other', url: 'https://evil.example/pay' } });
      expect(elsewhere.body.error.decline_code).toBe('merchant_mismatch');
      const there = await authorize(ctx, card, 1000, { merchant: { name: 'Shop', url: 'https://checkout.shop.example/pay' } });
      expect(there.status).toBe(201);

      const widget = await splitBcard(ctx);
      await ctx.deps.db.update(schema.bcards).set({ lockedMerchantId: 'mer_somebody' }).where(eq(schema.bcards.id, widget.id));
      expect((await authorize(ctx, widget.card, 1000)).body.error.decline_code).toBe('merchant_mismatch');
      await expectMoneyIntact(ctx);
    }));

  test('an expired bcard is declined expired', () =>
    withFork(async (ctx) => {
      const { card } = await splitBcard(ctx);
      ctx.clock.advance(31 * 60_000);
      expect((await authorize(ctx, card, 1000)).body.error.decline_code).toBe('expired');
    }));

  test('bad input is a clear 400 that changes nothing', () =>
    withFork(async (ctx) => {
      const { id, card } = await splitBcard(ctx);
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ card_number: 'abcd-efgh-ijkl' }, 'card_number'],
        [{ cvc: '12' }, 'cvc'],
        [{ amount: 10.5 }, 'amount'],
        [{ amount: -1 }, 'amount'],
        [{ currency: 'dollars' }, 'currency'],
        [{ merchant: { name: 'X', url: 'not a url at all' } }, 'merchant.url'],
        [{ merchant: { name: '', url: 'https://a.example' } }, 'merchant.name'],
        [{ merchant: { name: '   ', url: 'https://a.example' } }, 'merchant.name'],
        [{ merchant: { name: 'X', url: 'https://a.example', surprise: 1 } }, 'merchant.surprise'],
        [{ exp_month: 13 }, 'exp_month'],
      ];
      for (const [over, param] of bad) {
        const res = await authorize(ctx, card, 1000, over);
        expect(res.status).toBe(400);
        expect(res.body.error.param).toBe(param);
      }
      const extra = await authorize(ctx, card, 1000, { surprise: true });
      expect(extra.status).toBe(400);
      expect(await bcardOf(ctx, id)).toMatchObject({ status: 'active', balance: '50.00' });
    }));

  test('card testing is limited per card number', () =>
    withFork(async (ctx) => {
      const { card } = await bcardCard(ctx, ada.cookie, sources[0]!.id, '20.00');
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await authorize(ctx, card, 99_999, {}, `198.51.100.${i}`)).status);
      expect(statuses.slice(0, 10).every((s) => s === 402)).toBe(true);
      expect(statuses[10]).toBe(429);
    }));

  test('card testing: wrong card details from one address are limited, so walking numbers stops early', () =>
    withFork(async (ctx) => {
      const { card } = await bcardCard(ctx, ada.cookie, sources[0]!.id, '20.00');
      const ip = '192.0.2.77';
      const codes: string[] = [];
      for (let i = 0; i < 21; i++) {
        // Each a different (Luhn-invalid is fine: the network only looks it up) number, so the per-card limit never bites.
        const res = await authorize(ctx, { ...card, number: `4000${String(100000000000 + i)}` }, 1000, {}, ip);
        codes.push(res.status === 429 ? '429' : res.body.error.decline_code);
      }
      expect(codes.slice(0, 20).every((c) => c === 'incorrect_number')).toBe(true);
      expect(codes[20]).toBe('429');
      // Even the right details from that address wait: it has shown what it is doing.
      const right = await authorize(ctx, card, 1000, {}, ip);
      expect(right.status).toBe(429);
      expect(right.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      // Another address is not held back.
      expect((await authorize(ctx, card, 1000, {}, '192.0.2.78')).status).toBe(201);
    }));

  test('is not there when the install uses Stripe', async () => {
    const ctx = await makeTestApp({ wrapVendor: (v) => ({ ...v, name: 'stripe' }) });
    try {
      const res = await authorize(ctx, { number: '4242424242424242', exp_month: 1, exp_year: 2030, cvc: '123' }, 100);
      expect(res.status).toBe(404);
    } finally {
      ctx.close();
    }
  });
});
