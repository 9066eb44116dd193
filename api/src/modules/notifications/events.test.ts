import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { totp } from '../../lib/totp';
import { VendorDeclineError, VendorUnavailableError } from '../../vendors/types';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { call, forkTestApp, interceptVendor, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import {
  addBankAccount,
  addCard,
  BANK_OK,
  BANK_RETURNS_R01,
  CARD_DECLINES_CHARGES,
  CARDS_OK,
  createMerchant,
  login,
  makePremium,
  registerUser,
  type TestCardDetails,
  type TestMerchant,
} from '../../../test-support/world';
import { submitKyc } from '../../../test-support/modules/kyc';
import { applyKycDecision } from '../kyc/service';
import { DECLINE_NOTICE_WINDOW_MS } from '../bcards/notices';
import { sweepBankDebits } from '../bcards/sweep';
import { RENEWAL_GRACE_MS, RENEWAL_RETRY_MS } from '../subscription/billing';
import { renewSubscriptions } from '../subscription/renewals';
import { mailedText } from '../../../test-support/mailbox';
import type { NoticeKind } from '@bpay/db';
import { hasOwnMail } from './kinds';
import { wantsMail } from './preferences';
import { noticeText } from './texts';

/*
 * Every event of issue 25's notices, driven through the real routes and services: each writes exactly one notice of
 * its kind, with its facts, for its user and nobody else, in the transaction of its change. A retried request (the
 * same Idempotency-Key), a replayed Stripe event (stripe-events.test.ts beside), the recovery sweep finishing a step,
 * a second sweep and parallel requests write no second one; a change that fails writes none.
 */

type Facts = Record<string, unknown>;

/** The kinds of the user's notices, oldest first. */
async function kinds(ctx: TestContext, userId: string): Promise<string[]> {
  const rows = (await ctx.handle.client.execute({ sql: 'SELECT kind FROM notifications WHERE user_id = ? ORDER BY seq', args: [userId] })).rows;
  return rows.map((r) => String(r.kind));
}
/** The facts of the user's notices of one kind, oldest first. */
async function facts(ctx: TestContext, userId: string, kind: string): Promise<Facts[]> {
  const rows = (
    await ctx.handle.client.execute({ sql: 'SELECT params FROM notifications WHERE user_id = ? AND kind = ? ORDER BY seq', args: [userId, kind] })
  ).rows;
  return rows.map((r) => JSON.parse(String(r.params)) as Facts);
}
/** Every notice of the database, by kind, for "nothing else was told". */
async function allKinds(ctx: TestContext): Promise<string[]> {
  return (await ctx.handle.client.execute('SELECT kind FROM notifications ORDER BY seq')).rows.map((r) => String(r.kind));
}

let template: TestContext;
let ada: { cookie: string; id: string; email: string; password: string };
let eve: { cookie: string; id: string };
let owner: { cookie: string; id: string };
let sources: Array<{ id: string; last4: string; name: string }>;
let bank: { id: string; last4: string; name: string };
let r01: { id: string; last4: string; name: string };
let live: TestMerchant;
let sandbox: TestMerchant;

beforeAll(async () => {
  // Users are registered once (argon2 is slow on purpose); each test runs on its own copy of this database.
  template = await makeTestApp();
  // Ada signed up in Arabic, Eve and Oscar in English: every notice's mail is checked in its reader's language.
  const a = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace', language: 'ar' });
  const e = await registerUser(template, { firstName: 'Eve', lastName: 'Example' });
  const o = await registerUser(template, { firstName: 'Oscar', lastName: 'Owner' });
  ada = { cookie: a.cookie, id: a.user.id, email: a.email, password: a.password };
  eve = { cookie: e.cookie, id: e.user.id };
  owner = { cookie: o.cookie, id: o.user.id };
  await makePremium(template, ada.id);
  await makePremium(template, owner.id);
  sources = [await addCard(template, ada.cookie, CARDS_OK[0]), await addCard(template, ada.cookie, CARDS_OK[2])];
  bank = await addBankAccount(template, ada.cookie, BANK_OK);
  r01 = await addBankAccount(template, ada.cookie, BANK_RETURNS_R01);
  await addCard(template, eve.cookie, CARDS_OK[1], { name: 'Eve Example' });
  live = await createMerchant(template, owner.cookie, 'production');
  sandbox = await createMerchant(template, owner.cookie, 'sandbox');
  // Nothing above is an event with a notice (registering signs in without a sign-in notice).
  expect(await allKinds(template)).toEqual([]);
});
afterAll(() => template.close());

/** The mail a module writes itself for a kind it tells (kinds.ts OWN_MAIL_KINDS), by outbox kind. */
const OWN_MAIL: Partial<Record<NoticeKind, string>> = { sign_in: 'sign_in_notice', plan_charged: 'plan_receipt', plan_renewal_failed: 'plan_notice' };

/**
 * Every notice of the test's database reached its reader by mail exactly when they want it, once, in their language:
 * a notice mail (kind 'notice') whose subject is the notice's title in the user's language, and an HTML document in
 * that language (Arabic: right to left); a kind whose module writes its own mail (the plan receipt, the plan notice,
 * the sign-in notice) has as many of those, in that language, as it has notices. No notice mail is left over.
 */
async function expectMailsOfNotices(ctx: TestContext): Promise<void> {
  const q = async (sql: string, args: unknown[] = []) => (await ctx.handle.client.execute({ sql, args: args as never })).rows;
  const notices = await q(
    `SELECT n.user_id, n.kind, n.params, u.language, u.notice_email_prefs AS prefs, u.login_notifications AS ln
       FROM notifications n JOIN users u ON u.id = n.user_id ORDER BY n.seq`,
  );
  const mails = await q("SELECT user_id, kind, subject, html_body FROM email_outbox WHERE kind IN ('notice', 'sign_in_notice', 'plan_receipt', 'plan_notice')");
  const left = mails.map((m) => ({ user: String(m.user_id), kind: String(m.kind), subject: String(m.subject), html: String(m.html_body ?? '') }));
  const ownExpected = new Map<string, number>();
  for (const n of notices) {
    const kind = String(n.kind) as NoticeKind;
    const lang = n.language === 'ar' ? 'ar' : 'en';
    const prefs = n.prefs === null ? null : (JSON.parse(String(n.prefs)) as Record<string, boolean>);
    if (!wantsMail(kind, prefs, Number(n.ln) === 1)) continue;
    const head = `<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}">`;
    if (hasOwnMail(kind)) {
      const k = `${String(n.user_id)}|${OWN_MAIL[kind]}|${lang}`;
      ownExpected.set(k, (ownExpected.get(k) ?? 0) + 1);
      continue;
    }
    const title = noticeText(lang, kind, JSON.parse(String(n.params)) as never).title;
    const at = left.findIndex((m) => m.user === String(n.user_id) && m.kind === 'notice' && m.subject === title);
    expect(at, `a ${lang} mail of the ${kind} notice titled "${title}"`).toBeGreaterThanOrEqual(0);
    expect(left[at]!.html, `the ${kind} mail is a ${lang} document`).toContain(head);
    left.splice(at, 1);
  }
  for (const [k, n] of ownExpected) {
    const [user, kind, lang] = k.split('|');
    const own = left.filter((m) => m.user === user && m.kind === kind);
    expect(own.length, `${kind} mails of ${user}`).toBe(n);
    for (const m of own) expect(m.html, `the ${kind} mail is a ${lang} document`).toContain(`<html lang="${lang}"`);
  }
  expect(left.filter((m) => m.kind === 'notice'), 'notice mails with no notice').toEqual([]);
}

async function withFork(fn: (ctx: TestContext) => Promise<void>): Promise<void> {
  const ctx = await forkTestApp(template, { clock: new TestClock(template.clock.now().getTime()) });
  try {
    await fn(ctx);
    await expectMailsOfNotices(ctx);
  } finally {
    ctx.close();
  }
}

interface BcardMade {
  id: string;
  transactionId: string;
  name: string;
  amount: string;
  fundingSources: Array<{ name: string; last4: string; amount: string }>;
}

/** POST /api/virtual-cards for Ada: `balance` split 60/40 over her two cards, or over `split`. */
async function newBcard(ctx: TestContext, opts: { balance?: string; split?: Array<[string, number]>; key?: string; name?: string } = {}) {
  return call<BcardMade>(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: ada.cookie,
    headers: opts.key ? { 'idempotency-key': opts.key } : {},
    body: {
      name: opts.name ?? 'Shoes',
      balance: opts.balance ?? '50.00',
      fundingSources: (opts.split ?? [[sources[0]!.id, 60], [sources[1]!.id, 40]]).map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })),
    },
  });
}

