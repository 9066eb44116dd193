import { expect, test, type Page } from '@playwright/test';
import { addCard, E2E_CARD_NUMBERS } from './cards';

/*
 * Issue 16, part 5: each rough edge a new consumer hit, at the width where it happened (1280 px or 390 px).
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

async function register(page: Page, prefix: string): Promise<void> {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
}

/** Two cards through the dashboard (defaults 70 % and 30 %), the Free plan's two. */
async function twoCards(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '70' });
  await addCard(page, E2E_CARD_NUMBERS[2]!, { split: '30' });
}

/** Every split row, its dollar amount included, lies inside the dialog and the screen; nothing scrolls sideways. */
async function expectRowsInside(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog');
  const box = (await dialog.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  for (const el of await dialog.getByTestId('split-row-amount').all()) {
    await expect(el).toHaveText(/^\$[\d,]+\.\d\d$/);
    const b = (await el.boundingBox())!;
    expect(b.width).toBeGreaterThan(0);
    expect(b.x).toBeGreaterThanOrEqual(box.x);
    expect(b.x + b.width).toBeLessThanOrEqual(box.x + box.width);
    expect(await el.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  }
  expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth)).toBe(true);
}

test('390 px: Create bcard opens cleared, refuses 0.5 and 12.345, fits the screen, and shows each share while collecting', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize(PHONE);
  await register(page, 'rough-bcard');
  await twoCards(page);

  await page.getByRole('tab', { name: 'bcards' }).click();
  await page.getByTestId('create-bcard-tile').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('bcard-name').fill('Headphones');

  // The minimum is $1.00 and more than two decimals is an error, not rounding: Next stays on the details step.
  await dialog.getByTestId('bcard-amount').fill('0.5');
  await dialog.getByTestId('bcard-next').click();
  await expect(dialog.getByTestId('bcard-amount-error')).toHaveText('The smallest bcard is $1.00.');
  await expect(dialog).toHaveAttribute('data-step', 'details');
  await dialog.getByTestId('bcard-amount').fill('12.345');
  await dialog.getByTestId('bcard-next').click();
  await expect(dialog.getByTestId('bcard-amount-error')).toHaveText('Use at most 2 decimals (cents), such as 12.34.');
  await expect(dialog).toHaveAttribute('data-step', 'details');
  await expect(page.getByTestId('toast').last()).toContainText('Invalid Amount');

  await dialog.getByTestId('bcard-amount').fill('987654.32');
  await dialog.getByTestId('bcard-next').click();
  await expect(dialog).toHaveAttribute('data-step', 'funding');

  // Cleared: nothing pre-filled from the sources' defaults (70 % and 30 %), so Create waits for a choice.
  const inputs = dialog.getByTestId('split-percentage-input');
  await expect(inputs).toHaveCount(2);
  await expect(inputs.nth(0)).toHaveValue('');
  await expect(inputs.nth(1)).toHaveValue('');
  await expect(dialog.getByTestId('bcard-create')).toBeDisabled();

  // Large amounts (six digits and the fee) still fit each row at 390 px.
  await inputs.nth(0).fill('50');
  await inputs.nth(1).fill('50');
  await expectRowsInside(page);
  await dialog.getByTestId('bcard-back').click();
  await dialog.getByTestId('bcard-amount').fill('12.34');
  await dialog.getByTestId('bcard-next').click();
  await expect(dialog).toHaveAttribute('data-step', 'funding');
  await inputs.nth(0).fill('60');
  await inputs.nth(1).fill('40');

  await expectRowsInside(page);

  // While the request is open the dialog shows each share with the status the server recorded. The answer is held
  // back here (the simulated processor answers too fast to see), after the server has done its work.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/virtual-cards', async (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    const response = await route.fetch();
    await held;
    await route.fulfill({ response });
  });
  await dialog.getByTestId('bcard-create').click();
  const progress = dialog.getByTestId('bcard-progress');
  await expect(progress).toBeVisible();
  await expect(progress).toHaveAttribute('data-stage', 'completed');
  await expect(progress.getByTestId('bcard-progress-share')).toHaveCount(2);
  for (const share of await progress.getByTestId('bcard-progress-share').all()) {
    await expect(share).toHaveAttribute('data-status', 'captured');
    await expect(share).toContainText('Captured');
  }
  release();
  await expect(page.getByTestId('toast').last()).toContainText('bcard Created Successfully!');
  await expect(page.getByRole('dialog')).toBeHidden();
});

