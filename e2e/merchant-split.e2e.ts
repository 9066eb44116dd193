import { expect, test, type APIRequestContext, type Page } from '@playwright/test';

/*
 * Issue 28 §2 and §4: the merchant dashboard's payment detail shows how a payment was funded (each share of the
 * bcard) and how each refund went back to the shares; and the first Escape closes the detail after a refund.
 */

const toast = (page: Page) => page.getByTestId('toast').last();
const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** A signed-in user with a sandbox merchant account; answers its id and secret key. */
async function merchantUser(request: APIRequestContext, tag: string): Promise<{ id: string; secretKey: string }> {
  const email = uniqueEmail(tag);
  const reg = await request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Grace', lastName: 'Hopper' },
  });
  expect(reg.status()).toBe(201);
  const made = await request.post('/api/merchants', {
    data: { businessName: 'Hopper Hardware', businessEmail: email, environment: 'sandbox' },
  });
  expect(made.status()).toBe(201);
  const m = await made.json();
  return { id: m.id, secretKey: m.secretApiKey };
}

/** A succeeded sandbox payment of `amount` cents, paid with a sandbox test bcard (`bcard` extra create parameters). */
async function paidIntent(request: APIRequestContext, secretKey: string, amount: number, bcard: Record<string, unknown> = {}): Promise<string> {
  const headers = { Authorization: `Bearer ${secretKey}` };
  const made = await request.post('/api/v1/payment_intents', { headers, data: { amount, currency: 'usd', description: 'Order #28' } });
  expect(made.status()).toBe(200);
  const pi = await made.json();
  const cardRes = await request.post('/api/v1/test_helpers/bcards', { headers, data: { amount, ...bcard } });
  expect(cardRes.status()).toBe(200);
  const card = await cardRes.json();
  const confirmed = await request.post(`/api/v1/payment_intents/${pi.id}/confirm`, {
    headers,
    data: { payment_method_data: { type: 'card', card: { number: card.number, exp_month: card.exp_month, exp_year: card.exp_year, cvc: card.cvc } } },
  });
  expect(confirmed.status()).toBe(200);
  expect((await confirmed.json()).status).toBe('succeeded');
  return pi.id as string;
}

/** Refunds `dollars` of the open payment from its detail: partial, reviewed, confirmed; back on the detail. */
async function refundFromDialog(page: Page, dollars: string) {
  const dialog = page.getByTestId('payment-dialog');
  await dialog.getByTestId('payment-refund').click();
  await dialog.getByTestId('refund-kind-partial').check();
  await dialog.getByTestId('refund-amount').fill(dollars);
  await dialog.getByTestId('refund-review').click();
  await dialog.getByTestId('refund-confirm').click();
  await expect(toast(page)).toBeVisible();
  await expect(dialog.getByTestId('refund-row').first()).toBeVisible();
}

