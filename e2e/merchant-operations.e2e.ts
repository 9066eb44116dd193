import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * The Merchant Dashboard's operations (issue 15): webhook endpoints edited, disabled and enabled, their signing
 * secret rolled (shown once), a delivery opened in full and sent again; form errors that clear as fields are
 * corrected; refunds from the Payments tab.
 */

const toast = (page: Page) => page.getByTestId('toast').last();
const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

interface Received {
  path: string;
  signature: string;
  body: string;
}

/** A merchant's webhook receiver on 127.0.0.1: answers `status()` (200 unless told) and keeps what it got. */
async function startReceiver(): Promise<{ url: (path: string) => string; received: Received[]; status: { next: number[] }; server: Server }> {
  const received: Received[] = [];
  const status = { next: [] as number[] };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '', signature: String(req.headers['bpay-signature'] ?? ''), body });
      const code = status.next.shift() ?? 200;
      res.writeHead(code, { 'content-type': 'text/plain' });
      res.end(code === 200 ? 'ok' : 'not ready');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: (path) => `http://127.0.0.1:${port}${path}`, received, status, server };
}

/** Bpay-Signature (t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>) checked as a merchant's server would. */
function signedWith(secret: string, header: string, body: string): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  // Any of the v1= values (two while a rolled secret's grace lasts, as Stripe's header has).
  const v1s = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v, 'hex'));
  if (!t || v1s.length === 0) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return v1s.some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}

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

