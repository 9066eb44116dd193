import { expect, test, type Page } from '@playwright/test';

/*
 * Rolling a merchant's secret key with a grace period (issue 15): the roll confirmation offers how long the old key
 * keeps working (now, 1 hour, 24 hours, 7 days); with 24 hours the old key keeps authenticating and the API keys tab
 * says until when; a second roll replaces that old key at once (one old key only), and says so first.
 */

const toast = (page: Page) => page.getByTestId('toast').last();
const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function merchantOwner(page: Page): Promise<{ secret: string }> {
  const reg = await page.request.post('/api/auth/register', {
    data: { email: uniqueEmail('keys'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(reg.status()).toBe(201);
  const made = await page.request.post('/api/merchants', {
    data: { businessName: 'Lovelace Looms', businessEmail: 'shop@example.com', platformType: 'custom', environment: 'sandbox' },
  });
  expect(made.status()).toBe(201);
  return { secret: (await made.json()).secretApiKey };
}

const status = async (page: Page, key: string) =>
  (await page.request.get('/api/v1/payment_intents?limit=1', { headers: { Authorization: `Bearer ${key}` } })).status();

test('roll with a 24-hour grace: both keys work, the tab says until when; rolling again stops the old key at once', async ({ page }) => {
  const { secret: first } = await merchantOwner(page);
  await page.goto('/merchant-dashboard');
  await page.getByTestId('merchant-tab-api-keys').click();
  await expect(page.getByTestId('merchant-old-key-grace')).toHaveCount(0);

  await page.getByTestId('roll-secret-button').click();
  let dialog = page.getByRole('dialog');
  const period = dialog.getByLabel('Keep the old key working for');
  await expect(period).toHaveValue('now');
  await expect(dialog.getByTestId('roll-secret-warning')).toContainText('stops working immediately');
  await period.selectOption('24h');
  await expect(dialog.getByTestId('roll-secret-warning')).toContainText('keeps working for 24 hours after the roll');
  await expect(dialog.getByTestId('roll-secret-replaces-old')).toHaveCount(0);
  const before = Date.now();
  await dialog.getByTestId('roll-secret-confirm').click();
  const box = dialog.getByTestId('rolled-secret-reveal-value');
  await expect(box).toHaveText(/^sk_test_[A-Za-z0-9]{24,}$/);
  const second = (await box.textContent())!.trim();
  await expect(dialog).toContainText('The old key works until');
  await expect(toast(page)).toContainText('The old secret key works until');
  await dialog.getByTestId('rolled-secret-done').click();
  await expect(page.getByRole('dialog')).toBeHidden();

  // The tab: the new key's hint, and the old one with its expiry (24 hours after the roll).
  await expect(page.getByTestId('merchant-secret-hint')).toHaveText(`sk_test_••••${second.slice(-4)}`);
  const grace = page.getByTestId('merchant-old-key-grace');
  await expect(grace).toContainText(`Old key \u2066sk_test_••••${first.slice(-4)}\u2069 works until`);
  const [listed] = await (await page.request.get('/api/merchants')).json();
  const until = Date.parse(listed.previousSecretKeyExpiresAt);
  expect(until - before).toBeGreaterThanOrEqual(24 * 3600_000 - 60_000);
  expect(until - before).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
  expect(await status(page, first)).toBe(200);
  expect(await status(page, second)).toBe(200);

  // Rolling again (no grace this time): the dialog says the old key in its grace stops now.
  await page.getByTestId('roll-secret-button').click();
  dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('roll-secret-replaces-old')).toContainText(`sk_test_••••${first.slice(-4)}`);
  await expect(dialog.getByTestId('roll-secret-replaces-old')).toContainText('stops now: only one old key is kept');
  await dialog.getByTestId('roll-secret-confirm').click();
  const third = (await dialog.getByTestId('rolled-secret-reveal-value').textContent())!.trim();
  await expect(dialog).toContainText('The old key no longer works.');
  await dialog.getByTestId('rolled-secret-done').click();
  await expect(page.getByTestId('merchant-old-key-grace')).toHaveCount(0);
  expect(await status(page, first)).toBe(401);
  expect(await status(page, second)).toBe(401);
  expect(await status(page, third)).toBe(200);
});

test('in Arabic on a phone: the period select and the old key line read right to left, the key itself left to right', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.setViewportSize({ width: 390, height: 844 });
  const { secret } = await merchantOwner(page);
  await page.goto('/merchant-dashboard');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByTestId('merchant-tab-api-keys').click();
  await page.getByTestId('roll-secret-button').click();
  const dialog = page.getByRole('dialog');
  const period = dialog.getByLabel('إبقاء المفتاح القديم يعمل لمدة');
  await period.selectOption('7d');
  await expect(dialog.getByTestId('roll-secret-warning')).toContainText('7 أيام');
  // Keyboard: the select is reachable and the confirm button takes Enter.
  await period.focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('roll-secret-confirm')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByTestId('rolled-secret-reveal-value')).toHaveText(/^sk_test_/);
  await dialog.getByTestId('rolled-secret-done').click();
  const grace = page.getByTestId('merchant-old-key-grace');
  await expect(grace).toContainText('المفتاح القديم');
  await expect(grace).toContainText(`\u2066sk_test_••••${secret.slice(-4)}\u2069`);
  // Nothing overflows the phone's width.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
