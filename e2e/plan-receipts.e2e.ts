import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 16: an upgrade is charged "with a ledger entry and a receipt in Transactions". A user pays for Pro on /plans
 * (after a declined attempt), then finds both plan payments in the dashboard's Transactions tab, opens the receipt,
 * filters, downloads the plan payments CSV, and reads it all at 390 px in Arabic.
 */

const toast = (page: Page) => page.getByTestId('toast').last();

async function register(page: Page) {
  const email = `plan-receipts-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
}

async function addSource(page: Page, cardNumber: string, cvv: string, split: number) {
  const res = await page.request.post('/api/funding-sources', {
    data: { cardNumber, expiryMonth: '12', expiryYear: '2030', cvv, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: split },
  });
  expect(res.status()).toBe(201);
}

test('an upgrade shows in the Transactions tab as a plan payment with its receipt, and a declined one as failed', async ({ page }) => {
  test.setTimeout(90_000);
  await register(page);
  // A card that declines every charge (4000000000000341), and one that pays (•••• 4444).
  await addSource(page, '4000000000000341', '123', 50);
  await addSource(page, E2E_CARD_NUMBERS[2]!, E2E_CVV, 50);

  // Nothing yet: no plan payments section at all.
  await page.goto('/');
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('transactions-empty')).toBeVisible();
  await expect(page.getByTestId('plan-payments')).toHaveCount(0);

  // Pay for Pro: first with the declining card, then with •••• 4444.
  await page.goto('/plans');
  await page.getByTestId('plans-upgrade-pro').click();
  let pay = page.getByRole('dialog');
  await pay.getByRole('radio', { name: /•••• 0341/ }).check();
  await pay.getByTestId('plans-pay-submit').click();
  await expect(pay.getByTestId('plans-pay-error')).toContainText('was declined');
  await pay.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('plans-upgrade-pro').click();
  pay = page.getByRole('dialog');
  await pay.getByRole('radio', { name: /•••• 4444/ }).check();
  await pay.getByTestId('plans-pay-submit').click();
  await expect(toast(page)).toContainText('You are now on Professional');
  const charges = (await (await page.request.get('/api/subscription/charges')).json()) as Array<{ id: string; status: string }>;
  expect(charges.map((c) => c.status)).toEqual(['succeeded', 'failed']);

  // The Transactions tab: bcard purchases (none) and, apart, the two plan payments, newest first.
  await page.getByTestId('plans-back').click();
  await page.getByRole('tab', { name: 'Transactions' }).click();
  const section = page.getByRole('region', { name: 'Plan payments' });
  await expect(section).toBeVisible();
  const rows = section.getByTestId('plan-payment-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Professional plan');
  await expect(rows.nth(0).getByTestId('plan-payment-amount')).toHaveText('$9.99');
  await expect(rows.nth(0).getByTestId('plan-payment-card')).toHaveText('•••• 4444');
  await expect(rows.nth(0).getByTestId('plan-payment-status')).toHaveText('Paid');
  await expect(rows.nth(1).getByTestId('plan-payment-card')).toHaveText('•••• 0341');
  await expect(rows.nth(1).getByTestId('plan-payment-status')).toHaveText('Failed');
  await expect(rows.nth(1)).toContainText('declined');

  // The receipt, opened from the keyboard; Escape gives focus back to its button.
  const view = rows.nth(0).getByTestId('plan-payment-view');
  await view.focus();
  await page.keyboard.press('Enter');
  const receipt = page.getByRole('dialog', { name: 'Plan payment receipt' });
  await expect(receipt).toBeVisible();
  await expect(receipt.getByTestId('plan-payment-receipt-plan')).toHaveText('Professional · Upgrade');
  await expect(receipt.getByTestId('plan-payment-receipt-period')).toHaveText(/^\w{3} \d{1,2}, \d{4} – \w{3} \d{1,2}, \d{4}$/);
  await expect(receipt.getByTestId('plan-payment-receipt-amount')).toHaveText('$9.99');
  await expect(receipt.getByTestId('plan-payment-receipt-card')).toContainText('•••• 4444');
  await expect(receipt.getByTestId('plan-payment-receipt-status')).toHaveText('Paid');
  await expect(receipt.getByTestId('plan-payment-receipt-id')).toHaveText(charges[0]!.id);
  await page.keyboard.press('Escape');
  await expect(receipt).toBeHidden();
  await expect(view).toBeFocused();

  // The tab's status filter applies: Completed keeps the paid one, Failed the declined one.
  await page.getByTestId('transaction-filter').selectOption('completed');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('plan-payment-status')).toHaveText('Paid');
  await page.getByTestId('transaction-filter').selectOption('pending');
  await expect(page.getByTestId('plan-payments')).toHaveCount(0);
  await page.getByTestId('transaction-filter').selectOption('failed');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByTestId('plan-payment-status')).toHaveText('Failed');

  // Its CSV holds the failed payment only, with the same filter; the bcard purchases CSV stays as it was.
  const download = page.waitForEvent('download');
  await section.getByTestId('plan-payments-export').click();
  const csv = readFileSync(await (await download).path(), 'utf8').split('\r\n');
  expect(csv[0]).toBe('id,created_at,kind,plan,period_start,period_end,amount,status,funding_source,card_brand,card_last4,failure_message');
  expect(csv.filter(Boolean)).toHaveLength(2);
  expect(csv[1]).toContain(`${charges[1]!.id},`);
  expect(csv[1]).toContain(',failed,');

  // From the receipt to the plan.
  await page.getByTestId('transaction-filter').selectOption('all');
  await rows.nth(1).getByTestId('plan-payment-view').click();
  await expect(page.getByRole('dialog').getByTestId('plan-payment-receipt-status')).toHaveText('Failed');
  await page.getByRole('dialog').getByTestId('plan-payment-receipt-plans').click();
  await expect(page).toHaveURL(/\/plans$/);
  await expect(page.getByTestId('plans-current-name')).toHaveText('Professional');
});

test('plan payments at 390 px in Arabic: right to left, nothing off-screen, the receipt readable', async ({ page }) => {
  test.setTimeout(60_000);
  await register(page);
  await addSource(page, E2E_CARD_NUMBERS[2]!, E2E_CVV, 100);
  const sources = (await (await page.request.get('/api/funding-sources')).json()) as Array<{ id: string }>;
  const paid = await page.request.post('/api/subscription/upgrade', {
    data: { tierId: 'tier_premium', fundingSourceId: sources[0]!.id },
    headers: { 'Idempotency-Key': `e2e-${Date.now()}` },
  });
  expect(paid.status()).toBe(200);

  await page.setViewportSize({ width: 390, height: 844 });
  // The dashboard has no language switch of its own: the choice made on /plans is kept.
  await page.goto('/plans');
  await page.getByRole('button', { name: 'Switch language' }).click();
  await page.getByTestId('plans-back').click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('tab', { name: 'المعاملات' }).click();
  const section = page.getByRole('region', { name: 'مدفوعات الخطة' });
  await expect(section.getByTestId('plan-payment-row')).toHaveCount(1);
  await expect(section.getByTestId('plan-payment-status')).toHaveText('مدفوعة');
  await expect(section.getByTestId('plan-payment-amount')).toHaveText('$19.99');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  await section.getByTestId('plan-payment-view').click();
  const receipt = page.getByRole('dialog', { name: 'إيصال دفعة الخطة' });
  await expect(receipt).toBeVisible();
  await expect(receipt.getByTestId('plan-payment-receipt-plan')).toContainText('ترقية');
  await expect(receipt.getByTestId('plan-payment-receipt-amount')).toHaveText('$19.99');
  const box = await receipt.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  const dialogOverflow = await receipt.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(dialogOverflow).toBeLessThanOrEqual(0);
});