test('webhook endpoints: edit URL, events and description, disable and enable, roll the secret (shown once), open a delivery and resend it', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const receiver = await startReceiver();
  try {
    await merchantUser(page.request, 'webhooks');
    await page.goto('/merchant-dashboard');
    await page.getByTestId('merchant-tab-webhooks').click();

    // Add an endpoint for one event.
    await page.getByTestId('webhook-add').click();
    let dialog = page.getByRole('dialog');
    await dialog.getByTestId('webhook-url').fill(receiver.url('/first'));
    await dialog.getByTestId('webhook-event-all').uncheck();
    await dialog.getByTestId('webhook-event-payment_intent.succeeded').check();
    await dialog.getByTestId('webhook-create-submit').click();
    const firstSecret = (await dialog.getByTestId('webhook-secret-reveal-value').textContent())!.trim();
    expect(firstSecret).toMatch(/^whsec_/);
    await dialog.getByTestId('webhook-secret-done').click();
    const endpoint = page.getByTestId('webhook-endpoint');
    await expect(endpoint.getByTestId('webhook-endpoint-url')).toHaveText(receiver.url('/first'));
    await expect(endpoint).toContainText('payment_intent.succeeded');

    // Edit: nothing changed yet, so nothing to save; then a new URL, every event and a description.
    await endpoint.getByTestId('webhook-edit').click();
    dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('webhook-edit-url')).toHaveValue(receiver.url('/first'));
    await expect(dialog.getByTestId('webhook-edit-event-payment_intent.succeeded')).toBeChecked();
    await expect(dialog.getByTestId('webhook-edit-save')).toBeDisabled();
    await dialog.getByTestId('webhook-edit-url').fill(receiver.url('/second'));
    await dialog.getByTestId('webhook-edit-event-all').check();
    await dialog.getByTestId('webhook-edit-description').fill('Order fulfilment v2');
    await dialog.getByTestId('webhook-edit-save').click();
    await expect(toast(page)).toContainText('Webhook endpoint saved');
    await expect(page.getByRole('dialog')).toBeHidden();
    await expect(endpoint.getByTestId('webhook-endpoint-url')).toHaveText(receiver.url('/second'));
    await expect(endpoint).toContainText('All events');
    await expect(endpoint).toContainText('Order fulfilment v2');

    // Disable from the edit dialog, and enable again.
    await endpoint.getByTestId('webhook-edit').click();
    await page.getByRole('dialog').getByTestId('webhook-edit-enabled').click();
    await page.getByRole('dialog').getByTestId('webhook-edit-save').click();
    await expect(endpoint.getByTestId('webhook-endpoint-status')).toHaveText('Disabled');
    await expect(endpoint.getByTestId('webhook-send-test')).toBeDisabled();
    await endpoint.getByTestId('webhook-edit').click();
    await expect(page.getByRole('dialog').getByTestId('webhook-edit-enabled')).not.toBeChecked();
    await page.getByRole('dialog').getByTestId('webhook-edit-enabled').click();
    await page.getByRole('dialog').getByTestId('webhook-edit-save').click();
    await expect(endpoint.getByTestId('webhook-endpoint-status')).toHaveText('Enabled');

    // Roll the signing secret: a warning, then the new secret, shown once.
    await endpoint.getByTestId('webhook-roll-secret').click();
    dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('stops working immediately');
    await dialog.getByTestId('webhook-roll-confirm').click();
    await expect(toast(page)).toContainText('Signing secret rolled');
    const rolled = (await dialog.getByTestId('webhook-rolled-secret-value').textContent())!.trim();
    expect(rolled).toMatch(/^whsec_/);
    expect(rolled).not.toBe(firstSecret);
    await dialog.getByTestId('webhook-rolled-secret-done').click();
    await expect(page.getByRole('dialog')).toBeHidden();
    expect(await page.content()).not.toContain(rolled);
    await endpoint.getByTestId('webhook-roll-secret').click();
    await expect(page.getByRole('dialog').getByTestId('webhook-roll-confirm')).toBeVisible();
    await expect(page.getByRole('dialog').getByTestId('webhook-rolled-secret')).toHaveCount(0);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    // Roll again, keeping the old secret signing for 24 hours: deliveries then carry a signature for each.
    await endpoint.getByTestId('webhook-roll-secret').click();
    dialog = page.getByRole('dialog');
    await dialog.getByTestId('webhook-roll-expire').selectOption('24h');
    await dialog.getByTestId('webhook-roll-confirm').click();
    await expect(toast(page)).toContainText('signed with both secrets for 24 hours');
    const rolledAgain = (await dialog.getByTestId('webhook-rolled-secret-value').textContent())!.trim();
    expect(rolledAgain).toMatch(/^whsec_/);
    expect(rolledAgain).not.toBe(rolled);
    await dialog.getByTestId('webhook-rolled-secret-done').click();
    await expect(page.getByRole('dialog')).toBeHidden();

    // A test event the receiver refuses once, at the new URL: signed with the two latest secrets, never the first.
    receiver.status.next = [503];
    await endpoint.getByTestId('webhook-send-test').click();
    await expect(toast(page)).toContainText('Test event sent');
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
    const first = receiver.received[0]!;
    expect(first.path).toBe('/second');
    expect(first.signature.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(signedWith(rolledAgain, first.signature, first.body)).toBe(true);
    expect(signedWith(rolled, first.signature, first.body)).toBe(true);
    expect(signedWith(firstSecret, first.signature, first.body)).toBe(false);
    const eventId: string = JSON.parse(first.body).id;

    // Open the delivery: the body as sent, the 503 answer, the attempt and the next retry.
    await expect(async () => {
      await page.getByTestId('deliveries-refresh').click();
      await expect(page.getByTestId('webhook-delivery-attempts').first()).toHaveText('1', { timeout: 1000 });
    }).toPass({ timeout: 10_000 });
    await page.getByTestId('webhook-delivery-open').first().click();
    dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('delivery-detail-event-type')).toHaveText('webhook_endpoint.test');
    await expect(dialog.getByTestId('delivery-status')).toHaveText('Pending');
    await expect(dialog.getByTestId('delivery-detail-event')).toHaveText(eventId);
    await expect(dialog.getByTestId('delivery-detail-request-body')).toHaveText(first.body);
    await expect(dialog.getByTestId('delivery-detail-response')).toContainText('503');
    await expect(dialog.getByTestId('delivery-detail-response-body')).toHaveText('not ready');
    await expect(dialog.getByTestId('delivery-attempt')).toHaveCount(1);
    await expect(dialog.getByTestId('delivery-attempt').first()).toContainText('Attempt 1');
    await expect(dialog.getByTestId('delivery-attempt-status').first()).toContainText('503');
    await expect(dialog.getByTestId('delivery-detail-next-retry')).not.toHaveText('—');

    // Resend: a new delivery of the same event, which now succeeds.
    await dialog.getByTestId('delivery-resend').click();
    await expect(toast(page)).toContainText('Event sent again');
    await expect.poll(() => receiver.received.filter((r) => JSON.parse(r.body).id === eventId).length, { timeout: 10_000 }).toBe(2);
    expect(receiver.received[1]!.body).toBe(first.body);
    await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(page.getByRole('dialog')).toBeHidden();
    await expect(async () => {
      await page.getByTestId('deliveries-refresh').click();
      await expect(page.getByTestId('webhook-delivery')).toHaveCount(2, { timeout: 1000 });
      await expect(page.getByTestId('webhook-delivery').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 1000 });
    }).toPass({ timeout: 10_000 });
    await page.getByTestId('webhook-delivery-open').first().click();
    dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('delivery-status')).toHaveText('Delivered');
    await expect(dialog.getByTestId('delivery-attempt-status').first()).toContainText('200');
    await expect(dialog.getByTestId('delivery-detail-response-body')).toHaveText('ok');
    await expect(dialog.getByTestId('delivery-detail-next-retry')).toHaveText('—');
  } finally {
    receiver.server.close();
  }
});

