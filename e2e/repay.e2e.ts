import { expect, test, type Page } from '@playwright/test';
import { consumerWhoOwes } from './owed-kit';

/*
 * Issue 26 part 1 in Chromium: a consumer whose bank debit came back after the bcard was spent (e2e/owed-kit.ts) sees
 * what is owed and why under Funding Sources, tries a card that is declined (told why, nothing changes), repays part in
 * English, the rest in Arabic on a 390 px screen, and can create a bcard again.
 */

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test('a consumer with a returned debit sees what is owed, repays it in two parts and creates a bcard again', async ({ page, playwright, baseURL }) => {
  test.setTimeout(150_000);
  const merchantApi = await playwright.request.newContext({ baseURL });
  try {
    const { card, owed, owedCents } = await consumerWhoOwes(page, merchantApi);

    // What is owed and why, under Funding Sources.
    await page.goto('/?tab=funding-sources');
    const banner = page.getByTestId('bank-owed');
    await expect(banner).toContainText(`You owe $${owed}`);
    await expect(banner.getByTestId('owed-returned-debit')).toContainText('Groceries');
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
