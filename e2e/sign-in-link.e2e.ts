import { createClient } from '@libsql/client';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { deriveKey, unseal } from '../api/src/lib/crypto';

/*
 * Issue 27 §2 in the browser: past an account's daily cap of failed sign-ins, the right password on a device new to
 * the account says a sign-in link was e-mailed; the link opens /sign-in-link, which signs in and lands on the
 * dashboard, and says why a used or other-network link cannot be used. Every browser test comes from one loopback
 * address, so the cap and "this address is new" are set in the database (the API tests drive the cap for real:
 * api/src/modules/auth/sign-in-link.test.ts), and the link is read from the mail's outbox row: its body holds a
 * placeholder where the token goes, and the token is opened from sealed_token as the mail worker does when it sends
 * (api/src/modules/email/outbox.ts; the SMTP port has no listener in this file, so the row stays unsent).
 */

const PORT = Number(process.env.E2E_PORT ?? 3100);
const DATA_DIR = process.env.E2E_DATA_DIR ?? (PORT === 3100 ? './data/e2e' : `./data/e2e-${PORT}`);
const PASSWORD = 'correct horse battery';
/** The e2e server's BPAY_SESSION_SECRET (playwright.config.ts): outbox tokens are sealed with a key from it. */
const OUTBOX_KEY = deriveKey('e2e-session-secret-e2e-session-secret', 'email-outbox-tokens');
const toast = (page: Page) => page.getByTestId('toast').last();

async function withDb<T>(fn: (db: ReturnType<typeof createClient>) => Promise<T>): Promise<T> {
  const db = createClient({ url: `file:${DATA_DIR}/bpay.db` });
  try {
    await db.execute('PRAGMA busy_timeout = 10000');
    return await fn(db);
  } finally {
    db.close();
  }
}

/** A new account whose day of failed sign-ins is spent, and to which this (loopback) address is new. */
async function cappedAccount(request: APIRequestContext, language: 'en' | 'ar'): Promise<string> {
  const email = `link-${language}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await request.post('/api/auth/register', { data: { email, password: PASSWORD, firstName: 'Ada', language } });
  expect(res.status()).toBe(201);
  const userId = (await res.json()).id as string;
  await withDb(async (db) => {
    await db.execute({ sql: "DELETE FROM throttle_events WHERE scope = 'sign_in:known_address' AND key LIKE ?", args: [`${userId}|%`] });
    await db.execute({
      sql: "INSERT INTO throttle_events (scope, key, at, weight) VALUES ('sign_in:account', ?, ?, 100)",
      args: [email, Date.now()],
    });
  });
  return email;
}

async function mailedLink(email: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(
      () =>
        withDb(async (db) => {
          const rows = await db.execute({
            sql: "SELECT text_body, sealed_token FROM email_outbox WHERE to_address = ? AND kind = 'sign_in_link' ORDER BY rowid DESC LIMIT 1",
            args: [email],
          });
          const [body, sealed] = [rows.rows[0]?.text_body, rows.rows[0]?.sealed_token];
          const base = typeof body === 'string' ? /https?:\/\/\S+\/sign-in-link\?token=/.exec(body)?.[0] : undefined;
          link = base && typeof sealed === 'string' ? base + unseal(OUTBOX_KEY, sealed) : undefined;
          return link;
        }),
      { timeout: 15_000 },
    )
    .toBeTruthy();
  return link!;
}

async function signIn(page: Page, email: string) {
  await page.goto('/auth');
  await page.locator('#login-email').fill(email);
  await page.locator('#login-password').fill(PASSWORD);
  await page.locator('#login-password').press('Enter');
}

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test.use({ viewport: { width: 390, height: 844 } });

test('past the cap on a new device: the form says a link was mailed, the link signs in once and lands on the dashboard', async ({ page, request }) => {
  test.setTimeout(60_000);
  const email = await cappedAccount(request, 'en');
  await signIn(page, email);
  const sent = page.getByTestId('sign-in-link-sent');
  await expect(sent).toContainText('Check your e-mail');
  await expect(sent).toContainText('we have e-mailed you a one-time sign-in link');
  await expect(page).toHaveURL(/\/auth$/);
  expect(await noSideScroll(page)).toBe(true);

  const link = await mailedLink(email);
  await page.goto(link);
  // The token leaves the address bar at once.
  await expect(page).toHaveURL(/\/sign-in-link$/);
  await expect(page.getByRole('heading', { name: 'Sign in with your link' })).toBeVisible();
  expect(await noSideScroll(page)).toBe(true);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(toast(page)).toContainText('You are signed in');
  await expect(page.getByTestId('dashboard-tabs')).toBeVisible();

  // Once only.
  await page.goto(link);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('sign-in-link-error')).toContainText('This sign-in link was already used.');
  await expect(page.getByRole('link', { name: 'Sign in again' })).toBeVisible();
});

test('in Arabic: the message, and a link opened on another network is refused without being used up', async ({ page, request }) => {
  test.setTimeout(60_000);
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  const email = await cappedAccount(request, 'ar');
  await signIn(page, email);
  await expect(page.getByTestId('sign-in-link-sent')).toContainText('تحقق من بريدك الإلكتروني');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');

  const link = await mailedLink(email);
  // As if the link had been asked for from another network than this browser's.
  const setAddress = (address: string) =>
    withDb((db) =>
      db.execute({
        sql: 'UPDATE sign_in_links SET address = ? WHERE user_id = (SELECT id FROM users WHERE email_normalized = ?)',
        args: [address, email],
      }),
    );
  const real = await withDb(async (db) => {
    const r = await db.execute({
      sql: 'SELECT address FROM sign_in_links WHERE user_id = (SELECT id FROM users WHERE email_normalized = ?)',
      args: [email],
    });
    return String(r.rows[0]!.address);
  });
  await setAddress('198.51.100.1');
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'تسجيل الدخول بالرابط' })).toBeVisible();
  await page.getByTestId('sign-in-link-submit').click();
  await expect(page.getByTestId('sign-in-link-error')).toContainText('يعمل رابط تسجيل الدخول هذا فقط على الشبكة التي طلبته منها');
  expect(await noSideScroll(page)).toBe(true);

  // Back on the network that asked, the same link still works.
  await setAddress(real);
  await page.goto(link);
  await page.getByTestId('sign-in-link-submit').click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId('dashboard-tabs')).toBeVisible();
});
