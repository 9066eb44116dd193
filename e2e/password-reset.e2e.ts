import { expect, test, type Page } from '@playwright/test';
import { plainBody, startSmtpServer, type TestSmtpServer } from '../api/test-support/smtp-server';

/*
 * Forgot password in the browser, through a real SMTP server: the e2e server is configured with BPAY_SMTP_URL
 * pointing here (playwright.config.ts), so the link is read from the mail it actually sent.
 */

const SMTP_PORT = Number(process.env.E2E_PORT ?? 3100) + 1000;
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'brass lantern meadow';
const toast = (page: Page) => page.getByTestId('toast').last();

// One worker for the whole file: its SMTP server holds one port, which a second worker's beforeAll could not bind.
test.describe.configure({ mode: 'serial' });

let smtp: TestSmtpServer;
test.beforeAll(async () => {
  smtp = await startSmtpServer(SMTP_PORT);
});
test.afterAll(async () => {
  await smtp.close();
});

async function resetLinkFor(email: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(
      () => {
        const mail = smtp.received.find((m) => m.to.includes(email) && m.raw.includes('Reset your bpay password'));
        link = mail ? /https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9_-]{43}/.exec(plainBody(mail.raw))?.[0] : undefined;
        return link;
      },
      { timeout: 20_000 },
    )
    .toBeTruthy();
  return link!;
}

test.use({ viewport: { width: 390, height: 844 } });

test('forgot password: the mailed link sets a new password once, and the new password signs in', async ({ page, request }) => {
  test.setTimeout(60_000);
  const email = `reset-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await request.post('/api/auth/register', { data: { email, password: PASSWORD } })).status()).toBe(201);

  await page.goto('/auth');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('status')).toContainText('If an account uses this e-mail address');

  const link = await resetLinkFor(email);
  await page.goto(link);
  // The token leaves the address bar at once.
  await expect(page).toHaveURL(/\/reset-password$/);
  await expect(page.getByText(`For the account ${email[0]}***@example.com.`)).toBeVisible();
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel('Repeat the new password').fill('something else entirely');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByText('The two passwords are not the same.')).toBeVisible();
  await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(toast(page)).toContainText('Password changed');
  await expect(page).toHaveURL(/\/auth$/);

  // The old password no longer works; the new one does.
  await page.locator('#login-email').fill(email);
  await page.locator('#login-password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(toast(page)).toContainText('Login failed');
  await page.locator('#login-password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(toast(page)).toContainText('Welcome back!');

  // The link worked once.
  await page.goto(link);
  await expect(page.getByRole('alert')).toContainText('This password reset link was already used.');
  await expect(page.getByRole('link', { name: 'Request a new link' })).toBeVisible();
});

test('the outbox page is refused to a browser that is not an admin (the e2e server has SMTP configured)', async ({ page }) => {
  await page.goto('/email-outbox');
  await expect(page.getByRole('alert')).toContainText('shown only to a signed-in admin');
});