async function made(ctx: TestContext, opts: Parameters<typeof newBcard>[1] = {}): Promise<BcardMade> {
  const res = await newBcard(ctx, opts);
  if (res.status !== 201) throw new Error(`bcard failed: ${res.status} ${res.text}`);
  return res.body;
}

async function detailsOf(ctx: TestContext, id: string): Promise<TestCardDetails> {
  const d = await call(ctx, `/api/virtual-cards/${id}/checkout-details`, { cookie: ada.cookie });
  if (d.status !== 200) throw new Error(`reveal failed: ${d.status} ${d.text}`);
  return { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv };
}

/** The simulated card network's authorization (POST /api/simulator/authorizations) at Corner Shoes. */
function authorize(ctx: TestContext, card: TestCardDetails, amount: number, over: Record<string, unknown> = {}) {
  return call(ctx, '/api/simulator/authorizations', {
    method: 'POST',
    origin: null,
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

/** A merchant's payment intent of `cents`, confirmed with these card details: answers the confirm. */
async function payAt(ctx: TestContext, merchant: TestMerchant, card: TestCardDetails, cents: number) {
  const pi = await merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: { amount: cents, currency: 'usd' } });
  expect(pi.status, pi.text).toBe(200);
  return merchantCall(ctx, merchant.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card } },
  });
}

const partsOf = (b: BcardMade) => b.fundingSources.map((s) => ({ name: s.name, last4: s.last4, amount: s.amount }));
const cents = (amount: string) => Math.round(Number(amount) * 100);
const dollars = (c: number) => (c / 100).toFixed(2);

