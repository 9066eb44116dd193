import { createClient } from '@libsql/client';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_BANK_ACCOUNT_NUMBERS, E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * A consumer who owes bpay (issue 26), for the browser tests of repaying (e2e/repay.e2e.ts) and waiving
 * (e2e/admin.e2e.ts): on Pro (two cards and a bank account), a $20.00 bcard paid half by card and half by a bank account
 * whose debit comes back R01, spent in full at a production merchant before it does.
 *
 * A debit comes back four days after it is made, by the simulated bank's clock: the kit moves that one debit's date
 * back in the server's database (the simulator's own record, nothing of bpay's), and the money sweep (every 30 s)
 * then finds it returned R01, as it would four days later (as e2e/statuses.e2e.ts does).
 */

const PORT = Number(process.env.E2E_PORT ?? 3100);
const DATA_DIR = process.env.E2E_DATA_DIR ?? (PORT === 3100 ? './data/e2e' : `./data/e2e-${PORT}`);
const R01_ACCOUNT = E2E_BANK_ACCOUNT_NUMBERS[1]!;
/** Verifies, then every charge is declined. */
export const DECLINES_CHARGES = '4000000000000341';
const FOUR_DAYS_AND_AN_HOUR_MS = (4 * 24 + 1) * 3_600_000;
export const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function liveMerchant(api: APIRequestContext) {
  expect((await api.post('/api/auth/register', { data: { email: uniqueEmail('repay-shop'), password: 'correct horse battery', firstName: 'Corner', lastName: 'Shop' } })).status()).toBe(201);
  const res = await api.post('/api/merchants', {
    data: { businessName: 'Corner Shop', businessEmail: 'corner@shop.example', platformType: 'custom', environment: 'production' },
  });
  expect(res.status()).toBe(201);
  return { Authorization: `Bearer ${(await res.json()).secretApiKey}` };
}

