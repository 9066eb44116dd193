import { expect, test } from '@playwright/test';

test('an unknown path shows the 404 page with its hint', async ({ page }) => {
  await page.goto('/no-such-page');
  await expect(page.getByText('404 Page Not Found')).toBeVisible();
  await expect(page.getByText('Did you forget to add the page to the router?')).toBeVisible();
});

test('routes match case-insensitively', async ({ page }) => {
  await page.goto('/AUTH');
  await expect(page.getByRole('tab', { name: 'Sign In' })).toBeVisible();
  await page.goto('/Terms-Conditions');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByText('404 Page Not Found')).toHaveCount(0);
});
