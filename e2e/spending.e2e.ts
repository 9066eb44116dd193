import { expect, test, type Page } from '@playwright/test';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 25, item 1: one definition of spending on every screen. A consumer's mixed history, made through the API:
 *   - $25.00 at Corner Coffee (the payment demo): spent 25.00
 *   - a $10.00 bcard canceled unused: returned, not spent
 *   - a $40.00 bcard paid at Acme Shop (a production merchant's intent), of which Acme refunds $15.00: spent 25.00
 *   - a $60.00 bcard never used: held, not spent
 * Overview says Spent at merchants $50.00 (this month too), Held on bcards $60.00, Returned to your cards $10.00, and
 * its Recent Activity lists the three events at what they finally cost; Analytics says the same $50.00 with the two
 * merchants at $25.00 each and no "unused bcard" merchant; Transactions shows the two purchases at their amounts and
 * Acme's $15.00 refund. Then the Overview in Arabic at 390 px: the same figures, left to right.
 */

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test('Overview, Analytics and Transactions agree after a mixed history', async ({ page, playwright, baseURL }) => {
  test.setTimeout(120_000);
  // Acme Shop: a production merchant in its own cookie jar.
  const merchantApi = await playwright.request.newContext({ baseURL });
  expect((await merchantApi.post('/api/auth/register', { data: { email: uniqueEmail('acme'), password: 'correct horse battery', firstName: 'Acme', lastName: 'Owner' } })).status()).toBe(201);
  const merchant = await merchantApi.post('/api/merchants', {
    data: { businessName: 'Acme Shop', businessEmail: 'acme@shop.example', platformType: 'custom', environment: 'production' },
  });
  expect(merchant.status(), await merchant.text()).toBe(201);
  const auth = { Authorization: `Bearer ${(await merchant.json()).secretApiKey}` };

  // The consumer and two cards.
  expect((await page.request.post('/api/auth/register', { data: { email: uniqueEmail('spender'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);
  for (const number of [E2E_CARD_NUMBERS[0], E2E_CARD_NUMBERS[2]]) {
    const res = await page.request.post('/api/funding-sources', {
      data: { cardNumber: number, expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  const sources: Array<{ id: string }> = await (await page.request.get('/api/funding-sources')).json();
  const bcard = async (name: string, balance: string, source: string) => {
    const res = await page.request.post('/api/virtual-cards', { data: { name, balance, fundingSources: [{ fundingSourceId: source, percentage: 100 }] } });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()).id as string;
  };

  const paid = await page.request.post('/api/process-payment', {
    data: { amount: '25.00', merchant: 'Corner Coffee', splits: [{ fundingSourceId: sources[0]!.id, percentage: 100 }] },
  });
  expect(paid.status(), await paid.text()).toBe(200);
  const gift = await bcard('Gift', '10.00', sources[1]!.id);
  expect((await page.request.post(`/api/virtual-cards/${gift}/cancel`)).status()).toBe(200);
  const shoes = await bcard('Shoes', '40.00', sources[0]!.id);
  const details = await (await page.request.get(`/api/virtual-cards/${shoes}/checkout-details`)).json();
  const pi = await (await merchantApi.post('/api/v1/payment_intents', { headers: auth, data: { amount: 4000, currency: 'usd' } })).json();
  const confirmed = await merchantApi.post(`/api/v1/payment_intents/${pi.id}/confirm`, {
    headers: auth,
    data: { payment_method_data: { type: 'card', card: { number: details.cardNumber, exp_month: details.expiryMonth, exp_year: details.expiryYear, cvc: details.cvv } } },
  });
  expect((await confirmed.json()).status).toBe('succeeded');
  const refund = await merchantApi.post('/api/v1/refunds', { headers: auth, data: { payment_intent: pi.id, amount: 1500 } });
  expect((await refund.json()).status).toBe('succeeded');
  await bcard('Travel', '60.00', sources[1]!.id);
  await merchantApi.dispose();

  // Overview.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('stat-total-spent')).toHaveText('$50.00');
  await expect(page.getByTestId('stat-this-month')).toHaveText('$50.00');
  await expect(page.getByTestId('stat-active-bcards')).toHaveText('1');
  await expect(page.getByTestId('stat-held')).toContainText('Held on bcards');
  await expect(page.getByTestId('stat-held-value')).toHaveText('$60.00');
  await expect(page.getByTestId('stat-returned')).toContainText('Returned to your cards');
  await expect(page.getByTestId('stat-returned-value')).toHaveText('$10.00');
  await expect(page.getByTestId('stat-plan-charges-value')).toHaveText('$0.00');
  const items = page.getByTestId('recent-activity-item');
  await expect(items).toHaveCount(3);
  await expect(items.nth(0)).toContainText('Acme Shop');
  await expect(items.nth(0)).toContainText('$15.00 refunded');
  await expect(items.nth(0).getByTestId('recent-activity-amount')).toHaveText('$25.00');
  await expect(items.nth(1)).toContainText('Gift');
  await expect(items.nth(1)).toContainText('Returned to your cards');
  await expect(items.nth(1)).toHaveAttribute('data-kind', 'returned');
  await expect(items.nth(2)).toContainText('Corner Coffee');
  await expect(items.nth(2).getByTestId('recent-activity-amount')).toHaveText('$25.00');
  await expect(page.getByTestId('recent-activity')).not.toContainText('Travel');

  // Analytics: the same spending, the same merchants, no unused bcard among them.
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await expect(page.getByTestId('analytics-total-spent')).toContainText('Spent at merchants');
  await expect(page.getByTestId('analytics-total-spent')).toContainText('$50.00');
  await expect(page.getByTestId('analytics-total-spent')).toContainText('$65.00 charged, $15.00 refunded');
  await expect(page.getByTestId('analytics-total-returned')).toContainText('$10.00');
  const merchants = page.getByRole('table', { name: 'Spending by merchant' });
  await expect(merchants.getByRole('row', { name: /Acme Shop/ })).toContainText('$25.00');
  await expect(merchants.getByRole('row', { name: /Acme Shop/ })).toContainText('$15.00');
  await expect(merchants.getByRole('row', { name: /Corner Coffee/ })).toContainText('$25.00');
  await expect(merchants.locator('tbody tr')).toHaveCount(2);
  const sourceTable = page.getByRole('table', { name: 'Spending by funding source' });
  await expect(sourceTable.getByRole('row', { name: /4242/ })).toContainText('$50.00');

  // Transactions: the purchases at what merchants charged, and Acme's refund: 25.00 + 40.00 - 15.00 = 50.00.
  await page.getByRole('tab', { name: 'Transactions' }).click();
  const rows = page.getByTestId('transaction-row');
  await expect(rows).toHaveCount(4);
  const coffee = rows.filter({ has: page.getByTestId('transaction-merchant').filter({ hasText: 'Corner Coffee' }) });
  await expect(coffee.getByTestId('transaction-amount')).toContainText('$25.00');
  const acme = rows.filter({ has: page.getByTestId('transaction-merchant').filter({ hasText: 'Acme Shop' }) });
  await expect(acme.getByTestId('transaction-amount')).toContainText('$40.00');
  await acme.getByTestId('transaction-view').click();
  await expect(page.getByRole('dialog')).toContainText('$15.00');
  await page.keyboard.press('Escape');

  // Arabic at 390 px: the same figures, written left to right.
  await page.setViewportSize({ width: 390, height: 844 });
  // Signed in, the account's language is the page's (issue 25 item 5): set it, and this browser's choice with it.
  expect((await page.request.patch('/api/auth/user', { data: { language: 'ar' } })).status()).toBe(200);
  await page.evaluate(() => localStorage.setItem('bpay-language', 'ar'));
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  const overview = page.getByRole('tab', { name: 'نظرة عامة' });
  await overview.scrollIntoViewIfNeeded();
  await overview.click();
  await expect(page.getByTestId('stat-total-spent')).toHaveText('$50.00');
  await expect(page.getByTestId('stat-total-spent')).toHaveAttribute('dir', 'ltr');
  await expect(page.getByTestId('stat-held')).toContainText('محجوز على بطاقات bcard');
  await expect(page.getByTestId('stat-held-value')).toHaveText('$60.00');
  await expect(page.getByTestId('stat-returned')).toContainText('أُعيد إلى بطاقاتك');
  await expect(page.getByText('المُنفق لدى التجار').first()).toBeVisible();
  await noHorizontalScroll(page);
});
