import { expect, test, type Page } from '@playwright/test';

/*
 * The investor pages (issue 12, spec §2 "Investor pages"). Figures are written out here from the spec, not read
 * from the page's own claims module, so a changed figure fails. The contact comes from the server's configuration:
 * the test reads it from GET /api/site/contact rather than assuming the defaults.
 */

const CLAIMS: Array<[id: string, en: string, ar?: string]> = [
  ['marketSize', '$78B'],
  ['marketGrowth', '12.7%'],
  ['cardUsers', '430M+'],
  ['merchants', '5M+'],
  ['addressableMarket', '$2.8B'],
  ['monthlyGrowth', '15%'],
  ['volume', '$2.5M'],
  ['activeUsers', '12k+'],
  ['retention', '92%'],
  ['patents', '3'],
  ['status', 'Live now', 'تعمل الآن'],
  ['integrations', '500+'],
  ['feeRange', '0.9%–2.9%'],
  ['projectionTotal', '$11.5M'],
];

async function expectEveryClaim(page: Page, lang: 'en' | 'ar') {
  for (const [id, en, ar] of CLAIMS) {
    const figure = lang === 'ar' && ar ? ar : en;
    await expect(page.locator(`[data-claim="${id}"]`), id).toContainText(figure);
  }
  await expect(page.locator('[data-claim="addressableMarket"]')).toContainText('2028');
  await expect(page.locator('[data-claim="projectionTotal"]')).toContainText('2025–2027');
}

