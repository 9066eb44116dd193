import { expect, test, type Locator, type Page } from '@playwright/test';
import { addCard, E2E_CARD_NUMBERS, E2E_CVV } from './cards';

type CardFace = {
  kind: string | null;
  number: string | null;
  numberDirection: string | null;
  expiry: string | null;
  cvv: string | null;
  flag: string | null;
};

/**
 * The bcard face is on screen for 2 s before the merchant form takes over (spec §4). A loaded machine can let
 * those 2 s pass between Playwright seeing the card and reading it (CI did), so the page itself takes the snapshot:
 * call this before the step that leads to the card, then await the answer. A MutationObserver in the page reads
 * every field in the same task that puts the card on screen.
 */
async function watchCardFace(page: Page): Promise<() => Promise<CardFace>> {
  await page.evaluate(() => {
    const w = window as unknown as { __cardFace?: Promise<unknown> };
    w.__cardFace = new Promise((resolve) => {
      const read = () => {
        const el = document.querySelector('[data-testid="demo-bcard"]');
        if (!el) return false;
        const text = (id: string) => el.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? null;
        const number = el.querySelector('[data-testid="demo-bcard-number"]');
        resolve({
          kind: el.getAttribute('data-kind'),
          number: text('demo-bcard-number'),
          numberDirection: number ? getComputedStyle(number).direction : null,
          expiry: text('demo-bcard-expiry'),
          cvv: text('demo-bcard-cvv'),
          flag: text('demo-card-flag'),
        });
        return true;
      };
      if (read()) return;
      const observer = new MutationObserver(() => {
        if (read()) observer.disconnect();
      });
      observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
    });
  });
  return () => page.evaluate(() => (window as unknown as { __cardFace: Promise<CardFace> }).__cardFace);
}

/*
 * The checkout demos (issue 12): /addon-checkout-demo (Merchant Demo) and /banner-checkout-demo (Customer Demo).
 * Signed out they simulate with sample sources and the spec's timings; a signed-in consumer pays a real sandbox
 * intent of the built-in merchant TechStore through the checkout widget's own endpoint, and nothing is charged.
 */

const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** Types one share's one-time code and verifies it. */
async function verifyCode(scope: Page | Locator, index: number, code = '123456') {
  const form = scope.getByTestId('three-ds');
  await expect(form).toHaveAttribute('data-index', String(index));
  await form.getByTestId('three-ds-code').fill(code);
  await form.getByTestId('three-ds-submit').click();
}

async function noHorizontalOverflow(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
}