describe('bcard_issued', () => {
  test('one notice when the split is collected and the bcard issued; a replayed Idempotency-Key adds none; Eve hears nothing', () =>
    withFork(async (ctx) => {
      const first = await newBcard(ctx, { key: 'issue-1' });
      expect(first.status).toBe(201);
      const replay = await newBcard(ctx, { key: 'issue-1' });
      expect([replay.status, replay.body.id]).toEqual([201, first.body.id]);
      expect(await kinds(ctx, ada.id)).toEqual(['bcard_issued']);
      expect(await facts(ctx, ada.id, 'bcard_issued')).toEqual([
        { bcardId: first.body.id, bcardName: 'Shoes', amount: '50.00', sourceCount: 2, transactionId: first.body.transactionId },
      ]);
      expect(await kinds(ctx, eve.id)).toEqual([]);
    }));

  test('a collection that fails (a source declines) issues nothing and tells nothing', () =>
    withFork(async (ctx) => {
      const declining = await addCard(ctx, ada.cookie, CARD_DECLINES_CHARGES);
      const res = await newBcard(ctx, { split: [[sources[0]!.id, 50], [declining.id, 50]] });
      expect(res.status).toBe(402);
      expect(await allKinds(ctx)).toEqual([]);
    }));

  test("the payment demo's purchase bcard tells its spend only: no issued notice a moment before it", () =>
    withFork(async (ctx) => {
      const res = await call(ctx, '/api/process-payment', {
        method: 'POST',
        cookie: ada.cookie,
        headers: { 'idempotency-key': 'demo-1' },
        body: { amount: '20.00', merchant: 'Demo Books', splits: [{ fundingSourceId: sources[0]!.id, percentage: 100 }] },
      });
      expect(res.status, res.text).toBe(200);
      const again = await call(ctx, '/api/process-payment', {
        method: 'POST',
        cookie: ada.cookie,
        headers: { 'idempotency-key': 'demo-1' },
        body: { amount: '20.00', merchant: 'Demo Books', splits: [{ fundingSourceId: sources[0]!.id, percentage: 100 }] },
      });
      expect(again.status).toBe(200);
      expect(await kinds(ctx, ada.id)).toEqual(['bcard_spent']);
      expect((await facts(ctx, ada.id, 'bcard_spent'))[0]).toMatchObject({ merchant: 'Demo Books', amount: '20.00', returned: '0.00', transactionId: res.body.transaction.id });
    }));
});

describe('bcard_spent', () => {
  test('through the card network: one notice with the merchant, the amount and what goes back; a second charge is a decline, not a spend', () =>
    withFork(async (ctx) => {
      const b = await made(ctx);
      const card = await detailsOf(ctx, b.id);
      expect((await authorize(ctx, card, 4000)).status).toBe(201);
      // The remainder's settling, and a sweep after it, tell nothing more.
      await sweepMoney(ctx.deps);
      await sweepMoney(ctx.deps);
      // $10.00 left, and its part of the fee (floor(fee x 10/50)): what settleRefund gave back.
      const fee = b.fundingSources.reduce((a, s) => a + cents(s.amount), 0) - 5000;
      const returned = 1000 + Math.floor((fee * 1000) / 5000);
      expect(returned).toBeGreaterThan(1000);
      expect(await facts(ctx, ada.id, 'bcard_spent')).toEqual([
        { bcardId: b.id, bcardName: 'Shoes', merchant: 'Corner Shoes', amount: '40.00', returned: dollars(returned), transactionId: b.transactionId },
      ]);
      const movedBack = await ctx.handle.client.execute({
        sql: "SELECT coalesce(sum(p.amount_cents), 0) AS s FROM ledger_movements m JOIN ledger_postings p ON p.movement_id = m.id WHERE m.kind = 'bcard.remainder_refunded' AND m.reference_id = ? AND p.account LIKE 'funding_source:%'",
        args: [b.id],
      });
      expect(Number(movedBack.rows[0]!.s)).toBe(returned);
      const again = await authorize(ctx, card, 1000);
      expect(again.status).toBe(402);
      expect(await kinds(ctx, ada.id)).toEqual(['bcard_issued', 'bcard_spent', 'bcard_declined']);
      expect((await facts(ctx, ada.id, 'bcard_declined'))[0]).toMatchObject({ bcardId: b.id, reason: 'already_used', amount: '10.00', merchant: 'Corner Shoes' });
      expect(await kinds(ctx, eve.id)).toEqual([]);
    }));

  test("at a bpay merchant's confirm: one notice naming the merchant; of parallel authorizations exactly one spend is told", () =>
    withFork(async (ctx) => {
      const b = await made(ctx);
      const confirmed = await payAt(ctx, live, await detailsOf(ctx, b.id), 5000);
      expect(confirmed.body.status, confirmed.text).toBe('succeeded');
      expect(await facts(ctx, ada.id, 'bcard_spent')).toEqual([
        { bcardId: b.id, bcardName: 'Shoes', merchant: 'Acme Shop', amount: '50.00', returned: '0.00', transactionId: b.transactionId },
      ]);

      const c = await made(ctx, { name: 'Race' });
      const card = await detailsOf(ctx, c.id);
      const answers = await Promise.all(Array.from({ length: 6 }, () => authorize(ctx, card, 2000)));
      expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
      expect((await facts(ctx, ada.id, 'bcard_spent')).filter((n) => n.bcardId === c.id)).toHaveLength(1);
    }));

  test("a merchant's sandbox test bcard is the merchant's play money: its spend tells nobody", () =>
    withFork(async (ctx) => {
      const t = await merchantCall(ctx, sandbox.secretKey, '/test_helpers/bcards', { method: 'POST', body: { amount: 3000 } });
      expect(t.status, t.text).toBe(200);
      const paid = await payAt(ctx, sandbox, { number: t.body.number, exp_month: t.body.exp_month, exp_year: t.body.exp_year, cvc: t.body.cvc }, 3000);
      expect(paid.body.status, paid.text).toBe('succeeded');
      expect(await allKinds(ctx)).toEqual([]);
    }));
});

