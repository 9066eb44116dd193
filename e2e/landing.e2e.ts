import { expect, test, type Page } from '@playwright/test';

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

/*
 * Signing in (or registering) in Arabic lands on the dashboard at `/`, never on the Arabic landing `/ar`: the landing
 * sends an Arabic reader from `/` to `/ar`, so it must not be shown for a moment before the session state holds the
 * user who just signed in.
 */
test.describe('signing in with the page in Arabic', () => {
  async function arabicAuthPage(page: Page, search = '') {
    // Records the landing ever appearing, or the address ever being /ar, on the way to the dashboard.
    await page.addInitScript(() => {
      const seen = document.documentElement.dataset;
      new MutationObserver(() => {
        if (location.pathname === '/ar' && !seen.sawAr) seen.sawAr = 'yes';
        if (document.getElementById('how-it-works') && !seen.sawLanding) seen.sawLanding = 'yes';
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto(`/auth${search}`);
    await page.getByTestId('auth-language').click();
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  }

  async function expectArabicDashboard(page: Page) {
    await expect(page.getByTestId('tab-overview')).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('html')).not.toHaveAttribute('data-saw-ar', 'yes');
    await expect(page.locator('html')).not.toHaveAttribute('data-saw-landing', 'yes');
  }

  test('sign in: the dashboard at /, not /ar', async ({ page }) => {
    const email = `ar-signin-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const res = await page.request.post('/api/auth/register', {
      data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(res.status()).toBe(201);
    await page.request.post('/api/auth/logout');
    await arabicAuthPage(page);
    await page.locator('#login-email').fill(email);
    await page.locator('#login-password').fill('correct horse battery');
    await page.locator('#login-password').press('Enter');
    await expectArabicDashboard(page);
  });

  test('register: the dashboard at /, not /ar', async ({ page }) => {
    const email = `ar-register-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    await arabicAuthPage(page, '?tab=register');
    await page.locator('#register-first-name').fill('Ada');
    await page.locator('#register-last-name').fill('Lovelace');
    await page.locator('#register-email').fill(email);
    await page.locator('#register-password').fill('correct horse battery');
    await page.locator('#register-password').press('Enter');
    await expectArabicDashboard(page);
  });
});
