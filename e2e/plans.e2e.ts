import { expect, test, type Page } from '@playwright/test';
import { addCard, E2E_CARD_NUMBERS } from './cards';

/*
 * Issue 16: a signed-in user buys a plan. Upgrade → limits raised (a third card can be added) → a downgrade that
 * waits for the period's end, shown as pending and undoable. The period's end itself (the renewal sweep moving the
 * account) needs a clock the browser cannot move: it is covered in api/src/modules/subscription/plans.test.ts.
 */

const toast = (page: Page) => page.getByTestId('toast').last();

async function register(page: Page) {
  const email = `plans-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
}

test('upgrade to Pro from the limit banner, add a third card, schedule a cancellation and undo it', async ({ page }) => {
  test.setTimeout(90_000);
  await register(page);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '60' });
  await addCard(page, E2E_CARD_NUMBERS[2]!, { split: '40' });
  await expect(page.getByTestId('add-source-button')).toBeDisabled();

  // The limit banner's way to the plans.
  await page.getByTestId('funding-source-limit-plans').click();
  await expect(page).toHaveURL(/\/plans$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Plans' })).toBeVisible();
  await expect(page.getByTestId('plans-current-name')).toHaveText('Free');
  await expect(page.getByTestId('plans-usage-sources')).toHaveText('2 of 2');
  await expect(page.getByTestId('plans-receipts-empty')).toHaveText('No plan payments yet.');

  // Pay for Pro with the second card.
  await page.getByTestId('plans-upgrade-pro').click();
  const pay = page.getByRole('dialog');
  await expect(pay.getByRole('heading', { name: 'Upgrade to Professional' })).toBeVisible();
  await pay.getByRole('radio', { name: /•••• 4444/ }).check();
  await pay.getByTestId('plans-pay-submit').click();
  await expect(toast(page)).toContainText('You are now on Professional');
  await expect(pay).toBeHidden();
  await expect(page.getByTestId('plans-current-name')).toHaveText('Professional');
  await expect(page.getByTestId('plans-current-renewal')).toContainText(/Renews on .+ at \$9\.99\/month/);
  await expect(page.getByTestId('plans-usage-sources')).toHaveText('2 of 5');
  await expect(page.getByTestId('plans-receipt')).toHaveCount(1);
  await expect(page.getByTestId('plans-receipt').first()).toContainText('$9.99');
  await expect(page.getByTestId('plans-receipt').first()).toContainText('•••• 4444');
  await expect(page.getByTestId('plans-receipt').first()).toContainText('Paid');

  // Limits raised: a third card goes in.
  await page.getByTestId('plans-back').click();
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await expect(page.getByTestId('add-source-button')).toBeEnabled();
  await addCard(page, E2E_CARD_NUMBERS[1]!, { threeDS: true, split: '10' });
  await expect(page.getByTestId('funding-source')).toHaveCount(3);

  // Cancel: it waits for the period's end, and can be undone.
  await page.getByTestId('profile-menu').click();
  await page.getByTestId('menu-plans').click();
  await expect(page).toHaveURL(/\/plans$/);
  await page.getByTestId('plans-downgrade-free').click();
  const confirm = page.getByRole('dialog');
  await expect(confirm).toContainText('You keep Professional until');
  await confirm.getByTestId('plans-downgrade-confirm').click();
  await expect(toast(page)).toContainText('Plan change scheduled');
  await expect(page.getByTestId('plans-pending')).toContainText(/Your plan changes to Free on .+\. You keep Professional until then\./);
  await expect(page.getByTestId('plans-current-name')).toHaveText('Professional');
  await page.getByRole('button', { name: 'Keep Professional' }).click();
  await expect(toast(page)).toContainText('You keep Professional');
  await expect(page.getByTestId('plans-pending')).toHaveCount(0);
  await expect(page.getByTestId('plans-current-renewal')).toContainText('Renews on');

  // Schedule it again and leave it: the server says the same.
  await page.getByTestId('plans-downgrade-free').click();
  await page.getByRole('dialog').getByTestId('plans-downgrade-confirm').click();
  await expect(page.getByTestId('plans-pending')).toBeVisible();
  const plan = await (await page.request.get('/api/subscription/plan')).json();
  expect(plan.tier.name).toBe('pro');
  expect(plan.pendingTier.name).toBe('free');
});

test('a declined payment says why and changes nothing; the page works at 390 px and in Arabic', async ({ page }) => {
  test.setTimeout(60_000);
  await register(page);
  await page.setViewportSize({ width: 390, height: 844 });
  // A card that attaches, then declines every charge (Stripe's 4000000000000341), added through the API.
  const added = await page.request.post('/api/funding-sources', {
    data: { cardNumber: '4000000000000341', expiryMonth: '12', expiryYear: '2030', cvv: '123', name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 100 },
  });
  expect(added.status()).toBe(201);
  await page.goto('/plans');
  await page.getByTestId('plans-upgrade-premium').click();
  const pay = page.getByRole('dialog');
  await pay.getByTestId('plans-pay-submit').click();
  await expect(pay.getByTestId('plans-pay-error')).toContainText('was declined');
  await expect(pay.getByTestId('plans-pay-error')).toContainText('Nothing was charged');
  await pay.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('plans-current-name')).toHaveText('Free');
  await expect(page.getByTestId('plans-receipt').first()).toContainText('Failed');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  await page.getByRole('button', { name: 'Switch language' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'الخطط' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  const overflowAr = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflowAr).toBeLessThanOrEqual(0);
});

test("signed in, the landing page's plan buttons open the Plans screen", async ({ page }) => {
  await register(page);
  await page.goto('/ar');
  const buttons = page.getByTestId('pricing-card').getByRole('link');
  await expect(buttons.first()).toHaveAttribute('href', '/plans');
  await buttons.first().click();
  await expect(page).toHaveURL(/\/plans$/);
  await expect(page.getByTestId('plans-current')).toBeVisible();
});
