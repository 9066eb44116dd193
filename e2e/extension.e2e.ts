import { expect, test, type Page } from '@playwright/test';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';
import { bannerText, launchWithExtension, openPopup, tabIdOf, type ExtensionBrowser } from './extension-kit';
import { SHOP_NAME, startTestShop, type TestShop } from './test-shop/server';

/*
 * Issue 24 end to end, in Debian's Chromium with the unpacked extension loaded: a shop on another origin (its card
 * fields in an iframe from a third origin) shows the banner with its total; the extension is paired from bpay's
 * connect page; the popup splits the total across two cards with the collection's real per-share progress; the card
 * is filled into the shop's iframe; Place order makes the shop's server charge it through bpay's simulated card
 * network; the consumer sees the spend at that shop; a second order with the same card is declined. Then: a page
 * that is not a checkout gets no banner, a revoked token stops the popup with a clear message, and the popup in
 * Arabic at 390 px.
 */

const PORT = Number(process.env.E2E_PORT ?? 3100);
const BPAY = `http://localhost:${PORT}`;
/** The shop and its card frame, beside the e2e server's ports (its SMTP server is PORT + 1000). */
const SHOP_PORT = PORT + 1300;

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

test.describe.configure({ mode: 'serial' });

let ext: ExtensionBrowser;
let shop: TestShop;