describe('bcard_declined', () => {
  test('a bot hammering one bcard: one notice per reason in the window, also from parallel requests; again after it', () =>
    withFork(async (ctx) => {
      const b = await made(ctx);
      const card = await detailsOf(ctx, b.id);
      // (The simulated network serves 10 tries an hour per card number: within that.)
      const tries = await Promise.all(Array.from({ length: 5 }, () => authorize(ctx, card, 9000)));
      expect(tries.every((r) => r.status === 402)).toBe(true);
      for (let i = 0; i < 2; i++) expect((await authorize(ctx, card, 9000 + i)).status).toBe(402);
      expect(await facts(ctx, ada.id, 'bcard_declined')).toEqual([
        { bcardId: b.id, bcardName: 'Shoes', merchant: 'Corner Shoes', amount: '90.00', reason: 'insufficient_funds' },
      ]);
      // Another reason is news at once.
      expect((await authorize(ctx, card, 1000, { cvc: card.cvc === '999' ? '998' : '999' })).status).toBe(402);
      expect((await facts(ctx, ada.id, 'bcard_declined')).map((n) => n.reason)).toEqual(['insufficient_funds', 'incorrect_cvc']);
      // Past the window, the same reason is told again.
      ctx.clock.advance(DECLINE_NOTICE_WINDOW_MS + 1);
      expect((await authorize(ctx, card, 9000)).status).toBe(402);
      expect((await facts(ctx, ada.id, 'bcard_declined')).map((n) => n.reason)).toEqual(['insufficient_funds', 'incorrect_cvc', 'insufficient_funds']);
      expect(await kinds(ctx, eve.id)).toEqual([]);
    }));

  test('three wrong CVCs: the decline is told, and the bcard closed by bpay with what came back to each card', () =>
    withFork(async (ctx) => {
      const b = await made(ctx);
      const card = await detailsOf(ctx, b.id);
      const wrong = card.cvc === '999' ? '998' : '999';
      for (let i = 0; i < 3; i++) expect((await authorize(ctx, card, 1000, { cvc: wrong })).status).toBe(402);
      await sweepMoney(ctx.deps);
      expect(await kinds(ctx, ada.id)).toEqual(['bcard_issued', 'bcard_declined', 'bcard_canceled']);
      expect((await facts(ctx, ada.id, 'bcard_declined'))[0]).toMatchObject({ reason: 'incorrect_cvc', bcardId: b.id });
      const total = b.fundingSources.reduce((a, s) => a + cents(s.amount), 0);
      expect((await facts(ctx, ada.id, 'bcard_canceled'))[0]).toEqual({
        bcardId: b.id,
        bcardName: 'Shoes',
        returned: dollars(total),
        parts: partsOf(b),
        transactionId: b.transactionId,
        closedReason: 'too_many_incorrect_attempts',
      });
    }));

  test("a bpay merchant's confirm refused for a bcard: told with the issuer's word for it, a wrong CVC too", () =>
    withFork(async (ctx) => {
      const b = await made(ctx, { balance: '20.00' });
      const card = await detailsOf(ctx, b.id);
      const over = await payAt(ctx, live, card, 5000);
      expect(over.body.error?.decline_code).toBe('insufficient_funds');
      const badCvc = await payAt(ctx, live, { ...card, cvc: card.cvc === '999' ? '998' : '999' }, 1000);
      // The merchant learns only "incorrect"; the owner hears it was the security code.
      expect(badCvc.body.error?.decline_code).toBe('incorrect_number');
      const sandboxTry = await payAt(ctx, sandbox, card, 1000);
      expect(sandboxTry.body.error?.decline_code).toBe('test_mode_live_card');
      expect(await facts(ctx, ada.id, 'bcard_declined')).toEqual([
        { bcardId: b.id, bcardName: 'Shoes', merchant: 'Acme Shop', amount: '50.00', reason: 'insufficient_funds' },
        { bcardId: b.id, bcardName: 'Shoes', merchant: 'Acme Shop', amount: '10.00', reason: 'incorrect_cvc' },
        { bcardId: b.id, bcardName: 'Shoes', merchant: 'Acme Shop', amount: '10.00', reason: 'test_mode_live_card' },
      ]);
      // Spent, then tried again: already used.
      expect((await payAt(ctx, live, card, 2000)).body.status).toBe('succeeded');
      expect((await payAt(ctx, live, card, 2000)).body.error?.decline_code).toBe('card_not_active');
      expect((await facts(ctx, ada.id, 'bcard_declined')).at(-1)).toMatchObject({ reason: 'already_used' });
    }));

  test('a card number that leads to no bcard tells nobody', () =>
    withFork(async (ctx) => {
      const res = await authorize(ctx, { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' }, 1000);
      expect(res.status).toBe(402);
      expect(await allKinds(ctx)).toEqual([]);
    }));
});

describe('bcard_expired and bcard_canceled', () => {
  test('expired: the sweep refunds it and tells once, with what came back to each card; a second sweep tells nothing', () =>
    withFork(async (ctx) => {
      const b = await made(ctx);
      ctx.clock.advance(ctx.deps.bcardTtlMs + 1);
      await sweepMoney(ctx.deps);
      await sweepMoney(ctx.deps);
      const total = b.fundingSources.reduce((a, s) => a + cents(s.amount), 0);
      expect(await facts(ctx, ada.id, 'bcard_expired')).toEqual([
        { bcardId: b.id, bcardName: 'Shoes', returned: dollars(total), parts: partsOf(b), transactionId: b.transactionId },
      ]);
      expect(await facts(ctx, ada.id, 'bcard_canceled')).toEqual([]);
    }));

  test('canceled by its owner: once, whether the request is replayed with its key or sent again', () =>
    withFork(async (ctx) => {
      const b = await made(ctx);
      const cancel = (key: string) => call(ctx, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: ada.cookie, headers: { 'idempotency-key': key } });
      expect((await cancel('c-1')).status).toBe(200);
      expect((await cancel('c-1')).status).toBe(200);
      expect((await cancel('c-2')).status).toBe(409);
      const total = b.fundingSources.reduce((a, s) => a + cents(s.amount), 0);
      expect(await facts(ctx, ada.id, 'bcard_canceled')).toEqual([
        { bcardId: b.id, bcardName: 'Shoes', returned: dollars(total), parts: partsOf(b), transactionId: b.transactionId, closedReason: null },
      ]);
      expect(await kinds(ctx, eve.id)).toEqual([]);
    }));
});

describe('bank debits', () => {
  test('settled: told once, by whichever sweep sees it first', () =>
    withFork(async (ctx) => {
      const b = await made(ctx, { split: [[sources[0]!.id, 50], [bank.id, 50]] });
      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      await sweepMoney(ctx.deps);
      await sweepMoney(ctx.deps);
      const bankShare = b.fundingSources.find((s) => s.last4 === bank.last4)!;
      expect(await facts(ctx, ada.id, 'bank_debit_settled')).toEqual([
        { accountName: bank.name, last4: bank.last4, amount: bankShare.amount, transactionId: b.transactionId },
      ]);
      expect(await facts(ctx, ada.id, 'bank_debit_returned')).toEqual([]);
    }));

  test('returned with the bcard unused: nothing owed, and the bcard canceled with only the card share back', () =>
    withFork(async (ctx) => {
      const b = await made(ctx, { split: [[sources[0]!.id, 50], [r01.id, 50]] });
      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      // The bank debits' part of the sweep alone first: the whole sweep would expire the bcard (its 30 minutes are up).
      await sweepBankDebits(ctx.deps);
      await sweepBankDebits(ctx.deps);
      await sweepMoney(ctx.deps);
      const bankShare = b.fundingSources.find((s) => s.last4 === r01.last4)!;
      const cardShare = b.fundingSources.find((s) => s.last4 !== r01.last4)!;
      expect(await facts(ctx, ada.id, 'bank_debit_returned')).toEqual([
        { accountName: r01.name, last4: r01.last4, amount: bankShare.amount, reason: 'R01', owed: '0.00', transactionId: b.transactionId },
      ]);
      expect(await facts(ctx, ada.id, 'bcard_canceled')).toEqual([
        {
          bcardId: b.id,
          bcardName: 'Shoes',
          returned: cardShare.amount,
          parts: [{ name: cardShare.name, last4: cardShare.last4, amount: cardShare.amount }],
          transactionId: b.transactionId,
          closedReason: null,
        },
      ]);
      // What the bank standing says is owed agrees.
      expect((await call(ctx, '/api/funding-sources/bank-standing', { cookie: ada.cookie })).body.owed).toBe('0.00');
    }));

  test('returned after the bcard was used for part of it: owed is the bank share less its part of the remainder', () =>
    withFork(async (ctx) => {
      const b = await made(ctx, { balance: '100.00', split: [[sources[0]!.id, 50], [r01.id, 50]] });
      expect((await payAt(ctx, live, await detailsOf(ctx, b.id), 6000)).body.status).toBe('succeeded');
      ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
      await sweepMoney(ctx.deps);
      const owed = (await call(ctx, '/api/funding-sources/bank-standing', { cookie: ada.cookie })).body.owed as string;
      const bankShare = b.fundingSources.find((s) => s.last4 === r01.last4)!;
      // Half of the $40.00 left, with its part of the fee (bcards/remainder.ts), goes to the bank share: not owed.
      const fee = b.fundingSources.reduce((a, s) => a + cents(s.amount), 0) - 10000;
      expect(owed).toBe(dollars(cents(bankShare.amount) - (4000 + Math.floor((fee * 4000) / 10000)) / 2));
      expect(await facts(ctx, ada.id, 'bank_debit_returned')).toEqual([
        { accountName: r01.name, last4: r01.last4, amount: bankShare.amount, reason: 'R01', owed, transactionId: b.transactionId },
      ]);
    }));
});

describe('merchant_refund', () => {
  test('one notice with where the money went, for a replayed Idempotency-Key too; the merchant owner hears nothing', () =>
    withFork(async (ctx) => {
      const b = await made(ctx, { balance: '100.00' });
      const paid = await payAt(ctx, live, await detailsOf(ctx, b.id), 10000);
      const refund = () =>
        merchantCall(ctx, live.secretKey, '/refunds', { method: 'POST', headers: { 'idempotency-key': 'rf-1' }, body: { payment_intent: paid.body.id, amount: 4000 } });
      const first = await refund();
      expect(first.body.status, first.text).toBe('succeeded');
      expect((await refund()).body.id).toBe(first.body.id);
      await sweepMoney(ctx.deps);
      const parts = (await ctx.handle.client.execute({ sql: 'SELECT funding_source_id AS s, amount_cents AS a FROM refund_parts ORDER BY id', args: [] })).rows;
      const bySource = new Map(parts.map((p) => [String(p.s), Number(p.a)]));
      const total = [...bySource.values()].reduce((x, y) => x + y, 0);
      expect(await facts(ctx, ada.id, 'merchant_refund')).toEqual([
        {
          merchant: 'Acme Shop',
          amount: dollars(total),
          parts: sources.map((s) => ({ name: s.name, last4: s.last4, amount: dollars(bySource.get(s.id)!) })),
          transactionId: b.transactionId,
        },
      ]);
      // 40.00 of the purchase and its part of the fee.
      expect(total).toBeGreaterThan(4000);
      expect(await kinds(ctx, owner.id)).toEqual([]);
    }));
});

describe('a processor that fails, then the recovery sweep', () => {
  let faulty: TestContext;
  const mode = { refuseRefunds: false, deactivateDown: false };
  let who: { cookie: string; id: string };
  let card: string;
  let shop: TestMerchant;

  beforeAll(async () => {
    faulty = await makeTestApp({
      wrapVendor: (v) =>
        interceptVendor(v, async (method, _args, run) => {
          if (method === 'refund' && mode.refuseRefunds) throw new VendorDeclineError('card_declined', 'The card issuer refused the refund.');
          if (method === 'deactivateCard' && mode.deactivateDown) throw new VendorUnavailableError('processor down');
          return run();
        }),
    });
    const u = await registerUser(faulty);
    const o = await registerUser(faulty);
    await makePremium(faulty, u.user.id);
    await makePremium(faulty, o.user.id);
    who = { cookie: u.cookie, id: u.user.id };
    card = (await addCard(faulty, u.cookie)).id;
    shop = await createMerchant(faulty, o.cookie, 'production');
  });
  afterAll(() => faulty.close());

  const bcard = async () => {
    const res = await call(faulty, '/api/virtual-cards', {
      method: 'POST',
      cookie: who.cookie,
      body: { name: 'Faulty', balance: '30.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
    });
    expect(res.status, res.text).toBe(201);
    return res.body as BcardMade;
  };

  test('a refund the processor refuses outright fails and tells nothing', async () => {
    const b = await bcard();
    const d = await call(faulty, `/api/virtual-cards/${b.id}/checkout-details`, { cookie: who.cookie });
    const paid = await payAt(faulty, shop, { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv }, 3000);
    expect(paid.body.status, paid.text).toBe('succeeded');
    mode.refuseRefunds = true;
    try {
      const refused = await merchantCall(faulty, shop.secretKey, '/refunds', { method: 'POST', body: { payment_intent: paid.body.id } });
      expect(refused.body.status, refused.text).toBe('failed');
    } finally {
      mode.refuseRefunds = false;
    }
    expect(await facts(faulty, who.id, 'merchant_refund')).toEqual([]);
  });

  test('a cancel the processor cannot finish is told once, when the sweep finishes it', async () => {
    const b = await bcard();
    mode.deactivateDown = true;
    try {
      expect((await call(faulty, `/api/virtual-cards/${b.id}/cancel`, { method: 'POST', cookie: who.cookie })).status).toBe(200);
      // Committed as canceling; the money has not gone back yet, so nothing is told yet.
      expect(await facts(faulty, who.id, 'bcard_canceled')).toEqual([]);
      faulty.clock.advance(61_000);
      await sweepMoney(faulty.deps);
      expect(await facts(faulty, who.id, 'bcard_canceled')).toEqual([]);
    } finally {
      mode.deactivateDown = false;
    }
    faulty.clock.advance(61_000);
    await sweepMoney(faulty.deps);
    faulty.clock.advance(61_000);
    await sweepMoney(faulty.deps);
    expect(await facts(faulty, who.id, 'bcard_canceled')).toEqual([
      { bcardId: b.id, bcardName: 'Faulty', returned: b.fundingSources[0]!.amount, parts: partsOf(b), transactionId: b.transactionId, closedReason: null },
    ]);
  });
});

describe('plans', () => {
  const upgrade = (ctx: TestContext, key: string, fundingSourceId: string) =>
    call(ctx, '/api/subscription/upgrade', { method: 'POST', cookie: eve.cookie, headers: { 'idempotency-key': key }, body: { tierId: 'tier_pro', fundingSourceId } });
  /** Eve's working card: the first of her sources that is not `except` (a card added in the test may list first). */
  const eveCard = async (ctx: TestContext, except?: string) =>
    ((await call(ctx, '/api/funding-sources', { cookie: eve.cookie })).body as Array<{ id: string }>).find((s) => s.id !== except)!.id;
  /** Eve switches to Arabic (the language switch while signed in): her plan mails from then on are Arabic. */
  const eveInArabic = async (ctx: TestContext) => {
    const res = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: eve.cookie, body: { language: 'ar' } });
    expect([res.status, res.body.language]).toEqual([200, 'ar']);
  };

  test('plan_charged: once per charge, a replayed key adds none; a declined card tells nothing', () =>
    withFork(async (ctx) => {
      const declining = await addCard(ctx, eve.cookie, CARD_DECLINES_CHARGES, { name: 'Eve Example' });
      expect((await upgrade(ctx, 'up-0', declining.id)).status).toBe(402);
      expect(await kinds(ctx, eve.id)).toEqual([]);
      const source = await eveCard(ctx, declining.id);
      expect((await upgrade(ctx, 'up-1', source)).status).toBe(200);
      expect((await upgrade(ctx, 'up-1', source)).status).toBe(200);
      expect(await facts(ctx, eve.id, 'plan_charged')).toEqual([{ plan: 'Professional', amount: '9.99', kind: 'upgrade' }]);
      // The receipt mail is this event's mail (the notice's own mail is off for plan kinds): exactly one.
      const receipts = await ctx.handle.client.execute({ sql: "SELECT 1 FROM email_outbox WHERE user_id = ? AND kind = 'plan_receipt'", args: [eve.id] });
      expect(receipts.rows).toHaveLength(1);
    }));

  test('renewals: charged is told; a failed renewal is told at the first failure and at the move to Free, not at each daily retry', () =>
    withFork(async (ctx) => {
      await eveInArabic(ctx);
      const up = await upgrade(ctx, 'up-2', await eveCard(ctx));
      const end = new Date(up.body.plan.currentPeriodEnd).getTime();
      ctx.clock.advance(end - ctx.clock.now().getTime());
      await renewSubscriptions(ctx.deps);
      await renewSubscriptions(ctx.deps);
      expect(await facts(ctx, eve.id, 'plan_charged')).toEqual([
        { plan: 'Professional', amount: '9.99', kind: 'upgrade' },
        { plan: 'Professional', amount: '9.99', kind: 'renewal' },
      ]);
      const next = end + 0;
      const sub = (await ctx.handle.client.execute({ sql: "SELECT current_period_end AS e FROM user_subscriptions WHERE user_id = ? AND status = 'active'", args: [eve.id] })).rows[0]!;
      await ctx.handle.client.execute('UPDATE sim_cards SET available_cents = 0');
      ctx.clock.advance(Number(sub.e) - ctx.clock.now().getTime());
      expect(next).toBeLessThan(Number(sub.e));
      for (let i = 0; i < 9; i++) {
        await renewSubscriptions(ctx.deps);
        await renewSubscriptions(ctx.deps);
        ctx.clock.advance(RENEWAL_RETRY_MS);
      }
      expect(ctx.clock.now().getTime() - Number(sub.e)).toBeGreaterThan(RENEWAL_GRACE_MS);
      expect(await facts(ctx, eve.id, 'plan_renewal_failed')).toEqual([
        { plan: 'Professional', amount: '9.99', reason: 'insufficient_funds' },
        { plan: 'Professional', amount: '9.99', reason: 'insufficient_funds' },
      ]);
      expect(await facts(ctx, eve.id, 'plan_charged')).toHaveLength(2);
      expect(await kinds(ctx, ada.id)).toEqual([]);
    }));

  test('a renewal with the paying card removed says so', () =>
    withFork(async (ctx) => {
      await eveInArabic(ctx);
      const source = await eveCard(ctx);
      const up = await upgrade(ctx, 'up-3', source);
      await ctx.handle.client.execute({ sql: 'UPDATE funding_sources SET deleted_at = ? WHERE id = ?', args: [ctx.clock.now().getTime(), source] });
      ctx.clock.advance(new Date(up.body.plan.currentPeriodEnd).getTime() - ctx.clock.now().getTime());
      await renewSubscriptions(ctx.deps);
      expect(await facts(ctx, eve.id, 'plan_renewal_failed')).toEqual([{ plan: 'Professional', amount: '9.99', reason: 'payment_source_removed' }]);
    }));
});

