import { expect, test, type Page } from '@playwright/test';

/*
 * No link a visitor can follow from the landing pages or the dashboard ends on the 404 page (issue 12): every
 * same-site path linked there is opened and must show its page.
 */

async function internalPaths(page: Page): Promise<string[]> {
  const hrefs = await page.locator('a[href^="/"]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute('href') ?? ''));
  return [...new Set(hrefs.map((h) => h.split('#')[0]!.split('?')[0]!).filter((h) => h && h !== '/auth/logout'))];
}

async function expectNoNotFound(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByTestId('page-loading')).toHaveCount(0);
  await expect(page.locator('#root > *').first()).toBeVisible();
  await expect(page.getByText('404 Page Not Found'), `${path} shows the 404 page`).toHaveCount(0);
}

test('every link on / and /ar opens a page', async ({ page }) => {
  test.setTimeout(60_000);
  const paths = new Set<string>();
  for (const start of ['/', '/ar']) {
    await page.goto(start);
    await expect(page.locator('footer')).toBeVisible();
    for (const p of await internalPaths(page)) paths.add(p);
  }
  for (const p of ['/payment-demo', '/addon-checkout-demo', '/banner-checkout-demo', '/investors', '/investors-ar', '/extension']) {
    expect([...paths], `the landing pages link ${p}`).toContain(p);
  }
  for (const p of paths) await expectNoNotFound(page, p);
});

test("every link on the signed-in dashboard's overview opens a page; /checkout-demo is the Merchant Demo", async ({ page }) => {
  test.setTimeout(60_000);
  const email = `links-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  await expect(page.getByTestId('quick-payment-demo')).toBeVisible();
  const paths = await internalPaths(page);
  expect(paths).toContain('/payment-demo');
  expect(paths).toContain('/checkout-demo');
  for (const p of paths) await expectNoNotFound(page, p);
  await page.goto('/checkout-demo');
  await expect(page).toHaveURL(/\/addon-checkout-demo$/);
});

test('a first visit to / does not download the demos or the investor pages; opening one loads its own chunk', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  await page.goto('/');
  await expect(page.locator('footer')).toBeVisible();
  await page.waitForLoadState('networkidle');
  const lazyChunk = /(payment-demo|addon-demo|banner-demo|investors|extension)[^/]*\.js$/;
  expect(scripts.filter((s) => lazyChunk.test(s))).toEqual([]);
  await page.getByRole('contentinfo').getByRole('link', { name: 'Payment Demo' }).click();
  await expect(page).toHaveURL(/\/payment-demo$/);
  await expect.poll(() => scripts.some((s) => /payment-demo[^/]*\.js$/.test(s))).toBe(true);
});
