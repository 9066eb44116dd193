import { expect, test, type Page, type Route } from '@playwright/test';
import { addCard, E2E_CARD_NUMBERS, E2E_CVV } from './cards';

const toast = (page: Page) => page.getByTestId('toast').last();

/** The page never scrolls sideways at this width, and nothing in it reaches past either edge. */
async function expectNoHorizontalOverflow(page: Page, width: number) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const outside = await page.evaluate((w) => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('main *'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.right > w + 1 || r.left < -1)) out.push(`${el.tagName.toLowerCase()}.${el.className} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
    }
    return out.slice(0, 5);
  }, width);
  expect(outside).toEqual([]);
}

/** The step's heading has the focus (the button that led there is gone). */
async function expectStepHeadingFocused(page: Page, text: string) {
  await expect(page.getByTestId('pd-step-heading')).toBeFocused();
  expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe(text);
}

async function openSplit(page: Page) {
  await page.goto('/payment-demo');
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'checkout');
  await page.getByTestId('pd-pay').click();
  await expect(page.getByTestId('split-configurator')).toBeVisible();
}

/** 52 characters without a space: the longest word most people will ever type into the field. */
const LONG_EN = 'Supercalifragilisticexpialidocious-Electronics-Store';
/** 50 Arabic letters without a space. */
const LONG_AR = 'متجرالإلكترونياتوالأجهزةالذكيةوالحواسيبوالهواتفالمحمولةالحديثة'.slice(0, 50);

test('signed out: the labelled sample flow from checkout to Payment Successful!, at 390 px with a long merchant name', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/payment-demo');
  await expect(page.getByTestId('pd-mode-banner')).toHaveAttribute('data-mode', 'demo');
  await expect(page.getByTestId('pd-mode-banner')).toContainText('Demo: no money moves');
  await expect(page.getByTestId('pd-merchant')).toHaveValue('Demo Store');
  await expect(page.getByTestId('pd-amount')).toHaveValue('150');
  await expect(page.getByTestId('pd-how-step')).toHaveCount(3);
  await expect(page.getByTestId('pd-scenario')).toBeVisible();
  await expect(page.getByTestId('pd-back-home')).toHaveAttribute('href', '/');
  // One polite live region for the whole run: marked here, it must still be the same element at the end.
  const live = page.getByTestId('pd-live');
  await expect(live).toHaveAttribute('aria-live', 'polite');
  await live.evaluate((el) => el.setAttribute('data-e2e-mark', 'first'));
  await page.getByTestId('pd-merchant').fill(LONG_EN);
  await expectNoHorizontalOverflow(page, 390);

  // Pay with bpay needs an amount above 0.
  await page.getByTestId('pd-amount').fill('0');
  await expect(page.getByTestId('pd-pay')).toBeDisabled();
  await page.getByTestId('pd-amount').fill('150');
  await page.getByTestId('pd-pay').click();
  await expectStepHeadingFocused(page, 'Split your payment');

  // The sample sources, 60/40 of $150 + 2.9 %.
  await expect(page.getByTestId('split-row')).toHaveCount(4);
  await expect(page.getByTestId('split-total')).toContainText('$154.35');
  await expect(page.getByTestId('pd-split')).toContainText(LONG_EN);
  await expectNoHorizontalOverflow(page, 390);
  // The demo steps on a timer (1.5 s a share); on a loaded machine the test may look after the second share is in.
  // So every value the figures and the live region take is recorded as it appears, and checked afterwards.
  await page.evaluate(() => {
    const seen: Record<string, string[]> = { collected: [], remaining: [], live: [] };
    const read = () => {
      for (const [key, id] of [['collected', 'pd-collected'], ['remaining', 'pd-remaining'], ['live', 'pd-live']] as const) {
        const text = document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
        const list = seen[key]!;
        if (text && list[list.length - 1] !== text) list.push(text);
      }
    };
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
    (window as unknown as { __pdSeen: typeof seen }).__pdSeen = seen;
  });
  await page.getByTestId('split-submit').click();
  await expectStepHeadingFocused(page, 'Generating your bcard');

  const bcard = page.getByTestId('pd-bcard');
  await expect(bcard).toHaveAttribute('data-kind', 'simulated');
  await expect(page.getByTestId('pd-bcard-kind')).toContainText('Simulated: nothing is charged');
  // Two shares (the 0 % rows pay nothing) plus the card: three equal steps.
  await expect(page.getByTestId('pd-share')).toHaveCount(2);
  await expect(page.getByTestId('pd-progress-steps')).toContainText('of 3 steps');
  await expect(page.getByTestId('pd-share').first()).toHaveAttribute('data-status', 'captured');
  await expectNoHorizontalOverflow(page, 390);
  // After the first share (60 % of $154.35) and before the second: what was collected and what remains.
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __pdSeen: { collected: string[] } }).__pdSeen.collected))
    .toContain('$92.61');
  const seen = await page.evaluate(() => (window as unknown as { __pdSeen: Record<string, string[]> }).__pdSeen);
  expect(seen.remaining).toContain('$61.74');
  expect(seen.live!.some((text) => text.includes('Collected $92.61'))).toBe(true);

  // The merchant step: the demo card, marked as such, filled into the merchant's form.
  await expect(page.getByTestId('pd-card-number')).toHaveText('4242 4242 4242 4242', { timeout: 10_000 });
  await expectStepHeadingFocused(page, 'Your bcard');
  await expect(page.getByTestId('pd-demo-card-badge')).toContainText('not a real card');
  await expect(page.getByTestId('pd-form-expiry')).toHaveValue('12/28');
  await expect(page.getByTestId('pd-form-cvv')).toHaveValue('123');
  // The revealed details are no form data a browser may keep or correct.
  for (const id of ['pd-form-name', 'pd-form-number', 'pd-form-expiry', 'pd-form-cvv']) {
    await expect(page.getByTestId(id)).toHaveAttribute('autocomplete', 'off');
    await expect(page.getByTestId(id)).toHaveAttribute('autocorrect', 'off');
    await expect(page.getByTestId(id)).toHaveAttribute('spellcheck', 'false');
  }
  await expect(page.getByTestId('pd-merchant-note')).toContainText('Demo: no money moves');
  await expect(page.getByTestId('pd-merchant-form')).toContainText(LONG_EN);
  await expectNoHorizontalOverflow(page, 390);
  await page.getByTestId('pd-complete').click();

  const done = page.getByTestId('pd-complete-step');
  await expect(done).toContainText('Payment Successful!');
  await expectStepHeadingFocused(page, 'Payment Successful!');
  await expect(toast(page)).toContainText('Payment of $150.00 processed successfully!');
  await expect(page.getByTestId('pd-complete-amount')).toHaveText('$150.00');
  await expect(page.getByTestId('pd-complete-merchant')).toHaveText(LONG_EN);
  await expect(page.getByTestId('pd-complete-fee')).toHaveText('$4.35');
  await expect(page.getByTestId('pd-transaction-id')).toHaveText(/^demo_txn_/);
  await expect(page.getByTestId('pd-demo-transaction')).toBeVisible();
  await expectNoHorizontalOverflow(page, 390);
  await expect(live).toHaveAttribute('data-e2e-mark', 'first');

  await page.getByTestId('pd-dashboard').click();
  await expect(page).toHaveURL(/\/$/);
});

test('Arabic at 390 px: fifty Arabic letters without a space as the merchant name never widen any step', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/payment-demo');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByTestId('pd-merchant').fill(LONG_AR);
  await expectNoHorizontalOverflow(page, 390);
  await page.getByTestId('pd-pay').click();
  await expect(page.getByTestId('split-configurator')).toBeVisible();
  await expect(page.getByTestId('pd-split')).toContainText(LONG_AR);
  await expectNoHorizontalOverflow(page, 390);
  await page.getByTestId('split-submit').click();
  await expect(page.getByTestId('pd-bcard')).toBeVisible();
  await expectNoHorizontalOverflow(page, 390);
  await expect(page.getByTestId('pd-card-number')).toHaveText('4242 4242 4242 4242', { timeout: 10_000 });
  await expect(page.getByTestId('pd-merchant-form')).toContainText(LONG_AR);
  await expectNoHorizontalOverflow(page, 390);
  await page.getByTestId('pd-complete').click();
  await expect(page.getByTestId('pd-complete-merchant')).toHaveText(LONG_AR);
  await expectNoHorizontalOverflow(page, 390);
});

test('failure scenario: the second share fails for want of funds, progress stops, Retry Payment then succeeds', async ({ page }) => {
  await page.goto('/payment-demo');
  await page.getByTestId('pd-scenario-failure').check();
  await expect(page.getByTestId('pd-failure-note')).toContainText('Simulated: nothing is charged');
  await page.getByTestId('pd-pay').click();
  await page.getByTestId('split-submit').click();

  const error = page.getByTestId('pd-error');
  await expect(error).toContainText('Failed to process payment splits');
  await expect(error).toContainText('Insufficient funds');
  await expect(error).toContainText('Simulated: nothing is charged');
  const shares = page.getByTestId('pd-share');
  await expect(shares.nth(1)).toHaveAttribute('data-status', 'declined');
  // All or nothing: the first share is let go again, nothing stays collected, the card is not made.
  await expect(shares.nth(0)).toHaveAttribute('data-status', 'released');
  await expect(page.getByTestId('pd-collected')).toHaveText('$0.00');
  await expect(page.getByTestId('pd-card-step')).toHaveAttribute('data-status', 'failed');
  await expect(page.getByTestId('pd-progress')).toHaveAttribute('aria-valuenow', '33');
  await expect(page.getByTestId('pd-error-hints').getByRole('listitem')).toHaveCount(4);
  await expect(toast(page)).toContainText('Failed to process payment splits');
  // The failure is announced through the step's permanent polite region, not a freshly mounted alert.
  await expect(page.getByTestId('pd-live')).toContainText('Failed to process payment splits');
  await expect(page.locator('main [role="alert"], main [aria-live="assertive"]')).toHaveCount(0);

  // The options come after a short delay.
  await expect(page.getByTestId('pd-retry')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('pd-live')).toContainText('Retry Payment');
  await expect(page.getByTestId('pd-cancel')).toBeVisible();
  await page.getByTestId('pd-retry').click();

  // Retry replays the same split in the success scenario.
  await expect(page.getByTestId('pd-error')).toHaveCount(0);
  await expect(page.getByTestId('pd-card-number')).toBeVisible({ timeout: 10_000 });
  await page.getByTestId('pd-complete').click();
  await expect(page.getByTestId('pd-complete-step')).toContainText('Payment Successful!');
  // The next run can try the failure again.
  await expect(page.getByTestId('pd-try-other')).toHaveText('Try Failure Scenario');
});

test('Cancel & Reconfigure returns to the checkout', async ({ page }) => {
  await page.goto('/payment-demo');
  await page.getByTestId('pd-merchant').fill('Corner Books');
  await page.getByTestId('pd-amount').fill('42.50');
  await page.getByTestId('pd-scenario-failure').check();
  await page.getByTestId('pd-pay').click();
  await page.getByTestId('split-submit').click();
  await expect(page.getByTestId('pd-cancel')).toBeVisible({ timeout: 10_000 });
  await page.getByTestId('pd-cancel').click();
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'checkout');
  await expect(page.getByTestId('pd-merchant')).toHaveValue('Corner Books');
  await expect(page.getByTestId('pd-amount')).toHaveValue('42.50');
  await expect(page.getByTestId('pd-scenario-failure')).toBeChecked();
});

test('fixed amounts: a wrong total shows the spec text and disables the pay button (demo mode: no scenario radio)', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('bpay-demo-mode', 'true'));
  await page.goto('/payment-demo');
  await expect(page.getByTestId('pd-mode-banner')).toContainText('Demo mode is on');
  await expect(page.getByTestId('pd-scenario')).toHaveCount(0);
  await openSplit(page);
  await page.getByTestId('split-mode-fixed').click();
  const inputs = page.getByTestId('split-fixed-input');
  await inputs.nth(0).fill('100');
  await inputs.nth(1).fill('50');
  await expect(page.getByTestId('split-error')).toContainText(
    'Total fixed amounts ($150.00) must equal the total payment amount ($154.35) including fees.',
  );
  await expect(page.getByTestId('split-submit')).toBeDisabled();
  await inputs.nth(1).fill('54.35');
  await expect(page.getByTestId('split-error')).toHaveCount(0);
  await expect(page.getByTestId('split-submit')).toBeEnabled();
  await page.getByTestId('pd-split-back').click();
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'checkout');
});

interface Source {
  id: string;
  balance: string | null;
}
const cents = (s: string) => Math.round(Number(s) * 100);

test('signed in: the split is checked against your own cards, then TechStore\'s sandbox takes a test payment; no card is charged', async ({ page }) => {
  test.setTimeout(90_000);
  const email = `paydemo-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '60' });
  await addCard(page, E2E_CARD_NUMBERS[1]!, { threeDS: true, split: '40' });

  const before: Source[] = await (await page.request.get('/api/funding-sources')).json();
  expect(before).toHaveLength(2);
  const paysSent: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && /\/api\/(process-payment|virtual-cards)/.test(r.url())) paysSent.push(r.url());
  });

  await page.goto('/payment-demo');
  // The page says what happens before anything does: a test payment, the typed merchant only a label.
  const banner = page.getByTestId('pd-mode-banner');
  await expect(banner).toHaveAttribute('data-mode', 'real');
  await expect(banner).toContainText('Test payment: your cards are not charged');
  await expect(banner).toContainText("pays bpay's demo merchant TechStore in its sandbox with test funds");
  await page.getByTestId('pd-pay').click();
  await expect(page.getByTestId('split-row')).toHaveCount(2);
  await expect(page.getByTestId('split-total')).toContainText('$154.35');
  // The pay answer is held back once the server has answered it: what the page shows meanwhile can only come from
  // its polls of the collection's progress (issue 28 §3), not from the answer.
  const held = holdPayAnswers(page);
  await page.route('**/api/checkout/payment_intents/*/pay', held.handler);
  const progressKeys: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/virtual-cards/collection-progress')) progressKeys.push(new URL(r.url()).searchParams.get('key') ?? '');
  });
  await page.getByTestId('split-submit').click();
  await expect(page.getByTestId('pd-bcard')).toHaveAttribute('data-kind', 'real');
  await expect(page.getByTestId('pd-share')).toHaveCount(2);
  await expect(page.getByTestId('pd-shares-done')).toHaveText('2 of 2 shares collected', { timeout: 15_000 });
  for (const share of await page.getByTestId('pd-share').all()) {
    await expect(share).toHaveAttribute('data-status', 'captured');
    await expect(share).toContainText('Not charged: a test card is collected in its place');
  }
  // Still before the answer: the card is being created, the step has not moved on.
  await expect(page.getByTestId('pd-card-step')).toHaveAttribute('data-status', 'processing');
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'bcard');
  expect(held.payKeys).toHaveLength(1);
  expect(progressKeys).toContain(held.payKeys[0]);
  held.release();

  // The merchant step shows the sandbox test bcard, masked; there is no bcard of the consumer's to cancel.
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'merchant', { timeout: 15_000 });
  await expect(page.getByTestId('pd-card-number')).toHaveText(/^•••• •••• •••• \d{4}$/);
  await expect(page.getByTestId('pd-merchant-back')).not.toContainText('Cancel bcard');
  await page.getByTestId('pd-complete').click();

  await expect(page.getByTestId('pd-complete-step')).toContainText('Payment Successful!', { timeout: 15_000 });
  await expect(toast(page)).toContainText('Payment of $150.00 processed successfully!');
  await expect(page.getByTestId('pd-complete-fee')).toHaveText('$4.35');
  await expect(page.getByTestId('pd-test-payment')).toContainText("Test payment in TechStore's sandbox: your cards were not charged.");
  const txId = (await page.getByTestId('pd-transaction-id').textContent())!.trim();
  expect(txId).toMatch(/^pi_/);

  // The API agrees: no process-payment, no bcard of the consumer's, no transaction at 'Demo Store', balances as before.
  expect(paysSent).toEqual([]);
  const bcards: { id: string }[] = await (await page.request.get('/api/virtual-cards')).json();
  expect(bcards).toHaveLength(0);
  const txs: { merchant: string }[] = await (await page.request.get('/api/transactions')).json();
  expect(txs.filter((x) => x.merchant === 'Demo Store')).toHaveLength(0);
  const after: Source[] = await (await page.request.get('/api/funding-sources')).json();
  expect(after.map((a) => [a.id, a.balance])).toEqual(before.map((b) => [b.id, b.balance]));

  // Arabic at 390 px says the same.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('pd-another').click();
  // Signed in, the account's language is the page's (issue 25 item 5): set it, and this browser's choice with it.
  expect((await page.request.patch('/api/auth/user', { data: { language: 'ar' } })).status()).toBe(200);
  await page.evaluate(() => localStorage.setItem('bpay-language', 'ar'));
  await page.reload();
  await expect(page.getByTestId('pd-mode-banner')).toContainText('دفعة اختبارية: لن تُخصم أي مبالغ من بطاقاتك');
  await expectNoHorizontalOverflow(page, 390);
  // The progress in Arabic at 390 px, again while the answer is held back.
  const heldAr = holdPayAnswers(page);
  await page.unroute('**/api/checkout/payment_intents/*/pay');
  await page.route('**/api/checkout/payment_intents/*/pay', heldAr.handler);
  await page.getByTestId('pd-pay').click();
  await page.getByTestId('split-submit').click();
  await expect(page.getByTestId('pd-shares-done')).toHaveText('حُصِّلت 2 من 2 حصص', { timeout: 15_000 });
  await expect(page.getByTestId('pd-share').first()).toContainText('لم يُخصم منها: تُحصَّل بطاقة اختبارية بدلًا منها');
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'bcard');
  await expectNoHorizontalOverflow(page, 390);
  heldAr.release();
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'merchant', { timeout: 15_000 });
  const afterAr: Source[] = await (await page.request.get('/api/funding-sources')).json();
  expect(afterAr.map((a) => [a.id, a.balance])).toEqual(before.map((b) => [b.id, b.balance]));
});

