// Hostile review of issue 26 part 2 (disputes of a funding share): the simulator's routes as a careless admin uses
// them, Stripe's events in odd shapes, and a dispute that meets a returned bank debit.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { call, makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { ledgerSum, owed } from '../../../test-support/modules/disputes';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { addBankAccount, addCard, BANK_RETURNS_R01, createMerchant, makePremium, registerUser } from '../../../test-support/world';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';

let ctx: TestContext;
let token: string;

beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
  await makeAdmin(ctx);
  token = await adminToken(ctx);
});
afterAll(() => ctx.close());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const open = (body: unknown, headers: Record<string, string> = {}, t: string | null = token) =>
  adminCall(ctx, t, '/api/admin/sandbox/disputes', { method: 'POST', body: body as Record<string, unknown>, headers });

/** A consumer whose $100 bcard is paid half by card, half by a bank account whose debit will come back R01; spent. */
async function spentSplit() {
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const card = (await addCard(ctx, u.cookie)).id;
  const bank = (await addBankAccount(ctx, u.cookie, BANK_RETURNS_R01)).id;
  const m = await registerUser(ctx);
  const live = await createMerchant(ctx, m.cookie, 'production');
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: u.cookie,
    body: { name: 'Groceries', balance: '100.00', fundingSources: [{ fundingSourceId: card, percentage: 50 }, { fundingSourceId: bank, percentage: 50 }] },
  });
  if (made.status !== 201) throw new Error(made.text);
  const d = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: u.cookie });
  const pi = await merchantCall(ctx, live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 10000, currency: 'usd' } });
  const confirmed = await merchantCall(ctx, live.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
    method: 'POST',
    body: { payment_method_data: { type: 'card', card: { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv } } },
  });
  if (confirmed.body.status !== 'succeeded') throw new Error(confirmed.text);
  const shares = await q('SELECT id, funding_source_id AS source, amount_cents AS amount, status FROM collection_shares WHERE funding_source_id IN (?, ?)', [card, bank]);
  const cardShare = shares.find((s) => s.source === card)!;
  const bankShare = shares.find((s) => s.source === bank)!;
  return { userId: u.user.id, cookie: u.cookie, card, bank, cardShare: { id: String(cardShare.id), amount: Number(cardShare.amount) }, bankShare: { id: String(bankShare.id), amount: Number(bankShare.amount), status: String(bankShare.status) } };
}

describe('the simulator’s routes, carelessly', () => {
  test('bad bodies are 4xx with the catalogue shape and write nothing; no token 401; a consumer 401', async () => {
    const w = await spentSplit();
    const disputes = async () => Number((await q('SELECT count(*) AS n FROM share_disputes'))[0]!.n);
    const before = await disputes();
    const bad: unknown[] = [
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '0' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '-1' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '1e3' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '0.001' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '12.345' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '٥' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: '999999999.99' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: 5 },
      { shareId: w.cardShare.id, reason: 'nope' },
      { shareId: w.cardShare.id },
      { reason: 'fraudulent' },
      { shareId: 'shr_nope', reason: 'fraudulent' },
      { shareId: w.cardShare.id, reason: 'fraudulent', amount: ' 5' },
    ];
    for (const b of bad) {
      const res = await open(b);
      expect(res.status, `${JSON.stringify(b)} → ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${JSON.stringify(b)} → ${res.text}`).toBeLessThan(500);
      expect(typeof res.body.error?.message).toBe('string');
    }
    expect((await open({ shareId: w.cardShare.id, reason: 'fraudulent' }, {}, null)).status).toBe(401);
    const asConsumer = await call(ctx, '/api/admin/sandbox/disputes', { method: 'POST', cookie: w.cookie, body: { shareId: w.cardShare.id, reason: 'fraudulent' } });
    expect(asConsumer.status).toBe(401);
    expect(await disputes()).toBe(before);
    const close = await adminCall(ctx, token, '/api/admin/sandbox/disputes/dsp_nope/close', { method: 'POST', body: { outcome: 'won' } });
    expect(close.status).toBe(404);
    const badOutcome = await adminCall(ctx, token, '/api/admin/sandbox/disputes/dsp_nope/close', { method: 'POST', body: { outcome: 'maybe' } });
    expect(badOutcome.status).toBe(400);
    expect(await ledgerSum(ctx)).toBe(0);
  });

  test('30 opens of the whole share at once and 30 closes at once: one dispute, one movement each way', async () => {
    const w = await spentSplit();
    const all = await Promise.all(Array.from({ length: 30 }, () => open({ shareId: w.cardShare.id, reason: 'fraudulent' })));
    for (const r of all) expect(r.status, r.text).toBeLessThan(500);
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    const id = all.find((r) => r.status === 201)!.body.id;
    const closes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adminCall(ctx, token, `/api/admin/sandbox/disputes/${id}/close`, { method: 'POST', body: { outcome: i % 2 ? 'won' : 'lost' } })),
    );
    for (const r of closes) expect(r.status, r.text).toBeLessThan(500);
    expect(closes.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await q("SELECT 1 FROM ledger_movements WHERE kind IN ('share.disputed', 'share.dispute_won') AND reference_id = ?", [id])).toHaveLength(
      closes.find((r) => r.status === 200)!.body.status === 'won' ? 2 : 1,
    );
    // Same key, 20 at once: one dispute.
    const w2 = await spentSplit();
    const same = await Promise.all(Array.from({ length: 20 }, () => open({ shareId: w2.cardShare.id, reason: 'fraudulent', amount: '1.00' }, { 'idempotency-key': 'k-same' })));
    for (const r of same) expect(r.status, r.text).toBeLessThan(500);
    expect(await q('SELECT 1 FROM share_disputes WHERE share_id = ?', [w2.cardShare.id])).toHaveLength(1);
    expect(await ledgerSum(ctx)).toBe(0);
    expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
  });
});

describe('a dispute of a bank share', () => {
  test('refused (its dispute is the bank’s return): when the bank then returns it the consumer owes the share once, not twice', async () => {
    const w = await spentSplit();
    const res = await open({ shareId: w.bankShare.id, reason: 'fraudulent' });
    // Refused: the bank's return is what makes it owed (DECISIONS: disputes of ACH shares are not built).
    expect([res.status, res.body.error?.code], res.text).toEqual([409, 'share_not_disputable']);
    expect(await q('SELECT 1 FROM share_disputes WHERE share_id = ?', [w.bankShare.id])).toHaveLength(0);
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    await sweepMoney(ctx.deps);
    expect(await owed(ctx, w.userId)).toBeLessThanOrEqual(w.bankShare.amount);
    expect(await ledgerSum(ctx)).toBe(0);
  });

  test('refused after the debit settled too', async () => {
    const w = await spentSplit();
    await ctx.handle.client.execute({ sql: "UPDATE bank_debits SET status = 'settled' WHERE share_id = ?", args: [w.bankShare.id] });
    token = await adminToken(ctx); // the clock moved past the last one's life
    const res = await open({ shareId: w.bankShare.id, reason: 'fraudulent' });
    expect([res.status, res.body.error?.code], res.text).toEqual([409, 'share_not_disputable']);
    expect(await owed(ctx, w.userId)).toBe(0);
  });
});