test('1280 px: a bcard whose time is up turns Expired on its own, without Show details or Cancel', async ({ page }) => {
  test.setTimeout(60_000);
  await page.setViewportSize(DESKTOP);
  await register(page, 'rough-expiry');
  await twoCards(page);
  const sources = (await (await page.request.get('/api/funding-sources')).json()) as Array<{ id: string }>;
  const created = await page.request.post('/api/virtual-cards', {
    data: { name: 'Short lived', balance: '10.00', fundingSources: [{ fundingSourceId: sources[0]!.id, percentage: 100 }] },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  expect(created.status()).toBe(201);

  await page.clock.install();
  await page.goto('/');
  await page.getByRole('tab', { name: 'bcards' }).click();
  const tile = page.getByTestId('bcard-tile').first();
  await expect(tile).toHaveAttribute('data-status', 'active');
  await expect(tile.getByTestId('bcard-reveal')).toBeVisible();

  // Past the card's 30-minute session: no reload.
  await page.clock.fastForward('31:00');
  await expect(tile).toHaveAttribute('data-status', 'expired');
  await expect(tile.getByTestId('bcard-status')).toHaveText('Expired');
  await expect(tile.getByTestId('bcard-reveal')).toHaveCount(0);
  await expect(tile.getByTestId('bcard-cancel')).toHaveCount(0);
  await expect(tile.getByTestId('bcard-countdown')).toHaveCount(0);
});

test('390 px: KYC refuses an under-18 date on step 2 and names its options properly', async ({ page }) => {
  await page.setViewportSize(PHONE);
  await register(page, 'rough-kyc');
  await page.goto('/kyc-verification');
  const type = page.getByTestId('kyc-document-type');
  await expect(type.locator('option[value="id_card"]')).toHaveText('ID card');
  await expect(type.locator('option[value="driving_license"]')).toHaveText('Driving license');
  await expect(page.getByTestId('kyc-verification-type').locator('option[value="identity_document"]')).toHaveText('Identity document');
  await page.getByTestId('kyc-verification-type').selectOption('identity_document');
  await type.selectOption('id_card');
  await page.getByTestId('kyc-document-country').selectOption('US');
  await page.getByTestId('kyc-continue').click();

  await page.getByTestId('kyc-first-name').fill('Ada');
  await page.getByTestId('kyc-last-name').fill('Lovelace');
  const tenYearsAgo = new Date();
  tenYearsAgo.setUTCFullYear(tenYearsAgo.getUTCFullYear() - 10);
  await page.getByTestId('kyc-dob').fill(tenYearsAgo.toISOString().slice(0, 10));
  await expect(page.getByTestId('kyc-dob-error')).toHaveText('You must be 18 or older to verify your identity.');
  await expect(page.getByTestId('kyc-continue')).toBeDisabled();
  await page.getByTestId('kyc-dob').fill('1990-12-10');
  await expect(page.getByTestId('kyc-dob-error')).toHaveCount(0);
  await expect(page.getByTestId('kyc-continue')).toBeEnabled();
});

test('1280 px: Start Free opens Register, /auth switches language, and a lockout says how long to wait', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await page.goto('/');
  await page.getByRole('banner').getByRole('link', { name: 'Start Free' }).click();
  await expect(page).toHaveURL(/\/auth\?tab=register$/);
  await expect(page.getByRole('tab', { name: 'Register' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByLabel('First name')).toBeVisible();

  // The server's 429 for one account locked out from this network, as it answers it (Retry-After in seconds).
  await page.route('**/api/auth/login', (route) =>
    route.fulfill({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '840' },
      body: JSON.stringify({
        error: { type: 'rate_limit_error', code: 'account_network_limited', message: 'Too many failed sign-ins to this account from this network. Try again in 14 minutes.' },
      }),
    }),
  );
  await page.getByRole('tab', { name: 'Sign In' }).click();
  await page.locator('#login-email').fill('someone@example.com');
  await page.locator('#login-password').fill('not the password');
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByTestId('toast').last()).toContainText('Too many failed sign-ins to this account from this network. Try again in 14 minutes');

  await page.getByTestId('auth-language').click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.getByRole('tab', { name: 'تسجيل الدخول' })).toBeVisible();
  await page.getByTestId('auth-language').click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
});