/**
 * Lets each pay request reach the server, then holds its answer back until release(): meanwhile the page knows only
 * what it polls. payKeys: the Idempotency-Key each pay carried.
 */
function holdPayAnswers(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const payKeys: string[] = [];
  return {
    payKeys,
    release: () => release(),
    handler: async (route: Route) => {
      payKeys.push(route.request().headers()['idempotency-key'] ?? '');
      const response = await route.fetch();
      await released;
      await route.fulfill({ response }).catch(() => undefined);
    },
  };
}

async function signUpWithOneCard(page: Page, tag: string) {
  const email = `${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  const added = await page.request.post('/api/funding-sources', {
    data: { cardNumber: E2E_CARD_NUMBERS[0], expiryMonth: '12', expiryYear: '2030', cvv: E2E_CVV, name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 100 },
  });
  expect(added.status(), await added.text()).toBe(201);
}


test('signed in, no answer to the test payment\'s start: the same body and key are resent, and Retry pays the very intent the server made', async ({ page }) => {
  test.setTimeout(90_000);
  await signUpWithOneCard(page, 'paydemo-noanswer');
  const balance = async () => ((await (await page.request.get('/api/funding-sources')).json()) as Source[])[0]!.balance!;
  const before = await balance();

  // The server makes the intent, then the answer is lost on the way back, as on a dropped connection.
  const sent: { key: string; body: string }[] = [];
  const made: string[] = [];
  let loseAnswers = true;
  await page.route('**/api/demo/checkout-intent', async (route) => {
    const req = route.request();
    sent.push({ key: req.headers()['idempotency-key'] ?? '', body: req.postData() ?? '' });
    const answer = await route.fetch();
    made.push(((await answer.json()) as { id: string }).id);
    if (loseAnswers) return route.abort('connectionreset');
    return route.fulfill({ response: answer });
  });
  const paid: string[] = [];
  page.on('request', (r) => {
    const m = /\/api\/checkout\/payment_intents\/([^/]+)\/pay$/.exec(r.url());
    if (r.method() === 'POST' && m) paid.push(m[1]!);
  });

  await page.goto('/payment-demo');
  await page.getByTestId('pd-merchant').fill('Corner Coffee');
  await page.getByTestId('pd-pay').click();
  await expect(page.getByTestId('split-row')).toHaveCount(1);
  await page.getByTestId('split-submit').click();

  // Two automatic resends, then the panel: three requests, one key, one body; the server answered one intent.
  await expect(page.getByTestId('pd-card-step')).toHaveAttribute('data-status', 'unconfirmed', { timeout: 15_000 });
  expect(sent).toHaveLength(3);
  expect(new Set(sent.map((s) => s.key)).size).toBe(1);
  expect(new Set(sent.map((s) => s.body)).size).toBe(1);
  expect(JSON.parse(sent[0]!.body)).toMatchObject({ amount: 15000 });
  expect(new Set(made).size).toBe(1);
  expect(paid).toEqual([]);

  // Retry, answered now: the same key gets the same intent, which is paid; still nothing charged.
  loseAnswers = false;
  await page.getByTestId('pd-retry').click();
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'merchant', { timeout: 15_000 });
  expect(new Set(sent.map((s) => s.key)).size).toBe(1);
  expect(new Set(made).size).toBe(1);
  expect(paid).toEqual([made[0]]);
  await page.getByTestId('pd-merchant-back').click();
  await expect(page.getByTestId('pd-step')).toHaveAttribute('data-step', 'checkout');
  expect(await balance()).toBe(before);
  expect(await (await page.request.get('/api/virtual-cards')).json()).toEqual([]);
});