async function addCard(page: Page, number: string): Promise<string> {
  const res = await page.request.post('/api/funding-sources', {
    data: { cardNumber: number, expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).id;
}

export interface Owing {
  userId: string;
  email: string;
  /** The working card's id. */
  card: string;
  /** What is owed, as the API says it ("10.29"), and in cents. */
  owed: string;
  owedCents: number;
}

/** Registers `page`'s consumer (its cookie jar) and makes them owe a returned debit. `merchantApi`: another jar. */
export async function consumerWhoOwes(page: Page, merchantApi: APIRequestContext): Promise<Owing> {
  const auth = await liveMerchant(merchantApi);
  const email = uniqueEmail('repayer');
  expect((await page.request.post('/api/auth/register', { data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);
  const userId = ((await (await page.request.get('/api/auth/user')).json()) as { id: string }).id;
  // Two cards and a bank account: more sources than the Free plan allows, so the account is on Pro (an admin's move).
  const pro = createClient({ url: `file:${DATA_DIR}/bpay.db` });
  try {
    await pro.execute('PRAGMA busy_timeout = 10000');
    await pro.execute({ sql: "UPDATE user_subscriptions SET tier_id = 'tier_pro' WHERE user_id = ? AND status = 'active'", args: [userId] });
  } finally {
    pro.close();
  }
  const card = await addCard(page, E2E_CARD_NUMBERS[0]!);
  await addCard(page, DECLINES_CHARGES);
  const added = await page.request.post('/api/funding-sources/bank-accounts', {
    data: { routingNumber: '110000000', accountNumber: R01_ACCOUNT, accountType: 'checking', name: 'Ada Lovelace', defaultSplitPercentage: 50 },
  });
  expect(added.status(), await added.text()).toBe(201);
  const bank = (await added.json()).id as string;
  expect((await page.request.post(`/api/funding-sources/${bank}/verify-microdeposits`, { data: { amounts: ['0.32', '0.45'] } })).status()).toBe(200);

  // A $20.00 bcard, half from the card and half from the bank account, spent in full at the shop.
  const made = await page.request.post('/api/virtual-cards', {
    data: { name: 'Groceries', balance: '20.00', fundingSources: [{ fundingSourceId: card, percentage: 50 }, { fundingSourceId: bank, percentage: 50 }] },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  expect(made.status(), await made.text()).toBe(201);
  const bcard = await made.json();
  const d = await (await page.request.get(`/api/virtual-cards/${bcard.id}/checkout-details`)).json();
  const pi = await (await merchantApi.post('/api/v1/payment_intents', { headers: auth, data: { amount: 2000, currency: 'usd' } })).json();
  const confirmed = await merchantApi.post(`/api/v1/payment_intents/${pi.id}/confirm`, {
    headers: auth,
    data: { payment_method_data: { type: 'card', card: { number: d.cardNumber, exp_month: d.expiryMonth, exp_year: d.expiryYear, cvc: d.cvv } } },
  });
  expect((await confirmed.json()).status).toBe('succeeded');

  // Four days on for this debit at the simulated bank; the sweep finds it returned, after the bcard was used.
  const db = createClient({ url: `file:${DATA_DIR}/bpay.db` });
  try {
    await db.execute('PRAGMA busy_timeout = 10000');
    const moved = await db.execute({
      sql: 'UPDATE sim_holds SET created_at = created_at - ? WHERE id IN (SELECT vendor_debit_id FROM bank_debits WHERE user_id = ?)',
      args: [FOUR_DAYS_AND_AN_HOUR_MS, userId],
    });
    expect(moved.rowsAffected).toBe(1);
  } finally {
    db.close();
  }
  await expect
    .poll(async () => (await (await page.request.get('/api/receivables')).json()).restricted, { timeout: 75_000, intervals: [2_000] })
    .toBe(true);
  const owed = (await (await page.request.get('/api/receivables')).json()).owed as string;
  const owedCents = Math.round(Number(owed) * 100);
  expect(owedCents).toBeGreaterThan(500);
  return { userId, email, card, owed, owedCents };
}

/**
 * Registers `page`'s consumer with one card and a $20.00 bcard, and makes bpay owe them $7.50: a refund of that much
 * to the card that the processor failed (the share_refund_failures row and its `refund.failed` movement, as the Stripe
 * event handler writes them; the simulator has no failing refunds). Returns the user's id, e-mail and the card's id.
 */
export async function consumerBpayOwes(page: Page): Promise<{ userId: string; email: string; card: string }> {
  const email = uniqueEmail('owed-to');
  expect((await page.request.post('/api/auth/register', { data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);
  const userId = ((await (await page.request.get('/api/auth/user')).json()) as { id: string }).id;
  const card = await addCard(page, E2E_CARD_NUMBERS[0]!);
  const made = await page.request.post('/api/virtual-cards', {
    data: { name: 'Groceries', balance: '20.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  expect(made.status(), await made.text()).toBe(201);
  const db = createClient({ url: `file:${DATA_DIR}/bpay.db` });
  try {
    await db.execute('PRAGMA busy_timeout = 10000');
    const share = (await db.execute({ sql: 'SELECT id, collection_id FROM collection_shares WHERE funding_source_id = ?', args: [card] })).rows[0]!;
    const tag = crypto.randomUUID().slice(0, 8);
    const at = Date.now();
    await db.batch(
      [
        {
          sql: `INSERT INTO share_refund_failures (id, vendor_refund_id, share_id, collection_id, user_id, funding_source_id, amount_cents, currency, failure_reason, created_at)
                VALUES (?, ?, ?, ?, ?, ?, 750, 'usd', 'expired_or_canceled_card', ?)`,
          args: [`srf_${tag}`, `re_${tag}`, String(share.id), String(share.collection_id), userId, card, at],
        },
        { sql: "INSERT INTO ledger_movements (id, kind, reference_id, created_at) VALUES (?, 'refund.failed', ?, ?)", args: [`mv_${tag}`, `re_${tag}`, at] },
        {
          sql: 'INSERT INTO ledger_postings (movement_id, account, amount_cents) VALUES (?, ?, -750), (?, ?, 750)',
          args: [`mv_${tag}`, `funding_source:${card}`, `mv_${tag}`, `payable:${userId}`],
        },
      ],
      'write',
    );
  } finally {
    db.close();
  }
  return { userId, email, card };
}
