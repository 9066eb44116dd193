import { expect, test, type Page } from '@playwright/test';
import { totp } from '../api/src/lib/totp';

const toast = (page: Page) => page.getByTestId('toast').last();

async function registerAndOpenSettings(page: Page) {
  const email = `settings-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'correct horse battery';
  // Register through the API in the page's context so the browser holds the session cookie.
  const res = await page.request.post('/api/auth/register', {
    data: { email, password, firstName: 'Grace', lastName: 'Hopper' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Settings' }).click();
  return { email, password };
}

test('profile settings save for real and login notifications persist', async ({ page }) => {
  await registerAndOpenSettings(page);
  await page.locator('#settings-firstName').fill('Rear Admiral Grace');
  await page.locator('#settings-country').selectOption('CA');
  await page.getByTestId('settings-save').click();
  await expect(toast(page)).toContainText('Profile Updated');

  const notifications = page.getByTestId('login-notifications');
  await expect(notifications).toHaveAttribute('data-state', 'checked');
  await notifications.click();
  await expect(toast(page)).toContainText('Login notifications turned off');

  await page.reload();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.locator('#settings-firstName')).toHaveValue('Rear Admiral Grace');
  await expect(page.locator('#settings-country')).toHaveValue('CA');
  await expect(page.getByTestId('login-notifications')).toHaveAttribute('data-state', 'unchecked');
});

test('two-factor enrolment: a QR code and secret, a code confirms it, then sign-in asks for a code', async ({
  page,
}) => {
  // Waits for the next 30-second TOTP step below, so it needs more than the default budget.
  test.setTimeout(75_000);
  const { email, password } = await registerAndOpenSettings(page);
  await page.getByTestId('2fa-enable').click();
  await expect(page.getByTestId('2fa-qr')).toBeVisible();
  const secret = (await page.getByTestId('2fa-secret').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);

  // A wrong code is refused and nothing is enabled.
  await page.getByTestId('2fa-code').fill(totp(secret, Date.now()) === '000000' ? '111111' : '000000');
  await page.getByTestId('2fa-confirm').click();
  await expect(page.getByTestId('2fa-enable-dialog')).toBeVisible();
  await expect(page.getByTestId('2fa-enable-dialog')).toContainText(/not valid|invalid/i);

  await page.getByTestId('2fa-code').fill(totp(secret, Date.now()));
  await page.getByTestId('2fa-confirm').click();
  await expect(page.getByTestId('2fa-status')).toHaveText('Enabled');

  // Sign out, then sign in: the password alone is not enough.
  await page.goto('/auth/logout');
  await expect(toast(page)).toContainText('Logged out');
  await page.goto('/auth');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).last().click();
  const codeInput = page.getByLabel('Authentication code');
  await expect(codeInput).toBeVisible();
  expect((await page.request.get('/api/auth/user')).status()).toBe(401);

  // The confirming code was used in this 30 s step: wait for the next step so the code is fresh.
  const step = Math.floor(Date.now() / 30_000);
  const nextStepAt = (step + 1) * 30_000;
  await page.waitForTimeout(Math.max(0, nextStepAt - Date.now() + 200));
  await codeInput.fill(totp(secret, Date.now()));
  await page.getByRole('button', { name: 'Sign In' }).last().click();
  await expect(toast(page)).toContainText('Welcome back!');
  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();
});

test('the demo switch persists and explains itself', async ({ page }) => {
  await registerAndOpenSettings(page);
  const demo = page.getByTestId('demo-switch');
  await expect(demo).toHaveAttribute('data-state', 'unchecked');
  await demo.hover();
  await expect(page.getByRole('tooltip')).toContainText('Using your real funding sources and data');
  await demo.click();
  await expect(demo).toHaveAttribute('data-state', 'checked');
  expect(await page.evaluate(() => localStorage.getItem('bpay-demo-mode'))).toBe('true');
  await page.reload();
  await expect(page.getByTestId('demo-switch')).toHaveAttribute('data-state', 'checked');
  await page.getByTestId('demo-switch').hover();
  await expect(page.getByRole('tooltip')).toContainText('Using demo funding sources and data');
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('transaction-row')).toHaveCount(5);
});

test('a new e-mail address needs the current password', async ({ page }) => {
  const { password } = await registerAndOpenSettings(page);
  const newEmail = `moved-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const current = page.locator('#settings-current-password');
  await expect(current).toBeHidden();
  await page.locator('#settings-email').fill(newEmail);
  await expect(current).toBeVisible();

  await page.getByTestId('settings-save').click();
  await expect(page.locator('#settings-current-password-error')).toHaveText('Enter your current password');

  await current.fill('not my password');
  await page.getByTestId('settings-save').click();
  await expect(toast(page)).toContainText('Update Failed');
  await expect(page.locator('#settings-current-password-error')).toHaveText('Your current password is not correct.');
  expect((await (await page.request.get('/api/auth/user')).json()).email).not.toBe(newEmail);

  await current.fill(password);
  await page.getByTestId('settings-save').click();
  // The new address gets a link; until it is followed the account keeps the old one (e2e/email-change.e2e.ts).
  await expect(toast(page)).toContainText('Check your new inbox');
  await expect(current).toBeHidden();
  await expect(page.getByTestId('pending-email-change')).toContainText(newEmail);
  expect((await (await page.request.get('/api/auth/user')).json()).email).not.toBe(newEmail);
});

