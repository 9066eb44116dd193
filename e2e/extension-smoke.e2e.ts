import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { bannerText, launchWithExtension, type ExtensionBrowser } from './extension-kit';

/*
 * Smoke test of the unpacked extension (dist/extension, written by `bun run build:extension`; scripts/e2e.sh builds
 * it for the e2e server's origin) in Debian's Chromium: the service worker starts, a checkout page from the
 * detector's corpus gets the banner with its total, and a page that is not a checkout gets nothing added.
 * The shop pages are served here, on another local origin than bpay's. The full flow (pair, split, fill, order) is
 * e2e/extension.e2e.ts's.
 */

const FIXTURES = resolve('web/extension/fixtures');

/** A fixture page served at the path of the URL it declares (the detector reads the URL too). */
function fixture(file: string): { path: string; html: string } {
  const html = readFileSync(join(FIXTURES, file), 'utf8');
  const url = /<meta\s+name="bpay-fixture-url"\s+content="([^"]*)"/i.exec(html)?.[1];
  if (!url) throw new Error(`${file} declares no URL`);
  return { path: new URL(url).pathname, html };
}

// One browser with the extension for the whole file.
test.describe.configure({ mode: 'serial' });

const checkout = fixture('checkout/plain-form.html');
const blog = fixture('other/blog-checkout-ux.html');

let server: Server;
let shop: string;
let ext: ExtensionBrowser;

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const page = [checkout, blog].find((p) => p.path === req.url);
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page?.html ?? 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  shop = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ext = await launchWithExtension();
});

test.afterAll(async () => {
  await ext?.close();
  await new Promise((done) => server?.close(done));
});

test('the extension loads in Chromium: its service worker runs', async () => {
  expect(ext.worker.url()).toMatch(/^chrome-extension:\/\/[a-p]{32}\/background\.js$/);
});

test('a checkout page gets the banner with its total', async () => {
  const page = await ext.context.newPage();
  await page.goto(shop + checkout.path);
  await expect.poll(() => bannerText(ext.context, page), { timeout: 10_000 }).toContain('Split $1,234.50 with bpay');
  // The banner lives in a closed shadow root: the page sees only an empty host element.
  expect(await page.evaluate(() => document.querySelector('bpay-split-banner')?.shadowRoot ?? null)).toBeNull();
  await page.close();
});

test('a page that is not a checkout gets no element, no style', async () => {
  const page = await ext.context.newPage();
  await page.goto(shop + blog.path);
  await page.waitForTimeout(2_000);
  const counts = await page.evaluate((html) => {
    const fresh = new DOMParser().parseFromString(html, 'text/html');
    return {
      now: document.querySelectorAll('*').length,
      served: fresh.querySelectorAll('*').length,
      sheets: document.styleSheets.length,
      servedSheets: fresh.querySelectorAll('style, link[rel=stylesheet]').length,
      adopted: document.adoptedStyleSheets.length,
    };
  }, blog.html);
  expect(counts.now).toBe(counts.served);
  expect(counts.sheets).toBeLessThanOrEqual(counts.servedSheets);
  expect(counts.adopted).toBe(0);
  expect(await bannerText(ext.context, page)).toBeNull();
  await page.close();
});
