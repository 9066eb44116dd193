/* Shared set-up for the hostile refunds tests in api/src/modules/refunds/hostile/ (the world of refunds.test.ts, extended). */
import { expect } from 'bun:test';
import { TestClock } from '../../src/lib/clock';
import { call, forkTestApp, interceptVendor, makeTestApp, merchantCall, type TestContext, type VendorMethod } from '../app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser, type TestMerchant } from '../world';
import { moneyReport, moneyViolations } from '../money-invariants';

export const FEE_BPS = 250;

export interface Prepared {
  template: TestContext;
  consumer: { cookie: string; id: string };
  consumer2: { cookie: string; id: string };
  ownerCookie: string;
  ownerId: string;
  sources: string[];
  live: TestMerchant;
  sandbox: TestMerchant;
  other: TestMerchant;
}

export async function prepare(): Promise<Prepared> {
  const template = await makeTestApp();
  const c = await registerUser(template);
  const c2 = await registerUser(template);
  const o = await registerUser(template);
  const x = await registerUser(template);
  await makePremium(template, c.user.id, FEE_BPS);
  await makePremium(template, c2.user.id);
  await makePremium(template, o.user.id);
  await makePremium(template, x.user.id);
  const sources: string[] = [];
  for (const n of CARDS_OK.slice(0, 3)) sources.push((await addCard(template, c.cookie, n)).id);
  await addCard(template, c2.cookie, CARDS_OK[3]);
  const live = await createMerchant(template, o.cookie, 'production');
  const sandbox = await createMerchant(template, o.cookie, 'sandbox');
  const other = await createMerchant(template, x.cookie, 'production');
  return {
    template,
    consumer: { cookie: c.cookie, id: c.user.id },
    consumer2: { cookie: c2.cookie, id: c2.user.id },
    ownerCookie: o.cookie,
    ownerId: o.user.id,
    sources,
    live,
    sandbox,
    other,
  };
}

export type Fault = <T>(method: VendorMethod, args: unknown[], run: () => Promise<T>) => Promise<T>;

export async function world(p: Prepared, opts: { local?: boolean } = { local: true }) {
  const hook: { fault: Fault | null } = { fault: null };
  const ctx = await forkTestApp(p.template, {
    clock: new TestClock(p.template.clock.now().getTime()),
    rateLimits: false,
    wrapVendor: (v) => interceptVendor(v, (m, a, run) => (hook.fault ? hook.fault(m, a, run) : run()), opts),
  });
  return { ctx, hook };
}

/** A live intent of `dollars` paid by a bcard the consumer funds at `percentages`; `capture` = partial manual capture. */
export async function paidIntent(p: Prepared, ctx: TestContext, dollars: string, percentages: number[], capture?: number, balance?: string) {
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: p.consumer.cookie,
    body: { name: 'Shoes', balance: balance ?? dollars, fundingSources: percentages.map((pc, i) => ({ fundingSourceId: p.sources[i], percentage: pc })) },
  });
  expect(made.status, made.text).toBe(201);
  const details = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: p.consumer.cookie });
  const amount = Math.round(Number(dollars) * 100);
  const pi = await merchantCall(ctx, p.live.secretKey, '/payment_intents', {
    method: 'POST',
    body: { amount, currency: 'usd', ...(capture ? { capture_method: 'manual' } : {}) },
  });
  const card = { number: details.body.cardNumber, exp_month: details.body.expiryMonth, exp_year: details.body.expiryYear, cvc: details.body.cvv };
  const confirmed = await merchantCall(ctx, p.live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  if (capture) {
    const captured = await merchantCall(ctx, p.live.secretKey, `/payment_intents/${pi.body.id}/capture`, { method: 'POST', body: { amount_to_capture: capture } });
    expect(captured.body.status, captured.text).toBe('succeeded');
  }
  return { id: pi.body.id as string, bcardId: made.body.id as string };
}

export const refund = (ctx: TestContext, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  merchantCall(ctx, key, '/refunds', { method: 'POST', body, headers });

export async function expectMoneyHolds(ctx: TestContext) {
  const report = await moneyReport(ctx);
  expect(moneyViolations(report)).toEqual([]);
  expect(report.ledgerTotal).toBe(0);
}

export async function q(ctx: TestContext, sql: string, args: (string | number)[] = []) {
  return (await ctx.handle.client.execute({ sql, args })).rows;
}
