import { expect, test, type Page } from '@playwright/test';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 26 part 4 in Chromium: a prorated upgrade's receipt. A user on Pro upgrades to Premium on /plans at once
 * (the period has only just started, so its unused part is all of Pro's $9.99 and the rest of Premium is $19.99):
 * $10.00 is charged, the period kept, and the receipt, on /plans and in the dashboard, shows "Unused time on
 * Professional" −$9.99, "Remaining time on Premium" $19.99 and the total. Then the plan's card is changed, and it all
 * reads right to left at 390 px in Arabic.
 */

const toast = (page: Page) => page.getByTestId('toast').last();

async function register(page: Page) {
  const email = `plan-proration-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
}

async function addSource(page: Page, cardNumber: string, split: number): Promise<string> {
  const res = await page.request.post('/api/funding-sources', {
    data: { cardNumber, expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: split },
  });
  expect(res.status()).toBe(201);
  return (await res.json()).id;
}

test('a prorated upgrade: charged the difference, the period kept, the receipt shows the proration lines; the plan card changes', async ({ page }) => {
  test.setTimeout(90_000);
  await register(page);
  const first = await addSource(page, E2E_CARD_NUMBERS[0]!, 50);
  await addSource(page, E2E_CARD_NUMBERS[2]!, 50);
  const pro = await page.request.post('/api/subscription/upgrade', {
    data: { tierId: 'tier_pro', fundingSourceId: first },
    headers: { 'Idempotency-Key': `e2e-proration-${Date.now()}` },
  });
  expect(pro.status()).toBe(200);
  const period = (await pro.json()).plan as { currentPeriodStart: string; currentPeriodEnd: string };

  // Upgrade to Premium on /plans: the dialog says the difference is paid and the period stays.
  await page.goto('/plans');
  await expect(page.getByTestId('plans-current-name')).toHaveText('Professional');
  await expect(page.getByTestId('plans-current-card')).toContainText('•••• 4242');
  await page.getByTestId('plans-upgrade-premium').click();
  const pay = page.getByRole('dialog');
  await expect(pay).toContainText('You pay the difference for what is left of your billing period');
  await expect(pay.getByTestId('plans-pay-submit')).toHaveText('Pay the difference');
  await pay.getByRole('radio', { name: /•••• 4242/ }).check();
  await pay.getByTestId('plans-pay-submit').click();
  await expect(toast(page)).toContainText('You are now on Premium');
  await expect(toast(page)).toContainText('$10.00 charged');
  await expect(page.getByTestId('plans-current-name')).toHaveText('Premium');
  const plan = (await (await page.request.get('/api/subscription/plan')).json()) as typeof period;
  expect([plan.currentPeriodStart, plan.currentPeriodEnd]).toEqual([period.currentPeriodStart, period.currentPeriodEnd]);

  // The receipt on /plans: the two lines and the total.
  const lines = page.getByTestId('plans-receipt-proration');
  await expect(lines).toHaveCount(1);
  await expect(lines).toContainText('Unused time on Professional');
  await expect(lines).toContainText('−$9.99');
  await expect(lines).toContainText('Remaining time on Premium');
  await expect(lines).toContainText('$19.99');
  await expect(lines).toContainText('Total$10.00');

  // The same receipt in the dashboard's Transactions tab.
  await page.getByTestId('plans-back').click();
  await page.getByRole('tab', { name: 'Transactions' }).click();
  const rows = page.getByRole('region', { name: 'Plan payments' }).getByTestId('plan-payment-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Upgrade (prorated)');
  await rows.nth(0).getByTestId('plan-payment-view').click();
  const receipt = page.getByRole('dialog', { name: 'Plan payment receipt' });
  // Each line: its label (the plan and the dates) and its amount.
  await expect(receipt).toContainText(/Unused time on Professional \(\w{3} \d{1,2}, \d{4} – \w{3} \d{1,2}, \d{4}\)/);
  await expect(receipt.getByTestId('plan-payment-receipt-unused')).toHaveText('−$9.99');
  await expect(receipt).toContainText('Remaining time on Premium');
  await expect(receipt.getByTestId('plan-payment-receipt-remaining')).toHaveText('$19.99');
  await expect(receipt.getByText('Total', { exact: true })).toBeVisible();
  await expect(receipt.getByTestId('plan-payment-receipt-amount')).toHaveText('$10.00');
  await page.keyboard.press('Escape');

  // Change the plan's card: the next renewal goes to •••• 4444; nothing is charged now.
  await page.goto('/plans');
  await page.getByTestId('plans-change-card').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Nothing is charged now');
  await dialog.getByRole('radio', { name: /•••• 4444/ }).check();
  await dialog.getByTestId('plans-card-submit').click();
  await expect(toast(page)).toContainText('Your plan renews on the new card');
  await expect(page.getByTestId('plans-current-card')).toContainText('•••• 4444');
  const charges = (await (await page.request.get('/api/subscription/charges')).json()) as unknown[];
  expect(charges).toHaveLength(2);

  // Arabic at 390 px: right to left, the lines readable, nothing off-screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Switch language' }).click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(lines).toContainText('الوقت غير المستخدم من خطة Professional');
  await expect(lines).toContainText('الوقت المتبقي على خطة Premium');
  await expect(lines).toContainText('المجموع');
  await expect(page.getByTestId('plans-change-card')).toHaveText('تغيير البطاقة');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.getByTestId('plans-change-card').click();
  const ar = page.getByRole('dialog');
  await expect(ar).toContainText('لا يُخصم شيء الآن');
  const box = await ar.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
});
