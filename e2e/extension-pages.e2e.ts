import { expect, test, type Page } from '@playwright/test';

/*
 * The web app's side of the browser extension (issue 24): the public /extension pages, the links to them, the
 * /extension/connect pairing page and Settings → Connected browsers. The extension itself is not loaded here
 * (e2e/extension*.e2e.ts load the real one): a page script plays its bridge, speaking the same window.postMessage
 * protocol (web/src/features/extension/bridge-protocol.ts) and exchanging the code with the real API.
 */

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function register(page: Page, prefix: string) {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  return email;
}

async function expectNoHorizontalOverflow(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, 'the page scrolls sideways').toBeLessThanOrEqual(client);
}

/**
 * Plays the extension's bridge (web/extension/src/bridge.ts) on this page: answers 'hello' with 'ready', and 'pair'
 * by exchanging the code at POST /api/extension/tokens, as the extension's background does, then answers 'paired'.
 * `tamper` changes the code first (an invalid code: the server's refusal comes back). The token goes to
 * `window.__bpayTestToken` only so the test can check it works, then stops working once disconnected.
 */
async function playBridge(page: Page, { tamper = false }: { tamper?: boolean } = {}) {
  const tokens: string[] = [];
  await page.exposeFunction('__bpayTestToken', (token: string) => tokens.push(token));
  await page.addInitScript(
    ({ tamper }) => {
      if (location.pathname !== '/extension/connect') return;
      const reply = (message: Record<string, unknown>) => window.postMessage({ source: 'bpay-extension', ...message }, location.origin);
      window.addEventListener('message', async (event) => {
        if (event.source !== window || event.origin !== location.origin) return;
        const data = event.data as { source?: string; type?: string; code?: string };
        if (data?.source !== 'bpay-page') return;
        if (data.type === 'hello') reply({ type: 'ready', version: 'test' });
        if (data.type === 'pair' && typeof data.code === 'string') {
          const res = await fetch('/api/extension/tokens', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ code: tamper ? `${data.code}x` : data.code }),
            credentials: 'omit',
          });
          const body = (await res.json()) as { token?: string; label?: string; error?: { message?: string } };
          if (res.ok && body.token) {
            await (window as unknown as { __bpayTestToken(t: string): Promise<void> }).__bpayTestToken(body.token);
            reply({ type: 'paired', ok: true, label: body.label });
          } else {
            reply({ type: 'paired', ok: false, message: body.error?.message });
          }
        }
      });
    },
    { tamper },
  );
  return tokens;
}

