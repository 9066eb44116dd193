import { expect, test } from '@playwright/test';

test.describe('landing page', () => {
  test('English at /, Arabic at /ar right-to-left, and the switch persists across reloads', async ({ page }) => {
    await page.goto('/');
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.locator('#how-it-works')).toBeVisible();
    await expect(page.locator('#features')).toBeAttached();
    await expect(page.locator('#pricing')).toBeAttached();
    await expect(page.getByText('2025', { exact: false }).last()).toBeVisible();

    await page.getByTestId('language-switch').first().click();
    await expect(page).toHaveURL(/\/ar$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
    expect(await page.evaluate(() => localStorage.getItem('bpay-language'))).toBe('ar');

    await page.reload();
    await expect(page).toHaveURL(/\/ar$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');

    // The saved choice wins on the bare landing route too.
    await page.goto('/');
    await expect(page).toHaveURL(/\/ar$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');

    await page.getByTestId('language-switch').first().click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    await page.reload();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    expect(await page.evaluate(() => localStorage.getItem('bpay-language'))).toBe('en');
  });

  test('pricing shows the three plans from the API with the display rules', async ({ page, request }) => {
    const api = await (await request.get('/api/subscription/tiers')).json();
    expect(api.tiers.map((t: { name: string }) => t.name)).toEqual(['free', 'pro', 'premium']);

    await page.goto('/');
    const cards = page.getByTestId('pricing-card');
    await expect(cards).toHaveCount(3);
    await expect(cards.nth(0)).toContainText('Free');
    await expect(cards.nth(0)).toContainText('2.9%');
    await expect(cards.nth(0)).toContainText('2 sources');
    await expect(cards.nth(0)).toContainText('Start Free');
    await expect(cards.nth(1)).toContainText('$9.99');
    await expect(cards.nth(1)).toContainText('Most Popular');
    await expect(cards.nth(1)).toContainText('5 sources');
    await expect(cards.nth(1)).toContainText('10,000');
    await expect(cards.nth(1)).toContainText('Choose Plan');
    await expect(cards.nth(2)).toContainText('$19.99');
    await expect(cards.nth(2)).toContainText('1.9%');
    await expect(cards.nth(2)).toContainText('Unlimited');
    await expect(cards.nth(0)).not.toContainText('Most Popular');

    // Choose Plan opens Register and comes back to /plans with the plan (e2e/plans-signup.e2e.ts follows it through).
    await cards.nth(1).getByRole('link', { name: 'Choose Plan' }).click();
    await expect(page).toHaveURL(/\/auth\?tab=register&next=%2Fplans%3Ftier%3D/);
  });

  test('the Arabic page lists the plans in Arabic', async ({ page }) => {
    await page.goto('/ar');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    const cards = page.getByTestId('pricing-card');
    await expect(cards).toHaveCount(3);
    await expect(cards.nth(1)).toContainText('9.99');
    await expect(cards.nth(2)).toContainText('1.9%');
  });
});