test('Merchant Demo signed out: the order, the one-time code rule, each source, the demo card, the filled form, completion', async ({
  page,
}) => {
  // About 8 s of the spec's own timers (2 s per source, 2 s creating, 2 s of the card) on top of the page's work.
  test.setTimeout(45_000);
  await page.goto('/addon-checkout-demo');
  const step = page.getByTestId('demo-step');
  await expect(step).toContainText('2/5');
  await expect(page.getByTestId('demo-mode-notice')).toHaveAttribute('data-mode', 'sample');
  await expect(page.getByTestId('demo-store')).toContainText('TechStore');
  await expect(page.getByTestId('demo-order-item')).toHaveText('Premium Laptop Stand');
  await expect(page.getByTestId('demo-order-tax')).toHaveText('$0.00');
  await expect(page.getByTestId('demo-order-shipping')).toHaveText('Free');
  await expect(page.getByTestId('demo-order-total')).toHaveText('$145.77');
  await expect(page.getByTestId('try-bpay-fee')).toContainText('2.9%');
  // The traditional card form is there, turned off.
  await expect(page.getByTestId('merchant-card-number')).toBeDisabled();
  await expect(page.getByTestId('merchant-card-pay')).toBeDisabled();
  await expect(page.getByTestId('demo-back-home')).toHaveAttribute('href', '/');

  await page.getByRole('button', { name: 'Try bpay for this payment' }).click();
  await expect(step).toContainText('3/5');
  await expect(page.getByTestId('split-row')).toHaveCount(4);
  await expect(page.getByTestId('split-fee')).toContainText('$4.23');
  await expect(page.getByTestId('split-total')).toContainText('$150.00');
  // Each new step takes the focus (its heading, or a 3-D Secure prompt's code field): never left on <body>.
  const panelHeading = page.locator('#bpay-panel-title');
  const storeHeading = page.locator('#demo-store-heading');
  await expect(panelHeading).toBeFocused();
  // One polite live region for the whole flow, there (and empty) before any progress: its changes are read out.
  const live = page.getByTestId('demo-progress-live');
  await expect(live).toHaveAttribute('aria-live', 'polite');
  await expect(live).toHaveText('');
  const liveNode = await live.elementHandle();
  await page.getByTestId('split-submit').click();

  // The first source's 3-D Secure code: digits only, at most six, the button only at exactly six.
  const form = page.getByTestId('three-ds');
  await expect(form.getByTestId('three-ds-code')).toBeFocused();
  await expect(form).toHaveAttribute('data-index', '0');
  await expect(form).toContainText('Source 1 of 2');
  await expect(form).toContainText('$90.00');
  await expect(page.getByTestId('three-ds-hint')).toContainText('Demo: enter any 6 digits');
  const code = form.getByTestId('three-ds-code');
  const verify = form.getByRole('button', { name: 'Verify & Continue' });
  await expect(verify).toBeDisabled();
  await code.fill('12345');
  await expect(verify).toBeDisabled();
  await code.pressSequentially('ab');
  await expect(code).toHaveValue('12345');
  await expect(verify).toBeDisabled();
  await code.pressSequentially('67');
  await expect(code).toHaveValue('123456');
  await expect(verify).toBeEnabled();
  await verify.click();

  // After the first source's processing (flow.test.ts checks its two timed stages), the second source's code.
  await expect(page.getByTestId('three-ds')).toContainText('Source 2 of 2');
  await expect(page.getByTestId('three-ds')).toContainText('$60.00');
  await expect(page.getByTestId('demo-progress-row').first()).toHaveAttribute('data-state', 'done');
  // The next prompt's code field has the focus; the live region (the same node) said the first source is done.
  await expect(page.getByTestId('three-ds-code')).toBeFocused();
  await expect(live).toHaveText(/: Verified, \$90\.00$/);
  expect(await liveNode!.evaluate((el) => el.isConnected)).toBe(true);
  const face = await watchCardFace(page);
  await verifyCode(page, 1, '654321');
  // 'Verify & Continue' is gone with its prompt: the focus is on bpay's heading (processing, creating, the card).
  await expect(panelHeading).toBeFocused();

  await expect(page.getByTestId('demo-creating')).toHaveText('Creating your bcard...');
  expect(await face()).toMatchObject({
    kind: 'demo',
    number: '4242 4242 4242 4242',
    expiry: '12/28',
    cvv: '123',
    flag: 'Demo card — not a real card',
  });

  // 2 s later, TechStore's own form, filled in; the store's heading has the focus.
  await expect(step).toContainText('4/5');
  await expect(storeHeading).toHaveText('Payment details');
  await expect(storeHeading).toBeFocused();
  await expect(page.getByTestId('merchant-card-form')).toHaveAttribute('data-filled', 'true');
  await expect(page.getByTestId('merchant-card-number')).toHaveValue('4242 4242 4242 4242');
  await expect(page.getByTestId('merchant-card-expiry')).toHaveValue('12/28');
  await expect(page.getByTestId('merchant-card-cvc')).toHaveValue('123');
  await expect(page.getByTestId('merchant-card-flag')).toHaveText('Demo card — not a real card');
  // Signed out, the sample flow's made-up cardholder.
  await expect(page.getByTestId('merchant-card-name')).toHaveValue('Demo Customer');
  await page.getByRole('button', { name: 'Complete Payment' }).click();

  await expect(step).toContainText('5/5');
  await expect(storeHeading).toHaveText('Order confirmed');
  await expect(storeHeading).toBeFocused();
  const done = page.getByTestId('demo-complete');
  await expect(done).toContainText('Payment complete');
  await expect(page.getByTestId('demo-complete-reference')).toHaveText(/^DEMO-[A-Z2-9]{8}$/);
  await expect(page.getByTestId('demo-complete-amount')).toHaveText('$145.77');
  await expect(page.getByTestId('demo-complete-flag')).toContainText('Demo order');

  await expect(page.getByTestId('demo-complete-home')).toHaveAttribute('href', '/');
  await page.getByTestId('demo-restart').click();
  await expect(step).toContainText('2/5');
});

