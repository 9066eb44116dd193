import { PUBLIC_PAGES as SITEMAP_PAGES } from '../api/src/site-files';
import { expect, test, type Page } from '@playwright/test';

/*
 * Issue 13: public pages do no needless work and stay accessible.
 * - A signed-out visit logs no console error and throws nothing: the session probe (GET /api/auth/session) answers
 *   200 { user: null } for "nobody", where GET /api/auth/user answers 401 and Chromium would log it.
 * - Heading levels never skip on the way down (h1, then h2, then h3 …; going back up any number is fine), on every
 *   public page and on every tab of the signed-in dashboard: axe's heading-order rule, which Lighthouse runs.
 */

// The public pages are the sitemap's (api/src/site-files.ts): one list, so a page added there is checked here.
const PUBLIC_PAGES = SITEMAP_PAGES.map((p) => p.path);

/** Console errors and uncaught exceptions from the moment the page starts loading. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  return errors;
}

/** The levels of the rendered headings in document order (hidden ones are not read out, so they do not count). */
async function headingLevels(page: Page): Promise<Array<{ level: number; text: string }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('h1, h2, h3, h4, h5, h6, [role="heading"]')]
      .filter((el) => el.checkVisibility() && !el.closest('[aria-hidden="true"]'))
      .map((el) => ({
        level: el.getAttribute('role') === 'heading' ? Number(el.getAttribute('aria-level') ?? 2) : Number(el.tagName[1]),
        text: (el.textContent ?? '').trim().slice(0, 60),
      })),
  );
}

/** No skipped level going down; the first heading is the page's h1. */
function skippedLevels(headings: Array<{ level: number; text: string }>): string[] {
  const problems: string[] = [];
  if (headings[0]?.level !== 1) problems.push(`first heading is not an h1: ${JSON.stringify(headings[0])}`);
  for (let i = 1; i < headings.length; i++) {
    const [prev, cur] = [headings[i - 1]!, headings[i]!];
    if (cur.level > prev.level + 1) problems.push(`h${prev.level} "${prev.text}" -> h${cur.level} "${cur.text}"`);
  }
  return problems;
}

test.describe('public pages, signed out', () => {
  for (const path of PUBLIC_PAGES) {
    test(`${path}: no console error, and heading levels never skip`, async ({ page }) => {
      const errors = collectErrors(page);
      const probe = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/auth/session');
      await page.goto(path, { waitUntil: 'networkidle' });
      const answer = await probe;
      expect(answer.status()).toBe(200);
      expect(await answer.json()).toEqual({ user: null });
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
      expect(errors).toEqual([]);
      expect(skippedLevels(await headingLevels(page))).toEqual([]);
    });
  }
});

test('signed-in dashboard: every tab keeps heading levels in order, without console errors', async ({ page }) => {
  const errors = collectErrors(page);
  const email = `headings-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  for (const tab of ['overview', 'funding-sources', 'bcards', 'transactions', 'analytics', 'settings']) {
    await page.getByTestId(`tab-${tab}`).click();
    await expect(page.getByTestId(`tab-${tab}`)).toHaveAttribute('aria-selected', 'true');
    await page.waitForLoadState('networkidle');
    await expect(page.locator('[role="tabpanel"] [aria-busy="true"]')).toHaveCount(0);
    expect(skippedLevels(await headingLevels(page)), tab).toEqual([]);
  }
  expect(errors).toEqual([]);
});