test('1280 px: demo mode says the samples do not count against the plan while Add stays enabled', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await register(page, 'rough-demo');
  await page.addInitScript(() => localStorage.setItem('bpay-demo-mode', 'true'));
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await expect(page.getByTestId('funding-source')).toHaveCount(3);
  const banner = page.getByTestId('funding-source-limit');
  await expect(banner).toHaveAttribute('data-at-limit', 'false');
  await expect(banner).toContainText('these sample sources do not count against your plan');
  await expect(banner).toContainText('up to 2 funding sources of your own');
  await expect(banner).not.toContainText('3 of 2');
  await expect(page.getByTestId('add-source-button')).toBeEnabled();
});

test('1280 px: Recent Activity says money came back, and a held or failed bcard is no spending', async ({ page }) => {
  test.setTimeout(60_000);
  await page.setViewportSize(DESKTOP);
  await register(page, 'rough-activity');
  await twoCards(page);
  const sources = (await (await page.request.get('/api/funding-sources')).json()) as Array<{ id: string }>;
  const post = (balance: string) =>
    page.request.post('/api/virtual-cards', {
      data: { name: `Card ${balance}`, balance, fundingSources: [{ fundingSourceId: sources[0]!.id, percentage: 100 }] },
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
  const kept = await post('10.00');
  expect(kept.status()).toBe(201);
  const refunded = await post('11.00');
  expect(refunded.status()).toBe(201);
  const id = (await refunded.json()).id as string;
  expect((await page.request.post(`/api/virtual-cards/${id}/cancel`, { headers: { 'Idempotency-Key': crypto.randomUUID() } })).status()).toBe(200);
  expect((await post('900000.00')).status()).toBe(402);

  await page.reload();
  // Recent Activity is spending (issue 25): the canceled bcard's money came back; the live one is held, not activity;
  // the failed one moved nothing.
  const rows = page.getByTestId('recent-activity-item');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-kind', 'returned');
  await expect(rows.first()).toContainText('Returned to your cards');
  await expect(page.getByTestId('stat-held-value')).toHaveText('$10.00');
});

test('390 px: every dashboard tab is on screen and reachable by keyboard', async ({ page }) => {
  await page.setViewportSize(PHONE);
  await register(page, 'rough-tabs');
  await page.goto('/');
  const tabs = page.getByTestId('dashboard-tabs').getByRole('tab');
  await expect(page.getByRole('tab', { name: 'Settings' })).toBeVisible();
  expect(await tabs.count()).toBeGreaterThanOrEqual(5);
  for (const tab of await tabs.all()) {
    await expect(tab).toBeInViewport({ ratio: 1 });
  }
  await page.getByRole('tab', { name: 'Overview' }).focus();
  await page.keyboard.press('End');
  await expect(page.getByRole('tab', { name: 'Settings' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab', { name: 'Settings' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#settings-country')).toBeVisible();
});

test('1280 px: one Country list in Settings and in the profile address, stored the same way', async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await register(page, 'rough-country');
  await page.goto('/');
  await page.getByRole('tab', { name: 'Settings' }).click();
  // Settings loads when first opened: read its list once it is there.
  await expect(page.locator('#settings-country')).toBeVisible();
  const settingsOptions = await page.locator('#settings-country option').evaluateAll((os) =>
    os.map((o) => (o as HTMLOptionElement).value).filter(Boolean),
  );

  await page.getByTestId('profile-menu').click();
  await page.getByTestId('view-profile').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('profile-edit').click();
  const country = dialog.getByTestId('profile-country');
  const profileOptions = await country.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  expect([...profileOptions].sort()).toEqual([...settingsOptions].sort());

  await dialog.locator('#phoneNumber').fill('+1 415 555 0100');
  await dialog.locator('#line1').fill('1 Market Street');
  await dialog.locator('#city').fill('London');
  await country.selectOption('GB');
  await dialog.getByTestId('profile-save').click();
  await expect(page.getByTestId('toast').last()).toContainText('Profile Updated');
  const me = await (await page.request.get('/api/auth/user')).json();
  expect(me.address.country).toBe('GB');
});