test('form errors clear as each field is corrected: create merchant, add and edit a webhook endpoint', async ({ page }) => {
  const email = uniqueEmail('form-errors');
  const reg = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(reg.status()).toBe(201);
  await page.goto('/merchant-dashboard');

  // Create merchant: every problem shows on submit; each goes as its field becomes valid, the others stay.
  await page.getByTestId('create-merchant-button').click();
  let dialog = page.getByRole('dialog');
  await dialog.getByTestId('merchant-business-email').fill('not-an-email');
  await dialog.getByTestId('merchant-website').fill('shop');
  await dialog.getByTestId('merchant-create-submit').click();
  await expect(dialog.getByText('Business name is required')).toBeVisible();
  await expect(dialog.getByText('Enter a valid email address')).toBeVisible();
  await expect(dialog.getByText('Enter a full http(s) address, such as https://shop.example')).toBeVisible();
  await expect(dialog.getByTestId('merchant-business-name')).toHaveAttribute('aria-invalid', 'true');
  await dialog.getByTestId('merchant-business-name').fill('Lovelace Looms');
  await expect(dialog.getByText('Business name is required')).toBeHidden();
  await expect(dialog.getByTestId('merchant-business-name')).toHaveAttribute('aria-invalid', 'false');
  await expect(dialog.getByText('Enter a valid email address')).toBeVisible();
  await dialog.getByTestId('merchant-business-email').fill('ada@looms');
  await expect(dialog.getByText('Enter a valid email address')).toBeVisible();
  await dialog.getByTestId('merchant-business-email').fill('ada@looms.example');
  await expect(dialog.getByText('Enter a valid email address')).toBeHidden();
  await dialog.getByTestId('merchant-website').fill('https://looms.example');
  await expect(dialog.getByText('Enter a full http(s) address, such as https://shop.example')).toBeHidden();
  // Emptying a field that had no error shows none until the next submit.
  await dialog.getByTestId('merchant-business-name').fill('');
  await expect(dialog.getByText('Business name is required')).toBeHidden();
  await dialog.getByTestId('merchant-business-name').fill('Lovelace Looms');
  await dialog.getByTestId('merchant-create-submit').click();
  await dialog.getByTestId('merchant-secret-done').click();
  await expect(page.getByTestId('merchant-name')).toHaveText('Lovelace Looms');

  // Add a webhook endpoint: the URL's error follows the URL, the events' error goes when one is chosen.
  await page.getByTestId('merchant-tab-webhooks').click();
  await page.getByTestId('webhook-add').click();
  dialog = page.getByRole('dialog');
  await dialog.getByTestId('webhook-event-all').uncheck();
  await dialog.getByTestId('webhook-create-submit').click();
  await expect(dialog.getByTestId('webhook-url-error')).toHaveText('Enter the endpoint URL');
  await expect(dialog.getByTestId('webhook-events-error')).toHaveText('Choose at least one event');
  await expect(dialog.getByTestId('webhook-url')).toBeFocused();
  await dialog.getByTestId('webhook-url').fill('localhost');
  await expect(dialog.getByTestId('webhook-url-error')).toHaveText('Enter a full http(s) URL');
  await dialog.getByTestId('webhook-url').fill('http://127.0.0.1:9/hooks');
  await expect(dialog.getByTestId('webhook-url-error')).toHaveCount(0);
  await expect(dialog.getByTestId('webhook-events-error')).toHaveText('Choose at least one event');
  await dialog.getByTestId('webhook-event-payment_intent.failed').check();
  await expect(dialog.getByTestId('webhook-events-error')).toHaveCount(0);
  await dialog.getByTestId('webhook-create-submit').click();
  await dialog.getByTestId('webhook-secret-done').click();

  // Edit it: the same rules, the same clearing.
  await page.getByTestId('webhook-endpoint').getByTestId('webhook-edit').click();
  dialog = page.getByRole('dialog');
  await dialog.getByTestId('webhook-edit-url').fill('ftp://127.0.0.1/hooks');
  await dialog.getByTestId('webhook-edit-save').click();
  await expect(dialog.getByTestId('webhook-edit-url-error')).toHaveText('Enter a full http(s) URL');
  await dialog.getByTestId('webhook-edit-url').fill('http://127.0.0.1:9/other');
  await expect(dialog.getByTestId('webhook-edit-url-error')).toHaveCount(0);
  await dialog.getByTestId('webhook-edit-event-payment_intent.failed').uncheck();
  await dialog.getByTestId('webhook-edit-save').click();
  await expect(dialog.getByTestId('webhook-edit-events-error')).toHaveText('Choose at least one event');
  await dialog.getByTestId('webhook-edit-event-payment_intent.succeeded').check();
  await expect(dialog.getByTestId('webhook-edit-events-error')).toHaveCount(0);
  await dialog.getByTestId('webhook-edit-save').click();
  await expect(toast(page)).toContainText('Webhook endpoint saved');
  await expect(page.getByTestId('webhook-endpoint-url')).toHaveText('http://127.0.0.1:9/other');
});