test.beforeAll(async () => {
  shop = await startTestShop(BPAY, SHOP_PORT);
  ext = await launchWithExtension({ baseURL: BPAY });
  // The consumer, signed in in this browser: a Visa and a Mastercard.
  const api = ext.context.request;
  const reg = await api.post('/api/auth/register', {
    data: { email: uniqueEmail('shopper'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(reg.status()).toBe(201);
  for (const number of [E2E_CARD_NUMBERS[0], E2E_CARD_NUMBERS[2]]) {
    const res = await api.post('/api/funding-sources', {
      data: { cardNumber: number, expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
});

test.afterAll(async () => {
  await ext?.close();
  await shop?.stop();
});

async function openCheckout(): Promise<Page> {
  const page = await ext.context.newPage();
  await page.goto(`${shop.origin}/checkout`);
  return page;
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test('pair, split across two cards, fill the card iframe, order, see the spend; the card does not pay twice', async () => {
  test.setTimeout(120_000);
  const checkout = await openCheckout();
  // The banner, in a closed shadow root, with the order total the page shows.
  await expect.poll(() => bannerText(ext.context, checkout), { timeout: 10_000 }).toContain('Split $42.50 with bpay');

  const tabId = await tabIdOf(ext, `${shop.origin}/checkout`);
  let popup = await openPopup(ext, tabId);
  await expect(popup.getByTestId('ext-site')).toContainText('127.0.0.1');
  // Not paired yet: Connect opens bpay's connect page, where the signed-in user approves this browser.
  const connectTab = ext.context.waitForEvent('page');
  await popup.getByTestId('ext-connect').click();
  const connect = await connectTab;
  await connect.waitForLoadState();
  expect(connect.url()).toBe(`${BPAY}/extension/connect`);
  await expect(connect.getByTestId('extension-connect-button')).toBeEnabled();
  await connect.getByTestId('extension-connect-button').click();
  await expect(connect.getByTestId('extension-connected')).toBeVisible();
  await connect.close();

  // The popup closed itself when it opened the connect page (as a toolbar popup does): open it again.
  popup = await openPopup(ext, tabId);
  await expect(popup.getByTestId('ext-connected')).toBeVisible();
  await expect(popup.getByTestId('ext-amount')).toHaveValue('42.50');
  await popup.getByTestId('ext-preset-even').click();
  await expect(popup.getByTestId('split-row')).toHaveCount(2);
  await popup.getByTestId('split-submit').click();
  // The collection's real per-share progress, then the result: the card is filled in the shop's card iframe.
  await expect(popup.getByTestId('bcard-progress')).toBeVisible();
  await expect(popup.getByTestId('ext-filled')).toBeVisible({ timeout: 20_000 });
  await expect(popup.getByTestId('bcard-progress-share')).toHaveCount(2);

  const frame = checkout.frameLocator('#card-frame');
  await expect(frame.locator('#cc-number')).toHaveValue(/^[0-9 ]{15,23}$/);
  await expect(frame.locator('#cc-exp')).toHaveValue(/^\d{2} ?\/ ?\d{2}$/);
  await expect(frame.locator('#cc-csc')).toHaveValue(/^\d{3,4}$/);
  await expect(frame.locator('#cc-name')).toHaveValue('Ada Lovelace');
  // Fields no one can see get nothing: a hidden input in the page, a card frame with no room to show it.
  await expect(checkout.locator('#hidden-cc')).toHaveValue('');
  await expect(checkout.frameLocator('#hidden-frame').locator('#cc-number')).toHaveValue('');
  const card = {
    number: await frame.locator('#cc-number').inputValue(),
    exp: await frame.locator('#cc-exp').inputValue(),
    cvc: await frame.locator('#cc-csc').inputValue(),
  };
  // The number is in the card field only: nowhere in the extension's storage.
  const stored = await ext.worker.evaluate(async () => JSON.stringify([await chrome.storage.local.get(null), await chrome.storage.session.get(null)]));
  expect(stored).not.toContain(card.number.replace(/\s/g, ''));

  await checkout.getByRole('button', { name: 'Place order' }).click();
  await expect(checkout.locator('#order-status')).toHaveText('Order confirmed');
  expect(shop.orders.at(-1)).toMatchObject({ approved: true, amount: 4250 });

  // The consumer sees the spend at that shop, with the bcard locked to it.
  const txs = await (await ext.context.request.get('/api/transactions')).json();
  const spend = (txs as Array<{ merchant: string; virtualCardId: string | null; status: string }>).find((t) => t.merchant === SHOP_NAME);
  expect(spend).toBeDefined();
  const dashboard = await ext.context.newPage();
  await dashboard.goto('/');
  await dashboard.getByRole('tab', { name: 'Transactions' }).click();
  await expect(dashboard.getByText(SHOP_NAME).first()).toBeVisible();
  await dashboard.close();

  // A second order with the same card: declined, it was single-use.
  await checkout.reload();
  const again = checkout.frameLocator('#card-frame');
  await again.locator('#cc-number').fill(card.number);
  await again.locator('#cc-exp').fill(card.exp);
  await again.locator('#cc-csc').fill(card.cvc);
  await again.locator('#cc-name').fill('Ada Lovelace');
  await checkout.getByRole('button', { name: 'Place order' }).click();
  await expect(checkout.locator('#order-status')).toContainText('Payment declined');
  await expect(checkout.locator('#order-status')).toContainText('already been used');
  expect(shop.orders.at(-1)).toMatchObject({ approved: false, declineCode: 'already_used' });
  await popup.close();
  await checkout.close();
});

test('a page that is not a checkout shows no banner', async () => {
  const page = await ext.context.newPage();
  await page.goto(`${shop.origin}/product`);
  await page.waitForTimeout(1_500);
  expect(await bannerText(ext.context, page)).toBeNull();
  expect(await page.evaluate(() => document.querySelectorAll('body *').length)).toBe(5);
  await page.close();
});

test('the popup in Arabic on a 390 px screen', async () => {
  await ext.worker.evaluate(() => chrome.storage.local.set({ language: 'ar' }));
  const checkout = await openCheckout();
  const popup = await openPopup(ext, await tabIdOf(ext, `${shop.origin}/checkout`), { width: 390, height: 800 });
  await expect(popup.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(popup.getByTestId('ext-amount')).toHaveValue('42.50');
  await expect(popup.getByTestId('ext-preset-even')).toBeVisible();
  await noHorizontalScroll(popup);
  await ext.worker.evaluate(() => chrome.storage.local.set({ language: 'en' }));
  await popup.close();
  await checkout.close();
});

test('a browser disconnected in Settings stops the extension with a clear message', async () => {
  const tokens = await (await ext.context.request.get('/api/extension/tokens')).json();
  expect(tokens).toHaveLength(1);
  const settings = await ext.context.newPage();
  await settings.goto('/');
  await settings.getByRole('tab', { name: 'Settings' }).click();
  await expect(settings.getByTestId('extension-token')).toHaveCount(1);
  await settings.getByTestId('extension-token-disconnect').click();
  await settings.getByTestId('extension-disconnect-confirm').click();
  await expect(settings.getByTestId('connected-browsers-empty')).toBeVisible();
  await settings.close();

  const checkout = await openCheckout();
  const popup = await openPopup(ext, await tabIdOf(ext, `${shop.origin}/checkout`));
  await expect(popup.getByTestId('ext-disconnected')).toContainText('This browser was disconnected from bpay. Connect it again.');
  await expect(popup.getByTestId('ext-connect')).toBeVisible();
  await popup.close();
  await checkout.close();
});