async function contact(page: Page): Promise<{ investorEmail: string; investorPhone: string }> {
  const res = await page.request.get('/api/site/contact');
  expect(res.ok()).toBe(true);
  return res.json();
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test.describe('investor pages', () => {
  test('/investors: every claim, the revenue chart, the configured contact and the legal links', async ({ page }) => {
    const { investorEmail, investorPhone } = await contact(page);
    await page.goto('/investors');
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page).toHaveTitle('Investors | bpay');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Transforming The Payment Industry');
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    for (const landmark of ['banner', 'main', 'contentinfo'] as const) await expect(page.getByRole(landmark)).toHaveCount(1);

    await expectEveryClaim(page, 'en');
    for (const heading of ['Market Analysis', 'Key Metrics', 'Business Model'])
      await expect(page.getByText(heading, { exact: true })).toBeVisible();

    // The projection is a chart named by its visible title and described by the values.
    const chart = page.getByRole('img', { name: 'Projected revenue by year' });
    await expect(chart).toBeVisible();
    await expect(chart).toHaveAccessibleDescription('Projected revenue: 2025: $500K, 2026: $2.5M, 2027: $8.5M. Total: $11.5M.');
    const bars = chart.locator('rect');
    await expect(bars).toHaveCount(3);
    const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
    expect(heights[1]! / heights[0]!).toBeCloseTo(5, 1);
    expect(heights[2]! / heights[0]!).toBeCloseTo(17, 1);

    // Mail links go to the configured investor address with a subject; phone to its digits.
    const mailto = new RegExp(`^mailto:${escapeRe(investorEmail)}\\?subject=.+`);
    await expect(page.getByRole('link', { name: 'Request Pitch Deck' }).first()).toHaveAttribute('href', mailto);
    await expect(page.getByRole('link', { name: 'Request Pitch Deck' }).first()).toHaveAttribute('href', /subject=Pitch%20deck/);
    await expect(page.getByRole('link', { name: 'Schedule Meeting' }).first()).toHaveAttribute('href', mailto);
    await expect(page.getByRole('link', { name: 'Schedule Meeting' }).first()).toHaveAttribute('href', /subject=Meeting/);
    await expect(page.getByTestId('investor-email-link')).toHaveAttribute('href', mailto);
    await expect(page.getByTestId('investor-email-link')).toContainText(investorEmail);
    await expect(page.getByTestId('investor-phone-link')).toHaveAttribute('href', `tel:${investorPhone.replace(/[^\d+]/g, '')}`);
    await expect(page.getByTestId('investor-phone-link')).toContainText(investorPhone);

    const footer = page.getByRole('contentinfo');
    await expect(footer.getByRole('link', { name: 'Terms & Conditions' })).toHaveAttribute('href', '/terms-conditions');
    await expect(footer.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy-policy');
    await expect(footer.getByRole('link', { name: 'Legal Disclaimers' })).toHaveAttribute('href', '/legal-disclaimers');
    await footer.getByRole('link', { name: 'Legal Disclaimers' }).click();
    await expect(page).toHaveURL(/\/legal-disclaimers$/);
  });

  test('/investors navigation: Home, Merchant Demo, Sign In and Start Free, and the language switch', async ({ page }) => {
    await page.goto('/investors');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Home' })).toHaveAttribute('href', '/');
    await expect(nav.getByRole('link', { name: 'Merchant Demo' })).toHaveAttribute('href', '/addon-checkout-demo');
    const header = page.getByRole('banner');
    await expect(header.getByRole('link', { name: 'Start Free' })).toHaveAttribute('href', '/auth');
    await header.getByRole('link', { name: 'Sign In' }).click();
    await expect(page).toHaveURL(/\/auth$/);

    await page.goto('/investors');
    await nav.getByRole('link', { name: 'Merchant Demo' }).click();
    await expect(page).toHaveURL(/\/addon-checkout-demo$/);

    // The switch goes to the other investor page (spec §2), and back.
    await page.goto('/investors');
    await page.getByTestId('language-switch').click();
    await expect(page).toHaveURL(/\/investors-ar$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await page.getByTestId('language-switch').click();
    await expect(page).toHaveURL(/\/investors$/);
    await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  });

  test('/investors-ar: right-to-left, every claim, plans and fees from the API, the contact and the Customer Demo', async ({ page }) => {
    const { investorEmail } = await contact(page);
    const tiers = (await (await page.request.get('/api/subscription/tiers')).json()).tiers as Array<{ monthlyPrice: number }>;
    expect(tiers.map((t) => t.monthlyPrice)).toEqual([0, 9.99, 19.99]);

    await page.goto('/investors-ar');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
    await expect(page.getByTestId('InvestorsArPage')).toHaveAttribute('dir', 'rtl');
    await expect(page).toHaveTitle('المستثمرون | bpay');
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expect(page.getByTestId('live-badge')).toBeVisible();
    await expectEveryClaim(page, 'ar');
    // Figures are isolated left-to-right inside the Arabic text.
    await expect(page.locator('[data-claim="feeRange"] [dir="ltr"]')).toHaveText('0.9%–2.9%');
    await expect(page.locator('[data-claim="projectionTotal"] dd [dir="ltr"]')).toHaveText('$11.5M');

    await expect(page.getByRole('img', { name: 'الإيرادات المتوقعة حسب السنة' })).toBeVisible();
    await expect(page.getByRole('img', { name: 'الإيرادات المتوقعة حسب السنة' })).toHaveAccessibleDescription(/\$500K.*\$2\.5M.*\$8\.5M.*\$11\.5M/);

    const plans = page.getByTestId('investor-plan');
    await expect(plans).toHaveCount(3);
    await expect(plans.nth(0)).toContainText('Free');
    await expect(plans.nth(0)).toContainText('2.9%');
    await expect(plans.nth(1)).toContainText('Professional');
    await expect(plans.nth(1)).toContainText('$9.99');
    await expect(plans.nth(1)).toContainText('2.9%');
    await expect(plans.nth(2)).toContainText('Premium');
    await expect(plans.nth(2)).toContainText('$19.99');
    await expect(plans.nth(2)).toContainText('1.9%');

    await expect(page.getByTestId('contact-link')).toHaveAttribute('href', new RegExp(`^mailto:${escapeRe(investorEmail)}\\?subject=`));
    await page.getByRole('link', { name: 'جرّب عرض العميل' }).click();
    await expect(page).toHaveURL(/\/banner-checkout-demo$/);
  });

  test('contact links wait for the configuration without moving; the plans show their error and retry', async ({ page }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/site/contact', async (route) => {
      await held;
      await route.continue();
    });
    let failTiers = true;
    await page.route('**/api/subscription/tiers', (route) =>
      failTiers ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":{"type":"api_error","code":"internal","message":"x"}}' }) : route.continue(),
    );

    await page.goto('/investors-ar');
    const mail = page.getByTestId('contact-link');
    await expect(mail).toBeVisible();
    await expect(mail).toHaveAttribute('aria-disabled', 'true');
    await expect(mail).not.toHaveAttribute('href', /.*/);
    const emailCard = page.getByTestId('investor-email-link');
    const before = await emailCard.boundingBox();

    await expect(page.getByRole('alert')).toContainText('تعذّر تحميل الخطط');
    failTiers = false;
    await page.getByRole('button', { name: 'إعادة المحاولة' }).click();
    await expect(page.getByTestId('investor-plan')).toHaveCount(3);

    release();
    await expect(mail).toHaveAttribute('href', /^mailto:/);
    await expect(mail).not.toHaveAttribute('aria-disabled', 'true');
    const after = await emailCard.boundingBox();
    expect(after?.height).toBe(before?.height);
    expect(after?.width).toBe(before?.width);
  });

  test('at 390 px both pages fit without horizontal scrolling and the menu toggle opens the menu', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ['/investors', '/investors-ar']) {
      await page.goto(path);
      await expect(page.getByRole('img', { name: /.+/ }).last()).toBeVisible();
      if (path === '/investors-ar') await expect(page.getByTestId('investor-plan')).toHaveCount(3);
      await expect(page.getByTestId('investor-email-link')).toHaveAttribute('href', /^mailto:/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }

    await page.goto('/investors');
    const toggle = page.getByTestId('investors-menu-toggle');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const menu = page.getByRole('navigation', { name: 'Mobile' });
    await expect(menu.getByRole('link', { name: 'Merchant Demo' })).toBeVisible();
    await expect(menu.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth');
    await page.keyboard.press('Escape');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(menu).toHaveCount(0);
  });
});
