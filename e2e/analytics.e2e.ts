import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 16's Analytics tab: a new consumer sees the empty state; after a bcard split 60/40 over two cards (never
 * used: held, not spent), a purchase at Corner Coffee and a canceled bcard (returned, not spent), the tab shows the
 * totals, four charts each named by its title with its table, the table toggle, the CSV download of the same
 * figures, and the same in Arabic on a 390 px screen. Spending is issue 25's one definition (modules/spending).
 */

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test('the Analytics tab: empty state, charts with names and tables, CSV, Arabic at 390 px', async ({ page }) => {
  test.setTimeout(90_000);
  expect((await page.request.post('/api/auth/register', { data: { email: uniqueEmail('analytics'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);

  await page.goto('/');
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await expect(page.getByTestId('analytics-empty')).toContainText('No spending yet');

  for (const number of [E2E_CARD_NUMBERS[0], E2E_CARD_NUMBERS[2]]) {
    const res = await page.request.post('/api/funding-sources', {
      data: { cardNumber: number, expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  const sources: Array<{ id: string; last4: string }> = await (await page.request.get('/api/funding-sources')).json();
  const made = await page.request.post('/api/virtual-cards', {
    data: { name: 'Travel', balance: '60.00', fundingSources: [{ fundingSourceId: sources[0]!.id, percentage: 60 }, { fundingSourceId: sources[1]!.id, percentage: 40 }] },
  });
  expect(made.status(), await made.text()).toBe(201);
  const paid = await page.request.post('/api/process-payment', {
    data: { amount: '25.00', merchant: 'Corner Coffee', splits: [{ fundingSourceId: sources[0]!.id, percentage: 100 }] },
  });
  expect(paid.status(), await paid.text()).toBe(200);
  const gift = await page.request.post('/api/virtual-cards', { data: { name: 'Gift', balance: '10.00', fundingSources: [{ fundingSourceId: sources[1]!.id, percentage: 100 }] } });
  expect(gift.status()).toBe(201);
  expect((await page.request.post(`/api/virtual-cards/${(await gift.json()).id}/cancel`)).status()).toBe(200);

  // What the server sums (its figures are checked by hand in api/src/modules/analytics/analytics.test.ts).
  const offset = await page.evaluate(() => -new Date().getTimezoneOffset());
  const api = await (await page.request.get(`/api/analytics?months=12&utcOffset=${offset}&top=5`)).json();
  expect(api.totals.spent).toBe('25.00');
  expect(api.totals.returned).toBe('10.00');
  expect(api.totals.purchases).toBe(1);
  const usd = (s: string) => `$${Number(s).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

  await page.reload();
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await expect(page.getByTestId('analytics-total-spent')).toContainText('$25.00');
  await expect(page.getByTestId('analytics-total-returned')).toContainText(usd(api.totals.returned));
  await expect(page.getByTestId('analytics-total-fees')).toContainText(usd((Number(api.totals.fees) - Number(api.totals.feesReturned)).toFixed(2)));

  // Four charts, each a figure and a picture named by its title.
  for (const name of ['Spending by month', 'Spending by funding source', 'Spending by merchant', 'Each funding source’s share by month']) {
    await expect(page.getByRole('figure', { name })).toBeVisible();
    await expect(page.getByRole('img', { name })).toBeVisible();
  }
  // The merchant chart's table is there for screen readers before it is shown, then shown by the toggle.
  const merchants = page.getByRole('figure', { name: 'Spending by merchant' });
  const table = merchants.getByRole('table', { name: 'Spending by merchant' });
  await expect(table).toBeAttached();
  await expect(table.getByRole('row', { name: /Corner Coffee/ })).toContainText('$25.00');
  // The bcards never spent are no merchant's: only Corner Coffee is listed.
  await expect(table.locator('tbody tr')).toHaveCount(1);
  const toggle = page.getByTestId('analytics-by-merchant-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(table).toBeVisible();
  await expect(toggle).toHaveText('Hide table');
  // The source chart's table lists the card that paid the purchase, with its part of the spending.
  const sourceTable = page.getByRole('table', { name: 'Spending by funding source' });
  expect(api.sources).toHaveLength(1);
  for (const s of api.sources) await expect(sourceTable.getByRole('row', { name: new RegExp(s.last4) })).toContainText(usd(s.spent));

  // The CSV of the same figures.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('analytics-download').click()]);
  expect(download.suggestedFilename()).toMatch(/^bpay-analytics-\d{4}-\d{2}-to-\d{4}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
  expect(csv[0]).toBe('figure,month,item,amount,transactions');
  expect(csv).toContain('spent,all,,25.00,1');
  expect(csv).toContain('returned,all,,10.00,1');
  expect(csv).toContain('merchant_spent,all,Corner Coffee,25.00,1');

  // The period selector asks again (three months: the same transactions, three months listed).
  await page.getByLabel('Period', { exact: true }).selectOption('3');
  await expect(page.getByRole('table', { name: 'Spending by month' }).locator('tbody tr')).toHaveCount(3);

  // Arabic, right to left, on a phone: nothing wider than the screen, the same names in Arabic.
  await page.setViewportSize({ width: 390, height: 844 });
  // Signed in, the account's language is the page's (issue 25 item 5): set it, and this browser's choice with it.
  expect((await page.request.patch('/api/auth/user', { data: { language: 'ar' } })).status()).toBe(200);
  await page.evaluate(() => localStorage.setItem('bpay-language', 'ar'));
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  const arTab = page.getByRole('tab', { name: 'التحليلات' });
  await arTab.scrollIntoViewIfNeeded();
  await arTab.click();
  await expect(page.getByRole('img', { name: 'الإنفاق حسب الشهر' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'الإنفاق حسب التاجر' })).toBeVisible();
  await expect(page.getByTestId('analytics-total-spent')).toContainText('$25.00');
  await expect(page.getByTestId('analytics-total-spent')).toContainText('المُنفق لدى التجار');
  await expect(page.getByRole('table', { name: 'الإنفاق حسب التاجر' }).getByRole('row', { name: /Corner Coffee/ })).toContainText('$25.00');
  await page.getByTestId('analytics-by-month-toggle').click();
  await expect(page.getByTestId('analytics-by-month-toggle')).toHaveText('إخفاء الجدول');
  for (const id of ['analytics-by-month', 'analytics-by-source', 'analytics-by-merchant', 'analytics-share']) {
    const box = (await page.getByTestId(id).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  // Time runs left to right in Arabic too.
  await expect(page.getByTestId('analytics-by-month-svg')).toHaveAttribute('direction', 'ltr');
  await noHorizontalScroll(page);
});
