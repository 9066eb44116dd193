import { expect, test } from '@playwright/test';

/*
 * Issue 25 item 6c-d: a plan chosen on the landing page's pricing cards is carried through sign-up to /plans, where it
 * is highlighted; signed-out /plans asks to sign in (or register) to choose a plan and comes back, the plan kept.
 */

const unique = (prefix: string) => `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function proTierId(request: import('@playwright/test').APIRequestContext): Promise<string> {
  const { tiers } = (await (await request.get('/api/subscription/tiers')).json()) as { tiers: Array<{ id: string; name: string }> };
  const pro = tiers.find((t) => t.name === 'pro');
  expect(pro).toBeDefined();
  return pro!.id;
}

test('Choose Plan on a paid tier: Register, then /plans with that tier highlighted; Start Free opens Register', async ({ page, request }) => {
  const proId = await proTierId(request);
  await page.goto('/');
  const cards = page.getByTestId('pricing-card');
  await expect(cards).toHaveCount(3);
  await expect(cards.nth(0).getByRole('link', { name: /Start Free/ })).toHaveAttribute('href', '/auth?tab=register');

  await cards.nth(1).getByRole('link', { name: /Choose Plan/ }).click();
  await expect(page).toHaveURL(`/auth?tab=register&next=${encodeURIComponent(`/plans?tier=${proId}`)}`);
  await expect(page.getByRole('tab', { name: 'Register' })).toHaveAttribute('aria-selected', 'true');

  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.locator('#register-email').fill(unique('plans-signup'));
  await page.locator('#register-password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create Account' }).click();

  await expect(page).toHaveURL(`/plans?tier=${proId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Plans' })).toBeVisible();
  const chosen = page.locator('[data-testid="plans-tier"][data-chosen]');
  await expect(chosen).toHaveCount(1);
  await expect(chosen.getByRole('heading', { level: 3 })).toHaveText('Professional');
  await expect(chosen.getByTestId('plans-tier-chosen')).toHaveText('Your choice');
  await expect(chosen.getByTestId('plans-upgrade-pro')).toBeVisible();
  await expect(page.getByTestId('plans-current-name')).toHaveText('Free');
});

test('signed-out /plans asks to sign in to choose a plan, and signing in comes back with the tier kept', async ({ page, request }) => {
  const proId = await proTierId(request);
  const email = unique('plans-signin');
  // Registered from another context: this page stays signed out.
  expect((await request.post('/api/auth/register', { data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);

  await page.goto(`/plans?tier=${proId}`);
  const card = page.getByTestId('access-required');
  await expect(card).toContainText('Sign in to choose a plan');
  await expect(page.getByTestId('access-register')).toHaveText('Register');
  await expect(page.getByTestId('access-register')).toHaveAttribute('href', `/auth?tab=register&next=${encodeURIComponent(`/plans?tier=${proId}`)}`);

  await page.getByTestId('access-sign-in').click();
  await expect(page).toHaveURL(`/auth?next=${encodeURIComponent(`/plans?tier=${proId}`)}`);
  await page.locator('#login-email').fill(email);
  await page.locator('#login-password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign In', exact: true }).last().click();

  await expect(page).toHaveURL(`/plans?tier=${proId}`);
  await expect(page.locator('[data-testid="plans-tier"][data-chosen]').getByRole('heading', { level: 3 })).toHaveText('Professional');
});

test('signed-out /plans in Arabic at 390 px: the same words, right to left', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.goto('/plans');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.getByTestId('access-required')).toContainText('سجّل الدخول لاختيار خطة');
  await expect(page.getByTestId('access-sign-in')).toHaveText('تسجيل الدخول');
  await expect(page.getByTestId('access-register')).toHaveText('إنشاء حساب');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
