import { expect, test, type Page } from '@playwright/test';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 25's notification centre in Chromium: with the dashboard open, a bcard is spent at a shop through the card
 * network (POST /api/simulator/authorizations, as a shop's processor would) and the bell's count goes up live (the
 * notices stream); the list shows the spend; choosing it opens its transaction; "Mark all as read" clears the badge;
 * Settings → Notifications keeps security on and turns a group's mail off; Arabic at 390 px, right-to-left, with the
 * menu inside the screen.
 */

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function unread(page: Page): Promise<number> {
  return (await (await page.request.get('/api/notifications/unread-count')).json()).unread;
}

/** A card at 100 % and a $50 bcard from it; returns the bcard's card details for the network. */
async function bcardToSpend(page: Page) {
  const source = await page.request.post('/api/funding-sources', {
    data: { cardNumber: E2E_CARD_NUMBERS[0], expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 100 },
  });
  expect(source.status(), await source.text()).toBe(201);
  const sourceId = (await source.json()).id;
  const made = await page.request.post('/api/virtual-cards', {
    data: { name: 'Shoes', balance: '50.00', fundingSources: [{ fundingSourceId: sourceId, percentage: 100 }] },
  });
  expect(made.status(), await made.text()).toBe(201);
  const details = await page.request.get(`/api/virtual-cards/${(await made.json()).id}/checkout-details`);
  expect(details.status()).toBe(200);
  return details.json();
}

test('the bell shows a spend live, opens it, and mark all read clears it; Settings → Notifications; Arabic at 390 px', async ({ page }) => {
  test.setTimeout(90_000);
  const register = await page.request.post('/api/auth/register', {
    data: { email: uniqueEmail('notices'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(register.status()).toBe(201);
  const card = await bcardToSpend(page);

  await page.goto('/');
  const bell = page.getByTestId('notification-bell');
  await expect(bell).toBeVisible();
  // Whatever is there already (the bcard's issue, when it is a notice) is read first, so the spend is the one counted.
  if ((await unread(page)) > 0) expect((await page.request.post('/api/notifications/read-all')).status()).toBe(200);
  await page.reload();
  await expect(bell).toHaveAccessibleName('Notifications');
  await expect(page.getByTestId('notification-badge')).toHaveCount(0);

  // The shop charges $40.00 while the page is open.
  const auth = await page.request.post('/api/simulator/authorizations', {
    data: {
      card_number: card.cardNumber,
      exp_month: card.expiryMonth,
      exp_year: card.expiryYear,
      cvc: card.cvv,
      amount: 4000,
      currency: 'usd',
      merchant: { name: 'Corner Shoes', url: 'https://corner-shoes.example/checkout', city: 'Springfield', category: 'shoe_stores' },
    },
  });
  expect(auth.status(), await auth.text()).toBe(201);
  expect((await auth.json()).approved).toBe(true);

  // Live: no reload.
  await expect(bell).toHaveAccessibleName('Notifications, 1 unread', { timeout: 10_000 });
  await expect(page.getByTestId('notification-badge')).toHaveText('1');

  await bell.click();
  const menu = page.getByTestId('notification-menu');
  await expect(menu).toBeVisible();
  const item = menu.getByTestId('notification-item').first();
  await expect(item).toHaveAttribute('data-unread', 'true');
  await expect(item.getByTestId('notification-title')).toContainText('$40.00 spent at Corner Shoes');
  await expect(item.getByTestId('notification-body')).toContainText('Your bcard Shoes paid $40.00 at Corner Shoes.');
  await expect(item.locator('time')).toBeVisible();

  // Mark all as read: the badge goes, the menu stays open with the notice read.
  await menu.getByTestId('notification-mark-all').click();
  await expect(page.getByTestId('notification-badge')).toHaveCount(0);
  // (While the menu is open the rest of the page is hidden from assistive technology: the label itself is checked.)
  await expect(bell).toHaveAttribute('aria-label', 'Notifications');
  await expect(item).toHaveAttribute('data-unread', 'false');
  expect(await unread(page)).toBe(0);

  // Choosing the notice opens its transaction.
  await item.click();
  const detail = page.getByTestId('transaction-detail-dialog');
  await expect(detail).toBeVisible();
  await expect(detail).toContainText('Corner Shoes');
  await expect(page).toHaveURL(/\/$/);
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();

  // Settings → Notifications from the bell: security locked on with its note; bcards' mail off is saved.
  await bell.click();
  await page.getByTestId('notification-settings').click();
  const settings = page.getByTestId('notification-settings-card');
  await expect(settings).toBeVisible();
  await expect(settings).toBeInViewport();
  await expect(settings.getByTestId('notice-email-security')).toBeDisabled();
  await expect(settings.getByTestId('notice-email-security')).toBeChecked();
  await expect(settings.getByTestId('notice-security-note')).toContainText('Always sent by e-mail');
  const bcards = settings.getByTestId('notice-email-bcards');
  await expect(bcards).toBeChecked();
  await bcards.click();
  await expect(bcards).not.toBeChecked();
  await expect
    .poll(async () => ((await (await page.request.get('/api/notifications/preferences')).json()) as Array<{ kind: string; email: boolean }>).find((p) => p.kind === 'bcard_spent')?.email)
    .toBe(false);

  // Arabic at 390 px: right-to-left, the notice in Arabic with its amount left-to-right, the menu inside the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('profile-menu').click();
  await page.getByTestId('language-switch').click();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(bell).toHaveAccessibleName('التنبيهات');
  await bell.click();
  await expect(menu).toBeVisible();
  const arTitle = menu.getByTestId('notification-title').first();
  await expect(arTitle).toContainText('\u2066$40.00\u2069');
  await expect(arTitle).toContainText('Corner Shoes');
  const box = (await menu.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);

  // A notice's link into Settings scrolls to its card (here the mail choices, in Arabic at 390 px).
  await page.keyboard.press('Escape');
  await page.goto('/?tab=settings&section=notifications');
  await expect(settings).toBeInViewport();
  await expect(settings).toBeFocused();
  await expect(settings.getByTestId('notice-security-note')).toContainText('تُرسل دائمًا');
  await expect(page).toHaveURL(/\/$/);
});