test('Customer Demo signed out: the dismissible Extension Mode banner, the overlay for split and bcard, 4/5 then 5/5', async ({
  page,
}) => {
  test.setTimeout(45_000);
  await page.goto('/banner-checkout-demo');
  const step = page.getByTestId('demo-step');
  await expect(step).toContainText('2/5');
  const banner = page.getByTestId('extension-banner');
  await expect(banner).toContainText('Extension Mode');
  await expect(banner.getByRole('button', { name: 'Try bpay' })).toBeVisible();
  await expect(page.getByTestId('merchant-card-pay')).toBeDisabled();

  await page.getByTestId('extension-banner-dismiss').click();
  await expect(banner).toBeHidden();

  // 'Try bpay' stays at hand; the overlay opens, and closing it leaves the banner gone.
  await page.getByRole('button', { name: 'Try bpay' }).click();
  const overlay = page.getByRole('dialog');
  const overlayTitle = overlay.getByTestId('bpay-overlay-title');
  const storeHeading = page.locator('#demo-store-heading');
  await expect(overlay).toBeVisible();
  await expect(overlay.getByTestId('split-configurator')).toBeVisible();
  await expect(step).toContainText('3/5');
  // The overlay opens with its title focused; closed, it hands the focus to the store's heading.
  await expect(overlayTitle).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(overlay).toBeHidden();
  await expect(step).toContainText('2/5');
  await expect(banner).toBeHidden();
  await expect(storeHeading).toBeFocused();

  await page.getByRole('button', { name: 'Try bpay' }).click();
  await expect(overlay.getByTestId('split-configurator')).toBeVisible();
  // All on the first card in fixed amounts: one share, one code.
  await overlay.getByTestId('split-mode-fixed').click();
  await overlay.getByTestId('split-fixed-input').first().fill('150.00');
  await overlay.getByTestId('split-submit').click();
  await expect(overlay.getByTestId('three-ds-code')).toBeFocused();
  const face = await watchCardFace(page);
  await verifyCode(overlay, 0);
  // Inside the overlay too, the pressed button is gone and the focus is on the overlay's title, not <body>.
  await expect(overlayTitle).toBeFocused();
  await expect(overlay.getByTestId('demo-creating')).toBeVisible();
  expect(await face()).toMatchObject({ kind: 'demo', flag: 'Demo card — not a real card' });

  // The overlay closes by itself and the merchant's page is filled in: step 4/5, its heading focused.
  await expect(overlay).toBeHidden();
  await expect(step).toContainText('4/5');
  await expect(storeHeading).toBeFocused();
  await expect(page.getByTestId('merchant-card-number')).toHaveValue('4242 4242 4242 4242');
  await expect(page.getByTestId('merchant-card-name')).toHaveValue('Demo Customer');
  await page.getByRole('button', { name: 'Complete Payment' }).click();
  await expect(step).toContainText('5/5');
  await expect(page.getByTestId('demo-complete')).toContainText('Payment complete');
  await expect(page.getByTestId('demo-complete-flag')).toContainText('Demo order');
  await expect(banner).toBeHidden();
});