describe('KYC decisions', () => {
  const actor = { type: 'admin' as const, id: 'adm_test' };

  test('approved and failed are each told once to the user whose verification it is; the same decision again tells nothing', () =>
    withFork(async (ctx) => {
      const first = await submitKyc(ctx, eve.cookie);
      await applyKycDecision(ctx.deps, first, { status: 'failed', errorMessage: 'The passport has expired.' }, actor);
      await applyKycDecision(ctx.deps, first, { status: 'failed', adminNotes: 'checked twice' }, actor);
      const second = await submitKyc(ctx, eve.cookie);
      await applyKycDecision(ctx.deps, second, { status: 'failed' }, actor);
      await applyKycDecision(ctx.deps, second, { status: 'verified', riskScore: 10 }, actor);
      await applyKycDecision(ctx.deps, second, { status: 'verified', riskScore: 12 }, actor);
      expect(await kinds(ctx, eve.id)).toEqual(['kyc_failed', 'kyc_failed', 'kyc_approved']);
      expect(await facts(ctx, eve.id, 'kyc_failed')).toEqual([{ reason: 'The passport has expired.' }, { reason: null }]);
      expect(await facts(ctx, eve.id, 'kyc_approved')).toEqual([{}]);
      expect(await kinds(ctx, ada.id)).toEqual([]);
    }));

  test('a decision on no verification changes nothing and tells nothing', () =>
    withFork(async (ctx) => {
      await expect(applyKycDecision(ctx.deps, 'kyc_nope', { status: 'verified' }, actor)).rejects.toMatchObject({ code: 'resource_not_found' });
      expect(await allKinds(ctx)).toEqual([]);
    }));
});