/** A succeeded sandbox payment of `amount` cents: an intent paid with a sandbox test bcard, through the merchant API. */
async function paidIntent(request: APIRequestContext, secretKey: string, amount: number, description: string): Promise<string> {
  const headers = { Authorization: `Bearer ${secretKey}` };
  const made = await request.post('/api/v1/payment_intents', { headers, data: { amount, currency: 'usd', description } });
  expect(made.status()).toBe(200);
  const pi = await made.json();
  const card = await (await request.post('/api/v1/test_helpers/bcards', { headers, data: { amount } })).json();
  const confirmed = await request.post(`/api/v1/payment_intents/${pi.id}/confirm`, {
    headers,
    data: { payment_method_data: { type: 'card', card: { number: card.number, exp_month: card.exp_month, exp_year: card.exp_year, cvc: card.cvc } } },
  });
  expect(confirmed.status()).toBe(200);
  expect((await confirmed.json()).status).toBe('succeeded');
  return pi.id as string;
}

test('refunds from the Payments tab: a partial refund, an over-refund refused with the message, then the rest; the history; the card counts every intent', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const m = await merchantUser(page.request, 'refunds');
  const piId = await paidIntent(page.request, m.secretKey, 2500, 'Order #7');
  // More intents than the overview's page of 10: the card counts them all.
  for (let i = 0; i < 11; i++) {
    const res = await page.request.post('/api/v1/payment_intents', {
      headers: { Authorization: `Bearer ${m.secretKey}` },
      data: { amount: 1000 + i, currency: 'usd' },
    });
    expect(res.status()).toBe(200);
  }
  await page.goto('/merchant-dashboard');
  await expect(page.getByTestId('card-intents-value')).toHaveText('12');
  await expect(page.getByTestId('card-intents')).toContainText('All time');

  await page.getByTestId('merchant-tab-payments').click();
  const row = page.locator(`[data-testid="payment-intent-row"][data-id="${piId}"]`);
  await page.getByTestId('payments-next').click();
  await expect(row).toBeVisible();
  // Only the succeeded payment offers Refund.
  await expect(page.getByTestId('payment-refund-open')).toHaveCount(1);

  // Partial: the amount's errors follow the field; then a reason, a confirmation, the toast, the history.
  await row.getByTestId('payment-refund-open').click();
  let dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('refund-left')).toHaveText('Up to $25.00 can be refunded.');
  await expect(dialog.getByTestId('refund-kind-full')).toBeChecked();
  await dialog.getByTestId('refund-kind-partial').check();
  await expect(dialog.getByTestId('refund-amount')).toBeFocused();
  await dialog.getByTestId('refund-review').click();
  await expect(dialog.getByTestId('refund-amount-error')).toHaveText('Enter the amount to refund');
  await dialog.getByTestId('refund-amount').fill('30');
  await expect(dialog.getByTestId('refund-amount-error')).toHaveText('Enter at most $25.00, the amount not yet refunded');
  await dialog.getByTestId('refund-amount').fill('10.005');
  await expect(dialog.getByTestId('refund-amount-error')).toHaveText('Use at most 2 decimals');
  await dialog.getByTestId('refund-amount').fill('0');
  await expect(dialog.getByTestId('refund-amount-error')).toHaveText('Enter an amount greater than 0');
  await dialog.getByTestId('refund-amount').fill('10');
  await expect(dialog.getByTestId('refund-amount-error')).toHaveCount(0);
  await expect(dialog.getByTestId('refund-amount')).toHaveAttribute('aria-invalid', 'false');
  await dialog.getByTestId('refund-reason').selectOption('requested_by_customer');
  await dialog.getByTestId('refund-review').click();
  await expect(dialog.getByTestId('refund-confirm-text')).toHaveText('Refund $10.00 of this $25.00 payment to the customer? This cannot be undone.');
  await expect(dialog).toContainText('Reason: Requested by customer');
  await dialog.getByTestId('refund-confirm').click();
  await expect(toast(page)).toContainText('Refund of $10.00 issued');
  dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('payment-refunded')).toHaveText('$10.00');
  await expect(dialog.getByTestId('payment-left')).toHaveText('$15.00');
  await expect(dialog.getByTestId('refund-row')).toHaveCount(1);
  const first = dialog.getByTestId('refund-row').first();
  await expect(first.getByTestId('refund-row-amount')).toHaveText('$10.00');
  await expect(first.getByTestId('refund-row-status')).toHaveText('Succeeded');
  await expect(first.getByTestId('refund-row-reason')).toHaveText('Requested by customer');
  await expect(row.getByTestId('intent-refund-state')).toHaveText('Partially refunded');

  // Meanwhile the merchant's server refunds $5.00 through the API: this page still thinks $15.00 is left. The server
  // refuses the over-refund, and says so under the amount.
  const viaApi = await page.request.post('/api/v1/refunds', {
    headers: { Authorization: `Bearer ${m.secretKey}` },
    data: { payment_intent: piId, amount: 500, reason: 'duplicate' },
  });
  expect(viaApi.status()).toBe(200);
  await dialog.getByTestId('payment-refund').click();
  await expect(dialog.getByTestId('refund-left')).toHaveText('Up to $15.00 can be refunded.');
  await dialog.getByTestId('refund-kind-partial').check();
  await dialog.getByTestId('refund-amount').fill('15');
  await dialog.getByTestId('refund-review').click();
  await dialog.getByTestId('refund-confirm').click();
  await expect(dialog.getByTestId('refund-amount-error')).toHaveText(
    'Refund amount ($15.00) is greater than the amount not yet refunded on this PaymentIntent ($10.00).',
  );
  await expect(toast(page)).toContainText('Could not refund the payment');
  // The page read the payment again: now $10.00 is left, and a valid amount clears the server's error.
  await expect(dialog.getByTestId('refund-left')).toHaveText('Up to $10.00 can be refunded.');
  await dialog.getByTestId('refund-amount').fill('10');
  await expect(dialog.getByTestId('refund-amount-error')).toHaveCount(0);

  // The rest, as a full refund.
  await dialog.getByTestId('refund-kind-full').check();
  await dialog.getByTestId('refund-review').click();
  await expect(dialog.getByTestId('refund-confirm-text')).toContainText('Refund $10.00 of this $25.00 payment');
  await dialog.getByTestId('refund-confirm').click();
  await expect(toast(page)).toContainText('Refund of $10.00 issued');
  await expect(dialog.getByTestId('payment-refunded')).toHaveText('$25.00');
  await expect(dialog.getByTestId('payment-left')).toHaveText('$0.00');
  await expect(dialog.getByTestId('refund-row')).toHaveCount(3);
  await expect(dialog.getByTestId('refund-row-amount')).toHaveText(['$10.00', '$5.00', '$10.00']);
  await expect(dialog.getByTestId('refund-row-reason')).toHaveText(['No reason given', 'Duplicate', 'Requested by customer']);
  await expect(dialog.getByTestId('payment-refund')).toHaveCount(0);
  await expect(dialog.getByTestId('payment-refund-note')).toHaveText('This payment has been refunded in full.');
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(row.getByTestId('intent-refund-state')).toHaveText('Refunded');
  await expect(row.getByTestId('payment-refund-open')).toHaveCount(0);

  // The API agrees.
  const pi = await (await page.request.get(`/api/v1/payment_intents/${piId}`, { headers: { Authorization: `Bearer ${m.secretKey}` } })).json();
  expect(pi).toMatchObject({ amount_received: 2500, amount_refunded: 2500 });
});

