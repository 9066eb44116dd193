import { expect, test } from '@playwright/test';

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

test('an unknown path shows the 404 page with its hint and a way home (signed out: the landing page)', async ({ page }) => {
  // The server answers HTTP 404 with the app (issue 25 6e), which renders the page.
  expect((await page.goto('/no-such-page'))?.status()).toBe(404);
  await expect(page.getByText('404 Page Not Found')).toBeVisible();
  await expect(page.getByText('Did you forget to add the page to the router?')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: '404 Page Not Found' })).toBeFocused();
  await expect(page.getByTestId('not-found-path')).toHaveText('/no-such-page');
  await expect(page).toHaveTitle('Page not found · bpay');
  const home = page.getByRole('link', { name: 'Go to the home page' });
  await expect(home).toHaveAttribute('href', '/');
  await home.click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText('404 Page Not Found')).toHaveCount(0);
});

test('404 in Arabic: right to left, the spec texts translated, home is the Arabic landing page; the switch goes back to English', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/ar/no-such-page');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('404 الصفحة غير موجودة');
  await expect(page.getByText('هل نسيت إضافة الصفحة إلى الموجّه؟')).toBeVisible();
  const home = page.getByTestId('not-found-home');
  await expect(home).toHaveText('الذهاب إلى الصفحة الرئيسية');
  await expect(home).toHaveAttribute('href', '/ar');
  // Nothing sideways at 390 px, the path included.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: 'test-results/not-found-ar-390.png' });
  await page.getByTestId('not-found-language').click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('404 Page Not Found');
  await expect(page.getByTestId('not-found-home')).toHaveAttribute('href', '/');
  // The switch keeps the keyboard focus where it was.
  await expect(page.getByTestId('not-found-language')).toBeFocused();
});

test('404 signed in: the way home is the dashboard', async ({ page }) => {
  const reg = await page.request.post('/api/auth/register', {
    data: { email: uniqueEmail('not-found'), password: 'correct horse battery', firstName: 'Lost', lastName: 'User' },
  });
  expect(reg.status()).toBe(201);
  await page.goto('/settings/nowhere');
  await expect(page.getByText('404 Page Not Found')).toBeVisible();
  const home = page.getByRole('link', { name: 'Back to your dashboard' });
  await expect(home).toHaveAttribute('href', '/');
  await home.click();
  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();
});

test('404 under /admin: the way home is the admin panel (which asks an unsigned visitor to sign in)', async ({ page }) => {
  for (const path of ['/admin', '/admin/users', '/admin-panel/settings']) {
    await page.goto(path);
    await expect(page.getByText('404 Page Not Found')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Back to the admin panel' })).toHaveAttribute('href', '/admin-panel');
  }
  await page.getByRole('link', { name: 'Back to the admin panel' }).click();
  await expect(page).toHaveURL(/\/admin-login$/);
});

test('routes match case-insensitively', async ({ page }) => {
  await page.goto('/AUTH');
  await expect(page.getByRole('tab', { name: 'Sign In' })).toBeVisible();
  await page.goto('/Terms-Conditions');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByText('404 Page Not Found')).toHaveCount(0);
});
