import { expect, test } from '@playwright/test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { E2E_CARD_NUMBERS, E2E_CVV } from './cards';

/*
 * The issue's key proof: a merchant page on another origin includes bpay's widget.js; a signed-in consumer pays
 * in bpay's popup with a 60/40 split; the page hears of it, the intent succeeds and the merchant's webhook
 * receiver gets a signed payment_intent.succeeded. The merchant is a sandbox one, so this is a test payment: the
 * split is checked as usual but a sandbox test bcard pays, and the consumer's cards are not charged.
 */

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Checks `Bpay-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")>` as a merchant would. */
function signatureValid(header: string | undefined, body: string, secret: string): boolean {
  if (!header) return false;
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const t = parts.t;
  const v1 = parts.v1;
  if (!t || !v1) return false;
  if (Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return expected.length === v1.length && timingSafeEqual(Buffer.from(expected), Buffer.from(v1));
}

test('a consumer pays a merchant page on another origin through the bpay widget; the webhook is signed', async ({
  page,
  context,
  baseURL,
  playwright,
}) => {
  test.setTimeout(90_000);
  const bpayOrigin = new URL(baseURL!).origin;

  // The merchant: an account of their own (a separate cookie jar from the consumer's browser).
  const merchantApi = await playwright.request.newContext({ baseURL: bpayOrigin });
  const receivedHooks: Received[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      receivedHooks.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  let shopHtml = '';
  const shop = createServer((req, res) => {
    if (req.url === '/' || req.url?.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopHtml);
    } else res.writeHead(404).end();
  });
  try {
    const receiverPort = await listen(receiver);
    const shopPort = await listen(shop);
    const shopOrigin = `http://127.0.0.1:${shopPort}`;
    expect(shopOrigin).not.toBe(bpayOrigin);

    expect(
      (
        await merchantApi.post('/api/auth/register', {
          data: { email: uniqueEmail('shop-owner'), password: 'correct horse battery', firstName: 'Shop', lastName: 'Owner' },
        })
      ).status(),
    ).toBe(201);
    const merchantRes = await merchantApi.post('/api/merchants', {
      data: { businessName: 'Acme Books', businessEmail: 'books@acme.example', website: shopOrigin, platformType: 'custom', environment: 'sandbox' },
    });
    expect(merchantRes.status()).toBe(201);
    const merchant = await merchantRes.json();
    const sk: string = merchant.secretApiKey;
    const auth = { Authorization: `Bearer ${sk}` };

    const endpointRes = await merchantApi.post(`/api/merchants/${merchant.id}/webhook_endpoints`, {
      data: { url: `http://127.0.0.1:${receiverPort}/hook`, enabled_events: ['payment_intent.succeeded', 'payment_intent.failed'] },
    });
    expect(endpointRes.status()).toBe(201);
    const whsec: string = (await endpointRes.json()).secret;
    expect(whsec).toMatch(/^whsec_/);

    // The merchant's server creates the intent; the page gets only its client secret.
    const piRes = await merchantApi.post('/api/v1/payment_intents', {
      headers: { ...auth, 'Idempotency-Key': `order-${Date.now()}` },
      data: { amount: 4999, currency: 'usd', description: 'Order #1001', metadata: { order_id: '1001' } },
    });
    expect(piRes.status()).toBe(200);
    const pi = await piRes.json();
    expect(pi.status).toBe('requires_payment_method');
    shopHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme Books checkout</title></head>
<body>
  <h1>Acme Books</h1>
  <div id="bpay" data-bpay-checkout data-publishable-key="${merchant.apiKey}" data-client-secret="${pi.client_secret}"></div>
  <p id="result">waiting</p>
  <script>
    window.bpayEvents = [];
    document.getElementById('bpay').addEventListener('bpay:payment', function (e) {
      window.bpayEvents.push(e.detail);
      document.getElementById('result').textContent = 'paid ' + e.detail.paymentIntentId + ' ' + e.detail.status;
    });
  </script>
  <script src="${bpayOrigin}/widget.js" async></script>
</body></html>`;

    // The consumer, signed in in this browser, with two cards added through the API.
    expect(
      (
        await page.request.post('/api/auth/register', {
          data: { email: uniqueEmail('shopper'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
        })
      ).status(),
    ).toBe(201);
    for (const split of [50, 50]) {
      const res = await page.request.post('/api/funding-sources', {
        data: {
          cardNumber: E2E_CARD_NUMBERS[0],
          expiryMonth: '12',
          expiryYear: '2030',
          cvv: E2E_CVV,
          name: 'Ada Lovelace',
          type: 'credit_card',
          defaultSplitPercentage: split,
        },
      });
      expect(res.status(), await res.text()).toBe(201);
    }
    // What the consumer has before paying: a sandbox payment must leave all of it as it is.
    const balancesBefore = (await (await page.request.get('/api/funding-sources')).json()).map((s: { balance: string | null }) => s.balance);
    const transactionsBefore = await (await page.request.get('/api/transactions')).json();

    // The merchant page on its own origin shows the widget with the amount and the merchant.
    await page.goto(`${shopOrigin}/`);
    const payButton = page.getByRole('button', { name: 'Pay with bpay' });
    await expect(payButton).toBeVisible();
    const widget = page.locator('#bpay');
    await expect(widget).toContainText('$49.99');
    await expect(widget).toContainText('Acme Books');
    await expect(widget).toContainText('Test mode');

    const popupPromise = context.waitForEvent('page');
    await payButton.click();
    const popup = await popupPromise;
    await popup.waitForLoadState();
    expect(new URL(popup.url()).origin).toBe(bpayOrigin);
    expect(new URL(popup.url()).pathname).toBe('/checkout/pay');
    expect(new URL(popup.url()).searchParams.get('origin')).toBe(shopOrigin);

    // A message forged by the merchant page itself (not bpay's origin) is ignored by the widget.
    await page.evaluate((id) => window.postMessage({ type: 'bpay:payment_succeeded', paymentIntentId: id, status: 'succeeded' }, '*'), pi.id);
    await page.waitForTimeout(300);
    await expect(widget).not.toContainText('Payment complete');
    expect(await page.evaluate(() => (window as unknown as { bpayEvents: unknown[] }).bpayEvents.length)).toBe(0);

    // In bpay's popup: the merchant, the amount plus the fee, and a 60/40 split.
    await expect(popup.getByTestId('checkout-merchant-name')).toHaveText('Acme Books');
    await expect(popup.getByTestId('checkout-amount')).toHaveText('$49.99');
    await expect(popup.getByTestId('checkout-fee')).toHaveText('$1.45');
    await expect(popup.getByTestId('checkout-total')).toHaveText('$51.44');
    const splits = popup.getByTestId('checkout-split');
    await expect(splits).toHaveCount(2);
    await expect(splits.nth(0)).toHaveValue('50');
    await splits.nth(0).fill('70');
    await expect(popup.getByTestId('checkout-split-error')).toContainText('Total percentage (120%) must equal 100%.');
    await expect(popup.getByTestId('checkout-pay')).toBeDisabled();
    await splits.nth(0).fill('60');
    await splits.nth(1).fill('40');
    await expect(popup.getByTestId('checkout-split-needs').nth(0)).toContainText('Needs $30.86, has $');
    await expect(popup.getByTestId('checkout-split-needs').nth(1)).toContainText('Needs $20.58, has $');
    await expect(popup.getByTestId('checkout-pay')).toBeEnabled();
    const closed = popup.waitForEvent('close', { timeout: 15_000 });
    await popup.getByTestId('checkout-pay').click();
    await expect(popup.getByTestId('checkout-complete')).toContainText('Payment complete');
    // A sandbox intent: the popup says no card was charged.
    await expect(popup.getByTestId('checkout-complete-test-mode')).toHaveText('Test mode: your cards were not charged');
    await closed;

    // The merchant page heard of it: the widget says so and the event fired on the container.
    await expect(widget).toContainText('Payment complete');
    await expect(page.locator('#result')).toHaveText(`paid ${pi.id} succeeded`);
    expect(await page.evaluate(() => (window as unknown as { bpayEvents: unknown[] }).bpayEvents)).toEqual([
      { paymentIntentId: pi.id, status: 'succeeded' },
    ]);

    // The intent really succeeded, paid with a sandbox test bcard (play money), not with the consumer's cards: the
    // consumer has no new bcard or transaction and every card's balance is what it was.
    const after = await (await merchantApi.get(`/api/v1/payment_intents/${pi.id}`, { headers: auth })).json();
    expect(after.status).toBe('succeeded');
    expect(after.amount_received).toBe(4999);
    expect(after.livemode).toBe(false);
    expect(after.payment_method).toMatch(/^bc_/);
    expect(await (await page.request.get('/api/virtual-cards')).json()).toEqual([]);
    expect(await (await page.request.get('/api/transactions')).json()).toEqual(transactionsBefore);
    const balancesAfter = (await (await page.request.get('/api/funding-sources')).json()).map((s: { balance: string | null }) => s.balance);
    expect(balancesAfter).toEqual(balancesBefore);

    // The merchant's receiver got payment_intent.succeeded, signed with the endpoint's secret.
    await expect
      .poll(() => receivedHooks.some((r) => r.body.includes('"payment_intent.succeeded"')), { timeout: 10_000, intervals: [250] })
      .toBe(true);
    const hook = receivedHooks.find((r) => r.body.includes('"payment_intent.succeeded"'))!;
    const signature = hook.headers['bpay-signature'] as string | undefined;
    expect(signatureValid(signature, hook.body, whsec)).toBe(true);
    expect(signatureValid(signature, hook.body.replace('4999', '4998'), whsec)).toBe(false);
    const event = JSON.parse(hook.body);
    expect(event.type).toBe('payment_intent.succeeded');
    expect(event.data.object.id).toBe(pi.id);
    expect(event.data.object.status).toBe('succeeded');

    // Reloading the shop page shows the intent as paid.
    await page.reload();
    await expect(widget).toContainText('Payment complete');
  } finally {
    receiver.close();
    shop.close();
    await merchantApi.dispose();
  }
});

test('the checkout popup asks a signed-out consumer to sign in and comes back to the payment', async ({ page, baseURL, playwright }) => {
  test.setTimeout(60_000);
  const merchantApi = await playwright.request.newContext({ baseURL });
  try {
    await merchantApi.post('/api/auth/register', {
      data: { email: uniqueEmail('shop2'), password: 'correct horse battery', firstName: 'Shop', lastName: 'Two' },
    });
    const merchant = await (
      await merchantApi.post('/api/merchants', {
        data: { businessName: 'Second Shop', businessEmail: 'two@shop.example', platformType: 'custom', environment: 'sandbox' },
      })
    ).json();
    const pi = await (
      await merchantApi.post('/api/v1/payment_intents', {
        headers: { Authorization: `Bearer ${merchant.secretApiKey}` },
        data: { amount: 1000, currency: 'usd' },
      })
    ).json();

    // A consumer with an account, signed out in this browser.
    const email = uniqueEmail('shopper2');
    const password = 'correct horse battery';
    await page.request.post('/api/auth/register', { data: { email, password, firstName: 'Ada', lastName: 'Lovelace' } });
    await page.context().clearCookies();

    await page.goto(`/checkout/pay?client_secret=${encodeURIComponent(pi.client_secret)}&origin=${encodeURIComponent('http://127.0.0.1:9')}`);
    await expect(page.getByTestId('checkout-merchant-name')).toHaveText('Second Shop');
    await page.getByTestId('checkout-sign-in-link').click();
    await expect(page).toHaveURL(/\/auth\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page).toHaveURL(/\/checkout\/pay\?client_secret=/);
    // Signed in, with no card yet: the checkout says what to do.
    await expect(page.getByTestId('checkout-no-sources')).toBeVisible();
    await expect(page.getByTestId('checkout-pay')).toBeDisabled();

    // A wrong client secret reveals nothing.
    await page.goto(`/checkout/pay?client_secret=${encodeURIComponent(`${pi.id}_secret_wrong`)}`);
    await expect(page.getByTestId('checkout-not-found')).toBeVisible();
    await page.goto('/checkout/pay?client_secret=nonsense');
    await expect(page.getByTestId('checkout-invalid')).toBeVisible();
  } finally {
    await merchantApi.dispose();
  }
});

test("a production merchant's checkout really collects the consumer's 60/40 split into a bcard that pays it", async ({ page, playwright, baseURL }) => {
  test.setTimeout(60_000);
  const merchantApi = await playwright.request.newContext({ baseURL });
  try {
    await merchantApi.post('/api/auth/register', {
      data: { email: uniqueEmail('shop3'), password: 'correct horse battery', firstName: 'Shop', lastName: 'Three' },
    });
    const merchant = await (
      await merchantApi.post('/api/merchants', {
        data: { businessName: 'Live Books', businessEmail: 'live@shop.example', platformType: 'custom', environment: 'production' },
      })
    ).json();
    const auth = { Authorization: `Bearer ${merchant.secretApiKey}` };
    const pi = await (await merchantApi.post('/api/v1/payment_intents', { headers: auth, data: { amount: 4999, currency: 'usd' } })).json();
    expect(pi.livemode).toBe(true);

    await page.request.post('/api/auth/register', {
      data: { email: uniqueEmail('shopper3'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
    });
    for (let i = 0; i < 2; i++) {
      const res = await page.request.post('/api/funding-sources', {
        data: { cardNumber: E2E_CARD_NUMBERS[0], expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
      });
      expect(res.status(), await res.text()).toBe(201);
    }

    await page.goto(`/checkout/pay?client_secret=${encodeURIComponent(pi.client_secret)}&origin=${encodeURIComponent('http://127.0.0.1:9')}`);
    await expect(page.getByTestId('checkout-merchant-name')).toHaveText('Live Books');
    await expect(page.getByTestId('checkout-total')).toHaveText('$51.44');
    const splits = page.getByTestId('checkout-split');
    await splits.nth(0).fill('60');
    await splits.nth(1).fill('40');
    await page.getByTestId('checkout-pay').click();
    await expect(page.getByTestId('checkout-complete')).toContainText('Payment complete');
    await expect(page.getByTestId('checkout-complete-test-mode')).toHaveCount(0);

    // The intent is paid with the consumer's new bcard, spent once; each card gave its share, fee included.
    const after = await (await merchantApi.get(`/api/v1/payment_intents/${pi.id}`, { headers: auth })).json();
    expect(after).toMatchObject({ status: 'succeeded', amount_received: 4999, livemode: true });
    const bcards = await (await page.request.get('/api/virtual-cards')).json();
    expect(bcards).toHaveLength(1);
    expect(bcards[0].status).toBe('used');
    expect(bcards[0].fundingSources.map((s: { amount: string }) => s.amount)).toEqual(['30.86', '20.58']);
    const balances = (await (await page.request.get('/api/funding-sources')).json()).map((s: { balance: string }) => s.balance);
    expect(balances).toEqual(['9969.14', '9979.42']);
  } finally {
    await merchantApi.dispose();
  }
});