test('Merchant Demo signed in: a real sandbox intent of TechStore, paid through the checkout endpoint; nothing charged', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const res = await page.request.post('/api/auth/register', {
    data: { email: uniqueEmail('demo-sandbox'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '60' });
  await addCard(page, E2E_CARD_NUMBERS[1]!, { threeDS: true, split: '40' });
  const balances = async () =>
    ((await (await page.request.get('/api/funding-sources')).json()) as { id: string; balance: string | null }[])
      .map((s) => `${s.id}:${s.balance}`)
      .sort();
  const before = await balances();
  expect(before).toHaveLength(2);

  await page.goto('/addon-checkout-demo');
  const step = page.getByTestId('demo-step');
  await expect(page.getByTestId('demo-mode-notice')).toHaveAttribute('data-mode', 'sandbox');
  const intentCreated = page.waitForResponse((r) => r.url().endsWith('/api/demo/checkout-intent') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Try bpay for this payment' }).click();
  expect((await intentCreated).status()).toBe(201);
  await expect(step).toContainText('3/5');
  // The consumer's own two cards, at their default 60/40.
  await expect(page.getByTestId('split-row')).toHaveCount(2);
  await expect(page.getByTestId('split-total')).toContainText('$150.00');

  /*
   * A sandbox intent never runs short, so the first answer is a 402 in the server's exact error shape (errorBody
   * with insufficientFundsError's details), given by the test: the page shows it as the checkout popup does and
   * goes back to the split. The request never reaches the server; the retry below is real.
   */
  const payPath = /\/api\/checkout\/payment_intents\/[^/]+\/pay$/;
  const firstKeys: string[] = [];
  await page.route(payPath, (route) => {
    firstKeys.push(route.request().headers()['idempotency-key'] ?? '');
    return route.fulfill({
      status: 402,
      contentType: 'application/json',
      body: JSON.stringify({
        error: {
          type: 'card_error',
          code: 'insufficient_funds',
          message: 'Insufficient funds: Ada Lovelace (•••• 4242) needs $90.00, has $40.00. Need $150.00 in total.',
          param: 'fundingSources',
          details: {
            totalRequired: '150.00',
            totalAvailable: '40.00',
            insufficientSources: [{ fundingSourceId: 'fs_x', name: 'Ada Lovelace (•••• 4242)', requiredAmount: '90.00', availableBalance: '40.00' }],
          },
        },
      }),
    });
  });
  await page.getByTestId('split-submit').click();
  await verifyCode(page, 0);
  await verifyCode(page, 1);
  const problem = page.getByTestId('demo-pay-error');
  await expect(problem).toContainText('Insufficient Funds in Funding Sources');
  await expect(problem).toContainText('Insufficient funds: Need $150.00 but only have $40.00');
  await expect(problem).toContainText('Ada Lovelace (•••• 4242): needs $90.00, has $40.00');
  await expect(page.getByTestId('toast').last()).toContainText('Insufficient Funds in Funding Sources');
  await expect(page.getByTestId('split-configurator')).toBeVisible();
  await expect(step).toContainText('3/5');
  await page.unroute(payPath);

  await page.getByTestId('split-submit').click();
  await expect(problem).toBeHidden();
  await expect(page.getByTestId('three-ds-hint')).toContainText('Sandbox: enter any 6 digits');
  await verifyCode(page, 0);
  const face = await watchCardFace(page);
  const paid = page.waitForResponse((r) => payPath.test(new URL(r.url()).pathname));
  await verifyCode(page, 1);
  const payAnswer = await paid;
  expect(payAnswer.status()).toBe(200);
  // The refused attempt was answered, so the new one has a key of its own.
  const key = payAnswer.request().headers()['idempotency-key'];
  expect(key).toBeTruthy();
  expect(firstKeys).toHaveLength(1);
  expect(key).not.toBe(firstKeys[0]);
  const body = (await payAnswer.json()) as { paymentIntent: { id: string; status: string }; bcard: { last4: string }; testMode: boolean };
  expect(body.testMode).toBe(true);
  expect(body.paymentIntent.status).toBe('succeeded');

  // The sandbox bcard's real details: masked number and its last four, no CVV.
  expect(await face()).toMatchObject({
    kind: 'sandbox',
    number: `•••• •••• •••• ${body.bcard.last4}`,
    cvv: '•••',
    flag: 'Sandbox test card — nothing charged',
  });

  await expect(step).toContainText('4/5');
  await expect(page.getByTestId('merchant-card-number')).toHaveValue(`•••• •••• •••• ${body.bcard.last4}`);
  // The consumer's name, as on their own bcards: not the merchant the sandbox test bcard is issued to.
  await expect(page.getByTestId('merchant-card-name')).toHaveValue('Ada Lovelace');
  await expect(page.getByTestId('merchant-card-flag')).toHaveText('Sandbox test card — nothing charged');
  // Complete Payment reads the intent back, as a merchant's page does, and trusts only its status.
  const reread = page.waitForResponse(
    (r) => new URL(r.url()).pathname === `/api/checkout/payment_intents/${body.paymentIntent.id}` && r.request().method() === 'GET',
  );
  await page.getByRole('button', { name: 'Complete Payment' }).click();
  expect((await reread).status()).toBe(200);
  await expect(step).toContainText('5/5');
  await expect(page.getByTestId('demo-complete')).toHaveAttribute('data-kind', 'sandbox');
  await expect(page.getByTestId('demo-complete-reference')).toHaveText(body.paymentIntent.id);
  await expect(page.getByTestId('demo-complete-status')).toHaveText('succeeded');
  await expect(page.getByTestId('demo-complete-amount')).toHaveText('$145.77');
  await expect(page.getByTestId('demo-complete-flag')).toContainText('nothing was charged');

  // Sandbox: the consumer's sources were not charged.
  expect(await balances()).toEqual(before);
});

test('Customer Demo signed in: while the sandbox payment is in flight the overlay cannot be closed, and says why', async ({
  page,
}) => {
  test.setTimeout(45_000);
  const res = await page.request.post('/api/auth/register', {
    data: { email: uniqueEmail('demo-overlay'), password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  const card = await page.request.post('/api/funding-sources', {
    data: { cardNumber: E2E_CARD_NUMBERS[0], expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 100 },
  });
  expect(card.status(), await card.text()).toBe(201);

  // The real pay request is held until the checks below are done: the payment stays in flight as long as needed.
  const payPath = /\/api\/checkout\/payment_intents\/[^/]+\/pay$/;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(payPath, async (route) => {
    await held;
    await route.continue();
  });

  await page.goto('/banner-checkout-demo');
  await expect(page.getByTestId('demo-mode-notice')).toHaveAttribute('data-mode', 'sandbox');
  await page.getByTestId('banner-try-bpay').click();
  const overlay = page.getByRole('dialog');
  await expect(overlay.getByTestId('split-row')).toHaveCount(1);
  // Before the payment starts, the close button is an ordinary one.
  await expect(overlay.getByTestId('bpay-overlay-close')).not.toHaveAttribute('aria-disabled', 'true');
  await overlay.getByTestId('split-submit').click();
  const paid = page.waitForResponse((r) => payPath.test(new URL(r.url()).pathname));
  await verifyCode(overlay, 0);

  await expect(overlay).toHaveAttribute('data-phase', 'creating');
  const busy = overlay.getByTestId('bpay-overlay-busy');
  await expect(busy).toHaveText('Payment in progress… This window closes by itself when your bcard is ready.');
  const close = overlay.getByTestId('bpay-overlay-close');
  await expect(close).toBeVisible();
  await expect(close).toHaveAttribute('aria-disabled', 'true');
  await expect(close).toHaveAccessibleDescription(/Payment in progress/);
  // Neither the close button nor Escape closes it.
  await close.click({ force: true });
  await page.keyboard.press('Escape');
  await expect(overlay).toBeVisible();
  await expect(overlay).toHaveAttribute('data-phase', 'creating');

  release();
  expect((await paid).status()).toBe(200);
  // The card, then (by itself) the store's form, filled in with the consumer's name; the store's heading focused.
  await expect(overlay).toBeHidden();
  await expect(page.getByTestId('demo-step')).toContainText('4/5');
  await expect(page.getByTestId('merchant-card-name')).toHaveValue('Ada Lovelace');
  await expect(page.locator('#demo-store-heading')).toBeFocused();
});

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('Customer Demo in Arabic: right to left, no horizontal overflow, the card number left to right', async ({ page }) => {
    test.setTimeout(45_000);
    await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
    await page.goto('/addon-checkout-demo');
    await expect(page.getByTestId('demo-step')).toBeVisible();
    await noHorizontalOverflow(page);

    await page.goto('/banner-checkout-demo');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    const step = page.getByTestId('demo-step');
    await expect(step).toContainText('2/5');
    await expect(page.getByTestId('extension-banner')).toContainText('وضع الإضافة');
    await noHorizontalOverflow(page);

    await page.getByTestId('banner-try-bpay').click();
    const overlay = page.getByRole('dialog');
    await expect(overlay.getByTestId('split-configurator')).toBeVisible();
    await noHorizontalOverflow(page);
    await overlay.getByTestId('split-submit').click();
    await expect(overlay.getByTestId('three-ds-submit')).toHaveText('تحقّق ومتابعة');
    await verifyCode(overlay, 0);
    const face = await watchCardFace(page);
    await verifyCode(overlay, 1);
    expect(await face()).toMatchObject({ number: '4242 4242 4242 4242', numberDirection: 'ltr' });
    await noHorizontalOverflow(page);

    await expect(step).toContainText('4/5');
    const filled = page.getByTestId('merchant-card-number');
    await expect(filled).toHaveValue('4242 4242 4242 4242');
    expect(await filled.evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
    await noHorizontalOverflow(page);
    await page.getByTestId('merchant-complete').click();
    await expect(step).toContainText('5/5');
    await expect(page.getByTestId('demo-complete')).toContainText('اكتمل الدفع');
    await noHorizontalOverflow(page);
  });
});
