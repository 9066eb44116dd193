import { createClient } from '@libsql/client';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_BANK_ACCOUNT_NUMBERS, E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 26 part 1 in Chromium: a consumer whose bank debit came back after the bcard was spent sees what is owed and
 * why under Funding Sources, tries a card that is declined (told why, nothing changes), repays part in English, the
 * rest in Arabic on a 390 px screen, and can create a bcard again.
 *
 * A debit comes back four days after it is made, by the simulated bank's clock: the test moves that one debit's date
 * back in the server's database (the simulator's own record, nothing of bpay's), and the money sweep (every 30 s)
 * then finds it returned R01, as it would four days later (as e2e/statuses.e2e.ts does).
 */

const PORT = Number(process.env.E2E_PORT ?? 3100);
const DATA_DIR = process.env.E2E_DATA_DIR ?? (PORT === 3100 ? './data/e2e' : `./data/e2e-${PORT}`);
const R01_ACCOUNT = E2E_BANK_ACCOUNT_NUMBERS[1]!;
const DECLINES_CHARGES = '4000000000000341';
const FOUR_DAYS_AND_AN_HOUR_MS = (4 * 24 + 1) * 3_600_000;
const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

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

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test('a consumer with a returned debit sees what is owed, repays it in two parts and creates a bcard again', async ({ page, playwright, baseURL }) => {
  test.setTimeout(150_000);
  const merchantApi = await playwright.request.newContext({ baseURL });
  try {
    const auth = await liveMerchant(merchantApi);
    expect((await page.request.post('/api/auth/register', { data: { email: uniqueEmail('repayer'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);
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

    // What is owed and why, under Funding Sources.
    await page.goto('/?tab=funding-sources');
    const banner = page.getByTestId('bank-owed');
    await expect(banner).toContainText(`You owe $${owed}`);
    await expect(banner.getByTestId('owed-returned-debit')).toContainText('"Groceries"');
    await expect(banner.getByTestId('owed-returned-debit')).toContainText('R01: Insufficient funds');
    await expect(banner.getByTestId('owed-returned-debit')).toContainText('•••• 2227');

    // The declining card: the dialog says why; nothing is repaid.
    await banner.getByTestId('repay-button').click();
    const dialog = page.getByTestId('repay-dialog');
    await expect(dialog.getByTestId('repay-amount')).toHaveValue(owed);
    await dialog.getByTestId('repay-source-0341').check();
    await dialog.getByTestId('repay-amount').fill('5.00');
    await dialog.getByTestId('repay-submit').click();
    await expect(dialog.getByTestId('repay-error')).toContainText('•••• 0341');
    await expect(dialog.getByTestId('repay-error')).toContainText('Nothing was charged');
    // More than is owed is refused as typed.
    await dialog.getByTestId('repay-source-4242').check();
    await dialog.getByTestId('repay-amount').fill(`${(owedCents / 100 + 1).toFixed(2)}`);
    await dialog.getByTestId('repay-submit').click();
    await expect(dialog.getByTestId('repay-amount-error')).toContainText(`at most $${owed}`);

    // A part: $5.00 from the Visa.
    await dialog.getByTestId('repay-amount').fill('5.00');
    await dialog.getByTestId('repay-submit').click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText('Repaid $5.00').first()).toBeVisible();
    const rest = ((owedCents - 500) / 100).toFixed(2);
    await expect(banner).toContainText(`You owe $${rest}`);
    await expect(banner.getByTestId('owed-history')).toContainText('$5.00');
    // Still restricted.
    const refused = await page.request.post('/api/virtual-cards', {
      data: { name: 'Again', balance: '5.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect((await refused.json()).error.code).toBe('account_restricted');

    // The rest in Arabic on a phone: the dialog reads right to left and fits.
    await page.setViewportSize({ width: 390, height: 844 });
    // Arabic as the account's language (what switching language on screen does): the reasons the server writes follow it.
    expect((await page.request.patch('/api/auth/user', { data: { language: 'ar' } })).status()).toBe(200);
    await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
    await page.goto('/?tab=funding-sources');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(banner.getByTestId('owed-returned-debit')).toContainText('رصيد غير كافٍ');
    await noHorizontalScroll(page);
    await banner.getByTestId('repay-button').click();
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId('repay-amount')).toHaveValue(rest);
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await dialog.getByTestId('repay-source-4242').check();
    await dialog.getByTestId('repay-submit').click();
    await expect(dialog).toBeHidden();
    // Nothing is owed: the restriction's message is gone, and a bcard can be created again.
    await expect(banner).toBeHidden();
    expect(await (await page.request.get('/api/receivables')).json()).toMatchObject({ owed: '0.00', restricted: false });
    const again = await page.request.post('/api/virtual-cards', {
      data: { name: 'Again', balance: '5.00', fundingSources: [{ fundingSourceId: card, percentage: 100 }] },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    expect(again.status(), await again.text()).toBe(201);
  } finally {
    await merchantApi.dispose();
  }
});
