import { expect, test, type Page } from '@playwright/test';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const toast = (page: Page) => page.getByTestId('toast').last();
const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 (sandbox endpoints may be local): answers 200 and keeps what it got. */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, server };
}

test('merchant dashboard: create an account, keys shown once, roll, webhooks, payments, portal', async ({ page, context }) => {
  test.setTimeout(90_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const receiver = await startReceiver();
  try {
    const email = uniqueEmail('merchant');
    const reg = await page.request.post('/api/auth/register', {
      data: { email, password: 'correct horse battery', firstName: 'Grace', lastName: 'Hopper' },
    });
    expect(reg.status()).toBe(201);

    // No account yet.
    await page.goto('/merchant-dashboard');
    await expect(page.getByText('No Merchant Account Found')).toBeVisible();

    // Create a sandbox account: the secret key is shown once, in the dialog.
    await page.getByTestId('create-merchant-button').click();
    let dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('merchant-business-email')).toHaveValue(email);
    await dialog.getByTestId('merchant-create-submit').click();
    await expect(dialog.getByText('Business name is required')).toBeVisible();
    await dialog.getByTestId('merchant-business-name').fill('Hopper Hardware');
    await dialog.getByTestId('merchant-website').fill('https://hopper.example');
    await expect(dialog.getByTestId('merchant-environment')).toHaveValue('sandbox');
    await expect(dialog.getByTestId('merchant-platform')).toHaveValue('custom');
    await dialog.getByTestId('merchant-create-submit').click();
    const secretBox = dialog.getByTestId('merchant-secret-reveal-value');
    await expect(secretBox).toHaveText(/^sk_test_[A-Za-z0-9]{24,}$/);
    const firstSecret = (await secretBox.textContent())!.trim();
    await expect(dialog).toContainText('It will not be shown again');
    await dialog.getByTestId('merchant-secret-reveal-copy').click();
    await expect(toast(page)).toContainText('Copied to clipboard');
    await expect(toast(page)).toContainText('Secret key has been copied to your clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstSecret);
    await dialog.getByTestId('merchant-secret-done').click();
    await expect(page.getByRole('dialog')).toBeHidden();

    // The dashboard: Test Mode, the four cards, the overview.
    await expect(page.getByTestId('merchant-name')).toHaveText('Hopper Hardware');
    await expect(page.getByTestId('merchant-mode-badge')).toHaveText('Test Mode');
    await expect(page.getByTestId('merchant-selector')).toHaveCount(0);
    await expect(page.getByTestId('card-volume')).toContainText('Total Volume');
    await expect(page.getByTestId('card-volume-value')).toHaveText('$0.00');
    await expect(page.getByTestId('card-requests-value')).toHaveText('0');
    await expect(page.getByTestId('card-intents-value')).toHaveText('0');
    await expect(page.getByTestId('card-status')).toContainText('Active');
    await expect(page.getByTestId('card-status')).toContainText('Since');
    await expect(page.getByTestId('overview-platform')).toHaveText('Custom');
    await expect(page.getByTestId('overview-website')).toContainText('https://hopper.example');

    // Shown once: not after a reload, nor anywhere in the page or the list the page reads.
    await page.reload();
    await expect(page.getByTestId('merchant-name')).toHaveText('Hopper Hardware');
    await expect(page.getByTestId('merchant-secret-reveal')).toHaveCount(0);
    expect(await page.content()).not.toContain(firstSecret);
    const [listed] = await (await page.request.get('/api/merchants')).json();
    expect(JSON.stringify(listed)).not.toContain(firstSecret);
    const publishableKey: string = listed.apiKey;
    expect(publishableKey).toMatch(/^pk_test_/);

    // API keys: the publishable key, the secret's hint, and rolling it.
    await page.getByTestId('merchant-tab-api-keys').click();
    await expect(page.getByTestId('merchant-publishable-key')).toHaveText(publishableKey);
    await expect(page.getByTestId('merchant-secret-hint')).toHaveText(`sk_test_••••${firstSecret.slice(-4)}`);
    await expect(page.getByTestId('merchant-secret-rolled-at')).toContainText('has not been rolled');
    await page.getByTestId('roll-secret-button').click();
    dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('stops working immediately');
    await dialog.getByTestId('roll-secret-confirm').click();
    const rolledBox = dialog.getByTestId('rolled-secret-reveal-value');
    await expect(rolledBox).toHaveText(/^sk_test_[A-Za-z0-9]{24,}$/);
    const secret = (await rolledBox.textContent())!.trim();
    expect(secret).not.toBe(firstSecret);
    await dialog.getByTestId('rolled-secret-done').click();
    await expect(page.getByRole('dialog')).toBeHidden();
    await expect(page.getByTestId('merchant-secret-hint')).toHaveText(`sk_test_••••${secret.slice(-4)}`);
    await expect(page.getByTestId('merchant-secret-rolled-at')).toContainText('last rolled');
    // The old secret stopped working at once; the new one works.
    expect((await page.request.get('/api/v1/payment_intents', { headers: { Authorization: `Bearer ${firstSecret}` } })).status()).toBe(401);
    expect((await page.request.get('/api/v1/payment_intents', { headers: { Authorization: `Bearer ${secret}` } })).status()).toBe(200);

    // Webhooks: add an endpoint (signing secret shown once), see it listed, send a test event, see the delivery.
    await page.getByTestId('merchant-tab-webhooks').click();
    await expect(page.getByTestId('webhooks-empty')).toBeVisible();
    await page.getByTestId('webhook-add').click();
    dialog = page.getByRole('dialog');
    await dialog.getByTestId('webhook-url').fill('not a url');
    await dialog.getByTestId('webhook-create-submit').click();
    await expect(dialog.getByTestId('webhook-url-error')).toHaveText('Enter a full http(s) URL');
    await dialog.getByTestId('webhook-url').fill(receiver.url);
    await expect(dialog.getByTestId('webhook-event-all')).toBeChecked();
    await dialog.getByTestId('webhook-description').fill('Order fulfilment');
    await dialog.getByTestId('webhook-create-submit').click();
    await expect(dialog.getByTestId('webhook-secret-reveal-value')).toHaveText(/^whsec_/);
    await dialog.getByTestId('webhook-secret-done').click();
    await expect(page.getByRole('dialog')).toBeHidden();
    const endpoint = page.getByTestId('webhook-endpoint');
    await expect(endpoint).toHaveCount(1);
    await expect(endpoint.getByTestId('webhook-endpoint-url')).toHaveText(receiver.url);
    await expect(endpoint.getByTestId('webhook-endpoint-status')).toHaveText('Enabled');
    await expect(endpoint).toContainText('All events');
    await expect(endpoint).toContainText('Order fulfilment');

    await endpoint.getByTestId('webhook-send-test').click();
    await expect(toast(page)).toContainText('Test event sent');
    await expect.poll(() => receiver.received.some((r) => r.body.includes('webhook_endpoint.test')), { timeout: 10_000 }).toBe(true);
    await expect(async () => {
      await page.getByTestId('deliveries-refresh').click();
      await expect(page.getByTestId('webhook-delivery').first()).toHaveAttribute('data-status', 'succeeded', { timeout: 1000 });
    }).toPass({ timeout: 10_000 });
    const delivery = page.getByTestId('webhook-delivery').first();
    await expect(delivery.getByTestId('webhook-delivery-event')).toHaveText('webhook_endpoint.test');
    await expect(delivery.getByTestId('delivery-status')).toHaveText('Delivered');
    await expect(delivery.getByTestId('webhook-delivery-code')).toContainText('200');
    await expect(delivery.getByTestId('webhook-delivery-attempts')).toHaveText('1');

    // Disable and enable again.
    await endpoint.getByTestId('webhook-disable').click();
    await expect(endpoint.getByTestId('webhook-endpoint-status')).toHaveText('Disabled');
    await expect(endpoint.getByTestId('webhook-send-test')).toBeDisabled();
    await endpoint.getByTestId('webhook-enable').click();
    await expect(endpoint.getByTestId('webhook-endpoint-status')).toHaveText('Enabled');

    // Payments: empty, then an intent created through the API with the secret key.
    await page.getByTestId('merchant-tab-payments').click();
    await expect(page.getByText('No payment intents found')).toBeVisible();
    const created = await page.request.post('/api/v1/payment_intents', {
      headers: { Authorization: `Bearer ${secret}`, 'Idempotency-Key': `e2e-${Date.now()}` },
      data: { amount: 2500, currency: 'usd', description: 'Order #42', metadata: { order_id: '42' } },
    });
    expect(created.status()).toBe(200);
    const intent = await created.json();
    await page.getByTestId('payments-refresh').click();
    const row = page.getByTestId('payment-intent-row');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-id', intent.id);
    await expect(row).toContainText('$25.00');
    await expect(row).toContainText('Requires payment method');
    await expect(row).toContainText('1 key');
    // The overview lists it too, and the cards count it (and the API requests made with the key today).
    await page.reload();
    await expect(page.getByTestId('card-intents-value')).toHaveText('1');
    await expect(page.getByTestId('card-requests-value')).not.toHaveText('0');
    await expect(page.getByTestId('overview-intents').getByTestId('payment-intent-row')).toHaveCount(1);

    // Integration snippets carry the real publishable key and never the secret.
    await page.getByTestId('merchant-tab-integration').click();
    await expect(page.getByTestId('integration-widget')).toContainText(publishableKey);
    await expect(page.getByTestId('integration-widget')).toContainText('/widget.js');
    await expect(page.getByTestId('integration-curl')).toContainText('sk_test_YOUR_SECRET_KEY');
    expect(await page.content()).not.toContain(secret);

    // The webhook receiver heard of the intent too.
    await expect.poll(() => receiver.received.some((r) => r.body.includes('payment_intent.created')), { timeout: 10_000 }).toBe(true);

    // The portal shows the merchant's real publishable key and copies the integration code.
    await page.goto('/merchant-portal');
    await expect(page.getByTestId('portal-api-key')).toHaveText(publishableKey);
    await expect(page.getByTestId('portal-stat')).toHaveCount(4);
    await expect(page.getByTestId('portal-sample-badge')).toHaveText('Sample figures');
    for (const label of ['Total Sales', 'bpay Transactions', 'bpay Adoption', 'Active Users']) {
      await expect(page.getByText(label, { exact: true })).toBeVisible();
    }
    await expect(page.getByTestId('portal-transactions-empty')).toBeVisible();
    await expect(page.getByTestId('portal-view-docs')).toHaveAttribute('href', '/swagger');
    await expect(page.getByTestId('portal-view-docs')).toHaveAttribute('target', '_blank');
    await page.getByTestId('portal-get-code').click();
    await expect(toast(page)).toContainText('Copied to clipboard');
    await expect(toast(page)).toContainText('Integration code has been copied to your clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(publishableKey);
    await page.getByTestId('back-home').click();
    await expect(page).toHaveURL(/\/$/);
  } finally {
    receiver.server.close();
  }
});

test('merchant pages ask a signed-out visitor to sign in, then come back', async ({ page }) => {
  const email = uniqueEmail('merchant-signin');
  const password = 'correct horse battery';
  const reg = await page.request.post('/api/auth/register', { data: { email, password, firstName: 'Ada', lastName: 'Lovelace' } });
  expect(reg.status()).toBe(201);
  await page.context().clearCookies();

  await page.goto('/merchant-dashboard');
  await expect(page.getByTestId('access-required')).toContainText('Access Required');
  await page.getByTestId('access-sign-in').click();
  await expect(page).toHaveURL(/\/auth\?next=%2Fmerchant-dashboard$/);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page).toHaveURL(/\/merchant-dashboard$/);
  await expect(page.getByText('No Merchant Account Found')).toBeVisible();

  // The portal for a user without an account: the sample test key.
  await page.goto('/merchant-portal');
  await expect(page.getByTestId('portal-api-key')).toHaveText(/^pk_test_sample_/);

  // `next` never leads off the site.
  await page.goto('/auth?next=https://evil.example/');
  await expect(page).toHaveURL(/\/$/);
});
