import { expect, test } from '@playwright/test';
import { PRERENDERED_PAGES } from '../web/src/app/prerendered-pages';

/*
 * Issue 13: the public pages arrive as HTML (the build prerenders them with the app's own components) and the app
 * takes that HTML over in place (hydration) instead of painting the page a second time.
 */

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });
  for (const path of PRERENDERED_PAGES) {
    test(`${path}: its heading, language and title are in the HTML itself`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const arabic = path === '/ar' || path.endsWith('-ar');
      await expect(page.locator('html')).toHaveAttribute('lang', arabic ? 'ar' : 'en');
      await expect(page.locator('html')).toHaveAttribute('dir', arabic ? 'rtl' : 'ltr');
      await expect(page.locator('#root')).toHaveAttribute('data-prerendered', path);
      expect(await page.title()).toMatch(/bpay/);
    });
  }
});

test.describe('with JavaScript', () => {
  for (const path of PRERENDERED_PAGES) {
    test(`${path}: the app takes over the prerendered HTML in place, with no hydration error`, async ({ page }) => {
      const errors: string[] = [];
      page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
      page.on('pageerror', (err) => errors.push(err.message));
      // Hold the app's scripts back until the HTML's heading has been marked, then let them run.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/assets/*.js', async (route) => {
        await held;
        await route.continue();
      });
      // Module scripts hold DOMContentLoaded back, so wait for the heading itself.
      await page.goto(path, { waitUntil: 'commit' });
      await page.waitForSelector('h1', { state: 'attached' });
      await page.evaluate(() => ((window as unknown as { prerenderedH1: Element | null }).prerenderedH1 = document.querySelector('h1')));
      release();
      // Hydrated: React has attached itself to the very element the HTML brought. A wait, not a speed check: on a
      // busy machine the held scripts and the page's chunk can take longer than the default to arrive.
      await expect
        .poll(
          () =>
            page.evaluate(() => {
              const h1 = document.querySelector('h1');
              const same = h1 !== null && h1 === (window as unknown as { prerenderedH1: Element | null }).prerenderedH1;
              return same && Object.keys(h1).some((k) => k.startsWith('__reactFiber'));
            }),
          { timeout: 20_000 },
        )
        .toBe(true);
      await page.waitForLoadState('networkidle');
      expect(errors).toEqual([]);
    });
  }

  test('before hydration the sign-in form and the Register tab are disabled; once live, typing and the tab work', async ({ page }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/assets/*.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/auth', { waitUntil: 'commit' });
    await page.waitForSelector('#login-email', { state: 'attached' });
    await expect(page.locator('#login-email')).toBeDisabled();
    await expect(page.getByRole('tab', { name: 'Register' })).toBeDisabled();
    release();
    await expect(page.locator('#login-email')).toBeEnabled();
    await page.locator('#login-email').fill('ada@example.com');
    await expect(page.locator('#login-email')).toHaveValue('ada@example.com');
    await page.getByRole('tab', { name: 'Register' }).click();
    await expect(page.getByPlaceholder('Create a password (min 6 characters)')).toBeVisible();
  });

  test('a page chunk that cannot be downloaded: the prerendered page stays, and the chunk is not requested in a loop', async ({ page }) => {
    let requests = 0;
    await page.route('**/assets/legal-*.js', (route) => {
      requests++;
      return route.abort();
    });
    await page.goto('/terms-conditions');
    await page.waitForTimeout(1500);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Terms & Conditions');
    expect(requests).toBeLessThanOrEqual(2);
    // Reached by navigation instead: the page says it could not load and offers a reload.
    await page.goto('/');
    await page.evaluate(() => {
      window.history.pushState({}, '', '/privacy-policy');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await expect(page.getByRole('alert')).toContainText('could not be loaded');
    await expect(page.getByRole('button', { name: 'Reload' })).toBeVisible();
    expect(requests).toBeLessThanOrEqual(3);
  });

  test('after signing in on /auth the dashboard does not keep the sign-in title', async ({ page }) => {
    const email = `title-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    expect((await page.request.post('/api/auth/register', { data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' } })).status()).toBe(201);
    await page.request.post('/api/auth/logout');
    await page.goto('/auth');
    await expect(page).toHaveTitle('Sign in · bpay');
    await page.locator('#login-email').fill(email);
    await page.locator('#login-password').fill('correct horse battery');
    await page.locator('#login-password').press('Enter');
    await expect(page.getByTestId('tab-overview')).toBeVisible();
    await expect(page).toHaveTitle('bpay');
  });

  test('a saved Arabic choice on an English page: the app renders afresh in Arabic, without errors', async ({ page }) => {
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    await page.addInitScript(() => window.localStorage.setItem('bpay-language', 'ar'));
    await page.goto('/terms-conditions');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('الشروط والأحكام');
    expect(errors).toEqual([]);
  });

  test('signed in, / is the dashboard with no landing page before it', async ({ page }) => {
    const email = `prerender-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const res = await page.request.post('/api/auth/register', {
      data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(res.status()).toBe(201);
    const html = await (await page.request.get('/')).text();
    expect(html).not.toContain('data-prerendered');
    // The landing's hero never appears on the way to the dashboard.
    await page.addInitScript(() => {
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="hero-section"], #how-it-works')) document.documentElement.dataset.sawLanding = 'yes';
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto('/');
    await expect(page.getByTestId('tab-overview')).toBeVisible();
    await expect(page.locator('html')).not.toHaveAttribute('data-saw-landing', 'yes');
  });
});