test.describe('the /extension pages', () => {
  test('/extension: the download, what it does, the install and connect steps, what data it touches', async ({ page }) => {
    await page.goto('/extension');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    await expect(page).toHaveTitle('Browser extension | bpay');
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    for (const landmark of ['banner', 'main', 'contentinfo'] as const) await expect(page.getByRole(landmark)).toHaveCount(1);

    const download = page.getByTestId('extension-download');
    await expect(download).toHaveText('Download the extension');
    await expect(download).toHaveAttribute('href', '/downloads/bpay-extension.zip');
    await expect(download).toHaveAttribute('download', 'bpay-extension.zip');
    await expect(page.getByTestId('extension-download-note')).toContainText('bpay-extension.zip');

    await expect(page.getByTestId('extension-what').getByRole('listitem')).toHaveText([
      /Detects checkout pages/,
      /Splits the total across your cards/,
      /Fills in a single-use bcard/,
    ]);

    const install = page.getByTestId('extension-install-steps').locator(':scope > li');
    await expect(install).toHaveCount(5);
    await expect(install.nth(0)).toContainText('unzip');
    await expect(install.nth(1)).toContainText('chrome://extensions');
    await expect(install.nth(1)).toContainText('edge://extensions');
    await expect(install.nth(2)).toContainText('Developer mode');
    await expect(install.nth(3)).toContainText('Load unpacked');
    await expect(install.nth(4)).toContainText('manifest.json');
    await expect(page.getByTestId('extension-firefox-note')).toContainText('about:debugging');
    await expect(page.getByTestId('extension-firefox-note')).toContainText('Load Temporary Add-on');

    const pair = page.getByTestId('extension-pair-steps').locator(':scope > li');
    await expect(pair).toHaveCount(3);
    await expect(pair.nth(1)).toContainText('Connect');
    await expect(page.getByRole('link', { name: 'Open the Connect page' })).toHaveAttribute('href', '/extension/connect');

    const privacy = page.getByTestId('extension-privacy');
    await expect(privacy).toContainText('Nothing about the pages you visit leaves your browser until you choose');
    await expect(privacy).toContainText('never into the extension');
    await expect(privacy).toContainText('Permissions');

    // "How to install" jumps to the steps.
    await page.getByRole('link', { name: 'How to install' }).click();
    await expect(page).toHaveURL(/\/extension#install$/);
    await expect(page.getByRole('heading', { name: 'Install it in Chrome, Edge or Brave' })).toBeInViewport();

    // The language switch goes to the Arabic page.
    await page.getByTestId('language-switch').click();
    await expect(page).toHaveURL(/\/extension-ar$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  });

  test('/extension-ar at 390 px: Arabic, right to left, nothing wider than the screen', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/extension-ar');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.getByTestId('ExtensionArPage')).toHaveAttribute('dir', 'rtl');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('قسّم أي عملية دفع، حيث تتسوّق');
    await expect(page.getByTestId('extension-download')).toHaveAttribute('href', '/downloads/bpay-extension.zip');
    await expect(page.getByTestId('extension-download')).toBeInViewport();
    // The browser addresses stay left to right inside the Arabic steps.
    const chrome = page.getByTestId('extension-install-steps').locator('code', { hasText: 'chrome://extensions' });
    await expect(chrome).toHaveAttribute('dir', 'ltr');
    await expectNoHorizontalOverflow(page);
    // Also with the mobile menu open.
    await page.getByTestId('extension-menu-toggle').click();
    await expect(page.getByRole('navigation', { name: 'قائمة الجوال' }).getByRole('link', { name: 'عرض العميل' })).toBeVisible();
    await expectNoHorizontalOverflow(page);
  });

  test("the landing page's extension card leads to /extension (/extension-ar from /ar)", async ({ page }) => {
    await page.goto('/');
    const card = page.getByTestId('feature-extension-link');
    await expect(card).toHaveAttribute('href', '/extension');
    await card.click();
    await expect(page).toHaveURL(/\/extension$/);
    await expect(page.getByTestId('ExtensionPage')).toBeVisible();
    await expect(page.getByTestId('extension-download')).toBeVisible();

    await page.goto('/ar');
    await expect(page.getByTestId('feature-extension-link')).toHaveAttribute('href', '/extension-ar');
  });

  test('the Customer Demo links to the extension', async ({ page }) => {
    await page.goto('/banner-checkout-demo');
    const link = page.getByRole('link', { name: 'Get the browser extension' });
    await expect(link).toHaveAttribute('href', '/extension');
    await link.click();
    await expect(page.getByTestId('ExtensionPage')).toBeVisible();
  });
});

test.describe('/extension/connect', () => {
  test('signed out: sign in first, then back to this page', async ({ page }) => {
    await page.goto('/extension/connect');
    await expect(page.getByTestId('access-required-body')).toHaveText('Please sign in to connect this browser to bpay.');
    await expect(page.getByTestId('access-sign-in')).toHaveAttribute('href', `/auth?next=${encodeURIComponent('/extension/connect')}`);
  });

  test('without the extension: "not found" with the install link and the button off; a late ready turns it on', async ({ page }) => {
    const email = await register(page, 'ext-missing');
    await page.goto('/extension/connect');
    await expect(page.getByRole('heading', { level: 1, name: 'Connect this browser to bpay' })).toBeVisible();
    await expect(page).toHaveTitle('Connect this browser | bpay');
    await expect(page.getByTestId('extension-connect-page')).toContainText(email);
    await expect(page.getByTestId('extension-connect-label')).not.toBeEmpty();

    const status = page.getByTestId('extension-connect-status');
    await expect(status).toHaveAttribute('role', 'status');
    await expect(status).toHaveAttribute('data-state', 'missing');
    await expect(page.getByTestId('extension-missing')).toContainText('The bpay extension was not found');
    await expect(page.getByTestId('extension-install-link')).toHaveAttribute('href', '/extension');
    await expect(page.getByTestId('extension-connect-button')).toBeDisabled();

    // Another frame or site cannot pose as the extension: a 'ready' from an iframe is ignored.
    await page.evaluate(() => {
      const frame = document.createElement('iframe');
      frame.srcdoc = '<script>parent.postMessage({ source: "bpay-extension", type: "ready" }, "*")</script>';
      document.body.append(frame);
    });
    await page.waitForTimeout(300);
    await expect(page.getByTestId('extension-connect-button')).toBeDisabled();

    // The extension's bridge may answer late (it was just installed, the browser was busy).
    await page.evaluate(() => window.postMessage({ source: 'bpay-extension', type: 'ready' }, location.origin));
    await expect(status).toHaveAttribute('data-state', 'present');
    await expect(page.getByTestId('extension-connect-button')).toBeEnabled();
    await expect(page.getByTestId('extension-missing')).toHaveCount(0);
  });

  test('in Arabic: right to left, the same states', async ({ page }) => {
    await register(page, 'ext-ar');
    await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/extension/connect');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('اربط هذا المتصفح بـ bpay');
    await expect(page.getByTestId('extension-missing')).toContainText('لم يُعثر على إضافة bpay');
    await expect(page.getByTestId('extension-install-link')).toHaveAttribute('href', '/extension-ar');
    await expectNoHorizontalOverflow(page);
  });

  test('with the extension: connect, Settings lists the browser, Disconnect revokes its token', async ({ page, request }) => {
    const tokens = await playBridge(page);
    await register(page, 'ext-pair');
    // The page asks for a code with this browser's name, and never puts the code in the URL or storage.
    const pairings: Array<{ sent: unknown; code: string }> = [];
    page.on('response', async (r) => {
      if (!r.url().endsWith('/api/extension/pairings')) return;
      pairings.push({ sent: r.request().postDataJSON(), code: ((await r.json()) as { code: string }).code });
    });
    await page.goto('/extension/connect');
    const label = (await page.getByTestId('extension-connect-label').textContent())?.trim() ?? '';
    expect(label).toMatch(/ on /);
    const button = page.getByTestId('extension-connect-button');
    await expect(button).toBeEnabled();
    await button.click();

    await expect(page.getByTestId('extension-connected')).toContainText('This browser is connected.');
    await expect(page.getByTestId('extension-connected')).toContainText('You can close this tab.');
    await expect(page.getByTestId('extension-connected')).toBeFocused();
    await expect(page.getByTestId('extension-connect-status')).toHaveAttribute('data-state', 'connected');
    await expect(page.getByTestId('extension-connect-button')).toHaveCount(0);
    await expect.poll(() => pairings.length).toBe(1);
    expect(pairings[0]!.sent).toEqual({ label });
    const code = pairings[0]!.code;
    expect(code.length).toBeGreaterThan(5);
    expect(page.url()).toMatch(/\/extension\/connect$/);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain('bpx_');
    expect(await page.content()).not.toContain(code);

    // The extension's token works (the bridge kept it: the page never saw it).
    expect(tokens).toHaveLength(1);
    const token = tokens[0]!;
    const me = await request.get('/api/extension/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.status()).toBe(200);

    await page.goto('/');
    await page.getByRole('tab', { name: 'Settings' }).click();
    const card = page.getByTestId('connected-browsers-card');
    await expect(card.getByRole('heading', { name: 'Connected browsers' })).toBeVisible();
    const rows = card.getByTestId('extension-token');
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByTestId('extension-token-label')).toHaveText(label);
    await expect(rows.first()).toContainText(/Connected \w{3} \d{1,2}, \d{4}/);
    await expect(rows.first()).toContainText(/Expires \w{3} \d{1,2}, \d{4}/);
    // It was used just now (GET /api/extension/me).
    await expect(rows.first().getByTestId('extension-token-last-used')).toContainText('Last used');

    // Disconnect asks first; Cancel keeps it.
    await rows.first().getByTestId('extension-token-disconnect').click();
    const dialog = page.getByTestId('extension-disconnect-dialog');
    await expect(dialog).toContainText('Disconnect this browser?');
    await expect(dialog).toContainText(label);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(rows).toHaveCount(1);
    await expect(rows.first().getByTestId('extension-token-disconnect')).toBeFocused();

    await rows.first().getByTestId('extension-token-disconnect').click();
    await page.getByTestId('extension-disconnect-confirm').click();
    await expect(page.getByTestId('toast').last()).toContainText('Browser disconnected');
    await expect(rows).toHaveCount(0);
    // Its row is gone: the focus lands on the card's title, not on the page's start.
    await expect(card.getByRole('heading', { name: 'Connected browsers' })).toBeFocused();
    await expect(card.getByTestId('connected-browsers-empty')).toContainText('No browsers connected.');
    await expect(card.getByRole('link', { name: 'Get the extension' })).toHaveAttribute('href', '/extension');

    // The token stopped working at once, with the message the extension shows.
    const after = await request.get('/api/extension/me', { headers: { authorization: `Bearer ${token}` } });
    expect(after.status()).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('extension_token_invalid');

    // A reload reads the list from the server: still empty.
    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect(page.getByTestId('connected-browsers-empty')).toBeVisible();
  });

  test("the extension's refusal is shown, and the user can try again", async ({ page }) => {
    await playBridge(page, { tamper: true });
    await register(page, 'ext-refused');
    await page.goto('/extension/connect');
    await page.getByTestId('extension-connect-button').click();
    const error = page.getByTestId('extension-connect-error');
    await expect(error).toContainText('This browser could not be connected');
    await expect(error).toContainText(new RegExp(escapeRe('This pairing code is not valid or has expired.')));
    await expect(error).toBeFocused();
    await expect(page.getByTestId('extension-connect-status')).toHaveAttribute('data-state', 'error');
    await expect(page.getByTestId('extension-connect-button')).toHaveText('Try again');
    await expect(page.getByTestId('extension-connect-button')).toBeEnabled();
  });
});
