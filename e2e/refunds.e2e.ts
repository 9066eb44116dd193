import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * Issue 15's refund, as the consumer sees it: a consumer with two cards (a Visa and a Mastercard) pays a production
 * merchant's intent at bpay's checkout, 75/25; the merchant refunds half of it through the API; the Transactions tab
 * shows the refunded amount on the row, and the transaction's dialog shows the refund, the fee that came back with
 * it and what went back to which card — in English, then in Arabic on a 390 px screen.
 */

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const cents = (dollars: string) => Math.round(Number(dollars) * 100);
const usd = (c: number) => `$${(c / 100).toFixed(2)}`;

interface RefundPart {
  fundingSourceId: string;
  last4: string;
  amount: string;
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

/** A production merchant of its own account (its own cookie jar) and its secret key. */
async function liveMerchant(api: APIRequestContext) {
  expect((await api.post('/api/auth/register', { data: { email: uniqueEmail('corner'), password: 'correct horse battery', firstName: 'Corner', lastName: 'Shop' } })).status()).toBe(201);
  const res = await api.post('/api/merchants', {
    data: { businessName: 'Corner Shop', businessEmail: 'corner@shop.example', platformType: 'custom', environment: 'production' },
  });
  expect(res.status()).toBe(201);
  return { Authorization: `Bearer ${(await res.json()).secretApiKey}` };
}

test("a merchant's partial refund goes back to the consumer's two cards, and the consumer sees where it went", async ({ page, playwright, baseURL }) => {
  test.setTimeout(90_000);
  const merchantApi = await playwright.request.newContext({ baseURL });
  try {
    const auth = await liveMerchant(merchantApi);
    const pi = await (await merchantApi.post('/api/v1/payment_intents', { headers: auth, data: { amount: 4000, currency: 'usd', description: 'Order 77' } })).json();
    expect(pi.livemode).toBe(true);

    // The consumer: a Visa and a Mastercard.
    expect((await page.request.post('/api/auth/register', { data: { email: uniqueEmail('refundee'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);
    for (const number of [E2E_CARD_NUMBERS[0], E2E_CARD_NUMBERS[2]]) {
      const res = await page.request.post('/api/funding-sources', {
        data: { cardNumber: number, expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
      });
      expect(res.status(), await res.text()).toBe(201);
    }
    const sources: Array<{ id: string; brand: string; last4: string }> = await (await page.request.get('/api/funding-sources')).json();
    expect(sources.map((s) => [s.brand, s.last4])).toEqual([
      ['visa', '4242'],
      ['mastercard', '4444'],
    ]);

    // Paying at bpay's checkout, 75/25: $40.00 and the 2.9 % fee, $41.16.
    await page.goto(`/checkout/pay?client_secret=${encodeURIComponent(pi.client_secret)}&origin=${encodeURIComponent('http://127.0.0.1:9')}`);
    await expect(page.getByTestId('checkout-merchant-name')).toHaveText('Corner Shop');
    await expect(page.getByTestId('checkout-total')).toHaveText('$41.16');
    const splits = page.getByTestId('checkout-split');
    await splits.nth(0).fill('75');
    await splits.nth(1).fill('25');
    await page.getByTestId('checkout-pay').click();
    await expect(page.getByTestId('checkout-complete')).toContainText('Payment complete');

    // The merchant refunds half, through the API.
    const refundRes = await merchantApi.post('/api/v1/refunds', {
      headers: { ...auth, 'Idempotency-Key': `refund-${pi.id}` },
      data: { payment_intent: pi.id, amount: 2000, reason: 'requested_by_customer' },
    });
    expect(refundRes.status(), await refundRes.text()).toBe(200);
    const refund = await refundRes.json();
    expect(refund).toMatchObject({ object: 'refund', amount: 2000, status: 'succeeded', payment_intent: pi.id });

    // What the server says went back: $20.00 and half the $1.16 fee, split 75/25 between the cards.
    const [tx] = await (await page.request.get('/api/transactions')).json();
    const detail = await (await page.request.get(`/api/transactions/${tx.id}`)).json();
    expect(detail.refunded).toBe('20.58');
    expect(detail.refunds).toHaveLength(1);
    expect(detail.refunds[0]).toMatchObject({ id: refund.id, amount: '20.00', fee: '0.58', status: 'succeeded', reason: 'requested_by_customer' });
    const parts: RefundPart[] = detail.refunds[0].parts;
    expect(parts.map((p) => p.fundingSourceId)).toEqual(sources.map((s) => s.id));
    expect(parts.reduce((a, p) => a + cents(p.amount), 0)).toBe(2058);
    // 75/25 of $20.58, to the cent.
    expect(Math.abs(cents(parts[0]!.amount) - 1543.5)).toBeLessThanOrEqual(0.5);
    const [visa, mastercard] = parts as [RefundPart, RefundPart];

    // The Transactions tab: the row says what came back.
    await page.goto('/');
    await page.getByRole('tab', { name: 'Transactions' }).click();
    const row = page.getByTestId('transaction-row').filter({ hasText: 'Corner Shop' });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('transaction-amount')).toHaveText('$40.00');
    await expect(row.getByTestId('transaction-refunded')).toHaveText('Refunded $20.58');

    // The dialog: the refund, its fee, its reason in words and each card's part.
    await row.getByTestId('transaction-view').click();
    const dialog = page.getByRole('dialog');
    const refunds = dialog.getByRole('region', { name: 'Refunds from the merchant' });
    await expect(refunds).toBeVisible();
    const item = refunds.getByTestId('transaction-refund');
    await expect(item).toHaveCount(1);
    await expect(item.getByTestId('transaction-refund-amount')).toHaveText('Refund of $20.00');
    await expect(item.getByTestId('transaction-refund-status')).toHaveText('Refunded');
    await expect(item.getByTestId('transaction-refund-reason')).toHaveText('Requested by you');
    await expect(item.getByTestId('transaction-refund-fee')).toHaveText('$0.58');
    await expect(item.getByTestId('transaction-refund-total')).toHaveText('$20.58');
    const partList = item.getByRole('list', { name: 'Back to your funding sources' });
    await expect(partList.getByRole('listitem')).toHaveText([`Visa •••• 4242: ${usd(cents(visa.amount))}`, `Mastercard •••• 4444: ${usd(cents(mastercard.amount))}`]);
    await expect(refunds.getByTestId('transaction-refunds-fee-note')).toHaveText(
      'The bpay fee comes back in proportion to what the merchant refunds, and all of it when the merchant refunds the purchase in full.',
    );
    await expect(dialog.getByTestId('transaction-detail-amount')).toHaveText('$40.00');

    // Keyboard: Escape closes the dialog and focus returns to the View button.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(row.getByTestId('transaction-view')).toBeFocused();

    // Arabic, right to left, on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => localStorage.setItem('bpay-language', 'ar'));
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await page.getByRole('tab', { name: 'المعاملات' }).click();
    const arRow = page.getByTestId('transaction-row').filter({ hasText: 'Corner Shop' });
    await expect(arRow.getByTestId('transaction-refunded')).toHaveText('مُسترد $20.58');
    await noHorizontalScroll(page);
    await arRow.getByTestId('transaction-view').click();
    const arRefunds = page.getByRole('dialog').getByRole('region', { name: 'المبالغ التي ردّها التاجر' });
    await arRefunds.scrollIntoViewIfNeeded();
    await expect(arRefunds.getByTestId('transaction-refund-reason')).toHaveText('بناءً على طلبك');
    await expect(arRefunds.getByTestId('transaction-refund-status')).toHaveText('تم الاسترداد');
    await expect(arRefunds.getByTestId('transaction-refund-part')).toHaveText([`فيزا •••• 4242: ${usd(cents(visa.amount))}`, `ماستركارد •••• 4444: ${usd(cents(mastercard.amount))}`]);
    // Every part fits the dialog: nothing is pushed off a 390 px screen.
    for (const box of await arRefunds.getByTestId('transaction-refund-part').evaluateAll((els) => els.map((e) => e.getBoundingClientRect()))) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(390);
    }
    await noHorizontalScroll(page);
  } finally {
    await merchantApi.dispose();
  }
});