test('changing the password: a weak one is refused with the reason; a strong one signs the other devices out', async ({
  page,
  request: other,
}) => {
  const { email, password } = await registerAndOpenSettings(page);
  // Another device (its own cookie jar) signed in to the same account.
  {
    expect((await other.post('/api/auth/login', { data: { email, password } })).status()).toBe(200);

    await page.getByTestId('password-change').click();
    const dialog = page.getByTestId('password-dialog');
    await dialog.getByTestId('password-current').fill(password);
    await dialog.getByTestId('password-new').fill('qwerty123');
    await dialog.getByTestId('password-confirm').fill('qwerty1234');
    await page.getByTestId('password-save').click();
    await expect(dialog).toContainText('The new passwords do not match');

    await dialog.getByTestId('password-confirm').fill('qwerty123');
    await page.getByTestId('password-save').click();
    await expect(dialog.locator('#password-new-error')).toContainText('This password is too easy to guess.');
    await expect(dialog.locator('#password-new-error')).toContainText('This is a commonly used password.');

    const strong = 'brass lantern meadow';
    await dialog.getByTestId('password-current').fill('wrong current one');
    await dialog.getByTestId('password-new').fill(strong);
    await dialog.getByTestId('password-confirm').fill(strong);
    await page.getByTestId('password-save').click();
    await expect(dialog.locator('#password-current-error')).toHaveText('Your current password is not correct.');

    await dialog.getByTestId('password-current').fill(password);
    await page.getByTestId('password-save').click();
    await expect(toast(page)).toContainText('Password Changed');
    await expect(dialog).toBeHidden();

    // This device stays signed in; the other one is signed out; the new password works.
    expect((await page.request.get('/api/auth/user')).status()).toBe(200);
    expect((await other.get('/api/auth/user')).status()).toBe(401);
    expect((await other.post('/api/auth/login', { data: { email, password } })).status()).toBe(401);
    expect((await other.post('/api/auth/login', { data: { email, password: strong } })).status()).toBe(200);
  }
});

test('turning two-factor off asks for the current password and a code', async ({ page }) => {
  // Waits for the next 30-second TOTP step below, so it needs more than the default budget.
  test.setTimeout(75_000);
  const { password } = await registerAndOpenSettings(page);
  const setup = await (await page.request.post('/api/auth/2fa/setup')).json();
  const secret: string = setup.secret;
  expect((await page.request.post('/api/auth/2fa/confirm', { data: { code: totp(secret, Date.now()) } })).status()).toBe(200);
  const confirmedStep = Math.floor(Date.now() / 30_000);
  await page.reload();
  await page.getByRole('tab', { name: 'Settings' }).click();
  await expect(page.getByTestId('2fa-status')).toHaveText('Enabled');

  await page.getByTestId('2fa-disable').click();
  const dialog = page.getByTestId('2fa-disable-dialog');
  await expect(dialog).toContainText('Enter your current password and a current code');
  await page.getByTestId('2fa-disable-code').fill('123456');
  // Without the password the button stays disabled.
  await expect(page.getByTestId('2fa-disable-confirm')).toBeDisabled();
  await page.getByTestId('2fa-disable-password').fill('not my password');
  await page.getByTestId('2fa-disable-confirm').click();
  await expect(dialog.locator('#two-factor-disable-password-error')).toHaveText('Your current password is not correct.');
  await expect(page.getByTestId('2fa-status')).toHaveText('Enabled');

  // The confirming code's step is used: wait for the next one.
  await page.waitForTimeout(Math.max(0, (confirmedStep + 1) * 30_000 - Date.now() + 200));
  await page.getByTestId('2fa-disable-password').fill(password);
  await page.getByTestId('2fa-disable-code').fill(totp(secret, Date.now()));
  await page.getByTestId('2fa-disable-confirm').click();
  await expect(toast(page)).toContainText('Two-Factor Authentication Disabled');
  await expect(page.getByTestId('2fa-status')).toHaveText('Off');
});