describe('account security', () => {
  test('sign_in: one notice per sign-in with the device and address; a wrong password tells nothing', () =>
    withFork(async (ctx) => {
      expect((await login(ctx, ada.email, 'wrong password here')).status).toBe(401);
      expect(await kinds(ctx, ada.id)).toEqual([]);
      const res = await call(ctx, '/api/auth/login', {
        method: 'POST',
        body: { email: ada.email, password: ada.password },
        ip: '198.51.100.23',
        headers: { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15' },
      });
      expect(res.status).toBe(200);
      const [notice] = await facts(ctx, ada.id, 'sign_in');
      expect(notice).toMatchObject({ ip: '198.51.100.23' });
      expect(String(notice!.device)).toContain('Safari');
      expect(await kinds(ctx, ada.id)).toEqual(['sign_in']);
      expect(await kinds(ctx, eve.id)).toEqual([]);
    }));

  test('password_changed: once with the change; a wrong current password changes nothing and tells nothing', () =>
    withFork(async (ctx) => {
      const patch = (currentPassword: string) =>
        call(ctx, '/api/auth/user', { method: 'PATCH', cookie: ada.cookie, body: { password: 'a much longer brass lantern 42', currentPassword } });
      expect((await patch('not my password at all')).status).toBe(400);
      expect(await kinds(ctx, ada.id)).toEqual([]);
      expect((await patch(ada.password)).status).toBe(200);
      expect(await kinds(ctx, ada.id)).toEqual(['password_changed']);
      expect(await facts(ctx, ada.id, 'password_changed')).toEqual([{}]);
    }));

  test('password_reset: once when the link is used; the link used again tells nothing', () =>
    withFork(async (ctx) => {
      expect((await call(ctx, '/api/auth/password-reset', { method: 'POST', body: { email: ada.email } })).status).toBe(200);
      const row = (await ctx.handle.client.execute({ sql: "SELECT text_body AS t, sealed_token AS s FROM email_outbox WHERE user_id = ? AND kind = 'password_reset'", args: [ada.id] })).rows[0]!;
      // The stored body holds a placeholder; the link is as the worker mails it (test-support/mailbox.ts).
      const text = mailedText(ctx, { textBody: String(row.t), sealedToken: row.s === null ? null : String(row.s) });
      const token = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;
      const confirm = () => call(ctx, '/api/auth/password-reset/confirm', { method: 'POST', body: { token, password: 'a much longer brass lantern 42' } });
      const [one, two] = await Promise.all([confirm(), confirm()]);
      expect([one.status, two.status].sort()).toEqual([200, 400]);
      expect((await confirm()).status).toBe(400);
      expect(await kinds(ctx, ada.id)).toEqual(['password_reset']);
    }));

  test('two_factor_enabled and two_factor_disabled: once each; a wrong code tells nothing', () =>
    withFork(async (ctx) => {
      const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: ada.cookie });
      const secret = setup.body.secret as string;
      const code = totp(secret, ctx.clock.now().getTime());
      const wrong = code === '000000' ? '000001' : '000000';
      expect((await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: ada.cookie, body: { code: wrong } })).status).toBe(400);
      expect(await kinds(ctx, ada.id)).toEqual([]);
      const confirms = await Promise.all([1, 2].map(() => call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: ada.cookie, body: { code } })));
      expect(confirms.filter((r) => r.status === 200)).toHaveLength(1);
      expect(await kinds(ctx, ada.id)).toEqual(['two_factor_enabled']);
      ctx.clock.advance(30_000);
      const off = { code: totp(secret, ctx.clock.now().getTime()), password: ada.password };
      expect((await call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie: ada.cookie, body: { ...off, password: 'not my password at all' } })).status).toBe(400);
      const offs = await Promise.all([1, 2].map(() => call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie: ada.cookie, body: off })));
      expect(offs.filter((r) => r.status === 200)).toHaveLength(1);
      expect(await kinds(ctx, ada.id)).toEqual(['two_factor_enabled', 'two_factor_disabled']);
      expect(await kinds(ctx, eve.id)).toEqual([]);
    }));
});