test('at 390 px in Arabic: the refund dialog and a delivery opened are right to left, with nothing off screen', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.setViewportSize({ width: 390, height: 844 });
  const m = await merchantUser(page.request, 'refunds-ar');
  // An endpoint nobody listens at: the payment's events queue deliveries that fail and wait for their retry.
  const ep = await page.request.post('/api/v1/webhook_endpoints', {
    headers: { Authorization: `Bearer ${m.secretKey}` },
    data: { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] },
  });
  expect(ep.status()).toBe(200);
  const piId = await paidIntent(page.request, m.secretKey, 4200, 'طلب 9');
  const fits = async () => {
    const box = await page.getByRole('dialog').boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  };
  await page.goto('/merchant-dashboard');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByTestId('merchant-tab-payments').click();
  const row = page.locator(`[data-testid="payment-intent-row"][data-id="${piId}"]`);
  await row.getByTestId('payment-refund-open').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('استرداد الدفعة');
  await expect(dialog.getByTestId('refund-left')).toContainText('$42.00');
  await dialog.getByTestId('refund-kind-partial').check();
  await dialog.getByTestId('refund-amount').fill('50');
  await dialog.getByTestId('refund-review').click();
  await expect(dialog.getByTestId('refund-amount-error')).toContainText('$42.00');
  await dialog.getByTestId('refund-amount').fill('2');
  await expect(dialog.getByTestId('refund-amount-error')).toHaveCount(0);
  await fits();
  await dialog.getByTestId('refund-review').click();
  await dialog.getByTestId('refund-confirm').click();
  await expect(toast(page)).toContainText('$2.00');
  await expect(dialog.getByTestId('refund-row')).toHaveCount(1);
  await expect(dialog.getByTestId('refund-row-status')).toHaveText('ناجح');
  await expect(dialog.getByTestId('refund-row-amount')).toHaveAttribute('dir', 'ltr');
  await fits();
  await dialog.getByRole('button', { name: 'إغلاق', exact: true }).last().click();

  await page.getByTestId('merchant-tab-webhooks').click();
  await expect(page.getByTestId('webhook-delivery').first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByTestId('webhook-delivery-open').first().click();
  await expect(page.getByRole('dialog').getByTestId('delivery-detail-request-body')).toContainText('"object":"event"');
  await fits();
  await page.getByRole('dialog').getByRole('button', { name: 'إغلاق', exact: true }).last().click();
  await expect(page.getByRole('dialog')).toBeHidden();

  // Rolling the signing secret: how long the old one keeps signing, in Arabic, on screen.
  await page.getByTestId('webhook-roll-secret').first().click();
  await expect(page.getByRole('dialog')).toContainText('إبقاء السر القديم يوقّع لمدة');
  await expect(page.getByRole('dialog').getByTestId('webhook-roll-expire')).toBeVisible();
  await expect(page.getByRole('dialog').getByTestId('webhook-roll-expire').locator('option')).toHaveText(['لا وقت: يتوقف الآن', 'ساعة واحدة', '24 ساعة']);
  await fits();
});
