import { expect, test, type Page } from '@playwright/test';
import { plainBody, startSmtpServer, type TestSmtpServer } from '../api/test-support/smtp-server';

/*
 * An e-mail change in the browser (issue 25 item 4), through a real SMTP server (the e2e server sends to PORT + 1000,
 * playwright.config.ts): Settings asks for the new address, the change waits for the link mailed to it (the old
 * address keeps signing in), the link confirms it once, the new address signs in, and the "this was not me" link
 * mailed to the old address puts it back, in Arabic at 390 px.
 *
 * Tagged @global: it listens on the one SMTP port that e2e/password-reset.e2e.ts also binds, so it runs after the
 * main project instead of beside it.
 */

const SMTP_PORT = Number(process.env.E2E_PORT ?? 3100) + 1000;
const PASSWORD = 'correct horse battery';
const toast = (page: Page) => page.getByTestId('toast').last();

test.describe.configure({ mode: 'serial' });

let smtp: TestSmtpServer;
test.beforeAll(async () => {
  smtp = await startSmtpServer(SMTP_PORT);
});
test.afterAll(async () => {
  await smtp.close();
});

/**
 * Every distinct link to `page` mailed to `to`, oldest first, waiting until there are at least `count`. Mail is sent at
 * least once: a message whose acceptance the worker did not hear in time (a loaded machine) is sent again under the
 * same Message-ID, so the same link may arrive twice and counts once.
 */
async function linksTo(to: string, page: 'confirm-email' | 'revert-email', count = 1): Promise<string[]> {
  const re = new RegExp(`https?://\\S+/${page}\\?token=[A-Za-z0-9_-]{43}`);
  const find = () => [
    ...new Set(
      smtp.received
        .filter((m) => m.to.includes(to))
        .map((m) => re.exec(plainBody(m.raw))?.[0])
        .filter((l): l is string => !!l),
    ),
  ];
  await expect.poll(() => find().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  return find();
}

test.use({ viewport: { width: 390, height: 844 } });

test('@global change the e-mail in Settings, confirm it from the mailed link, sign in with the new address; undo it from the old one', async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const tag = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const oldEmail = `before-${tag}@example.com`;
  const newEmail = `after-${tag}@example.com`;
  expect((await page.request.post('/api/auth/register', { data: { email: oldEmail, password: PASSWORD, firstName: 'Grace', language: 'en' } })).status()).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Settings' }).click();

  await page.locator('#settings-email').fill(newEmail);
  await page.locator('#settings-current-password').fill(PASSWORD);
  await page.getByTestId('settings-save').click();
  await expect(toast(page)).toContainText('Check your new inbox');
  const pending = page.getByTestId('pending-email-change');
  await expect(pending).toContainText(newEmail);
  await expect(pending).toContainText('we sent a link');
  // Not changed yet: the field and the account still show the old address.
  await expect(page.locator('#settings-email')).toHaveValue(oldEmail);
  expect((await (await page.request.get('/api/auth/user')).json()).email).toBe(oldEmail);
  // The pending box fits a phone's width.
  const box = await pending.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);

  // A resend: the first link stops working, the newest one confirms.
  await page.getByTestId('pending-email-resend').click();
  await expect(toast(page)).toContainText('Link sent again');
  const [first, newest] = (await linksTo(newEmail, 'confirm-email', 2)).slice(-2);
  await page.goto(first!);
  await expect(page).toHaveURL(/\/confirm-email$/);
  await page.getByTestId('email-link-submit').click();
  await expect(page.getByTestId('email-link-error')).toContainText('This link is not valid');

  await page.goto(newest!);
  await page.getByRole('button', { name: 'Confirm new address' }).click();
  await expect(page.getByTestId('email-link-done')).toContainText(newEmail);
  // The link works once.
  await page.goto(newest!);
  await page.getByTestId('email-link-submit').click();
  await expect(page.getByTestId('email-link-error')).toHaveText('This link was already used.');

  // Sign in with the new address in a fresh browser; the old one no longer signs in.
  const fresh = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const other = await fresh.newPage();
  await other.goto('/auth');
  await other.locator('#login-email').fill(oldEmail);
  await other.locator('#login-password').fill(PASSWORD);
  await other.getByRole('button', { name: 'Sign In' }).click();
  await expect(toast(other)).toContainText('Login failed');
  await other.locator('#login-email').fill(newEmail);
  await other.getByRole('button', { name: 'Sign In' }).click();
  await expect(other).toHaveURL(/\/$/);
  await expect(toast(other)).toContainText('Welcome back!');

  // "This was not me", from the mail to the old address, in Arabic: the old address is back, every session ended.
  const [revert] = await linksTo(oldEmail, 'revert-email');
  await page.goto(revert!);
  await expect(page).toHaveURL(/\/revert-email$/);
  await page.getByRole('button', { name: 'العربية' }).click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('button', { name: 'أعِد عنواني القديم' }).click();
  await expect(page.getByTestId('email-link-done')).toContainText('عاد عنوانك');
  expect((await other.request.get('/api/auth/user')).status()).toBe(401);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
  await fresh.close();
});