test('the first Escape closes the payment details after a refund (focus stays in the dialog)', async ({ page }) => {
  const m = await merchantUser(page.request, 'escape-refund');
  const piId = await paidIntent(page.request, m.secretKey, 3000);
  await page.goto('/merchant-dashboard');
  await page.getByTestId('merchant-tab-payments').click();
  await page.locator(`[data-testid="payment-intent-row"][data-id="${piId}"]`).getByTestId('payment-open').click();
  const dialog = page.getByTestId('payment-dialog');
  await expect(dialog).toBeVisible();
  await refundFromDialog(page, '5');
  await expect(toast(page)).toHaveAttribute('data-state', 'open');
  expect(await page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null)).toBe(true);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

const SHARES = [
  { amount: 1500, source: 'tok_visa' },
  { amount: 1000, source: 'tok_visa_debit' },
  { amount: 500, source: 'tok_visa' },
];

test('the payment detail shows each share of a split payment, and after a partial refund how it went back to each', async ({ page }) => {
  test.setTimeout(60_000);
  const m = await merchantUser(page.request, 'split-detail');
  const piId = await paidIntent(page.request, m.secretKey, 3000, { allocations: SHARES });
  await page.goto('/merchant-dashboard');
  await page.getByTestId('merchant-tab-payments').click();
  await page.locator(`[data-testid="payment-intent-row"][data-id="${piId}"]`).getByTestId('payment-open').click();
  const dialog = page.getByTestId('payment-dialog');
  const shares = dialog.getByTestId('split-share');
  await expect(shares).toHaveCount(3);
  await expect(dialog.getByTestId('split-share-source')).toHaveText(['Visa •••• 4242', 'Visa •••• 5556', 'Visa •••• 4242']);
  await expect(dialog.getByTestId('split-share-funding')).toHaveText(['Credit card', 'Debit card', 'Credit card']);
  await expect(dialog.getByTestId('split-share-amount')).toHaveText(['$15.00', '$10.00', '$5.00']);
  await expect(dialog.getByTestId('split-share-status')).toHaveText(['Paid', 'Paid', 'Paid']);
  await expect(dialog.getByTestId('split-share-refunded')).toHaveCount(0);
  await expect(dialog.getByTestId('refund-history-empty')).toBeVisible();

  await refundFromDialog(page, '6');
  const refund = dialog.getByTestId('refund-row').first();
  await expect(refund.getByTestId('refund-split-share')).toHaveCount(3);
  await expect(refund.getByTestId('refund-split-source')).toHaveText(['Visa •••• 4242', 'Visa •••• 5556', 'Visa •••• 4242']);
  await expect(refund.getByTestId('refund-split-amount')).toHaveText(['$3.00', '$2.00', '$1.00']);
  await expect(refund.getByTestId('refund-split-status')).toHaveText(['Returned', 'Returned', 'Returned']);
  // Each share's amount refunded, read afresh with the payment.
  await expect(dialog.getByTestId('split-share-refunded')).toHaveText(['$3.00 refunded', '$2.00 refunded', '$1.00 refunded']);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('at 390 px in Arabic: the split and a refund\'s split are right to left, amounts left to right, nothing off screen', async ({ page }) => {
  test.setTimeout(60_000);
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.setViewportSize({ width: 390, height: 844 });
  const m = await merchantUser(page.request, 'split-ar');
  const piId = await paidIntent(page.request, m.secretKey, 3000, { allocations: SHARES });
  const fits = async () => {
    const box = await page.getByRole('dialog').boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const overflowing = await page.getByRole('dialog').evaluate((d) =>
      [...d.querySelectorAll('[data-testid="payment-split"] *, [data-testid="refund-split"] *')].filter((el) => {
        const r = el.getBoundingClientRect();
        const box = d.getBoundingClientRect();
        return r.left < box.left - 1 || r.right > box.right + 1;
      }).length,
    );
    expect(overflowing).toBe(0);
  };
  await page.goto('/merchant-dashboard');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByTestId('merchant-tab-payments').click();
  await page.locator(`[data-testid="payment-intent-row"][data-id="${piId}"]`).getByTestId('payment-open').click();
  const dialog = page.getByTestId('payment-dialog');
  await expect(dialog.getByTestId('payment-split')).toContainText('كيف دُفعت');
  await expect(dialog.getByTestId('split-share-funding')).toHaveText(['بطاقة ائتمان', 'بطاقة خصم', 'بطاقة ائتمان']);
  await expect(dialog.getByTestId('split-share-status').first()).toHaveText('مدفوع');
  await expect(dialog.getByTestId('split-share-amount').first()).toHaveAttribute('dir', 'ltr');
  await expect(dialog.getByTestId('split-share-source').first()).toHaveAttribute('dir', 'ltr');
  await fits();
  await refundFromDialog(page, '6');
  await expect(dialog.getByTestId('refund-split-status')).toHaveText(['أُعيد', 'أُعيد', 'أُعيد']);
  await expect(dialog.getByTestId('split-share-refunded').first()).toContainText('$3.00');
  await fits();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});
